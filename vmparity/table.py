"""The comparison table (like x/perf's benchtab): rows x columns of summaries.

Columns are the operands (A, B, ...) or, with `by=KEY`, the values of a
configuration key (e.g. every target of one run side by side). The first
column is the baseline and every other column is compared against it.
Groups keep apart what must not be pooled: with two runs each target is
compared with the same target of the other run.
"""

from dataclasses import dataclass, field

import numpy as np

from . import noise, stats
from .layout import Layout
from .names import is_aa_control, is_lab_metal



@dataclass
class Delta:
    comparison: stats.Comparison
    pct: float  # None when the baseline is 0
    verdict: str  # better | worse | ~ | same | ?
    within_noise: bool = False  # significant, but no larger than the run's A/A control shows


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
    noise: list = field(default_factory=list)  # noise.NoiseModel per A/A pair among the columns

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


def build(inputs, by=None, alpha=stats.DEFAULT_ALPHA, confidence=stats.DEFAULT_CONFIDENCE, baseline=None,
          col=None, row=None, filter=None):
    """Build a Table from loaded Inputs (see inputs.py).

    col, row and filter are benchstat's -col, -row and -filter (strings);
    `by=KEY` is `col=KEY`, kept for the callers that say by="target".
    """
    col_spec = col or by
    layout = Layout(inputs, col_spec, row, filter)
    pool = {}  # (group, name, unit) -> {column: [values]}
    direction = {}
    columns = []
    kinds = {}
    configs = {}  # (group, column) -> the header of the (first) file behind it, for explain
    assume = {}
    for inp, rf, sec, group, column, bench, name in layout.results():
        if column not in columns:
            columns.append(column)
            kinds[column] = rf.config.get("target-kind", "")
        configs.setdefault((group, column), sec.config)
        for unit, values in zip(bench.units, bench.values):
            if layout.filter is not None and not layout.filter.match(inp.label, sec.config, bench.name, unit):
                continue
            key = (group, name, unit)
            pool.setdefault(key, {}).setdefault(column, []).append(values)
            direction.setdefault(unit, rf.higher_is_better(unit))
            if unit in rf.assume:
                assume.setdefault(unit, rf.assume[unit])
    if not pool:
        from .errors import InputError

        raise InputError("--filter" if filter else "compare", "no benchmark results to compare"
                         + (f" match {filter!r}" if filter else ""))
    columns = layout.order_columns(columns)
    if col_spec == "target":
        columns.sort(key=lambda c: baseline_rank(c, kinds.get(c)))  # stable: file order within a rank
    if baseline is not None:
        if baseline not in columns:
            from .errors import InputError

            raise InputError("--baseline", f"{baseline!r} is not a column; expected one of {', '.join(columns)}")
        columns.remove(baseline)
        columns.insert(0, baseline)

    # Rows: group, then unit (first appearance), then benchmark (first appearance).
    unit_order, group_order = {}, {}
    for (group, _, unit) in pool:
        unit_order.setdefault(unit, len(unit_order))
        group_order.setdefault(group, len(group_order))
    if layout.pivot_runs:
        group_order = {g: i for i, g in enumerate(sorted(group_order))}  # targets by name
    keys = sorted(pool, key=lambda k: (group_order[k[0]], unit_order[k[2]]))  # stable: keeps name order

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
    for i, (ki, _) in enumerate(where):
        if assume.get(keys[ki][2]) == "exact":
            summaries[i] = stats.summarize_exact(samples[i])
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
        if assume.get(row.unit) == "exact":
            cmp = stats.compare_exact(pool[keys[ki]][base], pool[keys[ki]][col], alpha)
        old, new = row.cells[base].center, row.cells[col].center
        pct = stats.pct_change(old, new)
        row.deltas[col] = Delta(cmp, pct, _verdict(cmp, pct, row.higher_better))

    table = Table(columns, rows, _geomeans(rows, columns), alpha, confidence, col_spec)
    table.labels = {inp.label: str(inp.path) for inp in inputs}
    table.configs = configs
    if col_spec == "target":
        apply_noise(table, [noise.from_table(table, base, aa) for m, aa in noise.pairs_in(columns) if m == base])
    return table


def baseline_rank(target, kind):
    """Which column is the reference when none is asked for (lower comes first).

    The lab's own metal by name (`metal`, `metal-<host>`), then its A/A control
    (which measures the noise of comparisons with that metal), then any target
    whose file says `target-kind: metal`, then the rest. The name wins because
    the lab chose it; a kind is only what one file claims about itself, and a
    file that claims metal must not displace the lab's metal by sorting first.
    """
    if is_lab_metal(target):
        return 0
    if is_aa_control(target):
        return 1
    return 2 if kind == "metal" else 3


def apply_noise(table, models):
    """Mark the baseline's significant deltas that the A/A control shows to be within noise."""
    table.noise = [m for m in models if m.rows]
    for m in table.noise:
        for r in table.rows:
            for col, d in r.deltas.items():
                if col != m.aa and d.comparison.significant and not m.beyond(r.name, r.unit, d):
                    d.within_noise = True


def _verdict(cmp, pct, higher_better):
    if not cmp.significant:
        return "~"
    if pct is None:
        return "?"
    if pct == 0:
        return "same"
    if higher_better is None:
        return "changed"  # a unit of unknown direction: a `Unit <unit> better=…` line would say which
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
        if d.verdict == "worse" and not d.within_noise and d.pct is not None and abs(d.pct) > threshold_pct:
            out.append((r, col, d))
    return out
