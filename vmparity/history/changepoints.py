"""Change points: the runs at which a track's distribution moved.

The method (documented in docs/formats.md, "History"):

1. Every run i of a track (but the first) is a candidate: the first run
   after a change. Its *window before* is up to W runs before it, its
   *window after* up to W runs from it on (W = --window, default 16).
2. Size: the relative change between the median of the run medians after
   and before. A candidate is screened in only when it is at least
   --min-change (default 5 %) and at least K (3) times what run-to-run noise
   alone gives such a difference of window medians:
   se = 1.25 · σ_run · √(1/n_before + 1/n_after), with σ_run the track's
   run-to-run spread (1.4826 · MAD of the log ratio of consecutive run
   medians, divided by √2; a median of runs is robust to the few ratios
   that straddle a real change).
3. Test: z = |log(after / before)| / se, two-sided normal p-value,
   significant when p ≤ α / m with m the number of candidates over every
   track examined (Bonferroni over rows × runs: the chance of any false
   change point in the whole history stays ≤ α). The median of a window of
   runs is close to normal, σ_run is robust to spikes and to the change
   itself, and runs, not samples, are the units: the samples of one run
   share its machine state. Both windows need at least 5 runs (a median of
   fewer, with a spiky run or two, has tails no normal bar covers). A rank
   check guards the approximation: the Mann–Whitney U test of the run
   medians before against after must be significant at α / (number of
   tracks), Bonferroni over rows, as if each track were one test. Where
   σ_run is unknown (fewer than 5 runs) or zero (a value that never
   varies), the U test alone decides, at α / m.
   Why not the U test alone at α / m (the method before): ranks throw away
   the size of a shift, and over 16 + 16 runs a 10 % shift of a row with a
   4 % spread reaches p ≈ 1e-6 when two runs overlap, short of 1.7e-7.
4. Location: significant candidates within W runs of each other are one
   change (a window that straddles a change also sees it). Its run is the
   split of the samples of the 2·W runs around the cluster's strongest
   candidate (the largest z) into two levels with the least pinball loss
   at the lower quartile (quantile regression's loss, on log samples),
   tried at every run of the cluster: interference only slows samples, so a
   run with a few slowed samples must not pass for the slower level. Two
   changes closer than W runs are reported as one. A run whose samples all
   sit at the other level (noise can do that to a 10 % shift) cannot be
   placed right by any rule; the change is then reported one run off.
"""

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .. import stats

MEDIAN_SD_FACTOR = 1.25  # sd of a median ≈ 1.25 × sd of a mean, for normal data
LOCATION_QUANTILE = 0.25  # _best_split's level of a side: its lower quartile
MIN_RUNS_A_SIDE = 5  # the z test's windows: fewer runs are too few for a median's normal approximation
SCREEN_BLOCK = 64  # tracks screened in one array: bounds the memory of the sorted windows (64 × runs × W)


@dataclass
class Method:
    window: int = 16
    alpha: float = 0.05
    min_change: float = 5.0  # percent
    noise_sigmas: float = 3.0

    def check(self):
        from ..errors import InputError

        if self.window < 1:
            raise InputError("--window", f"{self.window}: expected at least 1 run")
        if not 0 < self.alpha < 1:
            raise InputError("--alpha", f"{self.alpha}: expected a level between 0 and 1")
        if not 0 <= self.min_change < 1000 or math.isnan(self.min_change):
            raise InputError("--min-change", f"{self.min_change}: expected a percentage between 0 and 1000")
        return self

    def describe(self, tests):
        return (f"median of up to {self.window} runs before against up to {self.window} after (at least "
                f"{MIN_RUNS_A_SIDE} a side), z test on the run-to-run noise, Bonferroni over {tests} candidate runs "
                f"(α = {self.alpha:g}, p ≤ {self.alpha / max(tests, 1):.2g}), Mann–Whitney U of the run medians "
                f"as a rank check at α / tracks, size at least {self.min_change:g} % and "
                f"{self.noise_sigmas:g}× the run-to-run noise")


@dataclass
class ChangePoint:
    track: object  # tracks.Track
    at: int  # index of the first run after the change
    pct: float  # window median after against before, in percent (None when before is 0)
    p: float
    n_before: int  # runs in each window
    n_after: int
    changed: dict  # fingerprint keys that changed at this run: key -> (before, after)

    @property
    def run_id(self):
        return self.track.run_ids[self.at]

    @property
    def previous_run_id(self):
        return self.track.run_ids[self.at - 1]

    @property
    def verdict(self):
        hb = self.track.higher_better
        if hb is None or self.pct is None:
            return "changed"
        return "better" if (self.pct > 0) == hb else "worse"


def detect(tracks, method=None):
    """(change points, number of candidates tested) over every track."""
    m = method or Method()
    tests = sum(max(0, len(t.run_ids) - 1) for t in tracks)
    if tests == 0:
        return [], 0
    p_max = m.alpha / tests
    rank_max = m.alpha / sum(len(t.run_ids) > 1 for t in tracks)
    screened = []  # (track, candidate index, the track's σ_run)
    for t, found in zip(tracks, _screen_all(tracks, m)):
        if found:
            sigma = run_noise(t.median)
            screened += [(t, i, sigma) for i in found]
    by_track = {}
    for (t, i, sigma), test in zip(screened, _tests(screened, m, p_max, rank_max)):
        if test.significant:
            by_track.setdefault(id(t), (t, sigma, []))[2].append((i, test.strength))
    out = []
    for t, sigma, found in by_track.values():
        for cluster in _clusters(found, m.window):
            cp = _locate(t, sigma, cluster, m, p_max, rank_max)
            if cp is not None:
                out.append(cp)
    out.sort(key=lambda c: (c.track.key, c.at))
    return out, tests


def run_noise(medians):
    """σ_run: robust spread of the log ratio of consecutive run medians, per run."""
    m = medians[medians > 0]
    if len(m) < 5:
        return 0.0
    d = np.diff(np.log(m))
    return float(1.4826 * np.median(np.abs(d - np.median(d))) / math.sqrt(2))


def _screen_all(tracks, m):
    """Per track, the candidate indices whose window medians differ by more than the size rules allow to
    ignore. Tracks of equal length are screened together, as rows of one array: a history is hundreds of
    tracks of the same runs, and numpy's cost per call would outweigh its work on one track."""
    out = [[] for _ in tracks]
    by_length = {}
    for k, t in enumerate(tracks):
        by_length.setdefault(len(t.run_ids), []).append(k)
    for R, ks in by_length.items():
        if R < 2:
            continue
        for s in range(0, len(ks), SCREEN_BLOCK):
            block = ks[s:s + SCREEN_BLOCK]
            for k, found in zip(block, _screen_block([tracks[k].median for k in block], m)):
                out[k] = found
    return out


def _screen_block(medians, m):
    """_screen_all's rule for tracks of R runs each (R ≥ 2); medians: one array of R run medians per track."""
    med = np.array(medians, dtype=float)  # tracks × runs
    R, W = med.shape[1], m.window
    idx = np.arange(1, R)
    before, after = np.empty((len(med), R - 1)), np.empty((len(med), R - 1))
    if R > W:  # full windows at once; the short ones at either end below
        full = _window_medians(med, W)  # full[:, s] = median of runs s .. s+W-1
        before[:, W - 1:] = full[:, :R - W]  # i = W .. R-1: runs i-W .. i-1
        after[:, :R - W] = full[:, 1:]  # i = 1 .. R-W: runs i .. i+W-1
    short = min(W, R) - 1  # windows cut short by the track's start (before) and end (after)
    if short:
        before[:, :short] = _prefix_medians(med, short)
        after[:, R - 1 - short:] = _prefix_medians(med[:, ::-1], short)[:, ::-1]
    nb = np.minimum(idx, W)
    na = np.minimum(R - idx, W)
    with np.errstate(divide="ignore", invalid="ignore"):
        size = np.abs(np.log(after / before))
    zero_before = (before == 0) & (after != 0)
    size = np.where(zero_before, np.inf, size)
    size = np.where(np.isnan(size), 0.0, size)  # equal zeros, or a sign change we cannot take the log of
    sign_change = (before * after) < 0
    size = np.where(sign_change, np.inf, size)
    sigma = _run_noise_rows(med)
    noise = m.noise_sigmas * MEDIAN_SD_FACTOR * sigma[:, None] * np.sqrt(1.0 / nb + 1.0 / na)
    bar = np.maximum(math.log1p(m.min_change / 100.0), noise)
    return [list(idx[row]) for row in size >= bar]


def _run_noise_rows(med):
    """run_noise of each row of med: at once for the rows of positive medians (all but odd ones)."""
    positive = (med > 0).all(axis=1)
    if med.shape[1] < 5 or not positive.any():
        return np.array([run_noise(row) for row in med])
    d = np.diff(np.log(med[positive]), axis=1)
    sigma = np.empty(len(med))
    sigma[positive] = 1.4826 * np.median(np.abs(d - np.median(d, axis=1)[:, None]), axis=1) / math.sqrt(2)
    sigma[~positive] = [run_noise(row) for row in med[~positive]]
    return sigma


def _window_medians(x, W):
    """np.median of every W consecutive values of each row of x, bit for bit, from sorted windows (sorting
    rows of a few values is three times faster than np.median's partition)."""
    windows = sliding_window_view(x, W, axis=-1)
    if np.isnan(x).any():  # np.median's nan rule; a sort would move the nan out of the middle
        return np.median(windows, axis=-1)
    s = np.sort(windows, axis=-1)
    return s[..., W // 2] if W % 2 else (s[..., W // 2 - 1] + s[..., W // 2]) / 2


def _prefix_medians(x, count):
    """np.median(x[:, :k]) for k = 1 .. count, for each row of x: one sort instead of count calls a row."""
    if np.isnan(x[:, :count]).any():  # np.median's nan rule; the padding below would hide it
        return np.array([[np.median(row[:k]) for k in range(1, count + 1)] for row in x])
    rows, cols, lower, even, upper = _prefix_layout(count)
    block = np.full((len(x), count, count), np.inf)  # [:, k-1] holds x[:, :k], padded with what sorts last
    block[:, rows, cols] = x[:, cols]
    block.sort(axis=-1)
    out = block[:, lower[0], lower[1]]
    out[:, even] = (out[:, even] + block[:, upper[0], upper[1]]) / 2  # np.median's mean of the middle two
    return out


@lru_cache(maxsize=8)
def _prefix_layout(count):
    """Where _prefix_medians puts x[:k] (rows, cols), and finds its middle: lower (every k), upper (even k)."""
    k = np.arange(1, count + 1)
    rows, cols = np.tril_indices(count)
    even = k % 2 == 0
    return rows, cols, (k - 1, (k - 1) // 2), even, (k[even] - 1, k[even] // 2)


def _windows(t, i, W):
    return max(0, i - W), i, min(len(t.run_ids), i + W)


@dataclass
class Test:
    p: float  # the deciding test's p-value: the z test's, or the U test's where σ_run is 0
    strength: float  # which candidate of a cluster separates best: z, or |AUC − ½| for the U test
    significant: bool
    before: float  # window medians
    after: float


def _tests(screened, m, p_max, rank_max):
    """A Test per (track, candidate, σ_run): step 3 of the method. p_max: the z test's bar (α / candidates);
    rank_max: the U test's as a rank check (α / tracks)."""
    if not screened:
        return []
    pairs = []
    for t, i, _ in screened:
        a, b, c = _windows(t, i, m.window)
        pairs.append((t.median[a:b], t.median[b:c]))
    u_pvals = [c.p for c in stats.compare_many(pairs)]
    out = []
    for (t, i, sigma), (x, y), p_u in zip(screened, pairs, u_pvals):
        before, after = float(np.median(x)), float(np.median(y))
        if sigma > 0:
            if min(len(x), len(y)) < MIN_RUNS_A_SIDE:
                out.append(Test(1.0, 0.0, False, before, after))
                continue
            z = _log_size(before, after) / (MEDIAN_SD_FACTOR * sigma * math.sqrt(1.0 / len(x) + 1.0 / len(y)))
            p = math.erfc(z / math.sqrt(2))
            out.append(Test(p, z, p <= p_max and p_u <= rank_max, before, after))
        else:
            out.append(Test(p_u, abs(_auc(x, y) - 0.5), p_u <= p_max, before, after))
    return out


def _log_size(before, after):
    """|log(after / before)|, infinite across zero or a change of sign (as the screen takes it)."""
    if before == after:
        return 0.0
    if before * after <= 0:
        return math.inf
    return abs(math.log(after / before))


def _best_split(t, lo, hi, first, last, default):
    """The run j in first..last that best splits runs lo..hi-1 into two levels: the least summed pinball
    loss at the lower quartile (LOCATION_QUANTILE) of each side's log samples about that side's quartile.
    Samples, not run medians, because one run's five samples say more than their median; the lower
    quartile, not the median, because interference only ever slows a sample (spikes), and a run with a few
    slowed samples looks like the slower level to a median and not to a lower quartile."""
    runs = [t.samples(k) for k in range(lo, hi)]
    if all((r > 0).all() for r in runs):
        runs = [np.log(r) for r in runs]  # ratios: a 10 % shift weighs the same at any level
    best, best_cost = default, math.inf
    for j in range(first, last + 1):
        cost = _pinball(np.concatenate(runs[:j - lo])) + _pinball(np.concatenate(runs[j - lo:]))
        if cost < best_cost:
            best, best_cost = j, cost
    return best


def _pinball(x, tau=LOCATION_QUANTILE):
    """Quantile regression's loss of x about its tau quantile."""
    d = x - np.quantile(x, tau)
    return float(np.where(d >= 0, tau * d, (tau - 1) * d).sum())


def _auc(x, y):
    """P(after > before) + ½ P(tie): ½ is no separation, 0 or 1 complete separation."""
    gt = (y[:, None] > x[None, :]).sum()
    eq = (y[:, None] == x[None, :]).sum()
    return (gt + 0.5 * eq) / (len(x) * len(y))


def _clusters(found, W):
    found.sort()
    groups = [[found[0]]]
    for item in found[1:]:
        if item[0] - groups[-1][-1][0] <= W:
            groups[-1].append(item)
        else:
            groups.append([item])
    return groups


def _locate(t, sigma, cluster, m, p_max, rank_max):
    """The change's run: the best split of the samples around the cluster's strongest candidate."""
    W = m.window
    strongest = max(cluster, key=lambda c: c[1])[0]
    lo, hi = max(0, strongest - W), min(len(t.run_ids), strongest + W)
    first, last = cluster[0][0], cluster[-1][0]
    best = _best_split(t, lo, hi, max(lo + 1, first), min(hi - 1, last), strongest)
    for j in dict.fromkeys((best, strongest)):
        test = _tests([(t, j, sigma)], m, p_max, rank_max)[0]
        if test.significant:
            a, b, c = _windows(t, j, W)
            changed = next((s.changed for s in t.series if s.start == j), {})
            return ChangePoint(t, j, stats.pct_change(test.before, test.after), test.p, b - a, c - b, changed)
    return None
