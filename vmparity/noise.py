"""The A/A control: what the same environment shows against itself.

Every lab run measures the host's metal twice per round under two names
(`metal` and `metal-aa`, vmparity.names). Comparing the two gives the run's
noise: the share of rows that come out "significant" although nothing
differs, and for every row how large a difference noise alone produced.

The rule (docs/noise.md): a target's difference from metal is *beyond
noise* when it is significant (Mann–Whitney, α) **and** its size exceeds the
row's noise band, both against metal and against metal-aa:

    band(row) = max(FLOOR_PCT, |Δ_AA(row)|, Q95(|Δ_AA| over the row's benchmark family))

where Δ_AA is the metal-aa vs metal change of that row in percent, and the
family is every row with the same benchmark base name and unit (memcpy's
sizes, the clock's paths, …). One row's A/A delta is a single draw of the
noise; the family's 95th percentile is a steadier estimate of how far noise
reaches for that kind of measurement, and the floor keeps a lucky quiet A/A
pass from making every tiny difference "real". Everything else is within
noise: listed as such, never as unexplained.

Why against both passes: metal-aa is a second measurement of the baseline in
the same rounds. When metal's median of a row lands in a slow (or fast)
spell of a shared host, every target compared with metal inherits that draw
and looks different by about the same amount; against metal-aa it does not.
A difference of the target's own clears the band against either pass.
"""

from dataclasses import dataclass, field

import numpy as np

from .names import aa_control_of, is_lab_metal, split_name

FLOOR_PCT = 3.0
FAMILY_QUANTILE = 0.95


@dataclass
class NoiseModel:
    metal: str
    aa: str
    rows: int  # rows measured on both passes
    significant: int  # of those, rows the U test calls different
    row_pct: dict  # (name, unit) -> |Δ_AA| in percent
    family_pct: dict  # (base, unit) -> Q95 of |Δ_AA| over the family
    significant_rows: list = field(default_factory=list)  # (name, unit, pct, p)
    row_aa_change: dict = field(default_factory=dict)  # (name, unit) -> signed Δ_AA % (metal-aa vs metal)

    @property
    def share(self):
        return self.significant / self.rows if self.rows else 0.0

    def band(self, name, unit):
        """The smallest |Δ%| that counts as beyond noise for this row."""
        base = split_name(name)[0]
        return max(FLOOR_PCT, self.row_pct.get((name, unit), 0.0), self.family_pct.get((base, unit), 0.0))

    def beyond(self, name, unit, delta):
        if delta is None or not delta.comparison.significant:
            return False
        if delta.pct is None:
            return True  # a change from zero: no percentage to hold against the band
        band = self.band(name, unit)
        return abs(delta.pct) > band and abs(self.change_from_aa(name, unit, delta.pct)) > band

    def change_from_aa(self, name, unit, pct):
        """The target's change in % against metal-aa, from its change against metal."""
        aa = self.row_aa_change.get((name, unit))
        if aa is None or aa <= -100:
            return pct  # no A/A value for this row: metal is the only baseline there is
        return ((1 + pct / 100) / (1 + aa / 100) - 1) * 100


def from_table(table, metal, aa):
    """The noise model of a table that has both passes as columns, with `metal` the baseline."""
    pct, signed, sig, fam = {}, {}, [], {}
    n = 0
    for r in table.rows:
        if metal not in r.cells or aa not in r.cells:
            continue
        d = r.deltas.get(aa)
        if d is None:
            continue
        n += 1
        p = abs(d.pct) if d.pct is not None else 0.0
        pct[(r.name, r.unit)] = p
        if d.pct is not None:
            signed[(r.name, r.unit)] = d.pct
        fam.setdefault((split_name(r.name)[0], r.unit), []).append(p)
        if d.comparison.significant:
            sig.append((r.name, r.unit, d.pct, d.comparison.p))
    family = {k: float(np.quantile(v, FAMILY_QUANTILE)) for k, v in fam.items()}
    return NoiseModel(metal, aa, n, len(sig), pct, family, sig, signed)


def pairs_in(columns):
    """[(metal, aa)] for every lab metal whose A/A pass is among the columns."""
    cols = set(columns)
    return [(c, aa_control_of(c)) for c in columns if is_lab_metal(c) and aa_control_of(c) in cols]




def family_summary(model, top=None):
    """[(base, unit, Q95 %, rows)] widest first: the per-benchmark spread for the report."""
    counts = {}
    for (name, unit) in model.row_pct:
        k = (split_name(name)[0], unit)
        counts[k] = counts.get(k, 0) + 1
    out = sorted(((b, u, q, counts[(b, u)]) for (b, u), q in model.family_pct.items()), key=lambda x: -x[2])
    return out[:top] if top else out
