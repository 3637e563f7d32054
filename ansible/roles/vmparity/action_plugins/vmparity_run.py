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


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(("argv", "env", "stdin_file", "wait_for_login"))
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
        deadline = time.monotonic() + wait
        while True:
            start = datetime.datetime.now()
            try:
                # not sudoable: no become, and no terminal (ssh -tt would mix stderr into stdout)
                out = self._low_level_execute_command(cmd, sudoable=False, in_data=data,
                                                      encoding_errors="surrogate_then_replace")
                break
            except AnsibleConnectionFailure:
                if time.monotonic() + self._RETRY_SECONDS > deadline:
                    raise
                time.sleep(self._RETRY_SECONDS)
                reset = getattr(self._connection, "reset", None)
                if reset is not None:
                    reset()
        end = datetime.datetime.now()
        result.update(rc=out["rc"], stdout=out["stdout"].rstrip("\r\n"), stderr=out["stderr"].rstrip("\r\n"),
                      start=str(start), end=str(end), delta=str(end - start), changed=True)
        if out["rc"] != 0:
            result.update(failed=True, msg=f"non-zero return code {out['rc']}")
        return result
