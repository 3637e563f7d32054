"""CSV: one line per row and column (long format, easy to load in a spreadsheet)."""

import csv
import math

from ..decide.judgement import row_mde  # not figures: it imports every in-run judge

# within_noise and mde_pct are empty without an A/A control in the compared run (jsonfmt.py)
HEADER = ["group", "benchmark", "unit", "better", "column", "median", "ci_lo", "ci_hi", "n",
          "baseline", "delta_pct", "p", "significant", "verdict", "within_noise", "mde_pct"]


def render(table, out):
    w = csv.writer(out, lineterminator="\n")
    w.writerow(HEADER)
    base = table.columns[0]
    for r in table.rows:
        summaries, deltas = r.cells, r.deltas  # read once: a stored row makes them on each read
        for col in table.columns:
            s = summaries.get(col)
            if s is None:
                continue
            d = deltas.get(col)
            w.writerow([
                r.group, r.name, r.unit, {True: "higher", False: "lower"}.get(r.higher_better, "unknown"), col,
                repr(s.center), repr(s.lo), repr(s.hi), s.n,
                base if col != base else "",
                "" if d is None or d.pct is None else f"{d.pct:.4f}",
                "" if d is None else f"{d.comparison.p:.6g}",
                "" if d is None else str(d.comparison.significant).lower(),
                "" if d is None else d.verdict,
                "" if d is None or not table.noise else str(d.within_noise).lower(),
                _mde(table, r, col),
            ])


def _mde(table, row, column):
    mde = row_mde(table, row, column)
    return "" if mde is None or not math.isfinite(mde) else f"{mde:.4f}"
