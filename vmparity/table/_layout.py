"""Where each benchmark result goes in the comparison table: group, column, row.

Defaults (no --col/--row): one column per operand, rows by full benchmark
name, and when operands are runs of several targets, one group per target
so each target is compared with the same target of the other run.
With --col/--row (benchstat's -col/-row) the projections decide instead.
--table (benchstat's -table) names the keys that split results into tables
(groups) instead of the default below; `--table ''` is one table. --ignore
(benchstat's -ignore) names keys whose variations are pooled: they split
nothing and leave `.config` and `.fullname`.

Groups also keep apart what benchstat's `.config` tables keep apart inside
one file: when a configuration key changes part-way through a file (`note:
before` … `note: after`, or `pkg:` of `go test ./...`), results under each
value form their own group, unless the key is projected as a column or row.
Keys that differ only between operands (the fingerprints vmparity exists to
explain) never split groups.
"""

import difflib

from ..query import projection
from ..query.filter import Filter
from ..errors import InputError


class Layout:
    def __init__(self, inputs, col=None, row=None, filter_text=None, table=None, ignore=None):
        self.inputs = inputs
        self.col = projection.parse(col, "--col") if col else None
        self.row = projection.parse(row, "--row") if row else None
        # None: the default tables; [] (`--table ''`): one table, as benchstat's
        self.table = None if table is None else projection.parse(table, "--table") if table.strip() else []
        ignored = {f.key for f in projection.parse(ignore, "--ignore")} if ignore and ignore.strip() else set()
        _require_config_keys(inputs, self.col, "--col/--by")
        _require_config_keys(inputs, self.row, "--row")
        _require_config_keys(inputs, self.table, "--table")
        self.filter = Filter(filter_text) if filter_text and filter_text.strip() not in ("", "*") else None
        mentioned = {f.key for f in (self.col or []) + (self.row or []) + (self.table or [])} | ignored
        self.extract = projection.Extractor(mentioned)
        self.pivot_runs = self.col is None and any(inp.is_run and len(inp.files) > 1 for inp in inputs)
        self.group_by_label = (self.table is None and self.col is not None and len(inputs) > 1
                               and ".file" not in mentioned)
        # --table replaces the split by keys that vary inside a file: the tables are what it names
        self.varying = [] if self.table is not None else [k for k in _varying_keys(inputs) if k not in mentioned]
        self._first_seen = None

    def results(self):
        """(input, file, section, group, column, benchmark number, row name) for every
        benchmark; the number is the benchmark's in section.samples."""
        col_fields, row_fields, ex = self.col, self.row, self.extract
        for inp in self.inputs:
            for rf in inp.files:
                base_group = rf.target if self.pivot_runs else (inp.label if self.group_by_label else "")
                for sec in rf.sections:
                    group = base_group
                    if self.varying:
                        here = ", ".join(f"{k}: {sec.config.get(k, '')}" for k in self.varying)
                        group = f"{group} · {here}" if group else here
                    config = sec.config
                    for number, name in enumerate(sec.samples.names):
                        if self.table:  # per benchmark: a table key may be part of its name (/size, .name)
                            values = [ex.value(f.key, inp.label, config, name) for f in self.table]
                            if not projection.keep(self.table, values):
                                continue
                            group = _table_group(base_group, self.table, values)
                        if col_fields is None:
                            column = inp.label
                        else:
                            values = [ex.value(f.key, inp.label, config, name) for f in col_fields]
                            if not projection.keep(col_fields, values):
                                continue
                            column = projection.label(col_fields, values)
                            if not column and not col_fields[0].key.startswith("/"):
                                column = f"{col_fields[0].key}=?"  # a file without the key
                        if row_fields is not None:
                            values = [ex.value(f.key, inp.label, config, name) for f in row_fields]
                            if not projection.keep(row_fields, values):
                                continue
                            name = projection.row_label(row_fields, values)
                        elif ex.name_excluded:  # a /key projected elsewhere or ignored leaves the row's name
                            name = "Benchmark" + ex.fullname(name)
                        yield inp, rf, sec, group, column, number, name

    def order_columns(self, columns):
        """Columns in first-seen order, or as the --col fields' @orders say."""
        if self.col is None or all(f.order == "first" for f in self.col) or len(self.col) != 1:
            return columns
        key = projection.sort_key(self.col, [{} for _ in self.col])
        return sorted(columns, key=lambda c: key([c]))


def _table_group(base, fields, values):
    """The group of a --table projection: `key: value` pairs as benchstat heads its tables, after the
    target when runs are pivoted (each target is compared with itself)."""
    here = " ".join(f"{f.key}: {v}" for f, v in zip(fields, values))
    return f"{base} · {here}" if base else here


def _require_config_keys(inputs, fields, option):
    """A configuration key no input has is a typo (`--by targte`), not a column of `?`:
    name it, and the keys there are."""
    wanted = [f.key for f in fields or [] if not f.key.startswith((".", "/"))]
    if not wanted:
        return
    have = sorted({k for inp in inputs for rf in inp.files for sec in rf.sections for k in sec.config})
    for key in wanted:
        if key not in have:
            close = difflib.get_close_matches(key, have, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise InputError(option, f"no input has the configuration key {key!r}; {hint}the keys there are: "
                                     f"{', '.join(have) or '(none)'} (and .file, .name, .fullname, .config, /KEY)")


def _varying_keys(inputs):
    """Configuration keys whose value changes between the sections of one file."""
    out = {}
    for inp in inputs:
        for rf in inp.files:
            if len(rf.sections) < 2:
                continue
            keys = dict.fromkeys(k for s in rf.sections for k in s.config)
            for k in keys:
                if len({s.config.get(k, "") for s in rf.sections}) > 1:
                    out.setdefault(k, None)
    return list(out)
