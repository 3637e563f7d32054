"""An unexplained row held against its own history on the machine (vmparity/history/machine_range.py,
docs/noise.md): the range of the row's level on the machine's other stored runs, and whether
this run's change lies within it."""

import re

import pytest

import resultgen as g
from test_crossrun import make_run
from vmparity.decide import explain
from vmparity.history import machine_range
from vmparity.render import explanation
from vmparity.results import inputs

QUOTA = "container-quota"


@pytest.fixture
def runs(tmp_path):
    d = tmp_path / "runs"
    d.mkdir()
    return d


def _rows(run_dir):
    loaded = inputs.load(run_dir)
    quota = next(rf for rf in loaded.files if rf.target == QUOTA)
    name = next(n for n in quota.sections[0].samples.names if n.startswith("BenchmarkMemcpy"))
    return loaded, name


def _unexplained(*findings):
    return {QUOTA: explain.Result([], list(findings), "metal", QUOTA)}


def test_an_unexplained_row_is_held_against_the_range_of_its_machines_other_runs(runs):
    # four runs where the container stood 0, +3, -2 and +1 % from metal; one of another machine at +50 %
    for i, level in enumerate((0.0, 0.03, -0.02, 0.01)):
        make_run(runs, f"r{i}", 10 + i, only_on=(QUOTA, level), machine="m1")
    make_run(runs, "r9-other-machine", 20, only_on=(QUOTA, 0.5), machine="m2")
    head = make_run(runs, "r5-head", 30, only_on=(QUOTA, 0.2), machine="m1")
    loaded, name = _rows(head)
    new = explain.Finding("", name, "ns/op", 20.0, 0.001, "worse")
    machine_range.attach(head, loaded.files, _unexplained(new))
    seen = new.machine_range
    assert seen.runs == 4  # r0..r3: not the run under test, not the other machine's
    assert -5 < seen.low_pct < -0.5 and 1.5 < seen.high_pct < 6  # the -2 ... +3 % the runs drew, and their noise
    assert "; beyond the " in explanation._change(new)
    assert "% of this machine's 4 other runs)" in explanation._change(new)
    usual = explain.Finding("", name, "ns/op", (seen.low_pct + seen.high_pct) / 2, 0.01, "worse", machine_range=seen)
    assert "; within the " in explanation._change(usual)


def test_the_newest_runs_alone_make_the_range(runs, monkeypatch):
    # an old benchmark put the row 40 % off; the newest runs alone say where it stands now
    make_run(runs, "r0-old", 1, only_on=(QUOTA, 0.4), machine="m1")
    for i in range(1, 5):
        make_run(runs, f"r{i}", 1 + i, machine="m1")
    head = make_run(runs, "r5-head", 9, machine="m1")
    loaded, name = _rows(head)
    levels, used = machine_range.machine_levels(runs, "m1", head, lambda targets: {}, most=4)
    assert used == 4
    row = explain.Finding("", name, "ns/op", 1.0, 0.01, "worse")
    monkeypatch.setattr(machine_range, "RUNS", 4)
    machine_range.attach(head, loaded.files, _unexplained(row))
    assert row.machine_range.runs == 4 and row.machine_range.high_pct < 10


def test_no_range_without_enough_runs_of_one_named_machine(runs):
    for i in range(machine_range.MIN_RUNS - 1):
        make_run(runs, f"r{i}", i, machine="m1")
    head = make_run(runs, "r8-head", 8, machine="m1")
    loaded, name = _rows(head)
    few = explain.Finding("", name, "ns/op", 5.0, 0.01, "worse")
    machine_range.attach(head, loaded.files, _unexplained(few))
    assert few.machine_range is None and "other runs" not in explanation._change(few)
    unnamed = make_run(runs, "r9-unnamed", 9)
    loaded, name = _rows(unnamed)
    nameless = explain.Finding("", name, "ns/op", 5.0, 0.01, "worse")
    machine_range.attach(unnamed, loaded.files, _unexplained(nameless))
    assert nameless.machine_range is None


def test_the_report_gives_each_unexplained_row_its_range_on_the_machine(cli, tmp_path):
    quiet = dict(count=10, noise=0.005, drift=0.08, rounds_record=True, machine="m1")
    for i in range(4):
        g.lab_run(tmp_path / "runs" / f"r{i}-lab-quick", seed=10 + i, **quiet)
    head = g.lab_run(tmp_path / "runs" / "r9-lab-quick", seed=3, effect=("Snowflake", 1.05), **quiet)
    assert cli("report", head, "--out", tmp_path / "out").code == 0
    md = (tmp_path / "out" / "report.md").read_text()
    listed = md[md.index("**Unexplained**"):].split("\n\n")[1].splitlines()
    assert len(listed) == 8 and all(
        "Snowflake" in x and re.search(r"; beyond the [-+]\d\.\d … [-+]\d\.\d % of this machine's 4 other runs\)$", x)
        for x in listed), listed
    counted = "8 of them unexplained (8 beyond their row's range on this machine's other runs)"
    assert counted in md
    noise = cli("noise", head)
    assert noise.code == 0 and "8 unexplained (8 beyond their row's range on this machine's other runs)" in noise.out
