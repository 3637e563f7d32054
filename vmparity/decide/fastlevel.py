"""The fast-level rule: a row's lower quartile against metal's, beside the paired rule.

The shared host's noise is one-sided. A repetition runs at the row's fast
level (metal's clock rows agree within 0.2 % there) or in a slow spell, 10-35 %
slower, and in a noisy hour spells hold half the rounds of every target or
more, each target's in other rounds (`2026-11-28T12-51-56Z`: metal's clock
rows slow in 8 of 14 rounds, metal-aa's in 7, the container's in 7). The paired
rule's round-by-round median then lands in the spells, and its band with it
(clock's median minimum detectable effect 21.5 %). The fast level is what the
spells leave alone: per row and target,

    level  = the quartile of the row's log values on the fast side (the lower
             for a time, the upper for a rate), over every round it measured
    se     = the quartile's Maritz-Jarrett standard error (distribution-free: the
             spread of the order statistics it interpolates over every resample
             of the rounds, computed exactly)
    change = level(target) - mean(level(metal), level(metal-aa))

calibrated on the A/A pair as the paired rule is: each family's median se of
metal-aa against metal floors a row's se (scaled by √3/2 against both passes,
paired.TWO_PASS_FLOOR), λ is 1.4826 times the family's median |change| / se
(never below 1), and a change is beyond noise when |change| > band =
max(1 %, k λ se, |Δ_AA| where the A/A row is itself beyond), k = max(2.5, z(1 − α/2)).

α is the run's: the row's p (two-sided normal, change / λ se) is then at most α
whenever the band is cleared, so a row this rule calls beyond is significant at
the α the table states. At α = 0.05 and above k is 2.5 (p ≤ 0.0124) and nothing
changes; at α = 0.01 k is 2.576, where a row at 2.52 λ se (p ≈ 0.012) used to be
called beyond by the band and "~" by its p (issue 56).

A row counts as beyond noise when either rule says so (paired.PairedModel). A
shift of the whole row, what a slower target does, moves its fast level; a
change in how often a row runs slow (a quota's throttling) moves the median
and not the quartile, and the paired rule sees that. Both are calibrated on
the same A/A pair, whose rows either rule calls beyond are the run's A/A
figure (docs/noise.md, "The fast level").
"""

import functools
import math
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np

from ..query.names import family
from .noise import FLOOR_PCT, family_scales

QUANTILE = 0.25  # the fast side's quartile: a quarter of the rounds at the fast level fix it
MIN_ROUNDS = 6  # fewer values per side say too little of a quartile
# The band in λ-scaled standard errors: wider than the paired rule's 2, since a row is beyond
# when either rule says so. On the four noisy runs of 2026-11-28 (11-56-14Z … 13-16-45Z) 2.5 kept
# the A/A rows and the containers' unexplained rows beyond noise where the paired rule alone had
# them (4-8 and 4-27 of 426; 2 added 0-4 and 0-6) and found +10 % in 91-99 % of planted rows.
# With the Maritz-Jarrett se (2026-12-06), on the ablation's ten stored runs: A/A rows beyond
# 0.92 % at 2.5 (the paired rule's own figure), 1.17 % at 2.25, 1.64 % at 2 (docs/noise.md).
K_FAST = 2.5
Z_POWER = NormalDist().inv_cdf(0.8)  # the minimum detectable effect's power, as sensitivity.POWER
_NORMAL = NormalDist()


@dataclass(frozen=True)
class Level:
    """A row's fast level on one side, in its slowness: log time, or -log rate."""

    value: float
    se: float
    n: int


def level(values, higher_better):
    """{round: value} -> its Level, or None with fewer than MIN_ROUNDS positive values."""
    x = np.array([v for v in values.values() if v > 0], dtype=float)
    if len(x) < MIN_ROUNDS:
        return None
    y = np.sort(-np.log(x) if higher_better else np.log(x))
    n = len(y)
    at = QUANTILE * (n - 1)
    lo = int(math.floor(at))
    hi, f = min(lo + 1, n - 1), at - lo
    value = y[lo] + (y[hi] - y[lo]) * f
    # the interpolation's se, its two order statistics taken as fully correlated (an upper bound)
    se = (1 - f) * _order_statistic_se(y, lo) + f * _order_statistic_se(y, hi)
    return Level(float(value), float(se), n)


def _order_statistic_se(y, k):
    """Maritz-Jarrett standard error of the k-th (0-based) of the sorted values y: the sd of that
    order statistic over every resample of y, computed exactly (no random draws). It replaces half
    the distance between the order statistics a binomial sd either side of the rank, which could
    not see two levels: with six rounds it read the 1st to 3rd values, and when one side drew a
    row's lower level three times those sat on that level, its se a third of the level's step."""
    w = _mj_weights(len(y), k)
    mean = float(w @ y)
    return math.sqrt(max(0.0, float(w @ (y - mean) ** 2)))


@functools.lru_cache(maxsize=None)
def _mj_weights(n, k):
    """P(the k-th of a resample of n values is the i-th): P(Bin(n, (i+1)/n) > k) - P(Bin(n, i/n) > k)."""
    def above_k(p):
        return sum(math.comb(n, j) * p ** j * (1 - p) ** (n - j) for j in range(k + 1, n + 1))
    cdf = [above_k(i / n) for i in range(n + 1)]
    return np.array([cdf[i + 1] - cdf[i] for i in range(n)])


@dataclass(frozen=True)
class FastEvidence:
    """A row's fast level against its reference: change in the unit's own direction (log)."""

    change: float
    se: float
    n: int  # the fewest rounds of a side

    @property
    def pct(self):
        return math.expm1(self.change) * 100


def _evidence(mine, refs, higher_better):
    if mine is None or not refs:
        return None
    slower = mine.value - sum(r.value for r in refs) / len(refs)
    se = math.sqrt(mine.se ** 2 + sum(r.se ** 2 for r in refs) / len(refs) ** 2)
    return FastEvidence(-slower if higher_better else slower, se, min(x.n for x in (mine, *refs)))


def against_passes(metal, aa, target, higher_better):
    """A target's FastEvidence against the mean of metal's passes that have a level, or None."""
    refs = [lv for lv in (level(metal, higher_better), level(aa, higher_better)) if lv is not None]
    return _evidence(level(target, higher_better), refs, higher_better)


def between(base, head, higher_better):
    """head's FastEvidence against base (the A/A pair: metal-aa against metal), or None."""
    ref = level(base, higher_better)
    return _evidence(level(head, higher_better), [ref] if ref else [], higher_better)


@dataclass
class FastModel:
    alpha: float = 0.05  # the run's α: the band is never narrower than its two-sided normal bound
    family_se: dict = field(default_factory=dict)  # (base, unit) -> median se of the A/A rows
    family_scale: dict = field(default_factory=dict)  # (base, unit) -> λ
    run_scale: float = 1.0
    floor_scale: float = 1.0
    beyond_rows: list = field(default_factory=list)  # (name, unit, pct, p) of A/A rows beyond
    aa_change: dict = field(default_factory=dict)  # (name, unit) -> |Δ_AA| % of those rows

    def se(self, name, unit, fe):
        return max(fe.se, self.floor_scale * self.family_se.get((family(name), unit), 0.0))

    def scale(self, name, unit):
        return self.family_scale.get((family(name), unit), self.run_scale)

    @property
    def k(self):
        """The band in λ-scaled standard errors: K_FAST, or the α's two-sided normal bound where wider."""
        return max(K_FAST, _NORMAL.inv_cdf(1 - self.alpha / 2))

    def band(self, name, unit, fe):
        """The smallest |change| (%) that counts on this row at its fast level."""
        wide = math.expm1(self.k * self.scale(name, unit) * self.se(name, unit, fe)) * 100
        return max(FLOOR_PCT, self.aa_change.get((name, unit), 0.0), wide)

    def beyond(self, name, unit, fe):
        return abs(fe.change) > math.log1p(self.band(name, unit, fe) / 100)

    def p(self, name, unit, fe):
        """Two-sided normal p of the change in its λ-scaled standard errors."""
        noise = self.scale(name, unit) * self.se(name, unit, fe)
        return 2 * (1 - _NORMAL.cdf(abs(fe.change) / noise)) if noise > 0 else float(fe.change == 0)

    def mde(self, name, unit, fe):
        """The change found with 80 % power: the band plus Z_POWER of the change's noise."""
        need = math.log1p(self.band(name, unit, fe) / 100)
        return math.expm1(need + Z_POWER * self.scale(name, unit) * self.se(name, unit, fe)) * 100


def calibrate(metal, aa, higher_better, floor_scale=1.0, unit_of=None, alpha=0.05):
    """The fast-level model from the A/A pair's per-round values {(name, unit): {round: value}};
    higher_better(unit) says a unit's direction; floor_scale as PairedModel's; unit_of(key)
    the unit a row is calibrated and judged with (paired.calibrate); alpha the run's."""
    unit_of = unit_of or (lambda key: key[1])
    model = FastModel(alpha=alpha)
    evs = {}
    for key in metal.keys() & aa.keys():
        fe = between(metal[key], aa[key], higher_better(key[1]))
        if fe is not None:
            evs[key] = fe
    spreads = {}
    for key, fe in evs.items():
        spreads.setdefault((family(key[0]), unit_of(key)), []).append(fe.se)
    model.family_se = {k: float(np.median(v)) for k, v in spreads.items()}
    z = {}
    for key, fe in evs.items():
        se = model.se(key[0], unit_of(key), fe)
        if se > 0:
            z.setdefault((family(key[0]), unit_of(key)), []).append(abs(fe.change) / se)
    model.run_scale, model.family_scale = family_scales(z)
    for (name, unit), fe in evs.items():
        if model.beyond(name, unit_of((name, unit)), fe):
            model.beyond_rows.append((name, unit, fe.pct, model.p(name, unit_of((name, unit)), fe)))
    model.aa_change = {(name, unit): abs(pct) for name, unit, pct, _ in model.beyond_rows}
    model.floor_scale = floor_scale  # the A/A pair itself is calibrated on the pair's own floor
    return model
