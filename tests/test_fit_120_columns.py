"""Every command's text output on the committed runs fits 120 columns: no cut cell, no line a terminal of
that width folds (issue 57). Tables fall back to narrower layouts (render/text.py) and sentences wrap under
their indent (render.text.wrap); a word longer than the width would stay whole, and fail here."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
WIDTH = 120


def lab_runs():
    return sorted(p.name for p in (RESULTS / "runs").iterdir() if "-lab-" in p.name and (p / "metal-aa.txt").is_file())


def commands():
    base, head = lab_runs()[-2:]
    run_dir = RESULTS / "runs" / head
    return {
        "compare run": ["compare", head],
        "compare two runs": ["compare", base, head],
        "compare two files": ["compare", run_dir / "metal.txt", run_dir / "guest-nosmt.txt"],
        "noise": ["noise", head],
        "explain": ["explain", run_dir / "metal.txt", run_dir / "guest-nosmt.txt"],
        "history": ["history"],
        "power": ["power", head, "--target", "container-quota", "--effects", "10", "--trials", "1"],
    }


@pytest.mark.parametrize("name", list(commands()))
def test_text_output_fits_120_columns(name, cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    res = cli("--results-dir", RESULTS, *map(str, commands()[name]))
    assert res.code == 0, res.err
    lines = res.out.splitlines()
    assert len(lines) > 2
    too_wide = [line for line in lines if len(line) > WIDTH]
    assert too_wide == [], f"{len(too_wide)} line(s) over {WIDTH} columns, e.g. {too_wide[0]!r}"
    assert "…" not in res.out  # nothing shortened to fit: a cell or a word is whole or on a line of its own
