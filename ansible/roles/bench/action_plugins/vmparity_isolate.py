# The action of the bench role's vmparity_isolate module (library/): on a host
# that is the controller itself (the default lab's metal, a local connection)
# it does the module's work in the controller's own process, and elsewhere it
# runs the module there as usual. The rounds call it twice per repetition of a
# guest (release its qemu, confine it again): as a module, each call is a
# Python start-up and the module's payload, ~0.5 s on the 2-core lab machine
# (a verify run makes ~80 of them, a lab run ~60).
from __future__ import annotations

import os

from ansible.errors import AnsibleActionFail
from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action import ActionBase

from vmparity.lab import source_file

_MODULE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "library", "vmparity_isolate.py")
_CHOICES = ("confined", "restored")


def _module():
    return source_file.load("vmparity_isolate_module", _MODULE)


def runs_here(transport, become):
    """Whether the module's work is done in the controller's process: on a host the controller reaches by
    the local connection (the default lab's metal), without become."""
    return transport in ("local", "ansible.builtin.local") and not become


def params(args, defaults):
    """The module's parameters from the task's arguments, checked as its argument_spec would."""
    unknown = sorted(set(args) - set(defaults))
    if unknown:
        raise ValueError(f"unsupported parameters: {', '.join(unknown)}")
    out = dict(defaults)
    out.update({k: v for k, v in args.items() if v is not None})
    if not out.get("state_file"):
        raise ValueError("missing required arguments: state_file")
    if out["state"] not in _CHOICES:
        raise ValueError(f"state must be one of {', '.join(_CHOICES)}, got {out['state']}")
    out["pin"] = boolean(out["pin"], strict=True)
    for k in ("state_file", "holder", "measuring", "guest_prefix", "guest_match"):
        out[k] = str(out[k])
    return out


class ActionModule(ActionBase):
    TRANSFERS_FILES = False

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        if not runs_here(self._connection.transport, self._play_context.become):
            result.update(self._execute_module(module_name="vmparity_isolate", module_args=self._task.args,
                                               task_vars=task_vars))
            return result
        mod = _module()
        try:
            changed, isolation = mod.apply(params(self._task.args, mod.PARAMS))
        except (ValueError, TypeError, mod.StateError) as e:
            raise AnsibleActionFail(f"vmparity_isolate: {e}") from e
        result.update(changed=changed, isolation=isolation)
        return result
