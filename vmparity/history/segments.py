"""Steps 2 and 3 of the change points: keep the candidates that split a track into levels that differ, and
place each at its run.

Step 2, the test (backward elimination, as the merge step of Fleming et al.,
ICPE 2023): every candidate is tested against its neighbours, the segment
from the candidate before it to it against the segment from it to the next
one, each cut to at most W runs (--window) next to the candidate. z = |median
after − median before| / (1.25 · σ_run · √(1/n_before + 1/n_after)), on the run
levels (levels.py); two-sided normal p-value, significant when p ≤ α / m with m
every candidate run of every track (Bonferroni: the chance of any false change
point in the whole history stays near α), and the size at least --min-change.
A segment needs MIN_RUNS (5) runs: a median of 4 runs, two of them outliers, is
an outlier too.
While a candidate fails, the weakest failing one is dropped and its
neighbours are tested again over the longer segments its removal leaves.
A regression fixed five runs later is three segments: the regression and the
fix are each tested against their own neighbours, not against a window that
averages them away.

Step 3, the place: the split of the samples between the neighbours (up to W
runs either side) into two levels with the least pinball loss at the lower
quartile (quantile regression's loss, on log samples; the upper quartile where
higher is better), tried within
PLACE_RUNS runs of the candidate: interference only slows samples, so a run
with a few slowed samples must not pass for the slower level. A place is
kept only when the test still passes there.
"""

import math
from dataclasses import dataclass

import numpy as np

from . import levels

MIN_RUNS = 5  # a segment's runs: its median stays between its ordinary runs with two outlier runs among them
PLACE_RUNS = 2  # how far step 3 may move a candidate


@dataclass
class Test:
    at: int  # index into the level's y of the first value after the change
    lo: int  # the segments compared: y[lo:at] before, y[at:hi] after
    hi: int
    z: float
    p: float
    size: float  # |median after − median before| of y
    passed: bool


def fit(track, level, candidates, window, p_max, min_change):
    """The Tests of the change points kept of the candidates (indices into level.y), in run order."""
    y = level.y.tolist()  # segments are a few runs: Python's sort beats numpy's cost per call on them
    test = _Tester(y, level.sigma, window, p_max, levels.size_bar(level, min_change))
    cps = sorted(candidates)
    tests = [test(prev, at, nxt) for prev, at, nxt in _neighbours(cps, len(y))]
    while tests:
        failing = [k for k, t in enumerate(tests) if not t.passed]
        if not failing:
            break
        weakest = min(failing, key=lambda k: tests[k].z)
        del cps[weakest], tests[weakest]
        # only the neighbours of the one dropped see other segments now
        edges = [0] + cps + [len(y)]
        for k in (weakest - 1, weakest):
            if 0 <= k < len(cps):
                tests[k] = test(edges[k], edges[k + 1], edges[k + 2])
    return _place(track, level, cps, tests, test)


def _neighbours(cps, length):
    edges = [0] + cps + [length]
    return zip(edges, edges[1:], edges[2:])


class _Tester:
    """Step 2's test of a change at `at` between its neighbours `prev` and `nxt` (indices into y)."""

    def __init__(self, y, sigma, window, p_max, bar):
        self.y, self.sigma, self.window, self.p_max, self.bar = y, sigma, window, p_max, bar

    def __call__(self, prev, at, nxt):
        lo, hi = max(prev, at - self.window), min(nxt, at + self.window)
        n_before, n_after = at - lo, hi - at
        if min(n_before, n_after) < MIN_RUNS:
            return Test(at, lo, hi, -1.0, 1.0, 0.0, False)  # too short to test: dropped before any testable one
        size = abs(_median(self.y[at:hi]) - _median(self.y[lo:at]))
        se = levels.MEDIAN_SD_FACTOR * self.sigma * math.sqrt(1.0 / n_before + 1.0 / n_after)
        z = size / se if se > 0 else (math.inf if size > 0 else 0.0)
        p = math.erfc(z / math.sqrt(2))
        return Test(at, lo, hi, z, p, size, p <= self.p_max and size >= self.bar)


def _median(values):
    s = sorted(values)
    k = len(s) // 2
    return s[k] if len(s) % 2 else (s[k - 1] + s[k]) / 2


def _place(track, level, cps, tests, test):
    """Step 3, left to right: each change at its best split, where the test still passes."""
    placed = []
    for k, t in enumerate(tests):
        prev = placed[-1].at if placed else 0
        nxt = cps[k + 1] if k + 1 < len(cps) else len(level.y)
        first = max(t.at - PLACE_RUNS, prev + MIN_RUNS)
        last = min(t.at + PLACE_RUNS, nxt - MIN_RUNS)
        lo, hi = max(prev, t.at - test.window), min(nxt, t.at + test.window)
        best = _best_split(track, level.runs, lo, hi, first, last, t.at)
        moved = test(prev, best, nxt) if best != t.at else None
        placed.append(moved if moved is not None and moved.passed else test(prev, t.at, nxt))
    return placed


def _best_split(track, runs, lo, hi, first, last, default):
    """The index j in first..last that best splits the samples of the runs at indices lo..hi-1 into two
    levels: the least summed pinball loss at the fast-side quartile (levels.FAST_QUANTILE: the lower one where
    lower is better) of each side's log samples about that side's quartile. Samples, not run medians, because
    one run's samples say more than their median; the fast-side quartile, not the median, because interference
    only ever slows a sample (spikes), and a run with a few slowed samples looks like the slower level to a
    median and not to that quartile."""
    tau = levels.FAST_QUANTILE[track.higher_better]
    if first >= last:
        return default
    pieces = [track.samples(int(i)) for i in runs[lo:hi]]
    if all((r > 0).all() for r in pieces):
        pieces = [np.log(r) for r in pieces]  # ratios: a 10 % shift weighs the same at any level
    pieces = [r[np.isfinite(r)] for r in pieces]
    best, best_cost = default, math.inf
    for j in range(first, last + 1):
        left, right = np.concatenate(pieces[:j - lo]), np.concatenate(pieces[j - lo:])
        if not len(left) or not len(right):
            continue
        cost = _pinball(left, tau) + _pinball(right, tau)
        if cost < best_cost:
            best, best_cost = j, cost
    return best


def _pinball(x, tau):
    """Quantile regression's loss of x about its tau quantile."""
    d = x - levels.quantile(x, tau)
    return float(np.where(d >= 0, tau * d, (tau - 1) * d).sum())
