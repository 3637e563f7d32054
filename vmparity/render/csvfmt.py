"""CSV: one line per row and column (long format, easy to load in a spreadsheet)."""

import csv

HEADER = ["group", "benchmark", "unit", "better", "column", "median", "ci_lo", "ci_hi", "n",
          "baseline", "delta_pct", "p", "significant", "verdict"]


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
            ])
