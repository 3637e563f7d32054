"""`vmparity compare A [B…]`: the statistical comparison table."""

from collections import Counter

from ..results import inputs
from .. import table
from ..errors import InputError
from ..render import FORMATS, policy, text
from ..render.escape import md_text, terminal
from ..render.gate import gate


def run(operands, out, err, col=None, row=None, filter=None, fmt="text", alpha=0.05, confidence=0.95,
        results_dir=None, fail_on_regression=None, baseline=None, table_keys=None, ignore=None, changed=False):
    if fmt not in FORMATS:
        raise InputError("--format", f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    loaded = inputs.load_all(operands, results_dir)
    t = table.build(loaded, col=col, row=row, filter=filter, alpha=alpha, confidence=confidence, baseline=baseline,
                    table=table_keys, ignore=ignore)
    del loaded  # the table holds every number it shows: the files' values can go before it is rendered
    headline = crossrun_headline(t)
    if headline:
        say_first(headline, fmt, out, err)  # the answer first, on stdout
    said = policy.line(t.policy, alpha)  # which judgement decided the rows, before them (docs/noise.md)
    found = summary(t) if fmt in ("text", "markdown") and not headline else []  # then what it found, per column
    if fmt == "text":
        for line in (terminal(said), *found):
            text.say(out, line, text.output_width(out))
    elif fmt == "markdown":
        out.write(md_text(said) + "\n\n" + "".join(f"- {md_text(line)}\n" for line in found) + ("\n" if found else ""))
    shown = t
    if changed:
        shown = table.changed_view(t)
        say_first(changed_line(len(shown.rows), len(t.rows)), fmt, out, err)
    if shown.rows or fmt in ("csv", "json"):  # data formats keep their header or document, even with no row
        FORMATS[fmt](shown, out)
    note_unknown_directions(t, err)
    return gate(t, fail_on_regression, err)


def summary(t):
    """One line per compared column: how many of its rows differ beyond noise (decide's judgement)
    against the baseline, and which way; nothing for a table of one column."""
    if len(t.columns) < 2:
        return []
    from ..decide.judgement import beyond

    labels = dict(zip(t.columns, text.short_labels([terminal(c) for c in t.columns])[0]))
    base, lines = t.columns[0], []
    for col in t.columns[1:]:
        deltas = [r.deltas[col] for r in t.rows if col in r.deltas]
        moved = Counter(d.verdict for d in deltas if beyond(d))
        ways = [f"{moved[v]} {v}" for v in ("worse", "better")] + [f"{moved[v]} {v}" for v in ("changed", "?") if moved[v]]
        lines.append(f"{labels[col]} against {labels[base]}: {moved.total()} of {len(deltas)} row(s) beyond noise"
                     + (f" ({', '.join(ways)})" if moved else ""))
    return lines


def say_first(line, fmt, out, err):
    """A line before the tables: on stdout in text and markdown; csv and json stay data only, so
    there it is a note on stderr."""
    if fmt == "text":
        text.say(out, line, text.output_width(out))
    elif fmt == "markdown":
        out.write(md_text(line) + "\n\n")
    else:
        err.write(f"vmparity: note: {line[0].lower()}{line[1:]}\n")


def changed_line(shown, rows):
    """What --changed shows, and what it leaves out."""
    return (f"--changed: {shown} of {rows} row(s) differ beyond noise in some column; the {rows - shown} "
            f"others (within noise, or no significant difference) are not shown")


def crossrun_headline(t):
    """Two runs: which comparison the verdicts came from (the table's `(noise)` marks), and what it found."""
    cr = t.crossrun
    if cr is None:
        return None
    from ..decide import crossrun  # only two runs have a cross-run judgement: two files start without it
    from ..render import crossrun_md

    drift = cr.host_drift()
    moved = f" (host drift {drift[0]:+.1f} %)" if drift else ""
    return (f"Two runs, each target against itself with the host's drift taken out: "
            f"{len(cr.of(crossrun.CHANGED))} row(s) changed beyond run-to-run noise, "
            f"{len(cr.of(crossrun.NOISE))} within it{moved}, {len(cr.of(crossrun.NOT_TESTED))} not tested "
            f"({crossrun_md.untested_why(cr)}); docs/noise.md")


def note_unknown_directions(t, err):
    """Units whose direction nobody declared are compared, not judged: say how to declare them."""
    units = list(dict.fromkeys(r.unit for r in t.rows if r.higher_better is None))
    if units:
        err.write(f"vmparity: note: {', '.join(units)}: direction unknown, so changes are not called better or worse; "
                  f"declare it in the file with a line such as `Unit {units[0]} better=higher` (or better=lower)\n")
