"""results/runs/ keeps the project's runs and ignores a user's (results/README.md, "The project's runs, and
yours"): the runs .gitignore lets through, the runs results/README.md lists and the runs the repository
holds are the same, and every stored run the tests, the code, CI and the user's docs name is among them."""

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUN_ID = re.compile(r"\b20\d\d-\d\d-\d\dT\d\d-\d\d-\d\dZ-[a-z]+-[a-z]+(?:-[ab])?\b")
ALLOWED = re.compile(r"^!/results/runs/([^/\s]+)/$", re.M)
# what cites a run and must find it in a fresh clone (the dated notes, docs/noise.md, docs/method.md and the
# perf studies read the runs they name from the history: tests/archived_runs.py)
CITERS = ["README.md", "docs/tutorial.md", "docs/formats.md", "action.yml", ".github/**/*.yml", "tests/test_*.py",
          "tests/hostile_record_cases.py", "vmparity/**/*.py", "vmparity/**/*.yaml", "mk/*.mk", "Makefile"]


def allowed():
    return set(ALLOWED.findall((ROOT / ".gitignore").read_text(encoding="utf-8")))


def listed():
    text = (ROOT / "results" / "README.md").read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    return {m for line in rows for m in RUN_ID.findall(line.split("|")[1])}


def tracked():
    r = subprocess.run(["git", "-C", str(ROOT), "ls-files", "results/runs"], capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout:
        pytest.skip("not a git checkout")
    return {line.split("/")[2] for line in r.stdout.splitlines()}


def test_gitignore_readme_and_the_tree_name_the_same_runs():
    assert allowed() == listed()
    assert allowed() == tracked()
    assert all((ROOT / "results" / "runs" / r).is_dir() for r in allowed())


def test_a_users_run_is_ignored_and_a_projects_run_is_not():
    r = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q", "results/runs/2099-01-01T00-00-00Z-lab-quick"])
    if r.returncode == 128:
        pytest.skip("not a git checkout")
    assert r.returncode == 0
    kept = sorted(allowed())[0]
    assert subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q", f"results/runs/{kept}"]).returncode == 1
    assert subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q",
                           f"results/runs/{kept}/report.html"]).returncode == 0


def test_every_stored_run_that_is_cited_is_kept():
    # a run id names a stored run when the repository ever held it (the synthetic ids of tests never were)
    import archived_runs
    r = subprocess.run(["git", "-C", str(ROOT), "ls-tree", "--name-only", archived_runs.ARCHIVE, "results/runs/"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip("the archive commit is not in this clone")
    ever = {line.split("/")[-1] for line in r.stdout.split()}
    cited = {}
    for pattern in CITERS:
        for f in ROOT.glob(pattern):
            for run in RUN_ID.findall(f.read_text(encoding="utf-8")):
                cited.setdefault(run, str(f.relative_to(ROOT)))
    gone = {run: where for run, where in cited.items() if run in ever and run not in allowed()}
    assert not gone, f"cited but not kept: {gone}"
