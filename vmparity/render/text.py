"""Terminal table: one table per group and unit, like benchstat's text output.

rich draws the tables; its layout costs about a millisecond per row, so a
section longer than RICH_MAX_ROWS (nobody reads it row by row anyway) is
printed as plain aligned columns instead, keeping 100,000-line comparisons fast.
Such a section keeps each formatted row as one string until the column
widths are known (a list of cells per row would cost several times more).
"""

import itertools

from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from ..decide.figures import row_mde
from . import fmt
from .escape import terminal

RICH_MAX_ROWS = 1000


class _Console(Console):
    def on_broken_pipe(self):
        # rich would exit 1 here, the gate's code for a regression; the reader
        # closing the pipe (`| head`) is cli.main's to answer (docs/formats.md)
        raise BrokenPipeError


def render(table, out, width=None):
    # A pipe or file gets the table at its natural width (rich does not pad
    # it); a terminal gets rich's fitting to the window.
    if width is None and not (hasattr(out, "isatty") and out.isatty()):
        width = 10_000
    console = _Console(file=out, width=width, color_system=None, highlight=False)
    base = table.columns[0]
    head = ["benchmark"]
    for col in table.columns:
        head.append(terminal(col))
        if col != base:
            head += [f"vs {terminal(base)}", "p"]
    for (group, unit), rows in _sections(table):
        better = fmt.direction(rows[0].higher_better)
        title = terminal(f"{group + ' · ' if group else ''}{unit} ({better})")
        geo = [_geo_cells(table, g, base) for g in table.geomeans if g.group == group and g.unit == unit]
        if len(rows) > RICH_MAX_ROWS:
            _plain(out, title, head, (_cells(table, r, base) for r in rows), geo)
            continue
        body = [_cells(table, r, base) for r in rows]
        t = RichTable(title=Text(title), title_justify="left")
        for i, h in enumerate(head):
            t.add_column(Text(h), justify="left" if i == 0 or h == "p" else "right", no_wrap=True)
        for cells in body:
            t.add_row(*map(Text, cells))
        for cells in geo:
            t.add_row(*map(Text, cells), end_section=True)
        console.print(t)
    for w, (count, first) in table.warnings().items():
        console.print(Text(terminal(f"warning: {w} ({count} row(s), e.g. {first})")))
    console.print(Text(f"alpha={table.alpha:g}; ~ means p > alpha (no significant difference)"))
    if table.noise:
        console.print(Text(fmt.MDE_NOTE))
    if fmt.any_at_equal_clock(table.rows):
        console.print(Text(fmt.EQUAL_CLOCK_NOTE))
    if fmt.any_at_equal_bandwidth(table.rows):
        console.print(Text(fmt.EQUAL_BANDWIDTH_NOTE))


def _cells(table, r, base):
    summaries, deltas = r.cells, r.deltas  # read once: a stored row makes them on each read
    cells = [terminal(r.name)]
    for col in table.columns:
        cells.append(fmt.summary(summaries.get(col)))
        if col != base:
            d = deltas.get(col)
            cells += [fmt.delta(d, row_mde(table, r, col)),
                      fmt.p_n(d.comparison) if d else ""]
    return cells


def _geo_cells(table, g, base):
    cells = ["geomean"]
    for col in table.columns:
        cells.append(fmt.value(g.values[col]))
        if col != base:
            cells += [fmt.pct(g.pct[col]), ""]
    return cells


def _plain(out, title, head, body, tail):
    widths = [len(h) for h in head]
    lines = []
    for cells in itertools.chain(body, tail):
        widths = [max(w, len(c)) for w, c in zip(widths, cells)]
        lines.append(_SEP.join(cells))
    out.write(title + "\n")
    _plain_line(out, head, head, widths)
    for line in lines:
        _plain_line(out, head, line.split(_SEP), widths)


def _plain_line(out, head, cells, widths):
    out.write("  ".join(c.ljust(w) if i == 0 or head[i] == "p" else c.rjust(w)
                        for i, (c, w) in enumerate(zip(cells, widths))).rstrip() + "\n")


# Joins a plain row's cells while the widths are not known yet; terminal()
# escapes every control character, so no cell holds it.
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
