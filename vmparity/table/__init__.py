"""Stage 5, the comparison table (golang/perf's benchtab): rows x columns of summaries.

build() is the public entry, Table, Row and Delta the public types; the cell
pool, the row store, the layout and the per-cell statistics are private
(_cellpool, _rowstore, _layout, _cellstats, _row). build applies decide's
noise and cross-run judges to the table it returns.

Columns are the operands (A, B, ...) or, with `by=KEY`, the values of a
configuration key (e.g. every target of one run side by side). The first
column is the baseline and every other column is compared against it.
Groups keep apart what must not be pooled: with two runs each target is
compared with the same target of the other run.
"""

from dataclasses import dataclass, field

from ..decide import policy as policies
from .. import stats
from ._cellpool import CellPool
from ._layout import Layout
from ..results import run_selection
from ..results.targets import is_aa_control, is_lab_metal
from ._rowstore import RowStore
from ._row import Delta, Row, verdict  # noqa: F401  (table.Row, table.Delta: views and tests build them; ab_compare re-decides)


@dataclass
class Table:
    columns: list
    rows: list  # Row, or rowstore.StoredRow when build() made the table
    geomeans: list
    alpha: float
    confidence: float
    by: str = None
    labels: dict = field(default_factory=dict)  # what each input operand was
    configs: dict = field(default_factory=dict)  # (group, column) -> header
    noise: list = field(default_factory=list)  # noise.NoiseModel per A/A pair among the columns
    store: RowStore = None  # the packed numbers behind `rows`, when build() made the table
    crossrun: object = None  # crossrun.CrossRun: two runs compared target by target: what beats run-to-run noise
    policy: policies.Policy = policies.PLAIN_FILES  # which judgement decided the rows (decide/policy.py)

    def significant(self):
        return [(r, c, d) for r in self.rows for c, d in r.deltas.items() if d.comparison.significant]

    def warnings(self):
        """Unique warnings in row order: {warning: (number of cells, the first one's label)}, from the
        packed numbers (RowStore.warnings). A view of rows without a store (pair_table)
        has none of its own: the table it views says them."""
        return self.store.warnings() if self.store is not None else {}


def build(inputs, by=None, alpha=stats.DEFAULT_ALPHA, confidence=stats.DEFAULT_CONFIDENCE, baseline=None,
          col=None, row=None, filter=None, table=None, ignore=None, without=frozenset()):
    """Build a Table from loaded Inputs (see inputs.py).

    col, row, filter, table and ignore are benchstat's -col, -row, -filter, -table and -ignore (strings);
    `by=KEY` is `col=KEY`, kept for the callers that say by="target".
    Two runs compared target by target are judged against run-to-run noise
    (crossrun.py). Files of one lab run named one by one are that run, by
    target, with its metal's A/A pass (results/run_selection.py): the same
    files get the run's judgement in every command, whichever way they are named.
    without: the decision layers switched off (decide/layers.py), to measure what each pays.
    """
    if col is None and row is None and by is None:
        selected = run_selection.one_run(inputs)
        if selected is not None:
            inputs, by = [selected[0]], "target"
    col_spec = col or by
    layout = Layout(inputs, col_spec, row, filter, table, ignore)
    pool = CellPool()
    direction = {}
    kinds = {}  # column -> target-kind of its first file, in first-seen order
    configs = {}  # (group, column) -> the header of the (first) file behind it, for explain
    assume = {}
    for inp, rf, sec, group, column, number, name in layout.results():
        if column not in kinds:
            kinds[column] = rf.config.get("target-kind", "")
        configs.setdefault((group, column), sec.config)
        samples = sec.samples
        for packed in samples.columns_of(number):
            unit = packed.unit
            if layout.filter is not None and not layout.filter.match(inp.label, sec.config, samples.names[number], unit):
                continue
            pool.add(group, name, column, packed, number)
            if unit not in direction:
                direction[unit] = rf.higher_is_better(unit)
            if unit in rf.assume:
                assume.setdefault(unit, rf.assume[unit])
    if not pool:
        from ..errors import InputError

        raise InputError("--filter" if filter else "compare", "no benchmark results to compare"
                         + (f" match {filter!r}" if filter else ""))
    columns = layout.order_columns(list(kinds))
    if col_spec == "target":
        columns.sort(key=lambda c: baseline_rank(c, kinds.get(c)))  # stable: file order within a rank
    if baseline is not None:
        if baseline not in columns:
            from ..errors import InputError

            raise InputError("--baseline", f"{baseline!r} is not a column; expected one of {', '.join(columns)}")
        columns.remove(baseline)
        columns.insert(0, baseline)

    # Rows: group, then unit (first appearance), then benchmark (first appearance).
    store = RowStore(pool, columns, direction, assume, alpha, confidence, groups_by_name=layout.pivot_runs)
    del pool
    table = Table(columns, store.rows(), store.geomeans(), alpha, confidence, col_spec, store=store)
    table.labels = {inp.label: str(inp.path) for inp in inputs}
    table.configs = configs
    base = columns[0]
    # The judges of a lab run (its A/A pass, its rounds) and of two runs are imported only where they
    # apply: two plain files start without them (`make bench-startup`, tests/test_startup.py).
    if col_spec == "target":
        from ..decide import noise

        noise.apply(table, [noise.from_table(table, base, aa) for m, aa in noise.pairs_in(columns) if m == base])
        if len(inputs) == 1 and inputs[0].is_run:
            from . import paired_rounds

            paired_rounds.apply_in_run(table, inputs[0], without)
        if table.noise:
            table.policy = policies.IN_RUN
    if not all(i.is_run for i in inputs):
        return table  # files named one by one are never two runs compared target by target
    from ..decide import crossrun

    if crossrun.applies(inputs, layout):
        exact = [u for u, how in assume.items() if how == "exact"]
        judged = crossrun.judge(table, crossrun.row_values(layout), exact, without)
        if judged is not None:
            crossrun.apply(table, judged)
            table.policy = policies.ACROSS_RUNS
    return table


def pair_table(t, col):
    """The baseline and one target as a two-column view of a table (what explain reads)."""
    base = t.columns[0]
    rows = [Row(r.group, r.name, r.unit, r.higher_better,
                {c: s for c, s in r.cells.items() if c in (base, col)},
                {c: d for c, d in r.deltas.items() if c == col}) for r in t.rows]
    return Table([base, col], rows, [], t.alpha, t.confidence, t.by, configs=t.configs, noise=t.noise,
                 policy=t.policy)


def changed_view(t):
    """The rows of a table that differ beyond noise in some column (compare --changed): a view
    with the same columns, judgement and warnings, and no geomeans (they sum up every row, and
    this view hides some). The judgement is decide's: significant at the table's α and not
    within the noise its controls show (decide/judgement.py)."""
    from ..decide.judgement import beyond

    rows = [r for r in t.rows if any(beyond(d) for d in r.deltas.values())]
    return Table(t.columns, rows, [], t.alpha, t.confidence, t.by, labels=t.labels, configs=t.configs,
                 noise=t.noise, store=t.store, crossrun=t.crossrun, policy=t.policy)


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
