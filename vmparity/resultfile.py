"""Strict parser for vmparity result files (the Go benchmark format + header).

The format is golang proposal 14313 as docs/formats.md narrows it: a header of
`key: value` configuration lines (and `Unit <unit> better=…` lines), then
`Benchmark<name> <iterations> <value> <unit> [<value> <unit>]…` lines.
Unlike Go's lenient reader this one rejects anything it does not understand,
naming the file, the line and what was expected, because a silently skipped
line would silently change a verdict.

The loop is written for speed (100,000 lines in well under a second): plain
str methods, no regular expression on result lines.
"""

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import InputError
from .formatspec import known_units, required_keys

# Go's rule for a configuration key: starts with a lower-case letter and holds
# no space and no upper-case letter.
CONFIG_RE = re.compile(r"([a-z][^\sA-Z:]*):(?:\s+(.*?))?\s*$")
UNIT_KEYS = {"better": ("higher", "lower"), "assume": ("nothing", "exact")}


@dataclass
class Benchmark:
    """All repetitions of one benchmark name in one file."""

    name: str
    units: tuple
    values: list  # one float array per unit, same order as `units`
    line: int  # first line it appeared on, for messages (None from the bulk pass)


@dataclass
class ResultFile:
    path: str
    config: dict = field(default_factory=dict)
    config_lines: dict = field(default_factory=dict)
    declared_units: dict = field(default_factory=dict)  # unit -> higher is better
    benchmarks: dict = field(default_factory=dict)  # name -> Benchmark, file order
    first_result_line: int = 0

    @property
    def target(self):
        return self.config.get("target", Path(self.path).stem)

    def higher_is_better(self, unit):
        if unit in self.declared_units:
            return self.declared_units[unit]
        return known_units().get(unit, False)

    def require_fingerprint(self, keys=None):
        """Raise InputError naming every required header key that is missing."""
        missing = [k for k in (keys or required_keys()) if k not in self.config]
        if missing:
            raise InputError(
                self.path,
                "fingerprint is missing required key(s) "
                + ", ".join(missing)
                + " (expected `key: value` lines in the header, see docs/formats.md)",
                line=self.first_result_line or None,
            )
        return self


def parse_file(path):
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(path, "no such result file") from None
    except IsADirectoryError:
        raise InputError(path, "is a directory, expected a result file") from None
    except UnicodeDecodeError as e:
        raise InputError(path, f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    return parse_text(text, str(path))


def parse_text(text, path="<input>"):
    """Parse one result file's text; raise InputError on the first problem.

    A bulk pass (list comprehensions, one numpy conversion) handles a valid
    file; when it meets anything doubtful it gives up and the line-by-line
    pass runs, which names the first bad line exactly.
    """
    lines = text.splitlines()
    return _parse_fast(lines, path) or _parse_strict(lines, text, path)


def _parse_fast(lines, path):
    rf = ResultFile(path=path)
    first = next((i for i, ln in enumerate(lines) if ln.startswith("Benchmark")), None)
    if first is None:
        return None
    rf.first_result_line = first + 1
    try:
        for i, line in enumerate(lines):
            if not line.startswith("Benchmark"):
                if i > first and line.startswith("Unit "):
                    return None  # a unit declared after use: let the strict pass judge it
                _header_line(rf, line, i + 1, path)
    except InputError:
        return None
    rows = [ln.split() for ln in lines if ln.startswith("Benchmark")]
    if any(n < 4 or n % 2 for n in set(map(len, rows))):
        return None
    iterations = set(r[1] for r in rows)
    if not all(map(str.isdigit, iterations)) or any(not it.strip("0") for it in iterations):
        return None
    by_name = {}
    for r in rows:
        by_name.setdefault(r[0], []).append(r)
    units_ok = known_units()
    shapes = {}
    for name, rs in by_name.items():
        units = rs[0][3::2]
        if len(set(units)) != len(units) or any(r[3::2] != units for r in rs):
            return None
        if any(u not in units_ok and u not in rf.declared_units for u in units):
            return None
        rf.benchmarks[name] = Benchmark(name, tuple(units), [], None)
        shapes.setdefault((len(rs), len(rs[0])), []).append(name)
    for (count, width), names in shapes.items():
        try:  # Python's float() on the flat list beats numpy's string parsing
            flat = [float(x) for n in names for r in by_name[n] for x in r[2::2]]
        except ValueError:
            return None
        arr = np.array(flat).reshape(len(names), count, width // 2 - 1)
        if not (np.isfinite(arr).all() and (arr >= 0).all()):
            return None
        for name, block in zip(names, arr):
            rf.benchmarks[name].values = list(block.T)
    return rf


def _parse_strict(lines, text, path):
    rf = ResultFile(path=path)
    units_ok = known_units()
    benchmarks = rf.benchmarks
    for lineno, line in enumerate(lines, 1):
        if line.startswith("Benchmark"):
            fields = line.split()
            n = len(fields)
            if n < 4 or n % 2 or not fields[1].isdigit() or not fields[1].strip("0"):
                _bad_result_line(fields, path, lineno)
            name = fields[0]
            units = fields[3::2]
            bench = benchmarks.get(name)
            if bench is None:
                _check_units(rf, name, units, units_ok, path, lineno)
                bench = benchmarks[name] = Benchmark(name, tuple(units), [], lineno)
                bench._units_list, bench._rows, bench._lines = units, [], []
                if not rf.first_result_line:
                    rf.first_result_line = lineno
            elif bench._units_list != units:
                raise InputError(
                    path,
                    f"mixed units for {name}: {' '.join(units)} here, but "
                    f"{' '.join(bench.units)} at line {bench.line}; expected the same units on every line",
                    lineno,
                )
            bench._rows.append(fields[2::2])
            bench._lines.append(lineno)
        else:
            _header_line(rf, line, lineno, path)
    if not benchmarks:
        what = "empty file" if not text.strip() else "only a header"
        raise InputError(path, f"{what}: expected at least one `Benchmark…` result line")
    _convert_values(list(benchmarks.values()), path)
    return rf


def _header_line(rf, line, lineno, path):
    """A configuration, `Unit`, comment or blank line."""
    if not line or line.isspace() or line.startswith("#"):
        return  # blank and `#` comment lines (benchrun hoists programs' comments)
    if line.startswith("Unit "):
        _parse_unit_line(rf, line, path, lineno)
        return
    m = CONFIG_RE.match(line)
    if m is None:
        raise InputError(
            path,
            f"cannot read {line[:60]!r}: expected a `key: value` configuration line, "
            "a `Unit <unit> better=higher|lower` line or a `Benchmark…` result line",
            lineno,
        )
    key, value = m.group(1), m.group(2) or ""
    if rf.first_result_line and lineno > rf.first_result_line and rf.config.get(key) != value:
        raise InputError(
            path,
            f"configuration key {key!r} changes after the first result line "
            f"(line {rf.first_result_line}); expected every configuration line in the header",
            lineno,
        )
    rf.config[key] = value
    rf.config_lines[key] = lineno


def _convert_values(benches, path):
    """Turn the collected value strings into one float array per unit.

    Benchmarks with the same shape (repetitions x units) are converted in one
    numpy call: converting per benchmark costs more than the whole parse.
    """
    groups = {}
    for b in benches:
        groups.setdefault((len(b._rows), len(b.units)), []).append(b)
    for group in groups.values():
        try:
            arr = np.array([b._rows for b in group], dtype=float)
            ok = bool(np.isfinite(arr).all() and (arr >= 0).all())
        except ValueError:
            ok = False
        if not ok:
            for b in group:
                _find_bad_value(b, path)
        for b, block in zip(group, arr):
            b.values = list(block.T)
            del b._rows, b._lines, b._units_list


def _find_bad_value(bench, path):
    """Slow path, only to name the first bad value and its line."""
    for raw_row, lineno in zip(bench._rows, bench._lines):
        for unit, raw in zip(bench.units, raw_row):
            try:
                v = float(raw)
            except ValueError:
                raise InputError(path, f"value {raw!r} for {unit} of {bench.name}: expected a number", lineno) from None
            if not math.isfinite(v) or v < 0:
                raise InputError(
                    path, f"value {raw} for {unit} of {bench.name}: expected a finite, non-negative number", lineno
                )


def _bad_result_line(fields, path, lineno):
    n = len(fields)
    if n < 4:
        raise InputError(
            path, f"truncated result line: expected `<name> <iterations> <value> <unit>`, got {n} field(s)", lineno
        )
    if n % 2:
        raise InputError(
            path,
            f"odd number of fields ({n}): value {fields[-1]!r} has no unit; "
            "expected `<name> <iterations>` followed by `<value> <unit>` pairs",
            lineno,
        )
    raise InputError(path, f"iterations {fields[1]!r} of {fields[0]}: expected a positive integer", lineno)


def _check_units(rf, name, units, units_ok, path, lineno):
    for unit in units:
        if unit not in units_ok and unit not in rf.declared_units:
            raise InputError(
                path,
                f"unknown unit {unit!r} in {name}: expected one of "
                + ", ".join(sorted(units_ok))
                + " or a unit declared by a `Unit <unit> better=higher|lower` line",
                lineno,
            )
    if len(set(units)) != len(units):
        raise InputError(path, f"{name} reports a unit twice: {' '.join(units)}", lineno)


def _parse_unit_line(rf, line, path, lineno):
    fields = line.split()
    if len(fields) < 3:
        raise InputError(path, "expected `Unit <unit> key=value…` (e.g. `Unit B/s better=higher`)", lineno)
    unit = fields[1]
    for kv in fields[2:]:
        key, sep, value = kv.partition("=")
        allowed = UNIT_KEYS.get(key)
        if not sep or allowed is None or value not in allowed:
            raise InputError(
                path,
                f"unit metadata {kv!r}: expected one of "
                + ", ".join(f"{k}={'|'.join(v)}" for k, v in UNIT_KEYS.items()),
                lineno,
            )
        if key == "better":
            rf.declared_units[unit] = value == "higher"
    rf.declared_units.setdefault(unit, known_units().get(unit, False))
