"""A Python file loaded as a module by its path.

The lab's Ansible plugins live in roles, outside any package: an action that
does its module's work in the controller's process, or extends another role's
action, cannot import that file by name, and neither can the tests.
"""
from __future__ import annotations

import importlib.util


def load(name, path):
    """The module named name made from the Python file at path (run once per call)."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path}: not a Python source file")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
