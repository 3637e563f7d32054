"""The A/A control: what the same environment shows against itself, and how
small a difference the run could have seen.

Every lab run measures the host's metal twice per round under two names
(`metal` and `metal-aa`, vmparity.results.targets). Comparing the two gives the run's
noise figure: the share of rows that come out "significant" although nothing
differs.

The rule (docs/noise.md): a target's difference from metal is *beyond
noise* when it is significant (Mann–Whitney, α) **and** its size exceeds the
row's band, both against metal and against metal-aa:

    band(row, target) = max(FLOOR_PCT, K · λ(family) · se(row, target), |Δ_AA(row)| if the A/A row differs)
    se = 1.2533 · √(s_base² / n_base + s_target² / n_target)

in log units, where s is the robust spread (small-sample-corrected MAD) of a
cell's log values — the row's own repetitions, so a quiet row gets a narrow
band and a bandwidth-bound one a wide band — s_base pools metal's and
metal-aa's, and 1.2533 · s / √n is the standard error of a median. λ is what
the A/A control says about that evidence, per benchmark family (same base
name and unit): the robust scale of the A/A changes measured in standard
errors, at least 1. When passes differ by more than their repetitions
predict (a spell that slowed a whole pass), λ widens the family's bands by
that much; a few such rows cannot set it, as a 95th percentile of the A/A
changes could. A row whose two passes themselves differ significantly has
shown pass-to-pass noise of |Δ_AA| (a spell its repetitions did not
reveal): no smaller difference counts there. The floor keeps a row whose
repetitions happened to agree to the last digit from making every tiny
difference "real". Everything else is
within noise: listed as such, never as unexplained.

Why against both passes: metal-aa is a second measurement of the baseline in
the same rounds. When metal's median of a row lands in a slow (or fast)
spell of a shared host, every target compared with metal inherits that draw
and looks different by about the same amount; against metal-aa it does not.
A difference of the target's own clears the band against either pass.

The other error rate: `mde` is the row's minimum detectable effect, the
smallest change (either direction) that this rule calls beyond noise with
80 % power: the U test's power (vmparity.sensitivity) and the band, plus
the row's A/A change (a change in that direction must clear the band against
metal-aa too).
"""

import math
from dataclasses import dataclass, field, replace
from functools import cached_property
from statistics import NormalDist

import numpy as np

from ..stats import sensitivity
from ..results.targets import aa_control_of, is_lab_metal
from ..query.names import family
from ..stats import MAD_NORMAL

FLOOR_PCT = 1.0
K_SE = 2.0  # the band in standard errors of the difference of two medians (≈ its two-sided 95 % bound)
MEDIAN_SE = 1.2533  # sd of a median of n normal values ≈ 1.2533 σ / √n
MIN_FAMILY_ROWS = 3  # fewer A/A rows than this say too little of a family's λ: the run's λ is used


@dataclass
class NoiseModel:
    metal: str
    aa: str
    rows: int  # rows measured on both passes
    significant: int  # of those, rows the U test calls different
    row_pct: dict  # (name, unit) -> |Δ_AA| in percent
    family_scale: dict  # (base, unit) -> λ: the A/A changes' robust scale in standard errors, >= 1
    significant_rows: list = field(default_factory=list)  # (name, unit, pct, p)
    row_aa_change: dict = field(default_factory=dict)  # (name, unit) -> signed Δ_AA % (metal-aa vs metal)
    base_spread: dict = field(default_factory=dict)  # (name, unit) -> (pooled log spread of both passes, n of metal)
    alpha: float = 0.05
    run_scale: float = 1.0  # λ over every row, for families with too few rows

    @cached_property
    def aa_differs(self):
        """Rows whose two passes differ significantly: there the passes themselves
        disagree by |Δ_AA|, and no smaller difference of a target can count."""
        return {(name, unit) for name, unit, _, _ in self.significant_rows}

    @property
    def share(self):
        return self.significant / self.rows if self.rows else 0.0

    def scale(self, name, unit):
        return self.family_scale.get((family(name), unit), self.run_scale)

    def se(self, name, unit, target_spread=None, n_target=None):
        """The standard error (log units) of the target's median change on this row, NaN when unknown."""
        base = self.base_spread.get((name, unit))
        if base is None or not math.isfinite(base[0]):
            return math.nan
        s_b, n_b = base
        s_t = target_spread if target_spread is not None and math.isfinite(target_spread) else s_b
        n_t = n_target or n_b
        return MEDIAN_SE * math.sqrt(s_b ** 2 / n_b + s_t ** 2 / n_t)

    def band(self, name, unit, target_spread=None, n_target=None):
        """The smallest |Δ%| that counts as beyond noise for this row and target."""
        own = self.row_pct.get((name, unit), 0.0) if (name, unit) in self.aa_differs else 0.0
        se = self.se(name, unit, target_spread, n_target)
        if not math.isfinite(se):
            return max(FLOOR_PCT, own)
        return max(FLOOR_PCT, own, _pct(K_SE * self.scale(name, unit) * se))

    def band_between(self, name, unit, spread1, n1, spread2, n2):
        """The band (in %) a change between two targets of the run must clear (neither of them metal,
        e.g. a target and the same target with a fix applied): the floor, or K_SE · λ(family) ·
        the standard error of the difference of their medians."""
        if not all(math.isfinite(x) for x in (spread1, spread2)) or not n1 or not n2:
            return FLOOR_PCT
        se = MEDIAN_SE * math.sqrt(spread1 ** 2 / n1 + spread2 ** 2 / n2)
        return max(FLOOR_PCT, _pct(K_SE * self.scale(name, unit) * se))

    def beyond(self, name, unit, delta, target_spread=None):
        if delta is None or not delta.comparison.significant:
            return False
        if delta.pct is None:
            return True  # a change from zero: no percentage to hold against the band
        band = _log(self.band(name, unit, target_spread, delta.comparison.n2))
        return abs(_log(delta.pct)) > band and abs(_log(self.change_from_aa(name, unit, delta.pct))) > band

    def change_from_aa(self, name, unit, pct):
        """The target's change in % against metal-aa, from its change against metal."""
        aa = self.row_aa_change.get((name, unit))
        if aa is None or aa <= -100:
            return pct  # no A/A value for this row: metal is the only baseline there is
        return ((1 + pct / 100) / (1 + aa / 100) - 1) * 100

    def mde(self, name, unit, target_spread=None, n_target=None, target=None):
        """The smallest change in % (either direction) this run calls beyond noise with
        sensitivity.POWER on this row; inf when the row's samples can never reach α.

        A change δ (log) must pass the U test (its power at δ / σ, sensitivity.py)
        and clear the band against both passes: the observed change, δ plus an
        error of sd `se`, beyond band + |Δ_AA| in the worse direction. The two are
        taken as independent, which understates the power a little (they rise
        together), so the figure errs on the safe side. `target` names the column
        (a model whose rows another rule decided, paired.DecidedNoise, needs it)."""
        base = self.base_spread.get((name, unit))
        if base is None or not math.isfinite(base[0]):
            return math.inf
        s_b, n_b = base
        n_t = n_target or n_b
        s_t = target_spread if target_spread is not None and math.isfinite(target_spread) else s_b
        sigma = math.sqrt((s_b ** 2 + s_t ** 2) / 2)
        se = self.se(name, unit, s_t, n_t)
        need = _log(self.band(name, unit, s_t, n_t)) + abs(_log(self.row_aa_change.get((name, unit), 0.0)))

        def power(delta):
            u = sensitivity.u_power_at(n_b, n_t, self.alpha, delta / sigma) if sigma > 0 else 1.0
            return u * (_NORMAL.cdf((delta - need) / se) if se > 0 else float(delta > need))

        return _pct(sensitivity.smallest_detectable(power, need, sigma))


_NORMAL = NormalDist()


def _log(pct):
    return math.log1p(pct / 100) if pct > -100 else -math.inf


def _pct(log_change):
    return math.expm1(log_change) * 100


def from_table(table, metal, aa):
    """The noise model of a table that has both passes as columns, with `metal` the baseline."""
    pct, signed, sig, spread = {}, {}, [], {}
    z = {}
    n = 0
    for r in table.rows:
        if metal not in r.cells or aa not in r.cells:
            continue
        d = r.deltas.get(aa)
        if d is None:
            continue
        n += 1
        key = (r.name, r.unit)
        pct[key] = abs(d.pct) if d.pct is not None else 0.0
        if d.pct is not None:
            signed[key] = d.pct
        s = r.spreads if hasattr(r, "spreads") else {}
        s_m, s_aa = s.get(metal, math.nan), s.get(aa, math.nan)
        n_m, n_aa = r.cells[metal].n, r.cells[aa].n
        spread[key] = (math.sqrt((s_m ** 2 + s_aa ** 2) / 2), n_m)
        se = MEDIAN_SE * math.sqrt(s_m ** 2 / n_m + s_aa ** 2 / n_aa)
        if d.pct is not None and math.isfinite(se) and se > 0:
            z.setdefault((family(r.name), r.unit), []).append(abs(_log(d.pct)) / se)
        if d.comparison.significant:
            sig.append((r.name, r.unit, d.pct, d.comparison.p))
    run_scale, scales = family_scales(z)
    return NoiseModel(metal, aa, n, len(sig), pct, scales, sig, signed, spread, table.alpha, run_scale)


def family_scales(abs_z):
    """(the run's λ, {family: λ}) from the A/A rows' |change| / se by family: a family with
    fewer than MIN_FAMILY_ROWS rows takes the run's, which is 1 with fewer rows in all."""
    everything = [v for zs in abs_z.values() for v in zs]
    run_scale = _scale(everything) if len(everything) >= MIN_FAMILY_ROWS else 1.0
    return run_scale, {k: (_scale(v) if len(v) >= MIN_FAMILY_ROWS else run_scale) for k, v in abs_z.items()}


def _scale(abs_z):
    """λ: the robust scale of A/A changes in standard errors (1.4826 · their median
    absolute value is σ for normal z), never below 1."""
    return max(1.0, MAD_NORMAL * float(np.median(abs_z)))


def pairs_in(columns):
    """[(metal, aa)] for every lab metal whose A/A pass is among the columns."""
    cols = set(columns)
    return [(c, aa_control_of(c)) for c in columns if is_lab_metal(c) and aa_control_of(c) in cols]


def apply(table, models):
    """Mark the baseline's significant deltas that the A/A control shows to be within noise."""
    table.noise = [m for m in models if m.rows]
    for m in table.noise:
        for r in table.rows:
            deltas = r.deltas
            if not any(d.comparison.significant for d in deltas.values()):
                continue
            spreads = r.spreads
            for col, d in deltas.items():
                if col != m.aa and d.comparison.significant and not m.beyond(r.name, r.unit, d, spreads.get(col)):
                    r.mark_within_noise(col)


def rebased(model, table, base):
    """The run's A/A model held against another baseline of the same run: the BASE
    side of an A/B pair (`<target>~base` against `<target>`, docs/noise.md "A/B in
    one run"), whose table is `table` with `base` as its first column.

    What the A/A pair says about the run stays: λ per family (how far two passes
    drift apart beyond what their repetitions show) and the rows whose passes
    differ significantly (no smaller change counts there). The standard error
    comes from the pair's own two sides. The check against metal-aa falls away:
    the BASE side has no second pass, and it needs none, since it ran right
    before or after HEAD in every round, so a slow spell is shared rather than
    inherited from metal's draw. An A/B pair's rows whose rounds pair are decided
    round by round instead (decide/paired.py); this rule is left for the rest."""
    spread = {}
    for r in table.rows:
        if base in r.cells:
            spread[(r.name, r.unit)] = (r.spreads.get(base, math.nan), r.cells[base].n)
    return replace(model, metal=base, base_spread=spread, row_aa_change={})
