# Runs one program on the target through its shell, with no Python there: the
# rounds run benchrun this way on every target, one repetition at a time, the
# guests role reads a guest's clock and view, the bench role streams its
# binaries in. ansible.builtin.command starts Python on the target for every
# run, and a TCG guest emulates that start-up (the interpreter, the module's
# payload, its imports) instruction by instruction, for seconds each time.
from __future__ import annotations

import datetime
import os
import re
import shlex
import time

from ansible.errors import AnsibleActionFail, AnsibleConnectionFailure
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

display = Display()

DOCUMENTATION = r"""
action: vmparity_run
short_description: Run a program on the target through its shell (no Python on the target)
description:
  - Runs I(argv) on the target with I(env) added to its environment, through the connection's shell
    (C(export NAME=value; argv...)), every word quoted; returns rc, stdout and stderr as
    ansible.builtin.command does (trailing newlines stripped), and fails on a non-zero rc.
  - I(start) and I(end) are the controller's clock around the run (the format of command's), so
    that every target of a run is timed on one clock, whatever the target's clock says.
  - With become, it runs the command module instead (the shell path would need a terminal for it,
    which would mix stderr into stdout); I(stdin_file) is then refused.
options:
  argv: {description: The program and its arguments., type: list, elements: str, required: true}
  env: {description: Variables to add to its environment., type: dict, default: {}}
  stdin_file:
    description: A file on the controller whose bytes are the program's standard input (an archive to unpack).
    type: path
  wait_for_login:
    description:
      - Seconds to keep trying while the connection cannot log in (a guest that just booted), the connection
        reset between tries; 0 fails at once. ansible.builtin.wait_for_connection would do it with the ping
        module, that is Python's start-up on the target, and it resets a working connection before its
        first try (15 s for two KVM guests of the nested host, where this takes under 1 s once they answer).
    type: float
    default: 0
  clock_check:
    description:
      - A regular expression for the program's stderr whose first group is the seconds the program ran by
        the target's own clock (benchrun's last line, C(in 12.3s)). When that and the controller's time
        around the run disagree beyond I(clock_ratio) times the other plus I(clock_slack) seconds (what
        starting a program over the connection can add), the target's clock did not keep time, and what
        the program timed by it is wrong: the run is made once more, and fails when the clock disagrees
        again. A freshly booted KVM guest of a nested host whose TSC the host did not trust ran its clock
        a thousand times slow (docs/notes/lab-timings.md). Nothing is checked when the line is missing.
    type: str
  clock_ratio: {description: See I(clock_check)., type: float, default: 1.5}
  clock_slack: {description: Seconds; see I(clock_check)., type: float, default: 10}
"""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def shell_command(argv, env=None):
    """The shell command line that runs argv with env added, every word quoted."""
    if not argv:
        raise ValueError("argv is empty")
    words = " ".join(shlex.quote(str(a)) for a in argv)
    env = env or {}
    for name in env:
        if not _NAME.match(str(name)):
            raise ValueError(f"{name!r} is not a variable name")
    if not env:
        return words
    return "export " + " ".join(f"{k}={shlex.quote(str(v))}" for k, v in env.items()) + "; " + words


def clock_disagreement(pattern, stderr, controller_s, ratio=1.5, slack=10.0):
    """Why the target's own timing of a run (the last match of pattern in its stderr) cannot be the
    run the controller timed as controller_s seconds, or None when they agree or it said nothing."""
    said = None
    for said in re.finditer(pattern, stderr, re.M):
        pass
    if said is None:
        return None
    target_s = float(said.group(1))
    if controller_s > ratio * target_s + slack:
        how = "slow"
    elif target_s > ratio * controller_s + slack:
        how = "fast"
    else:
        return None
    return (f"the target's clock ran {how}: the program timed itself at {target_s:.1f} s, "
            f"the controller timed the run at {controller_s:.1f} s")


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(("argv", "env", "stdin_file", "wait_for_login", "clock_check", "clock_ratio",
                             "clock_slack"))
    _RETRY_SECONDS = 2

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        argv, env = self._task.args.get("argv"), self._task.args.get("env") or {}
        if not isinstance(argv, list) or not argv:
            raise AnsibleActionFail("vmparity_run: argv must be a non-empty list")
        if not isinstance(env, dict):
            raise AnsibleActionFail("vmparity_run: env must be a dict")
        try:
            cmd = shell_command(argv, env)
        except ValueError as e:
            raise AnsibleActionFail(f"vmparity_run: {e}") from e
        result["cmd"] = [str(a) for a in argv]
        if self._task.check_mode:
            result["skipped"] = True
            return result
        stdin_file, data = self._task.args.get("stdin_file"), None
        if stdin_file:
            if self._play_context.become:
                raise AnsibleActionFail("vmparity_run: stdin_file does not work with become")
            try:
                with open(os.path.expanduser(str(stdin_file)), "rb") as f:
                    data = f.read()
            except OSError as e:
                raise AnsibleActionFail(f"vmparity_run: stdin_file {stdin_file}: {e.strerror or e}") from e
        if self._play_context.become:
            args = {"argv": (["env"] + [f"{k}={v}" for k, v in env.items()] if env else []) + result["cmd"]}
            result.update(self._execute_module(module_name="ansible.builtin.command", module_args=args,
                                               task_vars=task_vars))
            return result
        try:
            wait = float(self._task.args.get("wait_for_login") or 0)
        except (TypeError, ValueError) as e:
            raise AnsibleActionFail(f"vmparity_run: wait_for_login must be a number of seconds: {e}") from e
        clock = self._task.args.get("clock_check")
        try:
            ratio = float(self._task.args.get("clock_ratio", 1.5))
            slack = float(self._task.args.get("clock_slack", 10))
            if clock:
                re.compile(clock)
        except (TypeError, ValueError, re.error) as e:
            raise AnsibleActionFail(f"vmparity_run: clock_check, clock_ratio or clock_slack: {e}") from e
        out, start, end = self._run_logged_in(cmd, data, wait)
        why = clock and out["rc"] == 0 and clock_disagreement(clock, out["stderr"], (end - start).total_seconds(),
                                                              ratio, slack)
        if why:
            # what the program measured by that clock is wrong, and the clock may have been right
            # again a moment later (the guest's first minutes): once more, and kept only if it agrees
            host = self._task.delegate_to or (task_vars or {}).get("inventory_hostname", "the target")
            display.warning(f"{host}: {' '.join(result['cmd'][:1])}: {why}; running it once more")
            result["clock_retried"] = why
            out, start, end = self._run_logged_in(cmd, data, wait)
            why = out["rc"] == 0 and clock_disagreement(clock, out["stderr"], (end - start).total_seconds(),
                                                        ratio, slack)
        result.update(rc=out["rc"], stdout=out["stdout"].rstrip("\r\n"), stderr=out["stderr"].rstrip("\r\n"),
                      start=str(start), end=str(end), delta=str(end - start), changed=True)
        if out["rc"] != 0:
            result.update(failed=True, msg=f"non-zero return code {out['rc']}")
        elif why:
            result.update(failed=True, msg=f"{why}, twice: what it measured by that clock is not kept")
        return result

    def _run_logged_in(self, cmd, data, wait):
        """One run of cmd through the connection, trying again while the login fails for up to wait
        seconds: its output and the controller's clock at its start and end."""
        deadline = time.monotonic() + wait
        while True:
            start = datetime.datetime.now()
            try:
                # not sudoable: no become, and no terminal (ssh -tt would mix stderr into stdout)
                out = self._low_level_execute_command(cmd, sudoable=False, in_data=data,
                                                      encoding_errors="surrogate_then_replace")
                return out, start, datetime.datetime.now()
            except AnsibleConnectionFailure:
                if time.monotonic() + self._RETRY_SECONDS > deadline:
                    raise
                time.sleep(self._RETRY_SECONDS)
                reset = getattr(self._connection, "reset", None)
                if reset is not None:
                    reset()
