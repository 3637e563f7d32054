"""Stage 3, statistics (golang/perf's benchmath), matching benchstat ("assume nothing").

Owns the numbers: summaries and U tests here, the U test itself in utest.py,
samples of a unit declared exact in exact.py, the power of the U test in
sensitivity.py. Imports nothing of vmparity.

- centre: the sample median (Hyndman–Fan R8, what go-moremath's Quantile uses);
- its confidence interval from order statistics of the binomial distribution
  (go-moremath QuantileCI: exact accumulation for n <= 30, normal
  approximation with continuity correction above);
- many U tests as one family: false_discovery_adjusted (Benjamini–Hochberg,
  checked against scipy.stats.false_discovery_control, which is the tests'
  dependency, not the runtime's);
- the two-sided Mann–Whitney U test (utest.py, checked against
  scipy.stats.mannwhitneyu): exact when neither sample has ties and both have
  <= 50 values, otherwise the normal approximation with tie and continuity
  correction. (benchstat uses an exact tie-aware distribution for tied
  samples of <= 25 values; scipy has none, so p-values of tied small samples
  can differ slightly near alpha — documented in results/README.md.)

Everything works on many benchmarks at once (grouped by sample size and
stacked into 2-D arrays) because a per-row scipy call would make comparing
100,000 lines too slow.
"""

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from statistics import NormalDist

from . import utest

DEFAULT_ALPHA = 0.05
DEFAULT_CONFIDENCE = 0.95
_APPROX_ABOVE = 30  # go-moremath quantileCIApproxThreshold


@dataclass
class Summary:
    center: float
    lo: float
    hi: float
    n: int
    warnings: list = field(default_factory=list)

    def pct_range(self):
        """benchstat's ±: the larger relative distance from centre to a bound."""
        if math.isinf(self.lo) or math.isinf(self.hi):
            return "∞"
        if self.center == 0:
            return "0%"
        if (self.lo > 0) != (self.center > 0) or (self.hi > 0) != (self.center > 0):
            return "?"  # the interval crosses zero
        return f"{100 * max(self.hi / self.center - 1, 1 - self.lo / self.center):.0f}%"


@dataclass
class Comparison:
    p: float
    n1: int
    n2: int
    alpha: float
    warnings: list = field(default_factory=list)

    @property
    def significant(self):
        return self.p <= self.alpha  # benchstat prints "~" only when p > alpha


@lru_cache(maxsize=None)
def median_ci_orders(n, confidence):
    """1-based order statistics (lo, hi) bounding the median's CI for n values."""
    if confidence >= 1:
        return 0, n + 1
    if n <= _APPROX_ABOVE:
        def pmf(k):
            return math.comb(n, k) / 2.0**n if 0 <= k <= n else 0.0

        # Start at the (lower) mode and grow towards the heavier neighbour
        # until the mass reaches the confidence level (left-biased on ties).
        x = math.ceil((n + 1) * 0.5) - 1
        accum = pmf(x)
        lo, hi = x, x + 1
        lp, rp = pmf(lo - 1), pmf(hi)
        while accum < confidence and (lp > 0 or rp > 0):
            if lp >= rp:
                accum += lp
                lo -= 1
                lp = pmf(lo - 1)
            else:
                accum += rp
                hi += 1
                rp = pmf(hi)
        return lo, hi
    mu, sigma = n * 0.5, math.sqrt(n * 0.25)
    norm = NormalDist(mu, sigma)
    l1 = norm.inv_cdf((1 - confidence) / 2)
    r1 = 2 * mu - l1
    lo = math.floor(math.floor(l1 - 0.5) + 0.5) + 1
    hi = math.floor(math.ceil(r1 - 0.5) + 0.5) + 1

    def cdf(a, b):
        return norm.cdf(b - 0.5) - norm.cdf(a - 0.5)

    conf = cdf(lo, hi)
    biased = cdf(lo, hi - 1)
    if confidence <= biased < conf:
        hi -= 1
    return lo, hi


@lru_cache(maxsize=None)
def samples_for_ci(confidence):
    """benchstat's advice: how many samples make the median CI finite."""
    for n in range(2, 51):
        lo, hi = median_ci_orders(n, confidence)
        if lo > 0 and hi <= n:
            return ">=", n
    return ">", 50


@lru_cache(maxsize=None)
def samples_for_utest(alpha):
    """Smallest n (both sides) whose best possible U-test p-value is <= alpha."""
    for n in range(1, 10):
        if utest.can_reach(n, n, alpha):
            return ">=", n
    return ">", 9


def _fmt_level(x):
    return f"{x:g}"


def summarize_many(samples, confidence=DEFAULT_CONFIDENCE):
    """Summaries for a list of value lists, same order."""
    out = [None] * len(samples)
    for n, idx in by_size([len(s) for s in samples]):
        centers, lo, hi = summarize_block(np.array([samples[i] for i in idx], dtype=float), confidence)
        warn = ci_warnings(n, confidence)
        for j, i in enumerate(idx.tolist()):
            out[i] = Summary(float(centers[j]), float(lo[j]), float(hi[j]), n, list(warn))
    return out


def summarize_block(block, confidence=DEFAULT_CONFIDENCE):
    """(centres, CI lows, CI highs) for the rows of a 2-D block of n values each."""
    n = block.shape[1]
    block = np.sort(block, axis=1)
    centers = np.quantile(block, 0.5, axis=1, method="median_unbiased")
    lo_o, hi_o = median_ci_orders(n, confidence)
    lo = block[:, lo_o - 1] if lo_o >= 1 else np.full(len(block), -math.inf)
    hi = block[:, hi_o - 1] if hi_o <= n else np.full(len(block), math.inf)
    return centers, lo, hi


# Croux & Rousseeuw (1992): the MAD of n normal values is biased low for small
# n; these factors (n = 2..9, then n / (n - 0.8)) make 1.4826 * MAD unbiased.
_MAD_SMALL_N = {2: 1.196, 3: 1.495, 4: 1.363, 5: 1.206, 6: 1.200, 7: 1.140, 8: 1.129, 9: 1.107}
MAD_NORMAL = 1.4826  # 1 / Φ⁻¹(3/4): MAD of normal values -> their standard deviation


def mad_factor(n):
    """What 1.4826 · MAD of n values is multiplied by to estimate σ without bias."""
    return _MAD_SMALL_N.get(n, n / (n - 0.8) if n > 9 else math.nan)


def log_spread_block(block):
    """The robust spread of each row's log values (σ of ln x: 0.01 is about 1 %),
    from the median absolute deviation, corrected for small n. NaN for a row with
    fewer than 3 values or a value <= 0, where a log spread means nothing."""
    n = block.shape[1]
    out = np.full(len(block), math.nan)
    if n < 3:
        return out
    ok = (block > 0).all(axis=1)
    if ok.any():
        logs = np.log(block[ok])
        dev = np.abs(logs - np.median(logs, axis=1, keepdims=True))
        out[ok] = MAD_NORMAL * mad_factor(n) * np.median(dev, axis=1)
    return out


@lru_cache(maxsize=None)
def ci_warnings(n, confidence):
    """The warnings of every median CI of n values (a tuple: shared, never changed)."""
    lo_o, hi_o = median_ci_orders(n, confidence)
    if lo_o >= 1 and hi_o <= n:
        return ()
    op, need = samples_for_ci(confidence)
    return (f"need {op} {need} samples for confidence interval at level {_fmt_level(confidence)}",)


def compare_many(pairs, alpha=DEFAULT_ALPHA):
    """Mann–Whitney U comparisons for a list of (old values, new values)."""
    out = [None] * len(pairs)
    for _, idx in by_size(pair_sizes([len(a) for a, _ in pairs], [len(b) for _, b in pairs])):
        idx = idx.tolist()
        n1, n2 = len(pairs[idx[0]][0]), len(pairs[idx[0]][1])
        x = np.array([pairs[i][0] for i in idx], dtype=float)
        y = np.array([pairs[i][1] for i in idx], dtype=float)
        p, all_equal = compare_block(x, y)
        for j, i in enumerate(idx):
            out[i] = Comparison(float(p[j]), n1, n2, alpha, utest_warnings(float(p[j]), n1, n2, alpha, all_equal[j]))
    return out


def compare_block(x, y):
    """(p-values, all-equal flags) of the U test for the rows of x (m x n1) against y (m x n2)."""
    m, n1 = x.shape
    n2 = y.shape[1]
    lo = np.minimum(x.min(axis=1), y.min(axis=1))
    hi = np.maximum(x.max(axis=1), y.max(axis=1))
    all_equal = lo == hi
    p = np.ones(m)
    chunk = max(1, 4_000_000 // ((n1 + n2) ** 2))  # bound the pairwise matrices' memory
    for s in range(0, m, chunk):
        p[s:s + chunk] = utest.pvalues(x[s:s + chunk], y[s:s + chunk])
    p[all_equal] = 1.0
    return p, all_equal


def utest_warnings(p, n1, n2, alpha, all_equal):
    """A comparison's warnings (a new list: callers may add to it)."""
    if all_equal:
        return ["all samples are equal"]
    op, need = samples_for_utest(alpha)
    if p > alpha and n1 < need and n2 < need:
        return [f"need {op} {need} samples to detect a difference at alpha level {_fmt_level(alpha)}"]
    return []


def false_discovery_adjusted(ps):
    """Benjamini–Hochberg adjusted p-values of a family of tests, in the order given: the i-th
    smallest p times m / i, made monotone from the largest down and capped at 1. A test is a
    discovery at false discovery rate q when its adjusted p-value is <= q."""
    p = np.asarray(ps, dtype=float)
    m = len(p)
    if m == 0:
        return p
    order = np.argsort(p)
    scaled = p[order] * m / np.arange(1, m + 1)
    adjusted = np.minimum(np.minimum.accumulate(scaled[::-1])[::-1], 1.0)
    out = np.empty(m)
    out[order] = adjusted
    return out


def pct_change(old, new):
    """Relative change in percent, new against old (None when old is 0)."""
    if old == new:
        return 0.0
    if old == 0:
        return None
    return (new / old - 1.0) * 100.0


def geomean(values):
    """Geometric mean of the positive values (benchstat's geomean row), None if none."""
    vals = [v for v in values if v > 0]
    if not vals:
        return None
    return float(np.exp(np.mean(np.log(vals))))


def by_size(key):
    """(key, indices) for each distinct key (a sample size, or one number per pair of
    sizes), indices ascending: the blocks every function here works on at once."""
    key = np.asarray(key, dtype=np.int64)
    order = np.argsort(key, kind="stable")
    sorted_keys = key[order]
    cuts = np.flatnonzero(sorted_keys[1:] != sorted_keys[:-1]) + 1
    for idx in np.split(order, cuts):
        if len(idx):
            yield int(key[idx[0]]), idx


def pair_sizes(n1, n2):
    """One number per (n1, n2) pair of sample sizes, for by_size."""
    n1, n2 = np.asarray(n1, dtype=np.int64), np.asarray(n2, dtype=np.int64)
    return n1 * (int(n2.max(initial=0)) + 1) + n2
