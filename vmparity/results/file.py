"""Reader for the Go benchmark format, as golang.org/x/perf/benchfmt reads it.

Golang proposal 14313: `key: value` configuration lines, `Unit <unit>
key=value…` metadata lines and `Benchmark<name> <iterations> <value> <unit>
[<value> <unit>]…` result lines. Everything else (`PASS`, `ok pkg 1.2s`,
`# comments`, test logs) is skipped, as benchstat skips it. A configuration
line applies to the results after it; when a key changes after results were
read, the results that follow belong to a new configuration (a new Section),
which is how benchstat splits tables by `note: before` / `note: after`.

What is refused, naming the file and line: a malformed `Benchmark` line
(benchstat warns and drops it; here it would silently change a verdict), a
malformed `Unit` line, a value that is not a finite number, a line longer
than benchstat's scanner reads (64 KiB), a file that is not a regular file or
is larger than the size limit. The stricter checks of a lab result file
(fingerprint keys, one configuration) are in check.py.

Memory: the file is streamed line by line and its values are packed
(samples.py): 8 bytes per value and about 40 bytes per distinct benchmark
besides its name, so a file is held in a fraction of its own size
(docs/formats.md has the figures for a whole `vmparity compare`).
"""

import math
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import InputError
from . import bounded
from .spec import known_units
from .samples import Benchmark, Samples

# The default size limit fits the largest lab run (well under 1 MB per
# file) by a factor of hundreds; override with $VMPARITY_MAX_FILE_BYTES.
DEFAULT_MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_LINE_BYTES = 64 * 1024  # bufio.Scanner's default token limit, which benchstat uses
UNIT_KEYS = {"better": ("higher", "lower"), "assume": ("nothing", "exact")}
MAX_SKIPPED_KEPT = 20  # skipped lines remembered for `vmparity check`'s messages

# strconv.ParseFloat's decimal, special and hexadecimal forms (no underscores
# without a base prefix, ASCII only); used only when Python's float() accepts
# something Go's parser might not.
GO_FLOAT = re.compile(
    rb"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan"
    rb"|0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+)",
    re.IGNORECASE,
)
PLAIN_NUMBER_CHARS = b"0123456789.eE+-"
INT64_MAX = 2**63 - 1


@dataclass
class Section:
    """The results read under one configuration."""

    config: dict
    samples: Samples = field(default_factory=Samples)
    first_line: int = 0

    @property
    def benchmarks(self):
        """name -> Benchmark, file order (made on demand from the packed samples)."""
        return self.samples.benchmarks


@dataclass
class ResultFile:
    path: str
    sections: list = field(default_factory=list)
    config: dict = field(default_factory=dict)  # the first section's configuration
    config_lines: dict = field(default_factory=dict)  # key -> line it was first set on
    declared_units: dict = field(default_factory=dict)  # unit -> higher is better
    assume: dict = field(default_factory=dict)  # unit -> nothing | exact
    first_result_line: int = 0
    config_change_line: int = None  # first line that changed a key after results
    config_change_key: str = None
    skipped: list = field(default_factory=list)  # (line, text) of skipped non-blank lines
    nonpositive_iterations_line: int = None

    @property
    def target(self):
        return self.config.get("target", Path(self.path).stem)

    @property
    def benchmarks(self):
        """Every benchmark of the file; with several configurations, their samples pooled."""
        if len(self.sections) == 1:
            return self.sections[0].benchmarks
        merged = {}
        for sec in self.sections:
            for name, b in sec.benchmarks.items():
                have = merged.get(name)
                if have is None:
                    merged[name] = b
                    continue
                units = list(have.units) + [u for u in b.units if u not in have.units]
                values = []
                for u in units:
                    parts = [x.values[x.units.index(u)] for x in (have, b) if u in x.units]
                    values.append(np.concatenate(parts))
                merged[name] = Benchmark(name, tuple(units), values, have.line)
        return merged

    def require_fingerprint(self, keys=None):
        """The lab file check (results/check.py): raises InputError, returns self."""
        from .check import check

        return check(self, keys)

    def higher_is_better(self, unit):
        """True, False, or None when neither a Unit line nor format.yaml says."""
        if unit in self.declared_units:
            return self.declared_units[unit]
        return known_units().get(unit)


def max_file_bytes():
    raw = os.environ.get("VMPARITY_MAX_FILE_BYTES")
    if raw is None:
        return DEFAULT_MAX_FILE_BYTES
    if not raw.isascii() or not raw.isdigit() or int(raw) <= 0:
        raise InputError("VMPARITY_MAX_FILE_BYTES", f"{raw!r}: expected a positive number of bytes")
    return int(raw)


def parse_file(path, max_bytes=None, run=None):
    """Read one result file; raise InputError on the first problem. run: the run directory the
    file was found in, whose result files are read only from inside it (bounded.inside); None for
    a file named on the command line, which may be a link anywhere, as benchstat allows."""
    path = Path(path)
    limit = max_bytes or max_file_bytes()
    real, flags = bounded.open_flags(path, run, "a result file of the run")
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; the fstat
        # below then refuses it (and devices such as /dev/zero).
        fd = os.open(real, flags)
    except FileNotFoundError:
        raise InputError(path, "no such result file") from None
    except IsADirectoryError:
        raise InputError(path, "is a directory, expected a result file") from None
    except OSError as e:
        raise InputError(path, f"cannot open: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise InputError(path, "is a directory, expected a result file")
        if not stat.S_ISREG(st.st_mode):
            raise InputError(path, "is not a regular file (a FIFO, socket or device); expected a result file")
        if st.st_size > limit:
            raise InputError(path, f"is {st.st_size} bytes, over the limit of {limit} bytes "
                                   "(set VMPARITY_MAX_FILE_BYTES to raise it)")
        f = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with f:
        # Lines read at most one byte past the line limit: a 200 MB file of one line is
        # refused at its first 64 KiB, not after holding all of it (and twice that while read).
        return _parse_lines(iter(lambda: f.readline(MAX_LINE_BYTES + 1), b""), str(path), limit)


def parse_text(text, path="<input>"):
    """Parse a result file's text (tests and generated data)."""
    data = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
    return _parse_lines(data.split(b"\n") if data else [], path, None, split=True)


def _parse_lines(lines, path, limit, split=False):
    """The streaming loop. `lines` yields bytes, each with its b"\\n" unless split."""
    rf = ResultFile(path=path)
    cfg = {}
    sections = {}  # frozenset of config items -> Section
    in_order = []  # the same Sections in file order
    samples = index = unit_lists = flat = None  # the current section's (samples.py)
    cfg_changed = True
    lineno = 0
    total = 0
    for raw in lines:
        lineno += 1
        total += len(raw)
        if limit is not None and total > limit:
            raise InputError(path, f"grew past the limit of {limit} bytes while being read", lineno)
        if len(raw) > MAX_LINE_BYTES:
            raise InputError(path, f"line longer than {MAX_LINE_BYTES} bytes (benchstat's limit too)", lineno)
        if not split:
            if raw.endswith(b"\n"):
                raw = raw[:-1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if raw.startswith(b"Benchmark"):
            fields = raw[9:].split()
            if raw[9:10].isspace():
                fields.insert(0, b"")  # benchfmt reads an empty name here, not the next field
            n = len(fields)
            if n < 2:
                if n == 1 and len(fields[0]) == len(raw) - 9:
                    # a bare name (`go test -v` prints one before the result): skipped
                    if len(rf.skipped) < MAX_SKIPPED_KEPT:
                        rf.skipped.append((lineno, raw[:60].decode("utf-8", "replace")))
                    continue
                _syntax(path, lineno, "missing iteration count", "`Benchmark<name> <iterations> <value> <unit>…`")
            it = fields[1]
            if not (it.isdigit() and len(it) < 19) or it[0] == 48:
                _iterations(rf, it, path, lineno)
            if n < 3:
                _syntax(path, lineno, "missing measurements", "`<value> <unit>` pairs after the iteration count")
            if n % 2:
                _syntax(path, lineno, f"missing units: value {fields[-1].decode(errors='replace')!r} has no unit",
                        "`<value> <unit>` pairs after the iteration count")
            if cfg_changed:
                key = frozenset(cfg.items())
                sec = sections.get(key)
                if sec is None:
                    sec = sections[key] = Section(dict(cfg), first_line=lineno)
                    in_order.append(sec)
                    if not rf.first_result_line:
                        rf.first_result_line = lineno
                samples = sec.samples
                index, unit_lists, flat = samples.index, samples.unit_lists, samples.flat
                cfg_changed = False
            name = fields[0]
            b = index.get(name)
            if b is None:
                b = samples.add_benchmark(name, lineno)
            units = fields[3::2]
            if units != unit_lists[b]:
                unit_lists[b] = samples.merged_units(unit_lists[b], units)
            for i in range(2, n, 2):
                f = fields[i]
                try:
                    v = float(f)
                except ValueError:
                    v = _go_float(f, path, lineno)
                if v - v or f.translate(None, PLAIN_NUMBER_CHARS):
                    v = _checked_float(f, v, path, lineno)
                column = flat.get(fields[i + 1])
                if column is None:
                    column = samples.add_unit(fields[i + 1])
                column[0].append(v)
                column[1].append(b)
            continue
        if not raw:
            continue
        c = raw[0]
        if c == 85 and raw.startswith(b"Unit") and (len(raw) == 4 or raw[4] in b" \t\v\f"):  # 85 = "U"
            _unit_line(rf, raw, path, lineno)
            continue
        if 97 <= c <= 122 or c >= 128:  # a lower-case letter (or non-ASCII) may start a key
            kv = _config_line(raw)
            if kv is not None:
                key, value = kv
                if cfg.get(key) != value:
                    cfg[key] = value
                    cfg_changed = True
                    if rf.first_result_line and rf.config_change_line is None:
                        rf.config_change_line, rf.config_change_key = lineno, key
                rf.config_lines.setdefault(key, lineno)
                continue
        if c != 35 and not raw.isspace() and len(rf.skipped) < MAX_SKIPPED_KEPT:  # 35 = "#"
            rf.skipped.append((lineno, raw[:60].decode("utf-8", "replace")))
    if not in_order:
        what = "empty file" if lineno == 0 or total == 0 else "no `Benchmark…` result lines"
        raise InputError(path, f"{what}: expected at least one `Benchmark<name> <iterations> <value> <unit>` line")
    samples = index = unit_lists = flat = column = None  # seal() frees what these hold
    for sec in in_order:
        sec.samples.seal(path)
    rf.sections = in_order
    rf.config = rf.sections[0].config
    return rf


def _syntax(path, lineno, what, expected):
    raise InputError(path, f"{what}; expected {expected}", lineno)


def _iterations(rf, it, path, lineno):
    """Go's strconv.Atoi: optional sign, ASCII digits, 64-bit range."""
    digits = it[1:] if it[:1] in (b"+", b"-") else it
    text = it.decode("utf-8", "replace")
    if not digits or not digits.isdigit():
        raise InputError(path, f"iteration count {text!r}: expected an integer of ASCII digits", lineno)
    if int(digits) > INT64_MAX + (it[:1] == b"-"):
        raise InputError(path, f"iteration count {text[:30]!r}: out of the 64-bit range benchstat reads", lineno)
    if (int(digits) == 0 or it[:1] == b"-") and rf.nonpositive_iterations_line is None:
        rf.nonpositive_iterations_line = lineno


def _go_float(f, path, lineno):
    """A value Python's float() refused: Go also reads hexadecimal floats."""
    if GO_FLOAT.fullmatch(f) and b"x" in f.lower():
        return float.fromhex(f.decode())
    _bad_value(f, path, lineno)


def _checked_float(f, v, path, lineno):
    if not GO_FLOAT.fullmatch(f):
        _bad_value(f, path, lineno)
    if not math.isfinite(v):
        raise InputError(path, f"value {f.decode()!r}: expected a finite number", lineno)
    return v


def _bad_value(f, path, lineno):
    raise InputError(path, f"value {f[:30].decode('utf-8', 'replace')!r}: expected a number "
                           "(ASCII digits, as Go's strconv.ParseFloat reads them)", lineno)


def _config_line(raw):
    """benchfmt's rule: a key starts with a lower-case letter and holds no space
    or upper-case letter up to the first `:`, which ends the line or is
    followed by a space or tab. Returns (key, value) or None."""
    colon = raw.find(b":")
    if colon <= 0:
        return None
    try:
        key = raw[:colon].decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not key[0].islower() or any(ch.isspace() or ch.isupper() for ch in key):
        return None
    rest = raw[colon + 1:]
    if rest and rest[0] not in (32, 9):
        return None
    # benchfmt keeps the value as it is after the leading blanks; an empty
    # value is stored as "" (benchfmt deletes the key, and projections read
    # a missing key as "" too).
    return key, rest.lstrip(b" \t").decode("utf-8", "replace")


def _unit_line(rf, raw, path, lineno):
    fields = raw.decode("utf-8", "replace").split()
    if len(fields) < 2:
        raise InputError(path, "missing unit; expected `Unit <unit> key=value…` (e.g. `Unit B/s better=higher`)", lineno)
    unit = fields[1]
    for kv in fields[2:]:
        key, sep, value = kv.partition("=")
        allowed = UNIT_KEYS.get(key)
        if not sep or not key:
            raise InputError(path, f"unit metadata {kv!r}: expected key=value", lineno)
        if allowed is not None and value not in allowed:
            raise InputError(
                path,
                f"unit metadata {kv!r}: expected one of "
                + ", ".join(f"{k}={'|'.join(v)}" for k, v in UNIT_KEYS.items()),
                lineno,
            )
        if key == "better":
            rf.declared_units[unit] = value == "higher"
        elif key == "assume":
            rf.assume[unit] = value
