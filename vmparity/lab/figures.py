"""A run's trust figures, one place for the report's first lines, the end of
`make lab-up` and `make lab-noise`: the A/A noise share, and per target the
rows beyond noise and the ones no rule explains."""

from dataclasses import dataclass

from ..names import is_aa_control


@dataclass
class TargetFigures:
    target: str
    kind: str
    rows: int  # rows compared with the baseline
    beyond: int  # significant and beyond noise (explained or not)
    within: int  # significant but within noise
    unexplained: int  # beyond noise, no rule matched

    @property
    def beyond_share(self):
        return self.beyond / self.rows if self.rows else 0.0


def per_target(table, explained):
    out = []
    for col in table.columns[1:]:
        if is_aa_control(col) or col not in explained:
            continue
        deltas = [r.deltas[col] for r in table.rows if col in r.deltas]
        res = explained[col]
        beyond = sum(d.comparison.significant and not d.within_noise for d in deltas)
        out.append(TargetFigures(col, table.configs.get(("", col), {}).get("target-kind", "?"), len(deltas),
                                 beyond, len(res.within_noise), len(res.unexplained)))
    return out


def lines(table, explained):
    """Plain-text figures, one line each (the end of lab-up prints them)."""
    out = []
    if table.noise:
        for m in table.noise:
            out.append(f"A/A noise ({m.aa} vs {m.metal}): {m.significant} of {m.rows} rows "
                       f"({100 * m.share:.1f} %) differ significantly")
    else:
        out.append("A/A noise: no A/A control in this run (differences are not checked against noise)")
    for f in per_target(table, explained):
        out.append(f"{f.target} ({f.kind}) vs {table.columns[0]}: {f.beyond} of {f.rows} rows "
                   f"({100 * f.beyond_share:.1f} %) beyond noise, {f.unexplained} unexplained, {f.within} within noise")
    return out
