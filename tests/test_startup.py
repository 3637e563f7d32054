"""`vmparity compare` of two plain files starts without what it does not use.

Start-up is most of a short command's time (`make bench-startup`), and most
of start-up is imports: the cross-run judge, the A/A and in-run judges, the
rounds record (jsonschema) and the renderers of other formats apply only to
lab runs or other formats, and are imported where they apply. numpy stays:
the parser packs the samples and the statistics are vectorised on it.
"""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FILES = [str(ROOT / "tests/testdata/gotest/old.txt"), str(ROOT / "tests/testdata/gotest/new.txt")]
NOT_FOR_TWO_FILES = [
    "scipy", "rich", "matplotlib", "markdown_it", "jsonschema",
    "vmparity.decide.crossrun", "vmparity.decide.noise",
    "vmparity.decide.bandwidth", "vmparity.decide.clockcheck", "vmparity.decide.figures",
    "vmparity.table.paired_rounds", "vmparity.results.round_record",
    "vmparity.render.crossrun_md", "vmparity.render.markdown", "vmparity.render.csvfmt", "vmparity.render.jsonfmt",
]


def imported_by(argv):
    code = ("import io, sys\nfrom vmparity.cli import main\n"
            f"code = main({argv!r}, io.StringIO(), io.StringIO())\n"
            "print(code, ' '.join(sorted(sys.modules)))\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert res.returncode == 0, res.stderr
    code, modules = res.stdout.split(" ", 1)
    return int(code), set(modules.split())


@pytest.mark.parametrize("fmt", ["text", "csv"])
def test_compare_of_two_files_imports_no_judge_of_runs_nor_other_renderers(fmt):
    code, modules = imported_by(["compare", "--format", fmt, *FILES])
    assert code == 0
    wanted = {"text": "vmparity.render.text", "csv": "vmparity.render.csvfmt"}[fmt]
    assert wanted in modules  # the check sees the process's modules: the renderer it used is among them
    assert sorted(m for m in NOT_FOR_TWO_FILES if m in modules and m != wanted) == []


def test_two_runs_still_get_the_cross_run_judge():
    """The lazy import is not a lost judgement: two stored runs are judged across runs as before."""
    runs = sorted(p.name for p in (ROOT / "results/runs").iterdir() if "-lab-" in p.name)[-2:]
    code, modules = imported_by(["--results-dir", str(ROOT / "results"), "compare", *runs])
    assert code == 0 and "vmparity.decide.crossrun" in modules
