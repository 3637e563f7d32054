"""Terminal table: one table per group and unit, like benchstat's text output.

Plain aligned columns, as benchstat's texttab draws them, and never a cut
cell: a name loses benchstat's `Benchmark` prefix, a value is scaled as
benchstat scales it (`4.101n` sec/op, `2.271Gi` B/s), column labels that
are files of one directory lose the directory and the extension (one line
above the tables names them), and a table wider than the output falls back
to narrower layouts instead of cutting: the name on its own line above its
cells, then the columns in chunks, each beside the baseline.

The width is $COLUMNS when set, else the terminal's; a pipe or a file
without COLUMNS gets the tables at their natural width.
"""

import contextlib
import itertools
import os
import shutil
import textwrap

from ..decide.judgement import row_mde  # not figures: it imports every in-run judge
from . import fmt
from .escape import terminal

_GAP = "  "
_INDENT = "    "  # the least indent of the cells under a name printed on its own line


def output_width(out, width=None):
    """The columns `out` has, or None (no limit): `width`, $COLUMNS, a terminal's own width."""
    if width:
        return width
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    if hasattr(out, "isatty") and out.isatty():
        return shutil.get_terminal_size().columns
    return None


def render(table, out, width=None):
    width = output_width(out, width)
    base = table.columns[0]
    labels, legend = short_labels([terminal(c) for c in table.columns])
    if width is not None and max(map(len, labels)) > LONG_LABEL:
        labels, legend = letters([terminal(c) for c in table.columns])
    for line in legend:
        say(out, line, width)
    for (group, unit), rows in _sections(table):
        better = fmt.direction(rows[0].higher_better)
        shown_unit, factor = fmt.tidy_unit(unit)
        title = terminal(f"{group + ' · ' if group else ''}{shown_unit} ({better})")
        geo = [_geo_cells(table, g, base, factor, shown_unit) for g in table.geomeans if g.group == group and g.unit == unit]
        body = [_SEP.join(_cells(table, r, base, factor, shown_unit)) for r in rows]
        body += [_SEP.join(cells) for cells in geo]
        _table(out, title, labels, body, width)
    for w, (count, first) in table.warnings().items():
        say(out, terminal(f"warning: {w} ({count} row(s), e.g. {first})"), width)
    say(out, f"alpha={table.alpha:g}; ~ means p > alpha (no significant difference)", width)
    if table.noise:
        say(out, fmt.MDE_NOTE, width)
    if fmt.any_at_equal_clock(table.rows):
        say(out, fmt.EQUAL_CLOCK_NOTE, width)
    if fmt.any_at_equal_bandwidth(table.rows):
        say(out, fmt.EQUAL_BANDWIDTH_NOTE, width)


def short_labels(labels):
    """(the column labels as shown, the lines that say what they stand for).

    Files of one directory show their base name without a common extension
    (`metal` for results/runs/<id>/metal.txt), under one line naming the directory.
    """
    if len(labels) < 2 or not all("/" in c for c in labels):
        return labels, []
    head = os.path.commonpath(labels) if all(c.startswith("/") for c in labels) or not any(
        c.startswith("/") for c in labels) else ""
    if not head or any(c == head for c in labels):
        return labels, []
    rest = [c[len(head):].lstrip("/") for c in labels]
    ext = os.path.splitext(rest[0])[1]
    if ext and all(r.endswith(ext) and len(r) > len(ext) for r in rest):
        rest = [r[: -len(ext)] for r in rest]
    if len(set(rest)) < len(rest) or any(not r for r in rest):
        return labels, []
    return rest, [f"columns: {head}/<column>{ext}"]


# A label longer than this (a run-id is 30 characters) makes way for a letter
# when the output has a width
LONG_LABEL = 20


def letters(labels):
    """A, B, … Z, then C27, C28…: the columns as letters, with a line per column saying which is which."""
    short = [chr(ord("A") + i) if i < 26 else f"C{i + 1}" for i in range(len(labels))]
    return short, [f"{s}: {label}" for s, label in zip(short, labels)]


def say(out, text, width):
    """A line of prose, wrapped at the width (never a table cell)."""
    if width is None or len(text) <= width:
        out.write(text + "\n")
        return
    for line in textwrap.wrap(text, width, subsequent_indent="  ", break_on_hyphens=False):
        out.write(line + "\n")


def wrap(line, width, hang=2):
    """A line of prose as lines of at most `width` columns, each continuation indented `hang` more than the
    line's own indent; a word longer than the width (a run-id, a path) stays whole, never cut."""
    if width is None or len(line) <= width:
        return [line]
    indent = line[:len(line) - len(line.lstrip(" "))]
    return textwrap.wrap(line, width, subsequent_indent=indent + " " * hang, break_long_words=False,
                         break_on_hyphens=False)


class _Wrapping:
    """A writer that wraps every line written through it at a width (wrapping())."""

    def __init__(self, out, width, hang):
        self._out, self._width, self._hang, self._pending = out, width, hang, ""

    def write(self, s):
        lines = (self._pending + s).split("\n")
        self._pending = lines.pop()
        for line in lines:
            self._out.write("\n".join(wrap(line, self._width, self._hang)) + "\n")
        return len(s)

    def flush(self):
        if self._pending:
            self._out.write("\n".join(wrap(self._pending, self._width, self._hang)))
            self._pending = ""
        self._out.flush()


@contextlib.contextmanager
def wrapping(out, width=None, hang=2):
    """`out`, or where it has a width ($COLUMNS, a terminal's), a writer that wraps each line of prose at
    it: the commands whose text output is sentences (noise, explain, power) fit a terminal as compare's
    tables do, instead of lines the terminal folds anywhere. hang: the continuation's extra indent (4 where
    a line indented by 2 is an item of the line above it)."""
    width = output_width(out, width)
    if width is None:
        yield out
        return
    w = _Wrapping(out, width, hang)
    yield w
    w.flush()


def _cells(table, r, base, factor, unit):
    summaries, deltas = r.cells, r.deltas  # read once: a stored row makes them on each read
    scale = fmt.common_scale([s.center * factor for s in summaries.values() if s is not None], unit)
    name = r.name[len("Benchmark"):] if r.name.startswith("Benchmark") and len(r.name) > len("Benchmark") else r.name
    cells = [terminal(name)]
    for col in table.columns:
        cells.append(fmt.scaled_summary(summaries.get(col), factor, scale))
        if col != base:
            d = deltas.get(col)
            cells += [fmt.delta(d, row_mde(table, r, col)),
                      fmt.p_n(d.comparison) if d else ""]
    return cells


def _geo_cells(table, g, base, factor, unit):
    cells = ["geomean"]
    for col in table.columns:
        v = g.values[col]
        cells.append("?" if v is None else fmt.common_scale([v * factor], unit)(v * factor))
        if col != base:
            cells += [fmt.pct(g.pct[col]), ""]
    return cells


def _table(out, title, labels, body, width):
    """One section, in the widest layout that fits: every column on one line; a name too long
    for the room left on its own line above its cells; the columns in chunks beside the
    baseline (the first column)."""
    head = ["benchmark", labels[0]]
    for label in labels[1:]:
        head += [label, "vs base", "p"]
    widths = [len(h) for h in head]
    for line in body:
        widths = [max(w, len(c)) for w, c in zip(widths, line.split(_SEP))]
    others = list(range(1, len(labels)))
    if width is None or widths[0] + _cells_width(widths, others) <= width:
        _write(out, title, head, body, widths, others, widths[0], width)
        return
    k = len(others)
    while k > 1 and _cells_width(widths, others[:k]) + _MIN_NAME > width:
        k -= 1
    chunks = [others[i:i + k] for i in range(0, len(others), k)]
    for n, chunk in enumerate(chunks, 1):
        room = max(width - _cells_width(widths, chunk), len(_INDENT) - len(_GAP))
        what = "" if len(chunks) == 1 else f", part {n} of {len(chunks)}: " + ", ".join(labels[c] for c in chunk)
        _write(out, title + what, head, body, widths, chunk, room, width)


# The least room beside the cells before the columns are split in chunks: a name
# longer than the room goes on its own line
_MIN_NAME = len(_INDENT)


def _positions(columns):
    """The cell indexes of the baseline and the chosen other columns (0-based among labels)."""
    at = [1]
    for c in columns:
        start = 2 + 3 * (c - 1)
        at += [start, start + 1, start + 2]
    return at


def _cells_width(widths, columns):
    return sum(len(_GAP) + widths[i] for i in _positions(columns))


def _write(out, title, head, body, widths, columns, room, width):
    """The rows with `room` columns for the name: a longer name goes on its own line(s)
    above its cells."""
    at = _positions(columns)
    ps = set(at[3::3])  # the p columns, left-aligned (a label may read "p" too)
    name_w = min(widths[0], room)

    def line(cells):
        return _GAP.join(cells[i].ljust(widths[i]) if i in ps else cells[i].rjust(widths[i]) for i in at)

    say(out, title, width)
    for cells in itertools.chain([head], (row.split(_SEP) for row in body)):
        name = cells[0]
        if len(name) > name_w:
            for part in _name_lines(name, width):
                out.write(part + "\n")
            name = ""
        out.write((name.ljust(name_w) + _GAP + line(cells)).rstrip() + "\n")


def _name_lines(name, width):
    """A name on its own line(s): one longer than the width breaks after a `/`, never inside a key."""
    if width is None or len(name) <= width:
        return [name]
    lines, cur = [], ""
    for part in name.split("/"):
        piece = part if not cur else "/" + part
        if cur and len(cur) + len(piece) > width:
            lines.append(cur)
            cur, piece = "  ", "/" + part
        cur += piece
    return lines + [cur]


# Joins a row's cells while the widths are not known yet (a list of cells per row
# costs several times more in a long section); terminal() escapes every control
# character, so no cell holds it.
_SEP = "\x00"


def _sections(table):
    """[((group, unit), rows)] in row order; table.build makes each group and unit's rows adjacent."""
    out, start, key = [], 0, None
    rows = table.rows
    for i, r in enumerate(rows):
        k = (r.group, r.unit)
        if k != key:
            if key is not None:
                out.append((key, rows[start:i]))
            key, start = k, i
    if key is not None:
        out.append((key, rows[start:]))
    return out
