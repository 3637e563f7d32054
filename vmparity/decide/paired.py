"""The paired rule of an A/B run: HEAD against BASE round by round.

In an A/B run (docs/noise.md, "A/B in one run") a target's two sides ran one
right after the other in every round, so a slow spell of the host moves both
values of a round together. Comparing the two sides' medians (the U test and
noise.py's band) throws that away: each side spreads by the host's spells.
This rule works on what the rounds share instead, per row:

    d_k = log(HEAD_k / BASE_k)   for every round k both sides measured
    change = median(d)                   (reported as expm1(change) in %)
    p      = Wilcoxon signed-rank test of d against 0 (exact, two-sided)
    band   = max(1 %, 2 · λ(family) · se, |Δ_AA| where the A/A row is itself beyond)
    se     = 1.2533 · max(s_d, s_AA(family)) / √n

s_d is the robust spread of d (noise.py's small-sample-corrected MAD); six
values can agree by luck, so no row is taken to be quieter than its family's
median spread of the A/A pair's per-round differences, s_AA(family) (the
floor that keeps a same-code run quiet: without it, 4 of 307 rows of two
targets came out beyond, docs/noise.md). A change is beyond noise when
p <= α and |change| > band. λ is calibrated as noise.py does, from the A/A
pair measured in the same rounds (`metal` and `metal-aa`, both HEAD): its
per-round differences per row, |median| in standard errors, 1.4826 · their
median per family, at least 1. The A/A rows the same rule calls beyond are
the paired rule's false-alarm figure, and such a row's |Δ_AA| is the least
change that counts there.

Within a lab run each row is also held at its fast level (fastlevel.py), where the
caller gave the sides' values (Evidence.fast) and the model has that rule (with_fast):
beyond noise when either rule says so, the smaller MDE of the two.

With n differences the most extreme sign pattern has p = 2 / 2**n: six
rounds are the fewest that can reach α = 0.05. A row with fewer rounds on
both sides is left to the unpaired rule (lab/ab_compare.py says how many).
"""

import math
from dataclasses import dataclass, field, fields
from statistics import NormalDist

import numpy as np
from ..query.names import family
from ..stats import MAD_NORMAL, mad_factor, sensitivity
from . import noise, policy
from .noise import FLOOR_PCT, K_SE, MEDIAN_SE, family_scales

_NORMAL = NormalDist()


@dataclass
class Evidence:
    """One row's per-round differences, summed up."""

    n: int
    change: float  # median of d (log)
    spread: float  # robust spread of d (log), NaN when n < 2
    p: float
    fast: object = None  # fastlevel.FastEvidence of the row's sides, where the caller had them

    @property
    def pct(self):
        return math.expm1(self.change) * 100


def differences(base, head):
    """{round: value} of each side -> the log ratios HEAD/BASE of the rounds both have, in round order."""
    common = sorted(k for k in set(base) & set(head) if base[k] > 0 and head[k] > 0)
    return np.array([math.log(head[k] / base[k]) for k in common])


def pair_differences(base, head):
    """{(name, unit): differences} of two sides' per-round values {(name, unit): {round: value}}, row by row."""
    return {key: differences(base[key], head[key]) for key in base.keys() & head.keys()}


def against_passes(metal, aa, target):
    """{round: value} of the two passes of metal and of a target -> the target's per-round
    log ratios against the geometric mean of the passes that round measured (one pass
    where the other is missing), over the rounds the target and a pass have, in round order.
    Both passes: a draw of one of them counts half, as the unpaired rule holds a
    difference against both passes (noise.py)."""
    out = []
    for k in sorted(target):
        passes = [v[k] for v in (metal, aa) if k in v and v[k] > 0]
        if passes and target[k] > 0:
            out.append(math.log(target[k]) - sum(math.log(v) for v in passes) / len(passes))
    return np.array(out)


# The spread of a target's per-round ratio against the mean of two passes, for a
# target no different from metal, is √(1 + 1/2) σ against the A/A pair's √2 σ
# (independent draws of σ each): the A/A floor scaled by √3 / 2.
TWO_PASS_FLOOR = math.sqrt(3) / 2


def evidence(d, fast=None):
    """The per-round differences d summed up; fast: the row's fastlevel.FastEvidence, if any."""
    d = np.asarray(d, dtype=float)
    n = len(d)
    if n == 0:
        return Evidence(0, 0.0, math.nan, 1.0, fast)
    change = float(np.median(d))
    spread = MAD_NORMAL * mad_factor(n) * float(np.median(np.abs(d - change))) if n >= 2 else math.nan
    return Evidence(n, change, spread, signed_rank_p(d), fast)


def signed_rank_p(d):
    """Two-sided Wilcoxon signed-rank p of d against 0 (sensitivity.signed_rank_p: exact for
    up to 16 rounds, ties at their mean rank, zeros dropped); 1 when every difference is zero."""
    return sensitivity.signed_rank_p(d)


@dataclass
class PairedModel:
    alpha: float
    rows: int = 0  # A/A rows with paired rounds
    beyond_rows: list = field(default_factory=list)  # (name, unit, pct, p) of A/A rows the rule calls beyond
    family_scale: dict = field(default_factory=dict)  # (base, unit) -> λ
    run_scale: float = 1.0
    aa_change: dict = field(default_factory=dict)  # (name, unit) -> |Δ_AA| % of the rows in beyond_rows
    family_spread: dict = field(default_factory=dict)  # (base, unit) -> s_AA: median spread of the A/A's d
    floor_scale: float = 1.0  # s_AA's share that floors a row's spread (TWO_PASS_FLOOR against both passes)
    fast: object = None  # fastlevel.FastModel: a row is beyond when either rule says so (with_fast)

    def with_fast(self, fast):
        """This model with the fast-level rule beside it: its A/A rows beyond join beyond_rows,
        the run's A/A figure (the paired rule's own band keeps its own A/A rows)."""
        self.fast = fast
        mine = {(name, unit) for name, unit, _, _ in self.beyond_rows}
        self.beyond_rows += [row for row in fast.beyond_rows if row[:2] not in mine]
        return self

    def se(self, name, unit, ev):
        """The standard error (log) of the row's median difference, the family's A/A spread its floor."""
        if not ev.n or not math.isfinite(ev.spread):
            return math.nan
        s = max(ev.spread, self.floor_scale * self.family_spread.get((family(name), unit), 0.0))
        return MEDIAN_SE * s / math.sqrt(ev.n)

    @property
    def share(self):
        return len(self.beyond_rows) / self.rows if self.rows else 0.0

    def scale(self, name, unit):
        return self.family_scale.get((family(name), unit), self.run_scale)

    def band(self, name, unit, ev):
        """The smallest |change| (%) that counts on this row with this evidence."""
        own = self.aa_change.get((name, unit), 0.0)
        se = self.se(name, unit, ev)
        if not math.isfinite(se):
            return max(FLOOR_PCT, own)
        return max(FLOOR_PCT, own, math.expm1(K_SE * self.scale(name, unit) * se) * 100)

    def beyond(self, name, unit, ev):
        return self._paired_beyond(name, unit, ev) or self._fast_beyond(name, unit, ev)

    def _paired_beyond(self, name, unit, ev):
        return ev.p <= self.alpha and abs(ev.change) > math.log1p(self.band(name, unit, ev) / 100)

    def _fast_beyond(self, name, unit, ev):
        return self.fast is not None and ev.fast is not None and self.fast.beyond(name, unit, ev.fast)

    def decided_by(self, name, unit, ev):
        """Which test the row's verdict (its change and p, reading) comes from (decide/policy.py)."""
        return policy.FAST_LEVEL if self._fast_beyond(name, unit, ev) else policy.SIGNED_RANK

    def reading(self, name, unit, ev):
        """(change %, p) the row reports: its fast level's where that rule calls it beyond (the
        host's spells leave the fast level alone, and move the median of a noisy hour's ratios
        by as much as the change), else the paired rule's."""
        if self._fast_beyond(name, unit, ev):
            return ev.fast.pct, self.fast.p(name, unit, ev.fast)
        return ev.pct, ev.p

    def mde(self, name, unit, ev):
        """The smallest change (%, either direction) found with sensitivity.POWER on this row:
        the smaller of the paired rule's and the fast level's (fastlevel.FastModel.mde)."""
        paired_mde = self._paired_mde(name, unit, ev)
        if self.fast is None or ev.fast is None:
            return paired_mde
        return min(paired_mde, self.fast.mde(name, unit, ev.fast))

    def _paired_mde(self, name, unit, ev):
        """The paired rule's: the signed-rank test's power at δ / s_d (sensitivity.w_power_at) times
        the chance that the observed median, δ plus an error of sd se, clears the band (taken as
        independent, which errs on the safe side); inf when n rounds can never reach α."""
        if not sensitivity.signed_rank_reachable(ev.n, self.alpha) or not math.isfinite(ev.spread):
            return math.inf
        # the row's spread, floored as se floors it: ten ratios can agree by luck, and the
        # test's power at the row's own spread would then promise more than it finds
        sigma = max(ev.spread, self.floor_scale * self.family_spread.get((family(name), unit), 0.0))
        se = self.se(name, unit, ev)
        need = math.log1p(self.band(name, unit, ev) / 100)

        def power(delta):
            w = sensitivity.w_power_at(ev.n, self.alpha, delta / sigma) if sigma > 0 else 1.0
            return w * (_NORMAL.cdf((delta - need) / se) if se > 0 else float(delta > need))

        return math.expm1(sensitivity.smallest_detectable(power, need, sigma)) * 100


def calibrate(aa_differences, alpha, unit_of=None):
    """The paired model from the A/A pair's per-round differences {(name, unit): d}
    (metal-aa against metal, round by round). unit_of(key) names the unit a row is
    calibrated and judged with, where that is not its own: a time row put on another
    unit's values (a large copy on its refcopies/op twin, bandwidth.py) is that unit's
    evidence, and joins its rows' spread and λ."""
    unit_of = unit_of or (lambda key: key[1])
    model = PairedModel(alpha)
    evs = {key: evidence(d) for key, d in aa_differences.items()
           if sensitivity.signed_rank_reachable(len(d), alpha)}
    spreads = {}
    for key, ev in evs.items():
        if math.isfinite(ev.spread):
            spreads.setdefault((family(key[0]), unit_of(key)), []).append(ev.spread)
    model.family_spread = {k: float(np.median(v)) for k, v in spreads.items()}
    z = {}
    for key, ev in evs.items():
        se = model.se(key[0], unit_of(key), ev)
        if math.isfinite(se) and se > 0:
            z.setdefault((family(key[0]), unit_of(key)), []).append(abs(ev.change) / se)
    model.run_scale, model.family_scale = family_scales(z)
    model.rows = len(evs)
    for (name, unit), ev in evs.items():
        if model.beyond(name, unit_of((name, unit)), ev):
            model.beyond_rows.append((name, unit, ev.pct, ev.p))
    model.aa_change = {(name, unit): abs(pct) for name, unit, pct, _ in model.beyond_rows}
    return model


@dataclass
class DecidedNoise(noise.NoiseModel):
    """A table's A/A noise model whose rows the paired rule decided where their rounds pair:
    its mde is that rule's for those rows (row_mde, keyed by (target, name, unit)), the
    unpaired rule's for the rest; `paired` is the paired rule's model (its A/A figure)."""

    row_mde: dict = field(default_factory=dict)
    paired: PairedModel = None
    paired_rows: dict = field(default_factory=dict)  # target -> rows decided paired by round
    clock_checks: dict = field(default_factory=dict)  # target -> clockcheck.ClockCheck
    bandwidth_checks: dict = field(default_factory=dict)  # target -> its reference copy's check (bandwidth.py)

    def mde(self, name, unit, target_spread=None, n_target=None, target=None):
        key = (target, name, unit)
        if key in self.row_mde:
            return self.row_mde[key]
        return super().mde(name, unit, target_spread, n_target)


def decided(model, pm, row_mde, paired_rows, clock_checks=None, bandwidth_checks=None):
    """model (noise.NoiseModel) as a DecidedNoise with the paired rule's row figures."""
    return DecidedNoise(**{f.name: getattr(model, f.name) for f in fields(noise.NoiseModel)},
                        row_mde=row_mde, paired=pm, paired_rows=paired_rows, clock_checks=clock_checks or {},
                        bandwidth_checks=bandwidth_checks or {})
