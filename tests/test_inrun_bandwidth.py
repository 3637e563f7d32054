"""Within a run, large copies at an equal memory bandwidth (vmparity/decide/bandwidth.py,
docs/noise.md "Large copies at an equal memory bandwidth"): synthetic lab runs whose every
repetition met the host's memory in a state of its own, as this host's do, with the large
copies timed against a copy loop beside them (refcopies/op)."""

import math
import random

import resultgen as g
import twin_runs
from vmparity.decide import bandwidth, figures
from vmparity.render import run_figures
from vmparity.render import fmt
from vmparity.report import run_quality

TARGET = "container-nolimit"
TARGETS = ("metal", "metal-aa", TARGET)
LARGE = (4194304, 10485760, 16777216)  # timed against the reference (bench-src/c/common/refcopy.h)
SMALL = (65536, 1048576)  # not
GHZ = 3.8


def lab_run(run, seed, work=None, memory=None, kind="container", count=10):
    """metal, metal-aa and TARGET in `count` interleaved rounds. Every repetition of every
    target meets the host's memory at a slowness of its own draw (1.0 to 1.35, as the large
    copies here moved from round to round), which slows memcpy and the reference loop beside
    it alike; the loop's ratio varies by ± 1 %. work: the target's memcpy (not its loop) ×
    this factor, a difference of the copy's own; memory: everything the target copies ×
    this factor, its loop too (memory further away)."""
    rng = random.Random(seed)
    run.mkdir(parents=True)
    for target in TARGETS:
        own = target == TARGET
        cfg = dict(g.METAL, target=target, count=str(count))
        if own:
            cfg["target-kind"] = kind
        benches = {}
        spells = [rng.uniform(1.0, 1.35) * (memory if memory and own else 1.0) for _ in range(count)]
        for size in SMALL + LARGE:
            base = size / 20  # ns at 20 B/ns
            ns = [base * (work if work and own else 1.0) * rng.gauss(1, 0.003)
                  * (s if size in LARGE else 1.0) for s in spells]
            row = {"ns/op": ns, "B/s": [size / t * 1e9 for t in ns], "clocks/op": [t * GHZ for t in ns]}
            if size in LARGE:
                ref = [base * s * rng.gauss(1, 0.01) for s in spells]
                row["refcopies/op"] = [t / r for t, r in zip(ns, ref)]
            benches[f"BenchmarkMemcpy/link=static/tunable=default/size={size}"] = row
        g.write(run / f"{target}.txt", cfg, benches)
    return twin_runs.write_rounds(run, seed, TARGETS, count)


def _large(name):
    return int(name.rsplit("=", 1)[1]) in LARGE


def test_the_hosts_memory_spells_alone_are_not_a_difference(tmp_path):
    for seed in (1, 2, 3):
        t = twin_runs.table_of(lab_run(tmp_path / f"r{seed}-lab-quick", seed))
        check = figures.bandwidth_checks(t)[TARGET]
        assert not check.differs and check.rounds == 10 and math.isfinite(check.mde), seed
        assert all(twin_runs.beyond(t, TARGET, u) == {} for u in ("ns/op", "B/s", "clocks/op", "refcopies/op")), seed


def test_a_10_percent_slower_copy_is_found_through_the_spells(tmp_path):
    t = twin_runs.table_of(lab_run(tmp_path / "r-lab-quick", 5, work=1.10))
    ns = twin_runs.beyond(t, TARGET, "ns/op")
    assert len(ns) == len(SMALL + LARGE)
    large = [d for n, d in ns.items() if _large(n)]
    assert all(d.at_equal_bandwidth and not d.at_equal_clock and 8 < d.pct < 12 for d in large)
    assert not any(d.at_equal_bandwidth for n, d in ns.items() if not _large(n))
    # the large copies' own time, whose repetitions met spells 35 % apart, would have hidden it
    mde = {(name, unit): m for c, name, unit, m in figures.row_mdes(t) if c == TARGET}
    assert all(mde[(f"BenchmarkMemcpy/link=static/tunable=default/size={s}", "ns/op")] < 3 for s in LARGE)
    # a row judged on its twin is held to the twin's rows (their spread and λ), not to the
    # family's time rows, which the small copies make: its figure is its twin's
    for s in LARGE:
        name = f"BenchmarkMemcpy/link=static/tunable=default/size={s}"
        figure = mde[(name, "refcopies/op")]  # the same figure, to the rounding of the units' logarithms
        assert math.isclose(mde[(name, "ns/op")], figure, rel_tol=1e-9)
        assert math.isclose(mde[(name, "B/s")], figure, rel_tol=1e-9)


def test_a_target_whose_memory_is_slower_keeps_its_large_copies_as_measured(tmp_path):
    t = twin_runs.table_of(lab_run(tmp_path / "r-lab-quick", 5, memory=1.25))
    check = figures.bandwidth_checks(t)[TARGET]
    assert check.differs and not check.why_not and -30 < check.pct < -12
    assert not any(d.at_equal_bandwidth for r in t.rows for d in r.deltas.values())
    assert all(_large(n) and d.verdict == "worse" for n, d in twin_runs.beyond(t, TARGET, "ns/op").items())
    assert twin_runs.beyond(t, TARGET, "refcopies/op") == {}  # memcpy itself did what the loop did
    assert "beyond noise, so its large copies' time rows are compared as measured" in \
        run_figures.bandwidth_sentence(check)


def test_an_emulated_guests_copy_loop_is_not_checked(tmp_path):
    t = twin_runs.table_of(lab_run(tmp_path / "r-lab-quick", 6, kind="tcg-guest"))
    check = figures.bandwidth_checks(t)[TARGET]
    assert check.differs and check.why_not == bandwidth.EMULATED
    assert not any(d.at_equal_bandwidth for r in t.rows for d in r.deltas.values())


def test_changes_at_an_equal_bandwidth_are_marked_where_they_are_shown(tmp_path):
    t = twin_runs.table_of(lab_run(tmp_path / "r-lab-quick", 5, work=1.10))
    twin_runs.assert_marked(t, fmt.EQUAL_BANDWIDTH_MARK, "at an equal memory bandwidth", "at-equal-bandwidth",
                             "refcopies/op")
    section = run_quality.memory_bandwidth(t)
    assert section.startswith("**Memory bandwidth:**") and f"- `{TARGET}`: " in section and "over 10 rounds" in section
    assert "compared at an equal memory bandwidth" in section
    lines = run_figures.level_check_lines(t)
    assert any(line.startswith("reference copy's bandwidth against metal's") for line in lines)


def test_the_reference_bandwidth_of_a_repetition_is_the_median_of_its_rows():
    per_round = {("a", "B/s"): {1: 10.0, 2: 10.0}, ("a", "refcopies/op"): {1: 1.2, 2: 1.0},
                 ("b", "B/s"): {1: 20.0, 2: 20.0}, ("b", "refcopies/op"): {1: 1.0, 2: 1.0},
                 ("c", "B/s"): {1: 30.0, 2: 30.0}, ("c", "refcopies/op"): {1: 1.0, 2: 0.9},
                 ("d", "B/s"): {1: 99.0, 2: 99.0}}  # no twin: not the loop's
    bw = bandwidth.round_bandwidth(per_round)
    assert round(bw[1], 6) == 20.0 and round(bw[2], 6) == 20.0


def test_only_rows_with_their_twin_in_every_round_are_put_at_an_equal_bandwidth():
    per_round = {("a", "ns/op"): {1: 10.0, 2: 11.0}, ("a", "B/s"): {1: 5.0, 2: 4.0},
                 ("a", "clocks/op"): {1: 40.0, 2: 44.0}, ("a", "refcopies/op"): {1: 1.1, 2: 1.2},
                 ("b", "ns/op"): {1: 3.0, 2: 3.0}, ("b", "refcopies/op"): {1: 1.0},  # a round without its twin
                 ("c", "ns/op"): {1: 3.0, 2: 3.0}}  # no twin at all
    keys = bandwidth.twinned_rows(per_round)
    assert keys == {("a", "ns/op"), ("a", "B/s"), ("a", "clocks/op")}
    out = bandwidth.per_round_at_equal_bandwidth(per_round, keys)
    assert out[("a", "ns/op")] == out[("a", "clocks/op")] == {1: 1.1, 2: 1.2}
    assert out[("a", "B/s")] == {1: 1 / 1.1, 2: 1 / 1.2}
    assert out[("b", "ns/op")] is per_round[("b", "ns/op")] and out[("c", "ns/op")] is per_round[("c", "ns/op")]
    assert per_round[("a", "ns/op")] == {1: 10.0, 2: 11.0}  # the input is left as it was
