"""Layers switched off (vmparity/decide/layers.py): what the ablation table (tests/perf_ablation.py)
measures is the rule without that one layer, on a copy, and the stored run is never touched."""

import shutil
from pathlib import Path

import pytest

from vmparity import table
from vmparity.decide import layers
from vmparity.errors import InputError
from vmparity.power import trials, unlayer
from vmparity.results import inputs, round_record

RUNS = Path(__file__).resolve().parent.parent / "results" / "runs"
# a committed run with added rounds (4 of 14)
RUN = RUNS / "2026-11-28T05-52-05Z-lab-quick"


def test_parse_names_the_unknown_layer():
    assert layers.parse("fast-level, clock-twin") == {layers.FAST_LEVEL, layers.CLOCK_TWIN}
    assert layers.parse("") == frozenset()
    with pytest.raises(InputError, match="'fast' is not a layer"):
        layers.parse("fast")


def test_without_the_fast_level_no_row_is_decided_by_it():
    t = table.build([inputs.load(RUN)], by="target")
    off = table.build([inputs.load(RUN)], by="target", without=frozenset({layers.FAST_LEVEL}))
    tests = {d.test for r in t.rows for d in r.deltas.values()}
    tests_off = {d.test for r in off.rows for d in r.deltas.values()}
    assert "fast level" in tests and "fast level" not in tests_off
    assert off.noise[0].paired.fast is None


def test_without_the_clock_twin_no_row_is_judged_at_an_equal_clock():
    off = table.build([inputs.load(RUN)], by="target", without=frozenset({layers.CLOCK_TWIN}))
    assert not any(d.at_equal_clock for r in off.rows for d in r.deltas.values())
    assert off.noise[0].clock_checks == {}


def _copy(tmp_path, without):
    loaded = inputs.load(RUN)
    copy = tmp_path / RUN.name
    shutil.copytree(RUN, copy)
    unlayer.strip(copy, loaded.files, frozenset(without))
    return copy


def test_without_added_rounds_the_run_holds_its_planned_rounds_only(tmp_path):
    record = round_record.load(RUN)
    added = {r["round"] for r in record["hosts"]["localhost"] if r.get("added")}
    assert added  # the committed run has them
    copy = _copy(tmp_path, {layers.ADDED_ROUNDS})
    rec = round_record.load(copy)
    assert {r["round"] for r in rec["hosts"]["localhost"]}.isdisjoint(added)
    for rf in inputs.load(copy).files:
        for name, b in rf.benchmarks.items():
            assert len(b.values[0]) == len(round_record.rounds_of(rec, rf.target, name)), (rf.target, name)
    assert (RUN / "rounds.json").read_bytes() != (copy / "rounds.json").read_bytes()


def test_power_without_a_layer_names_it_and_leaves_the_run_alone(cli):
    before = {p.name: p.read_bytes() for p in RUN.iterdir()}
    r = cli("power", str(RUN), "--effects", "10", "--trials", "1", "--rows", "5",
            "--target", "container-quota", "--without", "added-rounds,fast-level")
    assert r.code == 0 and "layers switched off: added-rounds, fast-level" in r.out
    assert {p.name: p.read_bytes() for p in RUN.iterdir()} == before
    r = cli("power", str(RUN), "--without", "history-term")
    assert r.code == 2 and "'history-term' is not a layer" in r.err


def test_a_layer_switched_off_changes_the_figures():
    """Not a no-op: without the added rounds the A/A figure of this run is another."""
    on = trials.run_trials(RUN, effects=(5.0,), rows=5, trials=1, targets=["container-quota"])
    off = trials.run_trials(RUN, effects=(5.0,), rows=5, trials=1, targets=["container-quota"],
                            without=frozenset({layers.ADDED_ROUNDS}))
    assert (on.aa_significant, on.aa_rows) != (off.aa_significant, off.aa_rows)
