"""How small a difference the U test can see: the power side of the noise rule.

The A/A control measures false alarms; this module gives the other error
rate's figure, the *minimum detectable effect*. For two samples of n1 and n2
normal values with standard deviation σ, the two-sided Mann–Whitney U test at
level α detects a shift of d·σ with probability `u_power(n1, n2, α, d)`;
`u_shift_for_power` inverts that: the shift (in σ) found with the given power
(80 % by default, the usual choice in power analysis).

The figures come from a seeded simulation with common random numbers (the
same draws at every shift, so power grows monotonically with the shift and
the bisection is exact for those draws): deterministic, cached per (n1, n2,
α, power), and checked against a fresh simulation in tests/test_sensitivity.py.
A normal model is right for the log values of a quiet row (docs/noise.md); the
slow spells of a shared host, which it leaves out, are in the stored runs that
`vmparity power RUN` plants known shifts in to check these figures.
"""

import bisect
import math
from functools import lru_cache

import numpy as np

from . import utest

POWER = 0.8
DRAWS = 4000
SEED = 20261125
MAX_SHIFT = 40.0  # σ: beyond this the test is as good as blind (n too small for α)


def smallest_detectable(power, need, sigma):
    """The smallest log-effect whose probability of being called (power(delta), increasing in
    delta) reaches POWER, by bisection above the band `need`; inf when even a wide one does not."""
    hi = max(need, 1e-4) * 2 + 8 * sigma
    if power(hi) < POWER:
        return math.inf
    lo = 0.0
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if power(mid) >= POWER else (mid, hi)
    return hi


def u_power(n1, n2, alpha, shift, draws=DRAWS, seed=SEED):
    """P(p <= alpha) of the two-sided U test for normal samples whose means differ by `shift` σ."""
    x, y = _draws(n1, n2, draws, seed)
    return float(np.mean(utest.pvalues(x, y + shift) <= alpha))


@lru_cache(maxsize=None)
def u_shift_for_power(n1, n2, alpha, power=POWER):
    """The smallest shift in σ that the U test finds with `power` (inf when it never does:
    with too few samples no shift reaches alpha)."""
    if not utest.can_reach(n1, n2, alpha):
        return math.inf
    if u_power(n1, n2, alpha, MAX_SHIFT) < power:
        return math.inf
    lo, hi = 0.0, MAX_SHIFT
    for _ in range(24):
        mid = (lo + hi) / 2
        if u_power(n1, n2, alpha, mid) >= power:
            hi = mid
        else:
            lo = mid
    return hi


GRID_STEP = 0.05  # σ between the points of a power curve


@lru_cache(maxsize=None)
def u_power_curve(n1, n2, alpha):
    """(shifts in σ, power at each) from 0 to where the power reaches 0.999 (or MAX_SHIFT)."""
    shifts, power = [0.0], [u_power(n1, n2, alpha, 0.0)]
    while power[-1] < 0.999 and shifts[-1] < MAX_SHIFT:
        shifts.append(shifts[-1] + GRID_STEP)
        power.append(u_power(n1, n2, alpha, shifts[-1]))
    return shifts, np.maximum.accumulate(np.array(power)).tolist()


def u_power_at(n1, n2, alpha, shift):
    """The U test's power at `shift` σ, interpolated on its curve (0 when n can never reach alpha)."""
    if not utest.can_reach(n1, n2, alpha):
        return 0.0
    return _on_curve(u_power_curve(n1, n2, alpha), abs(shift))


def _on_curve(curve, x):
    """np.interp(x, *curve) for one x, on the curve's points as Python lists: the minimum
    detectable effect's bisection evaluates a power some 17,000 times in a compare of two lab
    files, and numpy's cost per call for one value was a tenth of that command's time."""
    xs, fs = curve
    j = bisect.bisect_right(xs, x) - 1
    if j < 0:
        return fs[0]
    if j >= len(xs) - 1:
        return fs[-1]
    slope = (fs[j + 1] - fs[j]) / (xs[j + 1] - xs[j])
    return slope * (x - xs[j]) + fs[j]


@lru_cache(maxsize=64)
def _draws(n1, n2, draws, seed):
    rng = np.random.default_rng([seed, n1, n2])
    return rng.standard_normal((draws, n1)), rng.standard_normal((draws, n2))


# -- the paired side: the signed-rank test on per-round differences (an A/B run, docs/noise.md) --


@lru_cache(maxsize=None)
def signed_rank_null(n):
    """The exact null distribution of the signed-rank statistic W+ of n untied, non-zero
    differences: counts[w] of the 2**n sign patterns whose positive ranks sum to w."""
    counts = np.zeros(n * (n + 1) // 2 + 1)
    counts[0] = 1
    for r in range(1, n + 1):
        counts[r:] = counts[r:] + counts[:-r].copy()
    return counts


def signed_rank_reachable(n, alpha):
    """Whether n differences can reach alpha at all (two-sided: the most extreme pattern has p = 2 / 2**n)."""
    return n >= 1 and 2 / 2 ** n <= alpha


EXACT_UP_TO = 16  # differences: up to this many, signed_rank_p enumerates every sign pattern


def signed_rank_p(d):
    """The two-sided Wilcoxon signed-rank p of differences d against 0: zeros dropped (Wilcoxon's
    rule), tied |d| given their mean rank, exact over all 2**n sign patterns for n <= EXACT_UP_TO
    (the normal approximation with the tie correction above); 1 when no difference is non-zero."""
    d = np.asarray(d, dtype=float)
    d = d[d != 0]
    n = len(d)
    if n == 0:
        return 1.0
    ranks = _midranks(np.abs(d))
    w = float(ranks[d > 0].sum())
    mean = float(ranks.sum()) / 2
    if n <= EXACT_UP_TO:
        # W+ over the 2**n sign patterns, counted by sum rather than listed (a row with
        # rounds added, 16 of them, would list 65536 patterns): midranks are multiples of
        # 1/2, so twice the ranks are whole numbers
        twice = np.rint(2 * ranks).astype(int)
        null = np.zeros(int(twice.sum()) + 1)
        null[0] = 1
        for r in twice:
            null[r:] = null[r:] + null[:-r].copy()
        sums = np.arange(len(null))
        extreme = np.abs(sums - 2 * mean) >= abs(2 * w - 2 * mean) - 2e-9
        return float(min(1.0, null[extreme].sum() / 2 ** n))
    z = max(0.0, abs(w - mean) - 0.5) / math.sqrt(float(np.sum(ranks ** 2)) / 4)
    return float(min(1.0, 2 * (1 - 0.5 * (1 + math.erf(z / math.sqrt(2))))))


def _midranks(x):
    """1-based ranks of x, ties given their mean rank."""
    order = np.argsort(x, kind="stable")
    ranks = np.empty(len(x))
    ranks[order] = np.arange(1, len(x) + 1)
    for v in np.unique(x):
        tied = x == v
        if tied.sum() > 1:
            ranks[tied] = ranks[tied].mean()
    return ranks


def signed_rank_pvalues(d):
    """Exact two-sided signed-rank p-values of the rows of d (draws x n), no ties or zeros assumed."""
    n = d.shape[1]
    ranks = np.argsort(np.argsort(np.abs(d), axis=1), axis=1) + 1
    w = np.sum(np.where(d > 0, ranks, 0), axis=1)
    cdf = np.cumsum(signed_rank_null(n)) / 2 ** n
    lower = cdf[w]
    upper = 1 - np.concatenate(([0.0], cdf))[w]
    return np.minimum(1.0, 2 * np.minimum(lower, upper))


def w_power(n, alpha, shift, draws=DRAWS, seed=SEED):
    """P(p <= alpha) of the two-sided signed-rank test on n normal differences of mean `shift` σ."""
    return float(np.mean(signed_rank_pvalues(_w_draws(n, draws, seed) + shift) <= alpha))


@lru_cache(maxsize=None)
def w_power_curve(n, alpha):
    """(shifts in σ, the signed-rank test's power at each), as u_power_curve."""
    shifts, power = [0.0], [w_power(n, alpha, 0.0)]
    while power[-1] < 0.999 and shifts[-1] < MAX_SHIFT:
        shifts.append(shifts[-1] + GRID_STEP)
        power.append(w_power(n, alpha, shifts[-1]))
    return shifts, np.maximum.accumulate(np.array(power)).tolist()


def w_power_at(n, alpha, shift):
    """The signed-rank test's power at `shift` σ (0 when n differences can never reach alpha)."""
    if not signed_rank_reachable(n, alpha):
        return 0.0
    return _on_curve(w_power_curve(n, alpha), abs(shift))


@lru_cache(maxsize=16)
def _w_draws(n, draws, seed):
    return np.random.default_rng([seed, n, 0]).standard_normal((draws, n))
