"""The numbers of a built comparison table, packed, and the rows that read them.

A table of two 50 MB files has over a hundred thousand rows; as objects (a
Row, its cells and deltas dicts, two Summaries, a Delta and a Comparison
with their lists) they cost about a kilobyte each, more than the files'
values. So table.build keeps one array per field, one entry per cell, and
`table.rows` makes each row's objects when it is read (StoredRow); the
renderers read a row once and let it go. Everything a row says is either
stored (centre, interval, p, the all-equal and within-noise flags) or
derived from what is stored exactly as the stats package derives it (warnings,
change, verdict), so a row reads the same as when it was an object.
"""

from collections.abc import Sequence

import numpy as np

from . import _cellstats as cellstats
from .. import stats
from ..stats import exact
from ._row import Delta, geomean_row, verdict

_HAS_DELTA, _ALL_EQUAL, _WITHIN_NOISE = 1, 2, 4


class RowStore:
    def __init__(self, pool, columns, direction, exact_units, alpha, confidence, groups_by_name=False):
        """pool: a filled _cellpool.CellPool; columns: the final column labels."""
        rows, cells = pool.rows_and_cells(columns, groups_by_name)
        self.columns = columns
        self._column_no = {c: i for i, c in enumerate(columns)}
        self.alpha, self.confidence = alpha, confidence
        self.names, self.groups, self.units = rows.names, pool.groups, pool.units
        self._row_group, self._row_unit = rows.group, rows.unit
        self.higher_better = [direction[u] for u in self.units]
        self.exact = [exact_units.get(u) == "exact" for u in self.units]
        self._row_start = cells.row_start
        self._col, self._n = cells.col, cells.n
        exact_cell = self._exact_cells(cells.row)
        first = cells.row_start[cells.row]  # each cell's row's first cell: the baseline's, when it has one
        cells.row = None

        self._center, self._lo, self._hi = cellstats.summarize(cells, confidence)
        self._spread = cellstats.log_spreads(cells)  # the noise model's evidence of each cell's own noise
        for k in np.flatnonzero(exact_cell):
            self._center[k], self._lo[k], self._hi[k] = exact.summarize(_values(cells, k))

        # Each cell outside the baseline column is compared with its row's baseline cell.
        other = np.flatnonzero((cells.col != 0) & (cells.col[first] == 0))
        base = first[other]
        del first
        p, all_equal = cellstats.compare(cells, base, other)
        del base
        exact_other = exact_cell[other]
        p[exact_other], all_equal[exact_other] = exact.P_VALUE, False
        self._flags = np.zeros(len(cells.col), dtype=np.uint8)
        self._flags[other] = _HAS_DELTA | np.where(all_equal, _ALL_EQUAL, 0)
        self._p = np.full(len(cells.col), np.nan)
        self._p[other] = p

    def __len__(self):
        return len(self.names)

    def _exact_cells(self, rows):
        """True for the cells (given by their rows) of a unit declared assume=exact."""
        return np.array(self.exact, dtype=bool)[self._row_unit[rows]]

    def rows(self):
        return RowList(self, range(len(self.names)))

    # -- one row, as objects (.item() gives Python numbers, as the stats package's objects hold) --

    def group(self, i):
        return self.groups[self._row_group.item(i)]

    def unit(self, i):
        return self.units[self._row_unit.item(i)]

    def direction(self, i):
        return self.higher_better[self._row_unit.item(i)]

    def cells(self, i):
        """column -> stats.Summary"""
        is_exact = self.exact[self._row_unit.item(i)]
        out = {}
        for k in range(self._row_start.item(i), self._row_start.item(i + 1)):
            n, lo, hi = self._n.item(k), self._lo.item(k), self._hi.item(k)
            out[self.columns[self._col.item(k)]] = stats.Summary(self._center.item(k), lo, hi, n,
                                                                 self._summary_warnings(is_exact, n, lo, hi))
        return out

    def spreads(self, i):
        """column -> the robust spread of the cell's log values (NaN where it means nothing)"""
        return {self.columns[self._col.item(k)]: self._spread.item(k)
                for k in range(self._row_start.item(i), self._row_start.item(i + 1))}

    def deltas(self, i):
        """column -> Delta, for the cells compared with the row's baseline cell"""
        a, b = self._row_start.item(i), self._row_start.item(i + 1)
        is_exact, better = self.exact[self._row_unit.item(i)], self.direction(i)
        out = {}
        for k in range(a, b):
            f = self._flags.item(k)
            if not f & _HAS_DELTA:
                continue
            p, n1, n2 = self._p.item(k), self._n.item(a), self._n.item(k)
            warnings = [] if is_exact else stats.utest_warnings(p, n1, n2, self.alpha, f & _ALL_EQUAL)
            cmp = stats.Comparison(p, n1, n2, self.alpha, warnings)
            pct = stats.pct_change(self._center.item(a), self._center.item(k))
            out[self.columns[self._col.item(k)]] = Delta(cmp, pct, verdict(cmp, pct, better), bool(f & _WITHIN_NOISE))
        return out

    def mark_within_noise(self, i, column):
        want = self._column_no[column]
        for k in range(self._row_start.item(i), self._row_start.item(i + 1)):
            if self._col.item(k) == want and self._flags.item(k) & _HAS_DELTA:
                self._flags[k] |= _WITHIN_NOISE
                return
        raise KeyError(column)

    def _summary_warnings(self, is_exact, n, lo, hi):
        return exact.warnings(lo, hi) if is_exact else list(stats.ci_warnings(n, self.confidence))

    # -- the whole table ------------------------------------------------------

    def geomeans(self):
        """_row.GeomeanRow per group and unit, in row order."""
        out = []
        ncols = len(self.columns)
        complete = np.flatnonzero(np.diff(self._row_start) == ncols)  # rows with every column present
        for first, end in self._group_unit_runs():
            rows = complete[np.searchsorted(complete, first):np.searchsorted(complete, end)]
            if len(rows) < 2 or ncols < 2:
                continue  # benchstat prints no geomean for a single row
            block = self._center[self._row_start[rows][:, None] + np.arange(ncols)]
            out.append(geomean_row(self.group(first), self.unit(first), self.direction(first), self.columns,
                                   {c: block[:, j].tolist() for j, c in enumerate(self.columns)}))
        return out

    def _group_unit_runs(self):
        """(first row, end) of each group and unit; table.build makes their rows adjacent."""
        key = self._row_group * len(self.units) + self._row_unit
        cuts = (np.flatnonzero(key[1:] != key[:-1]) + 1).tolist()
        return zip([0] + cuts, cuts + [len(key)])

    def warnings(self):
        """{warning: (cells, the first one's label)} in the order a walk of the rows
        meets them (each row's cells, then its deltas), as Table.warnings gives them."""
        found = {}  # warning -> [(row, 0 cell | 1 delta, column), count, first cell]
        n, col = self._n, self._col
        row = np.repeat(np.arange(len(self)), np.diff(self._row_start))
        exact_cell = self._exact_cells(row)

        def note(text, where, phase):
            if len(where):
                k = int(where[0])
                have = found.get(text)
                if have is None:
                    found[text] = [(int(row[k]), phase, int(col[k])), len(where), k]
                else:
                    have[1] += len(where)

        short = [m for m in np.unique(n).tolist() if stats.ci_warnings(m, self.confidence)]
        if short:
            note(stats.ci_warnings(short[0], self.confidence)[0], np.flatnonzero(np.isin(n, short) & ~exact_cell), 0)
        for k in np.flatnonzero(exact_cell & (self._lo != self._hi)).tolist():
            note(exact.warnings(self._lo.item(k), self._hi.item(k))[0], [k], 0)
        compared = (self._flags & _HAS_DELTA).astype(bool) & ~exact_cell
        all_equal = (self._flags & _ALL_EQUAL).astype(bool)
        note("all samples are equal", np.flatnonzero(compared & all_equal), 1)
        _, need = stats.samples_for_utest(self.alpha)
        base_n = n[self._row_start[row]]
        unlucky = np.flatnonzero(compared & ~all_equal & (self._p > self.alpha) & (base_n < need) & (n < need))
        if len(unlucky):
            k = unlucky.item(0)
            note(stats.utest_warnings(self._p.item(k), base_n.item(k), n.item(k), self.alpha, False)[0], unlucky, 1)
        out = {}
        for text, (_, count, k) in sorted(found.items(), key=lambda item: item[1][0]):
            i = row.item(k)
            out[text] = (count, f"{self.names[i]} {self.unit(i)} [{self.columns[col.item(k)]}]")
        return out


def _of_row(method):
    """A StoredRow attribute read from its store: store.method(row index)."""
    return property(lambda row: getattr(row._store, method)(row._i), doc=f"RowStore.{method} of this row")


class StoredRow:
    """One row of a RowStore, with Row's attributes; cells and deltas are made when read."""

    __slots__ = ("_i", "_store")

    def __init__(self, store, i):
        self._store, self._i = store, i

    group = _of_row("group")
    unit = _of_row("unit")
    higher_better = _of_row("direction")
    cells = _of_row("cells")
    deltas = _of_row("deltas")
    spreads = _of_row("spreads")

    @property
    def name(self):
        return self._store.names[self._i]

    def mark_within_noise(self, column):
        self._store.mark_within_noise(self._i, column)


class RowList(Sequence):
    """The rows of a RowStore (or a slice of them) as a sequence of StoredRow."""

    def __init__(self, store, numbers):
        self._store, self._numbers = store, numbers

    def __len__(self):
        return len(self._numbers)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return RowList(self._store, self._numbers[i])
        return StoredRow(self._store, self._numbers[i])

    def __iter__(self):
        store = self._store
        return (StoredRow(store, i) for i in self._numbers)


def _values(cells, k):
    start = cells.start[k]
    return cells.sources[cells.source[k]][start:start + cells.n[k]]
