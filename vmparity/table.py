"""The comparison table (like x/perf's benchtab): rows x columns of summaries.

Columns are the operands (A, B, ...) or, with `by=KEY`, the values of a
configuration key (e.g. every target of one run side by side). The first
column is the baseline and every other column is compared against it.
Groups keep apart what must not be pooled: with two runs each target is
compared with the same target of the other run.
"""

from dataclasses import dataclass, field

import numpy as np

from . import stats
from .names import is_lab_metal



@dataclass
class Delta:
    comparison: stats.Comparison
    pct: float  # None when the baseline is 0
    verdict: str  # better | worse | ~ | same | ?


@dataclass
class Row:
    group: str
    name: str
    unit: str
    higher_better: bool
    cells: dict  # column -> stats.Summary (missing columns absent)
    deltas: dict = field(default_factory=dict)  # column -> Delta (non-baseline columns)


@dataclass
class GeomeanRow:
    group: str
    unit: str
    higher_better: bool
    values: dict  # column -> geomean of medians over rows present in every column
    pct: dict  # column -> change against the baseline's geomean


@dataclass
class Table:
    columns: list
    rows: list
    geomeans: list
    alpha: float
    confidence: float
    by: str = None
    labels: dict = field(default_factory=dict)  # what each input operand was
    configs: dict = field(default_factory=dict)  # (group, column) -> header

    def significant(self):
        return [(r, c, d) for r in self.rows for c, d in r.deltas.items() if d.comparison.significant]

    def warnings(self):
        """Unique warnings in row order, each with the rows it concerns."""
        out = {}
        for r in self.rows:
            for col, s in r.cells.items():
                for w in s.warnings:
                    out.setdefault(w, []).append(f"{r.name} {r.unit} [{col}]")
            for col, d in r.deltas.items():
                for w in d.comparison.warnings:
                    out.setdefault(w, []).append(f"{r.name} {r.unit} [{col}]")
        return out


def build(inputs, by=None, alpha=stats.DEFAULT_ALPHA, confidence=stats.DEFAULT_CONFIDENCE, baseline=None):
    """Build a Table from loaded Inputs (see inputs.py)."""
    pool = {}  # (group, name, unit) -> {column: [values]}
    direction = {}
    columns = []
    kinds = {}
    configs = {}  # (group, column) -> the header of the (first) file behind it, for explain
    pivot_runs = by is None and any(inp.is_run and len(inp.files) > 1 for inp in inputs)
    for inp in inputs:
        for rf in inp.files:
            if by is None:
                col = inp.label
                group = rf.target if pivot_runs else ""
            else:
                col = rf.config.get(by, f"{by}=?")
                group = inp.label if len(inputs) > 1 else ""
            if col not in columns:
                columns.append(col)
                kinds[col] = rf.config.get("target-kind", "")
            configs.setdefault((group, col), rf.config)
            for bench in rf.benchmarks.values():
                for unit, values in zip(bench.units, bench.values):
                    key = (group, bench.name, unit)
                    pool.setdefault(key, {}).setdefault(col, []).append(values)
                    direction.setdefault(unit, rf.higher_is_better(unit))
    if by == "target":
        columns.sort(key=lambda c: baseline_rank(c, kinds.get(c)))  # stable: file order within a rank
    if baseline is not None:
        if baseline not in columns:
            from .errors import InputError

            raise InputError("--baseline", f"{baseline!r} is not a column; expected one of {', '.join(columns)}")
        columns.remove(baseline)
        columns.insert(0, baseline)

    # Rows: group, then unit (first appearance), then benchmark (first appearance).
    unit_order = {}
    for (_, _, unit) in pool:
        unit_order.setdefault(unit, len(unit_order))
    keys = sorted(pool, key=lambda k: (k[0], unit_order[k[2]]))  # stable: keeps name order

    for cells in pool.values():  # several files in one column: pool their samples
        for col, parts in cells.items():
            cells[col] = parts[0] if len(parts) == 1 else np.concatenate(parts)
    samples, where = [], []
    for ki, key in enumerate(keys):
        for col in columns:
            if col in pool[key]:
                samples.append(pool[key][col])
                where.append((ki, col))
    summaries = stats.summarize_many(samples, confidence)
    rows = [Row(k[0], k[1], k[2], direction[k[2]], {}) for k in keys]
    for (ki, col), s in zip(where, summaries):
        rows[ki].cells[col] = s

    base = columns[0]
    pairs, pair_where = [], []
    for ki, key in enumerate(keys):
        if base not in pool[key]:
            continue
        for col in columns[1:]:
            if col in pool[key]:
                pairs.append((pool[key][base], pool[key][col]))
                pair_where.append((ki, col))
    for (ki, col), cmp in zip(pair_where, stats.compare_many(pairs, alpha)):
        row = rows[ki]
        old, new = row.cells[base].center, row.cells[col].center
        pct = stats.pct_change(old, new)
        row.deltas[col] = Delta(cmp, pct, _verdict(cmp, pct, row.higher_better))

    table = Table(columns, rows, _geomeans(rows, columns), alpha, confidence, by)
    table.labels = {inp.label: str(inp.path) for inp in inputs}
    table.configs = configs
    return table


def baseline_rank(target, kind):
    """Which column is the reference when none is asked for (lower comes first).

    The lab's own metal by name (`metal`, `metal-<host>`), then any target whose
    file says `target-kind: metal`, then the rest. The name wins because the
    lab chose it; a kind is only what one file claims about itself, and a file
    that claims metal must not displace the lab's metal by sorting first.
    """
    if is_lab_metal(target):
        return 0
    return 1 if kind == "metal" else 2


def _verdict(cmp, pct, higher_better):
    if not cmp.significant:
        return "~"
    if pct is None:
        return "?"
    if pct == 0:
        return "same"
    return "better" if (pct > 0) == higher_better else "worse"


def _geomeans(rows, columns):
    out = []
    by_unit = {}
    for r in rows:
        by_unit.setdefault((r.group, r.unit), []).append(r)
    for (group, unit), rs in by_unit.items():
        complete = [r for r in rs if all(c in r.cells for c in columns)]
        if len(complete) < 2 or len(columns) < 2:
            continue  # benchstat prints no geomean for a single row
        values = {c: stats.geomean([r.cells[c].center for r in complete]) for c in columns}
        base = values[columns[0]]
        pct = {
            c: (stats.pct_change(base, values[c]) if base is not None and values[c] is not None else None)
            for c in columns[1:]
        }
        out.append(GeomeanRow(group, unit, rs[0].higher_better, values, pct))
    return out


def regressions_over(table, threshold_pct):
    """Significant changes in the worse direction larger than threshold_pct."""
    out = []
    for r, col, d in table.significant():
        if d.verdict == "worse" and d.pct is not None and abs(d.pct) > threshold_pct:
            out.append((r, col, d))
    return out
