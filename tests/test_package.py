"""The package's own metadata: one version, `python -m vmparity`, and runtime
code that imports only the declared runtime dependencies."""

import subprocess
import sys
import tomllib
from pathlib import Path

import vmparity

ROOT = Path(__file__).resolve().parents[1]
RUNTIME_COMMANDS = ["check", "compare", "explain", "ingest", "noise", "pr_comment", "lab"]


def test_version_is_written_once_and_printed(cli):
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in meta["project"] and "version" in meta["project"]["dynamic"]
    assert meta["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "vmparity.__version__"}
    res = cli("--version")
    assert res.code == 0 and res.out == f"vmparity {vmparity.__version__}\n"


def test_python_dash_m_runs_the_cli():
    res = subprocess.run([sys.executable, "-m", "vmparity", "--version"], capture_output=True, text=True,
                         cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert res.returncode == 0 and res.stdout == f"vmparity {vmparity.__version__}\n", res.stderr


def test_runtime_commands_import_no_test_or_report_dependency():
    """scipy is the tests' cross-check, matplotlib and markdown-it the report extra's."""
    code = (
        "import importlib, sys\n"
        f"for c in {RUNTIME_COMMANDS!r}: importlib.import_module('vmparity.commands.' + c)\n"
        "print(' '.join(m for m in ('scipy', 'matplotlib', 'markdown_it') if m in sys.modules))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == ""


def test_runtime_dependencies_are_declared():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {d.split(">")[0].split("<")[0].split("=")[0].lower() for d in deps["dependencies"]}
    # jsonschema: `noise` and `report` read a run's verify plan beside the variant files' schemas, so an
    # analyst's `pip install vmparity` without the lab extra must bring it (it did not: ModuleNotFoundError)
    assert names == {"numpy", "pyyaml", "jinja2", "jsonschema", "referencing"}
    assert any(d.startswith("scipy") for d in deps["optional-dependencies"]["test"])
    assert {"report", "lab", "test"} <= set(deps["optional-dependencies"])
