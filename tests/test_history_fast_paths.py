"""The history's fast paths give what the plain computations give: an index kept up to date run by run
holds what one built at once holds, the screen of many tracks at once picks what one window at a time
picks, and the columns formatted a track at a time read as render.num() and interval() write them."""

import math
import os
import shutil

import historygen as hg
import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

from vmparity.history import candidates, changepoints, columns, index, levels, render, segments, tracks


def snapshot(runs_dir, index_path):
    ix = index.Index(runs_dir, index_path)
    try:
        ix.refresh()
        return [(t.key, t.run_ids, t.higher_better, t.n.tolist(), t.median.tolist(), columns.floats(t.lo),
                 columns.floats(t.hi), [t.samples(i).tolist() for i in range(len(t.run_ids))],
                 [(s.start, s.stop, s.changed) for s in t.series])
                for t in tracks.load(ix).tracks]
    finally:
        ix.close()


def test_an_index_kept_up_to_date_holds_what_a_fresh_one_holds(tmp_path):
    plan = hg.Plan(runs=12, targets=["metal", "guest-nosmt"], rows=3, seed=4)
    plan.fingerprint_changes = {6: {"clocksource": "hpet"}}
    runs = tmp_path / "runs"
    hg.write(plan, runs)
    kept = tmp_path / "kept.sqlite"
    snapshot(runs, kept)
    # a run in the middle changed, one removed, one added before the others and one after
    f = runs / plan.run_id(4) / "metal.txt"
    f.write_text(f.read_text().replace(" 1000000 ", " 1000000 7"))
    os.utime(f, ns=(f.stat().st_mtime_ns + 10**9,) * 2)
    shutil.rmtree(runs / plan.run_id(8))
    shutil.copytree(runs / plan.run_id(2), runs / "2025-12-31T00-00-00Z-early")
    shutil.copytree(runs / plan.run_id(3), runs / "2026-02-01T00-00-00Z-late")
    (runs / plan.run_id(5) / "guest-nosmt.txt").unlink()  # a target gone from a run
    assert snapshot(runs, kept) == snapshot(runs, tmp_path / "fresh.sqlite")


def screen_one_window_at_a_time(lv, m, min_run):
    """The screen of candidates.py for one track, one window and np.mean or np.median call at a time."""
    y, R = lv.y, len(lv.y)
    if R < 2 * min_run:
        return []
    padded = np.concatenate([[y[0]] * 2, y, [y[-1]] * 2])
    clip = np.array([np.clip(y[i], np.median(padded[i:i + 5]) - 3 * lv.sigma, np.median(padded[i:i + 5]) + 3 * lv.sigma)
                     for i in range(R)])
    bar = math.log1p(0.5 * m.min_change / 100) * lv.size_scale
    kept = []
    for G in candidates.scales(m.window):
        if 2 * G > R:
            continue
        z = np.zeros(R)
        for i in range(max(G, min_run), min(R - G, R - min_run) + 1):
            d = abs(np.mean(clip[i:i + G]) - np.mean(clip[i - G:i]))
            se = lv.sigma * math.sqrt(2 / G)
            z[i] = 0 if d < bar else d / se if se > 0 else math.inf
        order = sorted((i for i in range(R) if z[i] >= m.noise_sigmas), key=lambda i: (-round(z[i], 9), i))
        peaks = []
        for i in order:
            if all(abs(i - j) >= min_run for j in peaks):
                peaks.append(i)
        kept += [i for i in peaks if all(abs(i - j) >= min_run for j in kept)]
    return kept


@pytest.mark.parametrize("seed", range(6))
def test_screening_many_tracks_at_once_picks_what_one_window_at_a_time_picks(seed):
    rng = np.random.default_rng(seed)
    m = changepoints.Method(window=int(rng.integers(1, 20)), min_change=float(rng.choice([0, 2, 5])))
    lvs = []
    for _ in range(int(rng.integers(1, 90))):
        R = int(rng.choice([1, 2, 7, 40, 75]))
        y = rng.normal(0, 0.05, R) + np.where(np.arange(R) >= R // 2, np.log(rng.choice([1.0, 1.1, 2.0])), 0.0)
        if seed % 2:
            y = np.round(y, 2)  # ties in the windows
        lvs.append(levels.Level(y, np.arange(R), levels.run_noise(y), bool(seed % 3)))
    got = candidates.screen(lvs, m, segments.MIN_RUNS, block=7)
    want = [screen_one_window_at_a_time(lv, m, segments.MIN_RUNS) for lv in lvs]
    assert [sorted(g) for g in got] == [sorted(w) for w in want] and any(want)


def test_sorted_window_medians_are_np_median_bit_for_bit():
    rng = np.random.default_rng(7)
    for W in (1, 2, 5, 16):
        x = np.round(rng.lognormal(0, 1, (3, 50)), 3)
        want = np.median(sliding_window_view(x, W, axis=-1), axis=-1)
        assert np.array_equal(candidates.window_medians(x, W), want)


VALUES = [0.0, -0.0, 1.0, -2.5, 10.125, 99995.0, 9.9995, 1e-5, 0.00012345, 123456789.0, 1e16, -3.3e-9, math.nan,
          math.inf, -math.inf, 7.0 / 3]


def test_columns_read_as_num_and_interval_write_them():
    values = np.array(VALUES)
    assert columns.nums(values) == [render.num(v) for v in VALUES]
    assert columns.nums(values, "-") == ["-" if math.isnan(v) else render.num(v) for v in VALUES]
    finite = values[np.isfinite(values)]
    nan = np.full(len(finite), np.nan)
    for lo, hi in ((nan, finite), (finite, finite), (finite, nan), (values, values[::-1])):
        want = [render.interval(a, b) for a, b in zip(lo, hi)]
        assert columns.intervals(lo, hi) == want
    assert columns.floats(values) == [None if math.isnan(v) else v for v in VALUES]
    assert "∞" not in "".join(columns.intervals(nan, finite)) and columns.intervals(nan, finite)[0] == "n too small"


def test_rows_are_the_row_template_of_each_run():
    cols = (["a", "b", "c"], [1.5, 22.25, 1e-7], ["[-∞, 2]", "[1, 3]", "[-∞, ∞]"], [5, 10, 3])
    want = [render.TEXT_ROW % r for r in zip(*cols)]
    assert columns.rows(render.TEXT_ROW, cols, 0, 3) == "\n".join(want)
    assert columns.rows(render.TEXT_ROW, cols, 1, 2) == want[1]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("higher_better", [False, True, None])
def test_run_levels_of_runs_with_different_counts_are_each_runs_own_quantile(seed, higher_better):
    rng = np.random.default_rng(seed)
    n = rng.choice([0, 3, 5, 6, 10], size=30)
    values = rng.lognormal(3, 0.2, size=int(n.sum()))
    values[rng.random(len(values)) < 0.02] = np.nan  # a sample that is not a number makes its run's level nan
    starts = np.concatenate([[0], np.cumsum(n)[:-1]])
    nan = np.full(len(n), np.nan)
    t = tracks.Track("h", "metal", "BenchmarkX", "ns/op", higher_better, tuple(map(str, range(len(n)))), n, nan, nan,
                     nan, values, starts)
    q = levels.FAST_QUANTILE[higher_better]
    with np.errstate(all="ignore"):
        want = [np.quantile(t.samples(i), q) if n[i] else np.nan for i in range(len(n))]
    np.testing.assert_allclose(levels.run_levels(t), want, rtol=1e-12, equal_nan=True)
