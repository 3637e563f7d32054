"""The planted-effect check (vmparity power): known shifts planted into a copy of a run are
counted right, the run itself is never touched, and the figures are reproducible."""

import json
from pathlib import Path

import pytest

import resultgen
from vmparity.power import plant, trials


def _run(tmp_path, **kw):
    return resultgen.lab_run(tmp_path / "run", seed=4, count=6, noise=0.005, **kw)


def test_plant_scales_time_up_and_throughput_down_and_leaves_counts():
    text = "BenchmarkX/a=1\t100\t10 ns/op\t2e9 B/s\t7 insns/iter\nBenchmarkY\t1\t5 ns/op"
    out = plant.scale_lines(text, {"BenchmarkX/a=1"}, 10.0, ["B/s"]).split("\n")
    fields = out[0].split("\t")
    assert float(fields[2].split()[0]) == pytest.approx(11.0)
    assert float(fields[3].split()[0]) == pytest.approx(2e9 / 1.1)
    assert fields[4] == "7 insns/iter" and out[1] == "BenchmarkY\t1\t5 ns/op"
    assert plant.factor(-10) == pytest.approx(1 / 1.1)  # a speed-up is the same factor the other way


def test_large_planted_effects_are_found_and_counted_per_row(tmp_path):
    run = _run(tmp_path)
    before = {p.name: p.read_bytes() for p in run.iterdir()}
    res = trials.run_trials(run, effects=(20.0, -20.0), rows=5, trials=2, seed=3)
    assert res.baseline == "metal" and list(res.run_beyond) == ["container-nolimit"]
    for e in res.effects:
        # 5 benchmarks a trial; memcpy has two speed units, the others one
        assert 10 <= e.planted <= 20 and e.found == e.planted, (e.effect, e.found, e.planted)
        assert e.detectable == e.planted and e.detectable_found == e.found
        assert e.unplanted_beyond == 0
    assert {p.name: p.read_bytes() for p in run.iterdir()} == before  # planted into a copy only


def test_unit_counts_only_the_rows_of_matching_units(tmp_path, cli):
    run = _run(tmp_path)
    every = trials.run_trials(run, effects=(20.0,), rows=5, trials=2, seed=3)
    ns = trials.run_trials(run, effects=(20.0,), rows=5, trials=2, seed=3, units="^ns/")
    bps = trials.run_trials(run, effects=(20.0,), rows=5, trials=2, seed=3, units="^B/s$")
    # the same benchmarks are planted; the rows counted split by unit
    assert 0 < ns.effects[0].planted < every.effects[0].planted
    assert ns.effects[0].planted + bps.effects[0].planted == every.effects[0].planted
    assert ns.effects[0].found == ns.effects[0].planted
    r = cli("power", run, "--unit", "^ns/", "--effects", "20", "--rows", "5", "--trials", "1")
    assert r.code == 0 and "counted: the rows whose unit matches '^ns/'" in r.out


@pytest.mark.parametrize("pattern, word", [("(", "not a regular expression"), ("^furlongs/", "matches no speed unit")])
def test_a_unit_pattern_that_cannot_count_anything_is_refused(tmp_path, cli, pattern, word):
    r = cli("power", _run(tmp_path), "--unit", pattern)
    assert r.code == 2 and "--unit" in r.err and word in r.err


def test_an_effect_below_the_noise_is_not_found(tmp_path):
    res = trials.run_trials(_run(tmp_path), effects=(0.2,), rows=10, trials=2, seed=3)
    (e,) = res.effects
    assert e.planted > 0 and e.found == 0 and e.detectable == 0


def test_rows_that_already_differ_are_not_planted_into(tmp_path):
    # the container's snowflake rows are 30 % slower than metal already: +20 % more says nothing of power
    res = trials.run_trials(_run(tmp_path, effect=("Snowflake", 1.3)), effects=(20.0,), rows=50, trials=1, seed=3)
    (e,) = res.effects
    assert res.excluded["container-nolimit"] == 8  # the eight snowflake benchmarks
    assert e.planted > 0 and e.found == e.planted
    assert e.unplanted == e.unplanted_beyond == 8  # the snowflake rows stay beyond, unplanted


def test_a_run_decided_round_by_round_reports_that_rules_false_alarms(tmp_path):
    run = resultgen.lab_run(tmp_path / "r-lab-quick", seed=4, count=10, noise=0.005, drift=0.08, rounds_record=True)
    res = trials.run_trials(run, effects=(5.0,), rows=10, trials=2, seed=3)
    assert res.paired and res.aa_rows > 0 and res.aa_significant == 0
    (e,) = res.effects
    assert e.found == e.planted  # ±8 % drift shared by the round: the paired rule sees 5 %


def test_seeded_and_reproducible(tmp_path, cli):
    run = _run(tmp_path)
    a = cli("power", run, "--effects", "5,-5", "--rows", "6", "--trials", "2", "--format", "json")
    b = cli("power", run, "--effects", "5,-5", "--rows", "6", "--trials", "2", "--format", "json")
    assert a.code == 0 and a.out == b.out
    doc = json.loads(a.out)
    assert doc["schema"] == "vmparity-power/1" and [e["effect-pct"] for e in doc["effects"]] == [5.0, -5.0]
    c = cli("power", run, "--effects", "5,-5", "--rows", "6", "--trials", "2", "--seed", "9", "--format", "json")
    assert c.out != a.out
    text = cli("power", run, "--rows", "3", "--trials", "1")
    assert text.code == 0 and "false alarms: the A/A control" in text.out and "container-nolimit" in text.out


@pytest.mark.parametrize("args, word", [
    (["--target", "metal-aa"], "--target"),
    (["--target", "nope"], "--target"),
    (["--effects", "0"], "--effects"),
    (["--effects", "x"], "--effects"),
    (["--rows", "0"], "--rows"),
])
def test_bad_options_are_usage_errors(tmp_path, cli, args, word):
    r = cli("power", _run(tmp_path), *args)
    assert r.code == 2 and word in r.err


def test_a_run_without_an_aa_control_is_refused(tmp_path, cli):
    run = _run(tmp_path)
    (run / "metal-aa.txt").unlink()
    r = cli("power", run)
    assert r.code == 2 and "A/A control" in r.err


COMMITTED = Path(__file__).resolve().parent.parent / "results" / "runs" / "2026-11-24T08-24-57Z-lab-quick"


def test_on_a_committed_lab_run_recall_grows_with_the_effect_and_false_alarms_stay_rare():
    """The tool on a real run (a correctness test of vmparity, not a benchmark of the machine):
    a larger planted effect is found at least as often, the rows the run claims it could see are
    mostly found, and unplanted rows stay as quiet as the run was before planting."""
    res = trials.run_trials(COMMITTED, targets=["container-nolimit"], effects=(5.0, 20.0), rows=25, trials=2, seed=1)
    small, large = res.effects
    assert large.recall >= small.recall > 0
    assert large.detectable_found >= 0.8 * large.detectable > 0
    beyond, rows = res.run_beyond["container-nolimit"]
    for e in res.effects:
        assert e.unplanted_beyond / e.unplanted <= max(0.05, 2 * beyond / rows)
