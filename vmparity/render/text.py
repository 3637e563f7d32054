"""Terminal table (rich): one table per group and unit, like benchstat's text output."""

from rich.console import Console
from rich.table import Table as RichTable

from . import fmt


def render(table, out, width=None):
    console = Console(file=out, width=width or 160, color_system=None, force_terminal=False, highlight=False)
    base = table.columns[0]
    for (group, unit), rows in _sections(table):
        better = "higher is better" if rows[0].higher_better else "lower is better"
        title = f"{group + ' · ' if group else ''}{unit} ({better})"
        t = RichTable(title=title, title_justify="left")
        t.add_column("benchmark", no_wrap=True)
        for col in table.columns:
            t.add_column(col, justify="right", no_wrap=True)
            if col != base:
                t.add_column(f"vs {base}", justify="right", no_wrap=True)
                t.add_column("p", no_wrap=True)
        for r in rows:
            cells = [r.name]
            for col in table.columns:
                cells.append(fmt.summary(r.cells.get(col)))
                if col != base:
                    d = r.deltas.get(col)
                    cells += [fmt.delta(d), fmt.p_n(d.comparison) if d else ""]
            t.add_row(*cells)
        for g in table.geomeans:
            if g.group == group and g.unit == unit:
                cells = ["geomean"]
                for col in table.columns:
                    cells.append(fmt.value(g.values[col]))
                    if col != base:
                        cells += [fmt.pct(g.pct[col]), ""]
                t.add_row(*cells, end_section=True)
        console.print(t)
    warnings = table.warnings()
    for w, where in warnings.items():
        console.print(f"warning: {w} ({len(where)} row(s), e.g. {where[0]})")
    console.print(f"alpha={table.alpha:g}; ~ means p > alpha (no significant difference)")


def _sections(table):
    out = {}
    for r in table.rows:
        out.setdefault((r.group, r.unit), []).append(r)
    return out.items()
