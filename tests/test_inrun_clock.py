"""Within a run, time at an equal core clock (vmparity/decide/clockcheck.py, docs/noise.md
"Time at an equal core clock, within a run"): synthetic lab runs whose every repetition drew
its own turbo bin, as this host's do, with the clock measured beside each row."""

import math
import random

import resultgen as g
import twin_runs
from vmparity.decide import clockcheck, figures
from vmparity.render import run_figures
from vmparity.render import fmt

TARGET = "container-nolimit"
TARGETS = ("metal", "metal-aa", TARGET)
BINS = (3.6, 3.7, 3.8, 3.9, 4.0, 4.1)  # GHz, 100 MHz apart: what this host's cores move between


def lab_run(run, seed, work=None, clock=None, kind="container", count=10):
    """metal, metal-aa and TARGET in `count` interleaved rounds; every repetition of every target
    runs in a turbo bin of its own draw. Memcpy rows: ns/op, B/s and clocks/op (the work in
    clocks, ± 0.3 %, over the repetition's clock). work: the target's memcpy work × this factor
    (a real difference of its own); clock: the target's every repetition at this factor of its
    drawn clock (a clock the target itself lowers)."""
    rng = random.Random(seed)
    run.mkdir(parents=True)
    for target in TARGETS:
        cfg = dict(g.METAL, target=target, count=str(count))
        if target == TARGET:
            cfg["target-kind"] = kind
        benches = {}
        ghz = [rng.choice(BINS) * (clock if clock and target == TARGET else 1.0) for _ in range(count)]
        for size in g.MEMCPY_SIZES:
            clocks = [size / 16 * (work if work and target == TARGET else 1.0) * rng.gauss(1, 0.003)
                      for _ in range(count)]
            ns = [c / f for c, f in zip(clocks, ghz)]
            benches[f"BenchmarkMemcpy/link=static/tunable=default/size={size}"] = {
                "ns/op": ns, "B/s": [size / t * 1e9 for t in ns], "clocks/op": clocks}
        g.write(run / f"{target}.txt", cfg, benches)
    return twin_runs.write_rounds(run, seed, TARGETS, count)


def test_turbo_bins_alone_are_not_a_difference(tmp_path):
    for seed in (1, 2, 3):
        t = twin_runs.table_of(lab_run(tmp_path / f"r{seed}-lab-quick", seed))
        check = figures.clock_checks(t)[TARGET]
        assert check.at_equal_clock and check.rounds == 10 and math.isfinite(check.mde), seed
        assert all(twin_runs.beyond(t, TARGET, u) == {} for u in ("ns/op", "B/s", "clocks/op")), seed


def test_a_5_percent_slower_container_is_found_in_its_time_rows_through_the_turbo_bins(tmp_path):
    t = twin_runs.table_of(lab_run(tmp_path / "r-lab-quick", 4, work=1.05))
    ns, bps = twin_runs.beyond(t, TARGET, "ns/op"), twin_runs.beyond(t, TARGET, "B/s")
    assert len(ns) == len(bps) == len(g.MEMCPY_SIZES)
    assert all(d.at_equal_clock and d.verdict == "worse" and 4 < d.pct < 6 for d in ns.values())
    assert all(d.at_equal_clock and d.verdict == "worse" and -6 < d.pct < -4 for d in bps.values())
    # the time rows' own ratios, whose repetitions drew bins 14 % apart, hide most of it
    mde = {f.unit: f.median for f in figures.sensitivity(t) if f.target == TARGET}
    assert mde["ns/op"] == mde["clocks/op"] < 3


def test_a_target_that_lowers_its_own_clock_keeps_its_time_rows_as_measured(tmp_path):
    t = twin_runs.table_of(lab_run(tmp_path / "r-lab-quick", 5, clock=0.9))
    check = figures.clock_checks(t)[TARGET]
    assert check.differs and not check.why_not and -16 < check.pct < -5
    ns = twin_runs.beyond(t, TARGET, "ns/op")
    assert len(ns) == len(g.MEMCPY_SIZES) and all(not d.at_equal_clock and 5 < d.pct < 20 for d in ns.values())
    assert twin_runs.beyond(t, TARGET, "clocks/op") == {}  # the same work, in clocks
    assert "beyond noise, so its time rows are compared as measured" in run_figures.clock_sentence(check)


def test_an_emulated_guests_clock_is_not_checked(tmp_path):
    t = twin_runs.table_of(lab_run(tmp_path / "r-lab-quick", 6, kind="tcg-guest"))
    check = figures.clock_checks(t)[TARGET]
    assert check.differs and check.why_not == clockcheck.EMULATED
    assert not any(d.at_equal_clock for r in t.rows for d in r.deltas.values())


def test_changes_at_an_equal_clock_are_marked_where_they_are_shown(tmp_path):
    t = twin_runs.table_of(lab_run(tmp_path / "r-lab-quick", 4, work=1.05))
    twin_runs.assert_marked(t, fmt.EQUAL_CLOCK_MARK, "at an equal core clock", "at-equal-clock", "clocks/op")


def test_the_clock_of_a_repetition_is_the_median_of_its_rows():
    per_round = {("a", "ns/op"): {1: 10.0, 2: 10.0}, ("a", "clocks/op"): {1: 40.0, 2: 38.0},
                 ("b", "ns/iter"): {1: 2.0, 2: 2.0}, ("b", "clocks/iter"): {1: 8.2, 2: 7.6},
                 ("c", "ns/op"): {1: 5.0, 2: 5.0}, ("c", "clocks/op"): {1: 19.0, 2: 19.0},
                 ("d", "B/s"): {1: 1.0, 2: 1.0}}  # a throughput: not a clock estimate
    clocks = clockcheck.round_clock(per_round)
    assert clocks[1] == 4.0 and round(clocks[2], 6) == 3.8


def test_only_rows_with_their_twin_in_every_round_are_put_at_an_equal_clock():
    from vmparity.decide import coreclock

    per_round = {("a", "ns/op"): {1: 10.0, 2: 11.0}, ("a", "B/s"): {1: 5.0, 2: 4.0}, ("a", "clocks/op"): {1: 40.0, 2: 50.0},
                 ("b", "ns/op"): {1: 3.0, 2: 3.0}, ("b", "clocks/op"): {1: 12.0},  # a round without its twin
                 ("c", "ns/op"): {1: 3.0, 2: 3.0}}  # no twin at all
    keys = coreclock.twinned_rows(per_round)
    assert keys == {("a", "ns/op"), ("a", "B/s")}
    out = coreclock.per_round_at_equal_clock(per_round, keys)
    assert out[("a", "ns/op")] == {1: 40.0, 2: 50.0} and out[("a", "B/s")] == {1: 1 / 40.0, 2: 1 / 50.0}
    assert out[("b", "ns/op")] is per_round[("b", "ns/op")] and out[("c", "ns/op")] is per_round[("c", "ns/op")]
    assert per_round[("a", "ns/op")] == {1: 10.0, 2: 11.0}  # the input is left as it was
