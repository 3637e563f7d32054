"""Terminal table: one table per group and unit, like benchstat's text output.

rich draws the tables; its layout costs about a millisecond per row, so a
section longer than RICH_MAX_ROWS (nobody reads it row by row anyway) is
printed as plain aligned columns instead, keeping 100,000-line comparisons fast.
"""

from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from . import fmt
from .escape import terminal

RICH_MAX_ROWS = 1000


def render(table, out, width=None):
    # A pipe or file gets the table at its natural width (rich does not pad
    # it); a terminal gets rich's fitting to the window.
    if width is None and not (hasattr(out, "isatty") and out.isatty()):
        width = 10_000
    console = Console(file=out, width=width, color_system=None, highlight=False)
    base = table.columns[0]
    head = ["benchmark"]
    for col in table.columns:
        head.append(terminal(col))
        if col != base:
            head += [f"vs {terminal(base)}", "p"]
    for (group, unit), rows in _sections(table):
        better = fmt.direction(rows[0].higher_better)
        title = terminal(f"{group + ' · ' if group else ''}{unit} ({better})")
        body = [_cells(table, r, base) for r in rows]
        geo = [_geo_cells(table, g, base) for g in table.geomeans if g.group == group and g.unit == unit]
        if len(body) > RICH_MAX_ROWS:
            _plain(out, title, head, body + geo)
            continue
        t = RichTable(title=Text(title), title_justify="left")
        for i, h in enumerate(head):
            t.add_column(Text(h), justify="left" if i == 0 or h == "p" else "right", no_wrap=True)
        for cells in body:
            t.add_row(*map(Text, cells))
        for cells in geo:
            t.add_row(*map(Text, cells), end_section=True)
        console.print(t)
    for w, where in table.warnings().items():
        console.print(Text(terminal(f"warning: {w} ({len(where)} row(s), e.g. {where[0]})")))
    console.print(Text(f"alpha={table.alpha:g}; ~ means p > alpha (no significant difference)"))


def _cells(table, r, base):
    cells = [terminal(r.name)]
    for col in table.columns:
        cells.append(fmt.summary(r.cells.get(col)))
        if col != base:
            d = r.deltas.get(col)
            cells += [fmt.delta(d), fmt.p_n(d.comparison) if d else ""]
    return cells


def _geo_cells(table, g, base):
    cells = ["geomean"]
    for col in table.columns:
        cells.append(fmt.value(g.values[col]))
        if col != base:
            cells += [fmt.pct(g.pct[col]), ""]
    return cells


def _plain(out, title, head, rows):
    widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    out.write(title + "\n")
    for r in [head] + rows:
        out.write("  ".join(c.ljust(w) if i == 0 or head[i] == "p" else c.rjust(w)
                            for i, (c, w) in enumerate(zip(r, widths))).rstrip() + "\n")


def _sections(table):
    out = {}
    for r in table.rows:
        out.setdefault((r.group, r.unit), []).append(r)
    return out.items()
