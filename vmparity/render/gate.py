"""What the regression gate says when it fails a CI run (decide/gate.py decides which rows)."""

from ..decide.gate import regressions_over
from . import fmt
from .escape import terminal


def gate(t, fail_on_regression, err):
    """Exit status for CI: 1 when a significant regression beyond noise exceeds the threshold."""
    if fail_on_regression is None:
        return 0
    bad = regressions_over(t, fail_on_regression)
    if not bad:
        return 0
    if t.crossrun is not None:
        from .crossrun_md import clock_note  # two runs only: two files start without the cross-run writer

        err.write(f"vmparity: {len(bad)} regression(s) beyond run-to-run noise larger than {fail_on_regression:g}%:\n")
        for j in bad:
            err.write(terminal(f"  {j.group}: {j.name} {j.unit} [{t.crossrun.head} vs {t.crossrun.base}]")
                      + f" {fmt.pct(j.change_pct)} after host drift {fmt.pct(j.drift_pct)}{clock_note(j)} "
                      f"(band {j.band_pct:.1f}%, p={j.p:.3f})\n")
        return 1
    err.write(f"vmparity: {len(bad)} significant regression(s) larger than {fail_on_regression:g}%:\n")
    for r, col, d in bad:
        grp = f"{r.group}: " if r.group else ""
        err.write(terminal(f"  {grp}{r.name} {r.unit} [{col} vs {t.columns[0]}]") + f" {d.pct:+.2f}% (p={d.comparison.p:.3f})\n")
    return 1
