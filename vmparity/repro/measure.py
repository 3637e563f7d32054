"""Reading one target's results for the verdicts: samples by benchmark
parameters, medians, and a two-sided contrast that says how sure it is."""

from dataclasses import dataclass

import numpy as np

from .. import stats
from ..names import param_number, split_name

TCG = "tcg-guest"


@dataclass
class Contrast:
    """a against b: ratio of medians, and the U test when the samples allow one."""

    a: float
    b: float
    ratio: float
    p: float | None  # None: too few samples for the test ever to be significant
    n: tuple

    def clear(self, min_ratio):
        """a is at least min_ratio times b, and significantly so when testable."""
        return self.ratio >= min_ratio and (self.p is None or self.p <= stats.DEFAULT_ALPHA)

    def why_not(self, min_ratio, what):
        """Why clear(min_ratio) is false, in words."""
        if self.ratio < min_ratio:
            return f"{what} is {self.ratio:.2f}x, under the {min_ratio}x the verdict needs"
        return f"{what} is {self.ratio:.2f}x but not significant ({self.note()})"

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
        return self.kind == TCG

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
    return Contrast(ma, mb, ma / mb if mb else float("inf"), p, (len(a), len(b)))


def fmt(x):
    """Numbers as a reader of the seeds would write them: 3 significant digits."""
    if x is None:
        return "?"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.3g}"
