"""The stored runs the studies in tests/perf_*.py were measured on, taken from the repository's history.

results/runs/ keeps the runs the tests, the docs and CI cite and a few reference runs (results/README.md);
the other runs the lab stored while its method was tuned left the tree at commit ARCHIVE's child. The
studies (make bench-crossrun, bench-ablation, bench-record-memory) and the dated notes (docs/notes/) still
name them, and their figures depend on every run of that history (the cross-run bands read all the runs
of a machine), so a study reads results/ as it was at ARCHIVE: extracted once with `git archive` into
build/archived-results/<commit>/results (about 130 MB), or the working tree's results/ when it holds
every run asked for. A clone without that commit (a shallow one) is told how to fetch it.
"""

import shutil
import subprocess
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARCHIVE = "c9e56a95f57462777ddf3f26f62bd6ce342e0cbf"  # the last commit with all 96 runs in results/runs/


def results_dir(runs=()):
    """A results directory holding every run id of `runs`: the repository's results/ when it does, else
    results/ as it was at ARCHIVE (extracted on first use). Empty `runs`: always the archived one."""
    here = ROOT / "results"
    if runs and all((here / "runs" / r).is_dir() for r in runs):
        return here
    out = ROOT / "build" / "archived-results" / ARCHIVE[:12]
    if not (out / "results" / "runs").is_dir():
        have = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{ARCHIVE}^{{commit}}"],
                              capture_output=True)
        if have.returncode != 0:
            raise SystemExit(f"the archived runs are in commit {ARCHIVE[:12]}, which this clone lacks "
                             "(a shallow clone?): git fetch --unshallow")
        tmp = out.with_name(out.name + ".tmp")
        # an extraction cut off earlier leaves part of the tree: start again from nothing
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        git = subprocess.Popen(["git", "-C", str(ROOT), "archive", "--format=tar", ARCHIVE, "results"],
                               stdout=subprocess.PIPE)
        with tarfile.open(fileobj=git.stdout, mode="r|") as tar:
            tar.extractall(tmp, filter="data")
        if git.wait() != 0:
            raise SystemExit(f"git archive {ARCHIVE[:12]} results failed")
        tmp.rename(out)
    missing = [r for r in runs if not (out / "results" / "runs" / r).is_dir()]
    if missing:
        raise SystemExit(f"no run {', '.join(missing)} in results/ nor in commit {ARCHIVE[:12]}")
    return out / "results"
