"""Read benchstat's `-format csv` output into comparable rows.

benchstat writes one block per table and unit: a row of column labels, a
row `,<unit>,CI,<unit>,CI,vs base,P…`, then one row per benchmark (name,
then value and CI per column, and `vs base` and P after every column but the
first). Each row becomes (name, unit, column, centre, delta) where delta is
`~` or the printed percentage (None for the first column).
"""

import csv
import io
import subprocess


def run(benchstat, args, cwd):
    out = subprocess.run([benchstat, "-format", "csv", *args], capture_output=True, text=True, check=True, cwd=cwd).stdout
    return parse(out)


def parse(text):
    rows, labels, unit = [], None, None
    for r in csv.reader(io.StringIO(text)):
        if not r or len(r) == 1:
            labels = unit = None if not r else labels
            continue
        if not r[0] and labels is None:
            # The first column takes 2 cells, every other one 4: labels sit at 1, 3, 7, 11…
            labels = [r[i] for i in [1] + list(range(3, len(r), 4))]
            continue
        if not r[0] and unit is None:
            unit = r[1]
            continue
        if r[0] == "geomean" or labels is None:
            continue
        cells, i = r[1:], 0
        for k, col in enumerate(labels):
            centre = float(cells[i]) if cells[i] else None
            delta = None
            if k > 0:
                delta = cells[i + 2] if i + 2 < len(cells) else None
                i += 4
            else:
                i += 2
            if centre is not None:
                rows.append((r[0], unit, col, centre, delta))
    return rows
