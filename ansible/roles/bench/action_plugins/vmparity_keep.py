# Keeps text in a file on the controller, written by the controller's own
# process: the rounds keep every repetition's output this way (one file per
# target and round, ~90 in a verify run, ~150 in a lab run).
# ansible.builtin.copy with content= takes two module runs in processes of
# their own (stat, then copy) for the same file: 0.6 s a file on the 2-core lab
# machine, and in the rounds the controller has one CPU (isolation).
from __future__ import annotations

import json
import os
import tempfile

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

DOCUMENTATION = r"""
action: vmparity_keep
short_description: Write text into a file on the controller, in the controller's process
description:
  - Writes I(content) to I(dest) on the controller, whatever host the task runs for (an action
    plugin; no module runs anywhere). The file is written beside I(dest) and renamed over it, so a
    reader sees the old file or the new one, never part of one. Its parent directory must exist.
options:
  content:
    description: The text to write, as it is; data (a template of JSON text comes back as data) is written as JSON.
    type: raw
    required: true
  dest: {description: The file on the controller., type: path, required: true}
  mode: {description: Its permissions (octal)., type: raw, default: "0644"}
"""


def keep(content, dest, mode="0644"):
    """Write content to dest (a temporary file beside it, renamed over it); True when it changed."""
    dest = os.path.expanduser(str(dest))
    data = content.encode("utf-8")
    try:
        with open(dest, "rb") as f:
            if f.read() == data and (os.stat(dest).st_mode & 0o7777) == _mode(mode):
                return False
    except FileNotFoundError:
        pass
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(dest) or ".", prefix=f".{os.path.basename(dest)}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, _mode(mode))
        os.replace(tmp, dest)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return True


def _mode(mode):
    return mode if isinstance(mode, int) else int(str(mode), 8)


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(("content", "dest", "mode"))

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        args = self._task.args
        for name in ("content", "dest"):
            if args.get(name) is None:
                raise AnsibleActionFail(f"vmparity_keep: {name} is required")
        content = args["content"]
        if isinstance(content, (dict, list)):
            # a template of JSON text comes back as data (as with copy's content=): written as JSON again
            content = json.dumps(content)
        elif not isinstance(content, str):
            raise AnsibleActionFail(f"vmparity_keep: content must be text, not {type(content).__name__}")
        try:
            mode = _mode(args.get("mode", "0644"))
        except ValueError as e:
            raise AnsibleActionFail(f"vmparity_keep: mode {args.get('mode')!r} is not octal") from e
        result["dest"] = os.path.expanduser(str(args["dest"]))
        if self._task.check_mode:
            result["changed"] = True
            return result
        try:
            result["changed"] = keep(content, result["dest"], mode)
        except OSError as e:
            raise AnsibleActionFail(f"vmparity_keep: {result['dest']}: {e.strerror or e}") from e
        return result
