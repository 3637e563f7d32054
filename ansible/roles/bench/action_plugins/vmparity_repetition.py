# One repetition of a target in one task: benchrun through the target's shell
# (the vmparity role's vmparity_run), its output kept on the controller
# (vmparity_keep), its start and end noted beside the round's others, and, on
# the default lab whose metal host is the controller itself, the guest's qemu
# released while it is measured and confined again afterwards
# (vmparity_isolate's work, in this process). Each of those was a task of its
# own, and a task costs the controller 0.06-0.11 s whatever it does (forking a
# worker, templating, callbacks): a verify run's 80 repetitions spent 46 s in
# the tasks around benchrun (docs/notes/lab-verify.md).
from __future__ import annotations

import functools
import json
import os

from ansible.errors import AnsibleActionFail, AnsibleConnectionFailure

from vmparity.lab import rounds, source_file

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROLES = os.path.dirname(os.path.dirname(_HERE))


_run = source_file.load("vmparity_run_action", os.path.join(_ROLES, "vmparity", "action_plugins", "vmparity_run.py"))
_keep = source_file.load("vmparity_keep_action", os.path.join(_HERE, "vmparity_keep.py"))
_isolate = source_file.load("vmparity_isolate_action", os.path.join(_HERE, "vmparity_isolate.py"))

DOCUMENTATION = r"""
action: vmparity_repetition
short_description: Run benchrun once on a target and keep its output on the controller
description:
  - Runs I(argv) on the target as vmparity_run does (its options are the same), then writes its stdout,
    with the header's C(target:) set to I(target), to I(keep) on the controller (as vmparity_keep does).
  - A target the connection cannot reach fails the task (C(<target> (<host>) is unreachable: ...)), so a
    block's rescue records it and the host's other targets go on; the host is not taken out of the play.
  - With I(isolate), the qemu of the guest I(isolate.measuring) gets its CPUs back before the run and is
    confined again after it, whatever happened (vmparity_isolate's work, done in the controller's process):
    only for a play host the controller reaches by the local connection; elsewhere the rounds run
    vmparity_isolate as tasks of their own.
options:
  target: {description: The target's name for the result's header and the messages., type: str, required: true}
  keep: {description: The file on the controller that gets the output (its directory must exist)., type: path, required: true}
  timings:
    description: A JSON file on the controller whose object gets I(target)'s start and end (and clock-retried).
    type: path
  isolate:
    description: vmparity_isolate's state_file, holder, measuring (the guest's domain) and guest_match.
    type: dict
"""

_OWN = frozenset(("target", "keep", "timings", "isolate"))


@functools.lru_cache(maxsize=None)
def _isolation_module():
    return _isolate._module()


def note_times(path, target, result):
    """Add target's start and end (the controller's clock around the run, and why it was run again if
    its own clock disagreed) to the JSON object in path, a file per host and round: the round's
    record takes them from there (round.yml). A host measures one target at a time, so no two
    repetitions write one file at once."""
    path = os.path.expanduser(str(path))
    try:
        with open(path, encoding="utf-8") as f:
            times = json.load(f)
    except FileNotFoundError:
        times = {}
    if not isinstance(times, dict):
        raise ValueError("not a JSON object of targets' times")
    times[target] = {"start": result["start"], "end": result["end"]}
    if result.get("clock_retried"):
        times[target]["clock-retried"] = result["clock_retried"]
    _keep.keep(json.dumps(times, indent=1, sort_keys=True), path)


class ActionModule(_run.ActionModule):
    _VALID_ARGS = _run.ActionModule._VALID_ARGS | _OWN

    def run(self, tmp=None, task_vars=None):
        args = self._task.args
        target, dest, isolate, timings = args.get("target"), args.get("keep"), args.get("isolate"), args.get("timings")
        if not target or not dest:
            raise AnsibleActionFail("vmparity_repetition: target and keep are required")
        if isolate is not None and not isinstance(isolate, dict):
            raise AnsibleActionFail("vmparity_repetition: isolate must be a dict of vmparity_isolate's options")
        host = self._task.delegate_to or (task_vars or {}).get("inventory_hostname", "the target")
        self._task.args = {k: v for k, v in args.items() if k not in _OWN}
        try:
            if isolate:
                self._isolation(dict(isolate))
            result = super().run(tmp, task_vars)
        except AnsibleConnectionFailure as e:
            # a guest that died must not take its metal host out of the play (delegate_to would mark
            # the play host unreachable): a failure, which the rounds record, and the others go on
            return {"failed": True, "unreachable_target": True, "msg": f"{target} ({host}) is unreachable: {e}"}
        finally:
            self._task.args = args
            if isolate:
                self._isolation({k: v for k, v in isolate.items() if k != "measuring"})
        if result.get("failed") or result.get("skipped"):
            return result
        try:
            _keep.keep(rounds.relabel(result["stdout"], target) + "\n", dest)
            if timings:
                note_times(timings, target, result)
        except OSError as e:
            raise AnsibleActionFail(f"vmparity_repetition: {e.filename or dest}: {e.strerror or e}") from e
        except ValueError as e:
            raise AnsibleActionFail(f"vmparity_repetition: {timings}: {e}") from e
        result["dest"] = os.path.expanduser(str(dest))
        return result

    @staticmethod
    def _isolation(options):
        """Release options['measuring'] (or, without it, confine every guest again) in this process."""
        mod = _isolation_module()
        try:
            mod.apply(_isolate.params(options, mod.PARAMS))
        except (ValueError, TypeError, mod.StateError) as e:
            raise AnsibleActionFail(f"vmparity_isolate: {e}") from e
