"""Which values go into which cell of the comparison table, noted without copying them.

table.build walks every benchmark of every file and, for each of its units,
notes the row (group, unit, name), the column and where the values lie: a
benchmark of one packed column of a file (samples.py). A note is four
32-bit numbers, and each distinct name one dict entry (the name itself is
the file's interned string), so gathering the cells of two 50 MB files
costs a few megabytes rather than an object per row. `cells()` then finds
the rows, sorts the notes into table order and concatenates the values of
cells that pool several benchmarks (several files in one column).
"""

from array import array
from dataclasses import dataclass

import numpy as np


@dataclass
class Cells:
    """Every cell of the table, sorted by row then column (numpy arrays, one entry per cell)."""

    col: np.ndarray  # column number in table order
    source: np.ndarray  # which of `sources` holds the values
    start: np.ndarray
    n: np.ndarray  # number of values
    sources: list  # float64 arrays the cells are slices of
    row_start: np.ndarray  # row i's cells are [row_start[i], row_start[i + 1])
    row: np.ndarray  # each cell's row (RowStore lets it go once it has used it)


@dataclass
class Rows:
    """The rows in table order."""

    names: list
    group: np.ndarray  # group number (into CellPool.groups)
    unit: np.ndarray  # unit number (into CellPool.units)


class CellPool:
    def __init__(self):
        self.groups, self._group_no = [], {}
        self.units, self._unit_no = [], {}
        self.columns, self._column_no = [], {}  # column labels, first-seen order
        self.names, self._name_no = [], {}
        self._sources = []  # (packed column, group number, unit number)
        self._source_no = {}
        self._src, self._bench, self._name, self._col = array("i"), array("i"), array("i"), array("i")

    def __bool__(self):
        return bool(self._src)

    def add(self, group, name, column, packed, bench):
        """Benchmark `bench` of `packed` (a samples.Column) belongs in row (group,
        packed.unit, name) and in `column`."""
        key = (id(packed), group)
        s = self._source_no.get(key)
        if s is None:
            s = self._source_no[key] = len(self._sources)
            self._sources.append((packed, _number(self._group_no, self.groups, group),
                                  _number(self._unit_no, self.units, packed.unit)))
        self._src.append(s)
        self._bench.append(bench)
        self._name.append(_number(self._name_no, self.names, name))
        self._col.append(_number(self._column_no, self.columns, column))

    def rows_and_cells(self, columns, groups_by_name=False):
        """(Rows, Cells) in table order: rows by group (first seen, or by name), then
        unit (first seen over all groups), then name (first seen); cells by row, then
        by their column's place in `columns` (the final column labels). The notes go."""
        self._name_no = None
        src = np.frombuffer(self._src, dtype=np.intc)
        src_group = np.array([g for _, g, _ in self._sources], dtype=np.int64)
        src_unit = np.array([u for _, _, u in self._sources], dtype=np.int64)

        # A row is a distinct (group, unit, name): number them by their first note.
        key = src_group[src]
        key *= len(self.units)
        key += src_unit[src]
        key *= len(self.names)
        key += np.frombuffer(self._name, dtype=np.intc)
        _, first, note_row = np.unique(key, return_index=True, return_inverse=True)
        del key
        row_group, row_unit = src_group[src[first]], src_unit[src[first]]
        if groups_by_name:
            by_name = sorted(range(len(self.groups)), key=self.groups.__getitem__)
            group_rank = np.empty(len(self.groups), dtype=np.int64)
            group_rank[by_name] = np.arange(len(self.groups))
        else:
            group_rank = np.arange(len(self.groups))
        order = np.lexsort((first, row_unit, group_rank[row_group]))  # rows in table order
        names = np.frombuffer(self._name, dtype=np.intc)[first[order]].tolist()
        rows = Rows([self.names[i] for i in names], row_group[order].astype(np.intc), row_unit[order].astype(np.intc))
        del first, row_group, row_unit, names
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        note_row = rank[note_row.reshape(-1)]
        del rank

        # Cells: the notes sorted by row, then column; a cell's notes keep the order they were read in.
        position = {c: i for i, c in enumerate(columns)}
        note_col = np.array([position[c] for c in self.columns], dtype=np.intc)[np.frombuffer(self._col, dtype=np.intc)]
        sort = np.lexsort((note_col, note_row))
        note_row, note_col, src = note_row[sort], note_col[sort], src[sort]
        bench = np.frombuffer(self._bench, dtype=np.intc)[sort]
        del sort
        self._src = self._bench = self._name = self._col = None
        # Where each benchmark's values lie: its packed column's offsets, all packed columns' side by side.
        offsets = [np.frombuffer(packed.offsets, dtype=np.int64) for packed, _, _ in self._sources]
        at = np.cumsum([0] + [len(o) for o in offsets[:-1]])[src]
        at += bench
        del bench
        offsets = np.concatenate(offsets)
        start = offsets[at]
        n = offsets[at + 1] - start
        del offsets, at
        sources = [packed.values for packed, _, _ in self._sources]
        first_note = np.ones(len(src), dtype=bool)
        first_note[1:] = (note_row[1:] != note_row[:-1]) | (note_col[1:] != note_col[:-1])
        if not first_note.all():
            src, start, n = _pool(first_note, src, start, n, sources)
            note_row, note_col = note_row[first_note], note_col[first_note]
        row_start = np.zeros(len(order) + 1, dtype=np.int64)
        np.cumsum(np.bincount(note_row, minlength=len(order)), out=row_start[1:])
        return rows, Cells(note_col, src, start, n, sources, row_start, note_row)


def _number(numbers, items, item):
    """item's number in `items` (first-seen order), adding it when new."""
    i = numbers.get(item)
    if i is None:
        i = numbers[item] = len(items)
        items.append(item)
    return i


def _pool(first, src, start, n, sources):
    """Cells made of several benchmarks (several files in one column): their values
    concatenated, in the order they were read, into one new source appended to
    `sources`. Returns the cells' (source, start, n)."""
    heads = np.flatnonzero(first)  # each cell's first benchmark; a cell's benchmarks are adjacent
    ends = np.append(heads[1:], len(first))
    cell_src, cell_start = src[heads], start[heads]
    cell_n = np.add.reduceat(n, heads)
    parts, at = [], 0
    for c in np.flatnonzero(ends - heads > 1):
        cell_src[c], cell_start[c] = len(sources), at
        for k in range(heads[c], ends[c]):
            parts.append(sources[src[k]][start[k]:start[k] + n[k]])
        at += cell_n[c]
    sources.append(np.concatenate(parts))
    return cell_src, cell_start, cell_n
