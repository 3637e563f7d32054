"""The values of one configuration of a result file, packed so a big file stays small.

A 50 MB file holds over half a million result lines, most of them one more
repetition of a benchmark already seen. An object per line, or even a dict
and an array per benchmark, costs several times the file's size. Here the
parser appends each value to one flat array per unit, next to the number of
its benchmark (8 + 4 bytes), and `seal()` sorts each flat array by benchmark
once the file is read, so that a benchmark's values for a unit are one
contiguous slice. Per benchmark there remain its name (interned: two files
naming the same benchmarks share the strings), the line it first appeared
on, and its units (a tuple shared by every benchmark with the same units).

Benchmark objects are made on demand by `Samples.benchmarks`, a read-only
mapping, and are not kept.
"""

import sys
from array import array
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..errors import InputError


@dataclass
class Benchmark:
    """All repetitions of one benchmark name in one configuration of a file."""

    name: str
    units: tuple
    values: list  # one float array per unit, same order as `units`
    line: int  # first line it appeared on, for messages


class Samples:
    """Every result of one configuration: benchmark names, units, and values by unit."""

    def __init__(self):
        # Filled by the parser while it reads (resultfile._parse_lines):
        self.index = {}  # name bytes (without "Benchmark") -> benchmark number
        self.names = []  # benchmark number -> name, "Benchmark…" as str (None if not UTF-8)
        self.first_lines = array("q")  # benchmark number -> line it first appeared on
        self.unit_lists = []  # benchmark number -> list of its unit bytes, first-seen order
        self.flat = {}  # unit bytes -> (array of values, array of benchmark numbers), line order
        self._shared_units = {}  # tuple of unit bytes -> the one list every benchmark with them shares
        self.no_units = self.merged_units((), ())  # a new benchmark's, until its line's units are added
        self._not_utf8_line = None  # the first line of the first name that is not UTF-8 text
        # Set by seal():
        self.columns = None  # column number -> Column
        self.column_ids = None  # benchmark number -> tuple of its column numbers, in its units' order
        self.units = None  # benchmark number -> tuple of its unit names
        self._by_name = None

    def add_benchmark(self, name, line):
        """The number of a benchmark seen for the first time (name: bytes after "Benchmark")."""
        number = self.index[name] = len(self.names)
        self.first_lines.append(line)
        self.unit_lists.append(self.no_units)
        try:
            self.names.append(sys.intern("Benchmark" + name.decode("utf-8")))
        except UnicodeDecodeError:
            self.names.append(None)
            if self._not_utf8_line is None:
                self._not_utf8_line = line  # reported once the whole file is read, as before any sorting
        return number

    def add_unit(self, unit):
        """The (values, benchmark numbers) arrays of a unit seen for the first time."""
        column = self.flat[unit] = (array("d"), array("i"))
        return column

    def merged_units(self, have, seen):
        """The unit list of a benchmark that had `have` and now shows `seen` (a line's units)."""
        if not have:  # a new benchmark: most lines name each unit once
            shared = self._shared_units.get(tuple(seen))
            if shared is not None:
                return shared
        merged = tuple(have) + tuple(u for u in dict.fromkeys(seen) if u not in have)
        shared = self._shared_units.get(merged)
        if shared is None:
            shared = self._shared_units[merged] = list(merged)
        return shared

    def seal(self, path):
        """Sort the values by benchmark and decode the units (InputError for a name
        that is not UTF-8 text, at the line it first appeared on)."""
        if self._not_utf8_line is not None:
            raise InputError(path, "benchmark name is not UTF-8 text", self._not_utf8_line)
        count = len(self.names)
        self.index = None
        self.columns, column_of = [], {}
        for unit in list(self.flat):
            values, owners = self.flat.pop(unit)  # let each unit's unsorted arrays go as soon as it is sorted
            column_of[unit] = len(self.columns)
            self.columns.append(Column.sorted_by_owner(unit.decode("utf-8", "replace"), values, owners, count))
        self.flat = None
        ids, units = {}, {}
        for shared in self._shared_units.values():
            ids[id(shared)] = tuple(column_of[u] for u in shared)
            units[id(shared)] = tuple(self.columns[c].unit for c in ids[id(shared)])
        self.column_ids = [ids[id(u)] for u in self.unit_lists]
        self.units = [units[id(u)] for u in self.unit_lists]
        self.unit_lists = self._shared_units = None

    def values(self, number):
        """The benchmark's values, one array per unit, as views into the columns."""
        return [self.columns[c].of(number) for c in self.column_ids[number]]

    def columns_of(self, number):
        """The packed columns (one per unit) that hold values of the benchmark."""
        return [self.columns[c] for c in self.column_ids[number]]

    def number(self, name):
        if self._by_name is None:
            self._by_name = {n: i for i, n in enumerate(self.names)}
        return self._by_name[name]

    @property
    def benchmarks(self):
        return BenchmarkMap(self)


class Column:
    """The values of one unit for every benchmark, grouped by benchmark number."""

    __slots__ = ("offsets", "unit", "values")

    def __init__(self, unit, values, offsets):
        self.unit = unit
        self.values = values  # float64 ndarray
        self.offsets = offsets  # array('q'): benchmark i's values are values[offsets[i]:offsets[i + 1]]

    @classmethod
    def sorted_by_owner(cls, unit, values, owners, count):
        vals = np.frombuffer(values, dtype=np.float64)
        own = np.frombuffer(owners, dtype=np.intc)
        if len(own) > 1 and not (own[1:] >= own[:-1]).all():
            # A stable sort keeps each benchmark's values in line order. (Output
            # of `go test -count N` is grouped by benchmark already.)
            vals = vals[np.argsort(own, kind="stable")]
        offsets = np.zeros(count + 1, dtype=np.int64)
        np.cumsum(np.bincount(own, minlength=count), out=offsets[1:])
        return cls(unit, vals, array("q", offsets.tobytes()))

    def of(self, number):
        return self.values[self.offsets[number]:self.offsets[number + 1]]


class BenchmarkMap(Mapping):
    """name -> Benchmark, in file order, each made when asked for."""

    def __init__(self, samples):
        self._s = samples

    def _make(self, i):
        s = self._s
        return Benchmark(s.names[i], s.units[i], s.values(i), s.first_lines[i])

    def __getitem__(self, name):
        try:
            return self._make(self._s.number(name))
        except (KeyError, TypeError):
            raise KeyError(name) from None

    def __iter__(self):
        return iter(self._s.names)

    def __len__(self):
        return len(self._s.names)

    def values(self):
        return (self._make(i) for i in range(len(self)))

    def items(self):
        return ((b.name, b) for b in self.values())
