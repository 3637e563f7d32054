"""GitHub-flavoured Markdown tables, one per group and unit."""

from ..decide.judgement import row_mde  # not figures: it imports every in-run judge
from . import fmt
from .escape import md_code, md_text
from .text import _sections, short_labels


def render(table, out, only_significant=False, notes=None):
    """notes: {(group, name, unit): text} shown as the verdict of the last column
    instead of the delta's own (a cross-run judgement: crossrun_md.notes)."""
    base = table.columns[0]
    last = table.columns[-1]
    notes = notes or {}
    shown = []
    # files of one directory by their base names, under a line naming it, as the text table does
    labels, legend = short_labels(table.columns)
    label = dict(zip(table.columns, labels))
    for line in legend:  # "columns: DIR/<column>.txt"
        what, _, where = line.partition(": ")
        out.write(f"\n{md_text(what)}: {md_code(where)}\n")
    for (group, unit), rows in _sections(table):
        if only_significant:
            rows = [r for r in rows if any(d.comparison.significant for d in r.deltas.values())]
            if not rows:
                continue
        better = fmt.direction(rows[0].higher_better)
        shown_unit = fmt.tidy_unit(unit)[0]  # benchstat's: sec/op for ns/op, values scaled to it
        out.write(f"\n#### {md_text(group) + ' · ' if group else ''}{md_code(shown_unit)} ({better})\n\n")
        head = ["benchmark"]
        for col in table.columns:
            head.append(md_code(label[col], in_table=True))
            if col != base:
                head += [f"vs {md_code(label[base], in_table=True)}", "p", "verdict"]
        out.write("| " + " | ".join(head) + " |\n")
        out.write("|" + "|".join(["---"] + ["--:"] * (len(head) - 1)) + "|\n")
        shown += rows
        for r in rows:
            cells = [md_code(r.name, in_table=True)]
            summaries, deltas = r.cells, r.deltas  # read once: a stored row makes them on each read
            _, scaled = fmt.scaled(unit, [summaries.get(col) for col in table.columns])
            for col, summary in zip(table.columns, scaled):
                cells.append(summary)
                if col != base:
                    d = deltas.get(col)
                    note = notes.get((r.group, r.name, r.unit)) if col == last and d else None
                    cells += [fmt.delta(d, row_mde(table, r, col)),
                              fmt.p_n(d.comparison) if d else "",
                              md_text(note) if note else (fmt.verdict_mark(d) if d else "")]
            out.write("| " + " | ".join(cells) + " |\n")
        for g in table.geomeans:
            if g.group == group and g.unit == unit and not only_significant:
                cells = ["**geomean**"]
                for col in table.columns:
                    cells.append(fmt.scaled_value(unit, g.values[col]))
                    if col != base:
                        cells += [fmt.pct(g.pct[col]), "", ""]
                out.write("| " + " | ".join(cells) + " |\n")
    warnings = table.warnings()
    if warnings:
        out.write("\n")
        for w, (count, first) in warnings.items():
            out.write(f"> ⚠️ {md_text(w)} ({count} row(s), e.g. {md_code(first)})\n")
    out.write(f"\nα = {table.alpha:g}; `~` means p > α (no significant difference).\n")
    if table.noise and shown:
        out.write(f"\n{md_text(fmt.MDE_NOTE)}\n")
    if fmt.any_at_equal_clock(shown):
        out.write(f"\n{md_text(fmt.EQUAL_CLOCK_NOTE)}\n")
    if fmt.any_at_equal_bandwidth(shown):
        out.write(f"\n{md_text(fmt.EQUAL_BANDWIDTH_NOTE)}\n")


def fit(head, lines, budget):
    """(head and as many of `lines` as fit in `budget` characters, how many did): a table cut to a size."""
    parts, used, shown = [head], len(head), 0
    for line in lines:
        if used + len(line) > budget:
            break
        parts.append(line)
        used += len(line)
        shown += 1
    return "".join(parts), shown
