"""Two-sided Mann–Whitney U test for many sample pairs at once.

Why not call scipy.stats.mannwhitneyu: importing scipy.stats costs 1.6 s on
the lab machine — twice benchstat's whole run on 200,000 result lines — and
`make bench-compare` must stay within 2x of benchstat. So this module computes
the same test on numpy arrays (normal CDF from the standard library), and
tests/test_utest.py checks it against scipy.stats.mannwhitneyu (same
p-values to 1e-9) on random and tied samples.

The method choice is benchstat's (go-moremath MannWhitneyUTest): the exact
null distribution when neither sample has ties and both have <= 50 values,
else the normal approximation with tie and continuity correction.
"""

import math
from functools import lru_cache

import numpy as np

EXACT_LIMIT = 50
PAIRWISE_LIMIT = 2000  # above this many values per row, pairwise matrices would exceed 4 MB a row
RANK_CHUNK = 1 << 16  # sorted values walked at a time above it


def can_reach(n1, n2, alpha):
    """Whether the test on samples of n1 and n2 values can reach alpha at all: its best
    p-value, two orderings of C(n1 + n2, n1), is at most alpha (4 a side at 0.05; 3 against
    4 cannot, so one lost or overlapping value of 4 a side leaves it blind)."""
    return n1 >= 1 and n2 >= 1 and 2 / math.comb(n1 + n2, n1) <= alpha


@lru_cache(maxsize=None)
def _u_cdf(n1, n2):
    """CDF of U under H0 without ties: coefficients of the Gaussian binomial [n1+n2, n1]_q."""
    # prod_{i=1..n1} (1 - q^(n2+i)) / (1 - q^i); dividing by (1 - q^i) is a
    # strided running sum, multiplying by (1 - q^k) a shifted subtraction.
    size = n1 * n2 + 1
    poly = np.zeros(size + n1 + n2 + 1)
    poly[0] = 1.0
    for i in range(1, n1 + 1):
        k = n2 + i
        poly[k:] -= poly[:-k].copy()
        for r in range(i):  # poly[j] += poly[j - i] for j = i, i+1, …: a running sum per residue mod i
            poly[r::i] = np.cumsum(poly[r::i])
    counts = poly[:size]
    return np.cumsum(counts) / counts.sum()


def u_statistic(x, y):
    """U of the first sample for each row: #(x > y) + ½ #(x == y)."""
    gt = (x[:, :, None] > y[:, None, :]).sum(axis=(1, 2))
    eq = (x[:, :, None] == y[:, None, :]).sum(axis=(1, 2))
    return gt + 0.5 * eq


def _sorted_rows(x, y):
    """U and the tie term of many rows at once from one sort per row: a row without ties
    has U = (the sum of its x values' ranks) - n1 (n1 + 1) / 2 and a tie term of 0; the
    rows with ties (rare in timings, never in the power simulation's normal draws) are
    counted pair by pair. The same figures as _pairwise in about a third of its time at
    benchmark sizes (tests/test_utest.py), which the power curves' 4,000-row calls feel."""
    m, n1 = x.shape
    both = np.concatenate([x, y], axis=1)
    order = np.argsort(both, axis=1, kind="stable")
    ordered = np.take_along_axis(both, order, axis=1)
    tied = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
    rank_sum = ((order < n1) * np.arange(1, both.shape[1] + 1)).sum(axis=1)
    u1, tie_term = (rank_sum - n1 * (n1 + 1) / 2).astype(float), np.zeros(m)
    if tied.any():
        u1[tied], tie_term[tied] = _pairwise(x[tied], y[tied])
    return u1, tie_term


def _pairwise(x, y):
    """U and the tie term (sum over tie groups of t³ - t) by comparing every pair:
    exact and fast for benchmark-sized samples, but n1 x n2 in memory."""
    u1 = u_statistic(x, y)
    both = np.concatenate([x, y], axis=1)
    eq_counts = (both[:, :, None] == both[:, None, :]).sum(axis=2)  # size of each value's tie group
    tie_term = (eq_counts.astype(float) ** 2 - 1).sum(axis=1)  # = sum over groups of t^3 - t
    return u1, tie_term


def _ranked(x, y):
    """The same U and tie term from each row's samples sorted, in memory linear in
    their sizes (a file of one benchmark repeated a million times is valid too)."""
    u1, tie_term = np.empty(len(x)), np.empty(len(x))
    for i in range(len(x)):
        xs, ys = np.sort(x[i]), np.sort(y[i])
        pairs_below = pairs_not_above = 0  # (x, y) pairs with y < x, and with y <= x
        cubes = 0.0  # sum over the distinct values of both samples of t^3, t the value's count in both
        for runs, values in _runs(xs):
            below, not_above = np.searchsorted(ys, values, "left"), np.searchsorted(ys, values, "right")
            pairs_below += int((runs * below).sum())
            pairs_not_above += int((runs * not_above).sum())
            in_y = (not_above - below).astype(float)
            cubes += float(((runs + in_y) ** 3 - in_y ** 3).sum())
        for runs, _ in _runs(ys):
            cubes += float((runs.astype(float) ** 3).sum())
        u1[i] = (pairs_below + pairs_not_above) / 2  # #(x > y) + ½ #(x == y)
        tie_term[i] = cubes - (len(xs) + len(ys))
    return u1, tie_term


def _runs(s):
    """(lengths, values) of the runs of equal values in sorted s, a chunk at a time
    (a run is never split across chunks)."""
    start, n = 0, len(s)
    while start < n:
        end = min(start + RANK_CHUNK, n)
        if end < n:
            end = int(np.searchsorted(s, s[end - 1], "right"))
        chunk = s[start:end]
        heads = np.flatnonzero(np.concatenate([[True], chunk[1:] != chunk[:-1]]))
        yield np.diff(np.append(heads, len(chunk))), chunk[heads]
        start = end


def pvalues(x, y):
    """p-values for rows of x (m x n1) against rows of y (m x n2).

    Rows whose values are all equal get p = 1 (benchstat reports them as
    "all samples are equal"); the caller detects those.
    """
    m, n1 = x.shape
    n2 = y.shape[1]
    u1, tie_term = (_sorted_rows if n1 + n2 <= PAIRWISE_LIMIT else _ranked)(x, y)
    ties = tie_term > 0
    p = np.ones(m)
    u_small = np.minimum(u1, n1 * n2 - u1)

    exact = ~ties if (n1 <= EXACT_LIMIT and n2 <= EXACT_LIMIT) else np.zeros(m, bool)
    if exact.any():
        cdf = _u_cdf(n1, n2)
        p[exact] = np.minimum(2 * cdf[np.floor(u_small[exact]).astype(int)], 1.0)
        p[exact & (u1 == n1 * n2 - u1)] = 1.0

    approx = ~exact
    if approx.any():
        n = n1 + n2
        var = n1 * n2 / 12.0 * ((n + 1) - tie_term[approx] / (n * (n - 1)))
        with np.errstate(divide="ignore", invalid="ignore"):
            numer = u1[approx] - n1 * n2 / 2.0
            numer = numer - np.sign(numer) * 0.5
            z = numer / np.sqrt(var)
            pa = np.array([math.erfc(v / math.sqrt(2)) for v in np.abs(z)])  # 2 * Phi(-|z|)
        p[approx] = np.where(var > 0, np.minimum(pa, 1.0), 1.0)
    return p
