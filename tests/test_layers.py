"""The import direction of vmparity's stages ([tool.importlinter] in pyproject.toml,
docs/architecture.md) holds, and a wrong import breaks it: import-linter on a copy
of the package with one bad import per contract. Private names (`_name`) are
checked here too, which import-linter cannot see: no package reaches into
another's internals."""

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT = shutil.which("lint-imports", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
pytestmark = pytest.mark.skipif(LINT is None, reason="import-linter is not installed (the test extra has it)")


def lint(root):
    env = dict(os.environ, PYTHONPATH=str(root))
    return subprocess.run([LINT, "--no-cache", "--no-logo"], cwd=root, env=env, capture_output=True, text=True)


def test_the_contracts_hold():
    r = lint(ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 broken" in r.stdout


BAD = {
    # an early stage importing a later one
    "vmparity/results/inputs.py": "from ..table import build  # noqa\n",
    # a command importing another command
    "vmparity/commands/noise.py": "from . import report  # noqa\n",
    # a consumer reaching into the table's private modules
    "vmparity/history/plot.py": "from ..table._layout import Layout  # noqa\n",
}


def test_a_wrong_import_breaks_its_contract(tmp_path):
    shutil.copytree(ROOT / "vmparity", tmp_path / "vmparity", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    for path, line in BAD.items():
        with open(tmp_path / path, "a", encoding="utf-8") as f:
            f.write(line)
    r = lint(tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "3 broken" in r.stdout, r.stdout
    for contract in ("Stages import only earlier stages", "never another command", "_private modules"):
        assert f"{contract}" in r.stdout and "BROKEN" in r.stdout
    assert "vmparity.results.inputs -> vmparity.table" in r.stdout
    assert "vmparity.commands.noise -> vmparity.commands.report" in r.stdout
    assert "vmparity.history.plot -> vmparity.table._layout" in r.stdout


def _package(module):
    """vmparity.table._rowstore -> vmparity.table; vmparity.cli -> vmparity.cli."""
    return ".".join(module.split(".")[:2])


def _module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    is_pkg = parts[-1] == "__init__"
    if is_pkg:
        parts.pop()
    return ".".join(parts), is_pkg


def _resolve(module, is_pkg, level, name):
    base = module.split(".") if is_pkg else module.split(".")[:-1]
    if level:
        base = base[: len(base) - (level - 1)]
        return ".".join(base + ([name] if name else []))
    return name


def private_name_uses():
    """(file, line, what) for each use of another package's `_name`."""
    out = []
    modules = {_module_name(p)[0] for p in (ROOT / "vmparity").rglob("*.py")}
    for path in sorted((ROOT / "vmparity").rglob("*.py")):
        me, is_pkg = _module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = {}  # local name -> vmparity module
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                src = _resolve(me, is_pkg, node.level, node.module)
                if not src or not src.startswith("vmparity"):
                    continue
                for a in node.names:
                    full = f"{src}.{a.name}"
                    if full in modules:
                        aliases[a.asname or a.name] = full
                    elif a.name.startswith("_") and not a.name.startswith("__") and _package(src) != _package(me):
                        out.append((path.name, node.lineno, f"from {src} import {a.name}"))
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith("vmparity.") and a.asname:
                        aliases[a.asname] = a.name
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases \
                    and node.attr.startswith("_") and not node.attr.startswith("__"):
                target = aliases[node.value.id]
                if _package(target) != _package(me):
                    out.append((str(path.relative_to(ROOT)), node.lineno, f"{target}.{node.attr}"))
    return out


def test_no_package_uses_another_packages_private_names():
    assert private_name_uses() == []
