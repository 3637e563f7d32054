"""Reading one target's results for the verdicts: samples by benchmark
parameters, medians, and a two-sided contrast that says how sure it is."""

import math
from dataclasses import dataclass
from functools import lru_cache
from statistics import NormalDist

import numpy as np

from .. import stats
from ..results.targets import TCG_GUEST
from ..query.names import param_number, split_name


@dataclass
class Contrast:
    """a against b: ratio of medians, and the U test when the samples allow one."""

    a: float
    b: float
    ratio: float
    p: float | None  # None: too few samples for the test ever to be significant
    n: tuple
    lo: float = 0.0  # the ratio's confidence interval (Hodges–Lehmann / Moses, from the U test's quantiles)
    hi: float = float("inf")

    def clear(self, min_ratio):
        """a is at least min_ratio times b, and significantly so when testable."""
        return self.ratio >= min_ratio and (self.p is None or self.p <= stats.DEFAULT_ALPHA)

    def why_not(self, min_ratio, what):
        """Why clear(min_ratio) is false, in words."""
        if self.ratio < min_ratio:
            return f"{what} is {self.ratio:.2f}x, under the {min_ratio}x the verdict needs"
        return f"{what} is {self.ratio:.2f}x but not significant ({self.note()})"

    def decide(self, bar):
        """"yes" when the whole confidence interval of the ratio is at or above the bar,
        "no" when it is wholly below, "unsure" when it straddles it. Deciding only
        on what the interval supports keeps a verdict from flipping between two runs
        whose ratios land on either side of a bar they do not clear."""
        if self.lo >= bar:
            return "yes"
        if self.hi < bar:
            return "no"
        return "unsure"

    def interval(self):
        hi = "∞" if self.hi == float("inf") else f"{self.hi:.3g}x"
        return f"{self.ratio:.3g}x, 95 % CI {self.lo:.3g}x–{hi}"

    def note(self):
        if self.p is None:
            return f"n={self.n[0]}/{self.n[1]}, too few samples for a U test: ratio only"
        return f"p={self.p:.3f}, n={self.n[0]}/{self.n[1]}"


class Target:
    """One target's result file, with look-ups by benchmark parameters."""

    def __init__(self, name, rf):
        self.name = name
        self.config = dict(rf.config)
        self.kind = self.config.get("target-kind", "unknown")
        self._rows = []  # (base, params, procs, unit -> samples)
        for bname, bench in rf.benchmarks.items():
            base, params, procs = split_name(bname)
            values = {u: np.asarray(v, dtype=float) for u, v in zip(bench.units, bench.values)}
            self._rows.append((base, params, procs, values))

    @property
    def is_tcg(self):
        return self.kind == TCG_GUEST

    def number(self, key):
        return param_number(self.config.get(key))

    def samples(self, base, unit, procs=None, **params):
        """Samples of the one benchmark with this base and these parameters, or None."""
        for b, p, pr, values in self._rows:
            if b == base and unit in values and all(p.get(k) == str(v) for k, v in params.items()):
                if procs is None or pr == procs:
                    return values[unit]
        return None

    def param_values(self, base, key):
        """Every value parameter `key` takes for this base, as numbers where possible, sorted."""
        vals = {p.get(key) for b, p, _, _ in self._rows if b == base and key in p}
        nums = [param_number(v) for v in vals]
        return sorted(n for n in nums if n is not None)

    def procs_values(self, base, **params):
        return sorted(
            {
                pr
                for b, p, pr, _ in self._rows
                if b == base and pr is not None and all(p.get(k) == str(v) for k, v in params.items())
            }
        )

    def has(self, base):
        return any(b == base for b, _, _, _ in self._rows)


def median(x):
    return float(np.median(x))


def contrast(a, b):
    """a against b (arrays of samples)."""
    ma, mb = median(a), median(b)
    op, need = stats.samples_for_utest(stats.DEFAULT_ALPHA)
    need = need if op == ">=" else need + 1
    testable = len(a) >= need and len(b) >= need
    p = stats.compare_many([(list(a), list(b))])[0].p if testable else None
    lo, hi = ratio_interval(a, b)
    return Contrast(ma, mb, ma / mb if mb else float("inf"), p, (len(a), len(b)), lo, hi)


@lru_cache(maxsize=None)
def _u_lower_critical(n1, n2, alpha):
    """Largest c with P(U <= c) <= alpha/2 under the null (exact, no ties), or -1 when none."""
    # counts[u] = number of arrangements with U = u, by the usual recursion over the largest value
    @lru_cache(maxsize=None)
    def ways(m, n, u):
        if u < 0:
            return 0
        if m == 0 or n == 0:
            return 1 if u == 0 else 0
        return ways(m - 1, n, u - n) + ways(m, n - 1, u)

    total = math.comb(n1 + n2, n1)
    acc, c = 0, -1
    for u in range(n1 * n2 + 1):
        acc += ways(n1, n2, u)
        if acc / total > alpha / 2:
            break
        c = u
    return c


def ratio_interval(a, b, alpha=stats.DEFAULT_ALPHA):
    """Confidence interval for the ratio a/b: the distribution-free interval for a
    shift of log values (Moses), i.e. order statistics of all pairwise ratios."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if len(a) == 0 or len(b) == 0 or (a <= 0).any() or (b <= 0).any():
        return 0.0, float("inf")
    ratios = np.sort((a[:, None] / b[None, :]).ravel())
    c = _u_lower_critical(len(a), len(b), alpha) if len(a) * len(b) <= 2500 else _u_normal_critical(len(a), len(b), alpha)
    if c < 0:
        return 0.0, float("inf")  # too few samples for any interval at this level
    return float(ratios[c]), float(ratios[len(ratios) - 1 - c])


def _u_normal_critical(n1, n2, alpha):
    mu, sd = n1 * n2 / 2, math.sqrt(n1 * n2 * (n1 + n2 + 1) / 12)
    return max(-1, int(math.floor(mu - NormalDist().inv_cdf(1 - alpha / 2) * sd - 0.5)))


def fmt(x):
    """Numbers as a reader of the seeds would write them: 3 significant digits."""
    if x is None:
        return "?"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.3g}"
