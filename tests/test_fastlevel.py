"""The fast-level rule beside the paired one (vmparity/decide/fastlevel.py, docs/noise.md
"The fast level"): in a noisy hour, when slow spells hold many of every target's
rounds, a real shift still moves the row's fast level, and the same code stays quiet."""

import math

import pytest

import resultgen as g
from vmparity import table
from vmparity.decide import fastlevel, paired
from vmparity.results import inputs

TARGET = "container-nolimit"
# each target's repetition slow by 20 % in 40 % of the rounds, each target in its own rounds
NOISY_HOUR = dict(count=14, noise=0.003, spells=(0.4, 1.2))


def _beyond(run):
    t = table.build([inputs.load(run)], by="target")
    return t, {(r.name, r.unit): r.deltas[TARGET] for r in t.rows
               if TARGET in r.deltas and r.deltas[TARGET].comparison.significant and not r.deltas[TARGET].within_noise}


def _paired_rule_alone(monkeypatch):
    monkeypatch.setattr(paired.PairedModel, "with_fast", lambda self, fast: self)


@pytest.mark.parametrize("seed", [3, 4])
def test_a_real_5_percent_is_found_at_the_fast_level_when_spells_hold_most_rounds(tmp_path, monkeypatch, seed):
    run = g.lab_run(tmp_path / "r-lab-quick", seed=seed, effect=("Snowflake", 1.05), rounds_record=True, **NOISY_HOUR)
    _, found = _beyond(run)
    snowflake = {k for k in found if "Snowflake" in k[0]}
    assert len(snowflake) == 8 and set(found) == snowflake
    assert all(found[k].verdict == "worse" and 4 < found[k].pct < 6 for k in snowflake)
    # the paired rule alone: the per-round ratios are mostly spell against no spell
    _paired_rule_alone(monkeypatch)
    assert len({k for k in _beyond(run)[1] if "Snowflake" in k[0]}) < 4


def test_the_same_code_in_a_noisy_hour_is_quiet(tmp_path):
    for seed in (3, 5, 7, 11):
        t, found = _beyond(g.lab_run(tmp_path / f"r{seed}-lab-quick", seed=seed, rounds_record=True, **NOISY_HOUR))
        assert found == {}, seed
        assert t.noise[0].paired.beyond_rows == [], seed


def test_the_sensitivity_is_the_better_rules(tmp_path, monkeypatch):
    run = g.lab_run(tmp_path / "r-lab-quick", seed=3, rounds_record=True, **NOISY_HOUR)
    both = table.build([inputs.load(run)], by="target").noise[0].row_mde
    _paired_rule_alone(monkeypatch)
    alone = table.build([inputs.load(run)], by="target").noise[0].row_mde
    assert both.keys() == alone.keys() and all(both[k] <= alone[k] for k in both)
    assert sorted(both.values())[len(both) // 2] < sorted(alone.values())[len(alone) // 2] / 2


def test_the_level_is_the_fast_sides_quartile():
    times = {k: v for k, v in enumerate([10.0, 10.0, 10.1, 10.0, 13, 12, 12.5, 13, 12, 14, 12, 13], 1)}
    lv = fastlevel.level(times, higher_better=False)
    assert math.isclose(math.exp(lv.value), 10.075, rel_tol=1e-4) and lv.n == 12
    rates = {k: 1 / v for k, v in times.items()}  # the same repetitions as a rate: its upper quartile
    assert math.isclose(fastlevel.level(rates, higher_better=True).value, lv.value, rel_tol=1e-9)
    assert fastlevel.level(dict(list(times.items())[:5]), higher_better=False) is None  # too few rounds


def test_a_change_keeps_its_units_direction():
    metal = {k: 10.0 + k / 100 for k in range(1, 9)}
    slower = {k: v * 1.1 for k, v in metal.items()}
    assert math.isclose(fastlevel.against_passes(metal, metal, slower, False).pct, 10, rel_tol=1e-6)
    rate = {k: 1 / v for k, v in metal.items()}
    lower_rate = {k: 1 / v for k, v in slower.items()}
    assert math.isclose(fastlevel.against_passes(rate, rate, lower_rate, True).pct, 100 / 1.1 - 100, rel_tol=1e-6)


def test_the_aa_figure_counts_a_row_either_rule_calls_beyond_once():
    pm = paired.PairedModel(0.05, rows=3, beyond_rows=[("a", "ns/op", 3.0, 0.01)])
    fast = fastlevel.FastModel(beyond_rows=[("a", "ns/op", 2.5, 0.02), ("b", "ns/op", 4.0, 0.01)])
    assert [r[:2] for r in pm.with_fast(fast).beyond_rows] == [("a", "ns/op"), ("b", "ns/op")]
    assert pm.aa_change == {}  # the paired band keeps its own A/A rows


@pytest.mark.parametrize("alpha", [0.05, 0.01, 0.001])
def test_the_fast_level_takes_the_runs_alpha(alpha):
    """Issue 56: at α = 0.01 a row 2.52 λ se from metal's fast level (p ≈ 0.012) was beyond by
    the band (2.5 λ se) and "~" by its p. Now a row beyond at the fast level has p <= α at
    every α, and a row whose p is above α is not beyond."""
    se = 0.01
    for z in (2.4, 2.52, 2.6, 3.0, 3.4):
        model = fastlevel.FastModel(alpha=alpha)
        fe = fastlevel.FastEvidence(z * se, se, 10)
        p = model.p("BenchmarkX", "ns/op", fe)
        if model.beyond("BenchmarkX", "ns/op", fe):
            assert p <= alpha, (z, p)
        if p > alpha:
            assert not model.beyond("BenchmarkX", "ns/op", fe), (z, p)
    at_012 = fastlevel.FastEvidence(2.52 * se, se, 10)
    assert fastlevel.FastModel(alpha=0.05).beyond("BenchmarkX", "ns/op", at_012)  # K_FAST governs at 0.05
    assert not fastlevel.FastModel(alpha=0.01).beyond("BenchmarkX", "ns/op", at_012)
