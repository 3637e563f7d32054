"""The regression gate: which differences fail a CI run (`--fail-on-regression PCT`)."""

from . import judgement


def regressions_over(table, threshold_pct):
    """Significant changes in the worse direction larger than threshold_pct; for two
    runs, the rows beyond run-to-run noise (crossrun.RowJudgement) instead. An A/B row
    whose program both sides ran byte-identical is the run's noise, never the code's."""
    if table.crossrun is not None:
        return table.crossrun.regressions_over(threshold_pct)
    out = []
    for r, col, d in table.significant():
        if d.verdict == "worse" and judgement.beyond(d) and not d.same_binary and d.pct is not None \
                and abs(d.pct) > threshold_pct:
            out.append((r, col, d))
    return out
