"""Across runs, time at an equal core clock (vmparity/decide/coreclock.py, docs/noise.md
"Across runs: time at an equal core clock"): synthetic runs whose targets ran at known clocks."""

import math
import random
import re

import pytest

import resultgen as g
from vmparity.decide import coreclock, crossrun
from vmparity.results import inputs
from vmparity import table

AA = dict(g.METAL, target="metal-aa")
TARGETS = (g.METAL, AA, g.QUOTA_CONTAINER)
MEMCPY = "BenchmarkMemcpy/"


def make_run(runs, run_id, seed, ghz=None, slower=None, count=10):
    """A stored run whose memcpy rows carry core clocks: ghz = {target: clock} (3.8 by default),
    slower = {target: (fraction, only this benchmark or None)}: work the code added, in time and clocks alike."""
    d = runs / run_id
    d.mkdir(parents=True)
    rng = random.Random(seed)
    for cfg in TARGETS:
        target = cfg["target"]
        benches = g.suite(dict(cfg, **{"run-id": run_id}), rng, count=count)
        clock = (ghz or {}).get(target, 3.8)
        extra, only = (slower or {}).get(target, (0.0, None))
        for name, units in benches.items():
            if not name.startswith(MEMCPY):
                continue
            factor = 1 + (extra if only in (None, name) else 0.0)
            # the model's times are at 3.8 GHz: at another clock the same work takes 3.8 / clock as long
            ns = [v * factor * 3.8 / clock for v in units["ns/op"]]
            units["ns/op"] = ns
            units["B/s"] = [b / (factor * 3.8 / clock) for b in units["B/s"]]
            units["clocks/op"] = [v * clock * rng.gauss(1, 0.002) for v in ns]
        g.write(d / f"{target}.txt", dict(cfg, **{"run-id": run_id}), benches)
    return d


def judge(runs, base, head):
    return table.build(inputs.load_all([base, head], runs.parent)).crossrun


@pytest.fixture
def runs(tmp_path):
    d = tmp_path / "runs"
    d.mkdir()
    return d


def _memcpy(cr, target, unit):
    return [j for j in cr.rows if j.group == target and j.name.startswith(MEMCPY) and j.unit == unit]


def test_a_container_in_a_lower_turbo_bin_than_metal_is_not_slower_code(runs, cli):
    # between the runs the container's rows ran at a clock 8 % lower, metal's not: its time rows
    # are 8.7 % slower, its clocks rows not; the code did nothing
    make_run(runs, "base", 1)
    make_run(runs, "head", 2, ghz={"container-quota": 3.8 / 1.087})
    cr = judge(runs, "base", "head")
    time_rows = _memcpy(cr, "container-quota", "ns/op") + _memcpy(cr, "container-quota", "B/s")
    assert len(time_rows) == 2 * len(_memcpy(cr, "container-quota", "clocks/op")) > 10
    assert cr.of(crossrun.CHANGED) == []
    for j in time_rows:
        assert abs(j.change_pct) < 2 and -9 < j.clock_pct < -7, j
    assert all(j.clock_pct is None for j in _memcpy(cr, "container-quota", "clocks/op"))
    r = cli("--results-dir", runs.parent, "pr-comment", "base", "head", "--fail-on-regression", "5")
    assert r.code == 0, r.err
    assert "time rows put at an equal core clock first" in r.out
    assert re.search(r"at an equal core clock \(the target's clock -[78]\.\d\d% in HEAD\)", r.out)


def test_slower_code_in_a_lower_turbo_bin_is_found_at_its_own_size(runs, cli):
    make_run(runs, "base", 1)
    make_run(runs, "head", 2, ghz={"container-quota": 3.8 / 1.05}, slower={"container-quota": (0.12, None)})
    cr = judge(runs, "base", "head")
    rows = [j for u in ("ns/op", "B/s", "clocks/op") for j in _memcpy(cr, "container-quota", u)]
    assert rows and all(j.status == crossrun.CHANGED and j.verdict == "worse" for j in rows)
    for j in rows:  # the code's 12 %, not the 17.6 % the time rows moved
        assert 10 < crossrun.slower_pct(j.change_pct, j.higher_better) < 14, j
    r = cli("--results-dir", runs.parent, "compare", "base", "head", "--fail-on-regression", "10")
    assert r.code == 1 and "at an equal core clock (the target's clock -4." in r.err
    r = cli("--results-dir", runs.parent, "pr-comment", "base", "head")
    assert "| host drift | target's core clock, HEAD | change after drift and clock |" in r.out
    (line,) = [x for x in r.out.splitlines() if x.startswith("| `container-quota` | `BenchmarkMemcpy/")
               and "size=1024`" in x and "`sec/op`" in x]  # ns/op as benchstat names it
    assert re.search(r"\| -4\.\d\d% \| \+1[0-4]\.\d\d% \|", line), line  # the clock, then the code's 12 %


def test_time_that_moved_without_its_clocks_is_the_clock_and_the_comment_says_so(runs, cli):
    # one benchmark of the container 15 % slower in time only: at an equal clock nothing changed (the
    # host's turbo bin, or code that lowers its own clock, which only a same-run A/B can tell apart)
    base = make_run(runs, "base", 1)
    name = next(n for n in g.suite(g.METAL, random.Random(0)) if n.startswith(MEMCPY))
    make_run(runs, "head", 2)
    path = runs / "head" / "container-quota.txt"
    lines = []
    for line in path.read_text().splitlines():
        f = line.split()
        if f and f[0] == name:
            f[2] = f"{float(f[2]) * 1.15:.6g}"  # ns/op only
        lines.append(" ".join(f) if f and f[0] == name else line)
    path.write_text("\n".join(lines) + "\n")
    cr = judge(runs, base.name, "head")
    (row,) = [j for j in cr.rows if j.group == "container-quota" and j.name == name and j.unit == "ns/op"]
    assert row.status == crossrun.NOISE and abs(row.change_pct) < 3 and -15 < row.clock_pct < -11
    r = cli("--results-dir", runs.parent, "pr-comment", "base", "head")
    assert re.search(r"at an equal core clock \(the target's clock -1[1-5]\.\d\d% in HEAD\)", r.out)


def test_a_time_row_takes_its_clocks_twin_at_bases_clock():
    assert coreclock.twin_unit("ns/op") == coreclock.twin_unit("B/s") == coreclock.twin_unit("cycles/op") == "clocks/op"
    assert coreclock.twin_unit("ns/iter") == "clocks/iter" and coreclock.twin_unit("ns/entry") == "clocks/entry"
    assert coreclock.twin_unit("clocks/op") is None and coreclock.twin_unit("flushes/op") is None
    key = ("c", "BenchmarkMemcpy/size=64", "ns/op")
    values = {key: {"b": [2.0, 2.0, 2.2], "h": [2.2, 2.1, 2.1]},
              ("c", key[1], "B/s"): {"b": [32.0, 32.0, 29.1], "h": [29.1, 30.5, 30.5]},
              ("c", key[1], "clocks/op"): {"b": [7.6, 7.6, 8.0], "h": [7.6, 7.6, 8.4]},
              ("c", "BenchmarkSnowflake/procs=1", "ns/op"): {"b": [250.0], "h": [260.0]}}
    out, clock = coreclock.at_equal_clock(values, "b", "h")
    # BASE: 2.0 ns at 7.6 clocks; at that clock HEAD's 7.6 and 8.4 clocks are 2.0 and 2.21 ns
    assert list(out[key]["b"]) == pytest.approx([2.0, 2.0, 2.0 * 8.0 / 7.6])
    assert list(out[key]["h"]) == pytest.approx([2.0, 2.0, 2.0 * 8.4 / 7.6])
    assert list(out[("c", key[1], "B/s")]["h"]) == pytest.approx([32.0, 32.0, 32.0 * 7.6 / 8.4])
    assert out[("c", key[1], "clocks/op")] is values[("c", key[1], "clocks/op")]  # as they are
    assert out[("c", "BenchmarkSnowflake/procs=1", "ns/op")] is values[("c", "BenchmarkSnowflake/procs=1", "ns/op")]
    # HEAD's row ran 2.1 ns for the same 7.6 clocks: its clock was 2.0 / 2.1 of BASE's
    assert math.exp(clock[key]) == pytest.approx(2.0 / 2.1)
    assert math.exp(clock[("c", key[1], "B/s")]) == pytest.approx(7.6 * 30.5 / (7.6 * 32.0))


def test_a_row_is_put_at_an_equal_clock_on_every_target_or_on_none():
    """The drift comes from the controls' same row: a target in clocks against controls in time
    would mix two measures, so a row whose twin one target lacks stays in time everywhere."""
    row = "BenchmarkMemcpy/size=64"
    values = {("metal", row, "ns/op"): {"b": [2.0, 2.0], "h": [2.2, 2.2]},
              ("metal", row, "clocks/op"): {"b": [7.6, 7.6], "h": [7.6, 7.6]},
              ("c", row, "ns/op"): {"b": [2.0, 2.0], "h": [2.2, 2.2]},
              ("c", row, "clocks/op"): {"b": [7.6, 7.6]},  # none in HEAD
              ("new", row, "ns/op"): {"h": [2.0]}}  # only in HEAD: not compared, no say
    out, clock = coreclock.at_equal_clock(values, "b", "h")
    assert out == values and clock == {}
    values[("c", row, "clocks/op")]["h"] = [7.6, 7.6]
    out, clock = coreclock.at_equal_clock(values, "b", "h")
    assert set(clock) == {("metal", row, "ns/op"), ("c", row, "ns/op")}
    assert list(out[("c", row, "ns/op")]["h"]) == pytest.approx([2.0, 2.0])
    assert out[("new", row, "ns/op")] is values[("new", row, "ns/op")]
