"""Markdown for a comparison of two runs judged against run-to-run noise
(crossrun.CrossRun): the counts, which comparison was made, the smallest
change it could have seen, the rows not tested, and the changed rows."""

from ..decide import crossrun as cr_
from ..results.targets import TCG_ACROSS_RUNS
from . import fmt, markdown
from .escape import md_code, md_text

NOT_TESTED_SHOWN = 8  # targets named in the "not tested" line; the rest are counted


def summary(cr):
    """The counts line: what changed beyond run-to-run noise, and what did not."""
    changed = cr.of(cr_.CHANGED)
    worse = sum(j.verdict == "worse" for j in changed)
    better = sum(j.verdict == "better" for j in changed)
    other = len(changed) - worse - better
    within, same, untested = len(cr.of(cr_.NOISE)), len(cr.of(cr_.SAME)), len(cr.of(cr_.NOT_TESTED))
    controls = len(cr.of(cr_.CONTROL))
    drift = cr.host_drift()
    drift_text = f" (host drift of {drift[0]:+.1f} %)" if drift else ""
    parts = [f"**{worse} worse**", f"**{better} better**"] + ([f"{other} changed"] if other else [])
    return (f"{', '.join(parts)} beyond run-to-run noise; {within} within run-to-run noise{drift_text}, "
            f"{same} unchanged, **{untested} not tested** ({untested_why(cr)}), and {controls} rows of the controls "
            f"({', '.join(md_code(c) for c in cr.controls)}) that measure the host's drift; "
            f"{len(cr.rows)} compared rows.\n")


def method(cr):
    """Which comparison was made, in one paragraph."""
    drift = cr.host_drift()
    controls = " and ".join(md_code(c) for c in cr.controls)
    moved = (f"Between the runs the host got {abs(drift[0]):.1f} % {'slower' if drift[0] >= 0 else 'faster'} "
             f"on the controls' median row (middle half {drift[1]:+.1f} % … {drift[2]:+.1f} %). ") if drift else ""
    clock = (f", and time rows put at an equal core clock first (a time row whose benchmark measured the core clock "
             f"beside it is judged on its core-clock twin at the row's clock in {md_code(cr.base)})"
             ) if any(j.clock_pct is not None for j in cr.rows) else ""
    return (f"\n_Comparison: each target against itself in {md_code(cr.base)}, with the host's drift between the runs "
            f"(the mean change of {controls} on the same row) taken out{clock}. {moved}A row counts as changed when the "
            f"Mann–Whitney U test on the drift-corrected values is significant among the {cr.tested} rows tested "
            f"(false discovery rate α = {cr.alpha:g}, Benjamini–Hochberg) and the change "
            f"exceeds its band: max({cr_.FLOOR_PCT:g} %, half the controls' disagreement + {cr_.SPREAD_Z:g} sampling "
            f"errors of the two medians) (docs/noise.md). A change that moves every target alike, the "
            f"controls included, cannot be told from host drift across runs; a same-run A/B can._\n")


def detectable(cr):
    """The smallest change each family could have shown (median band), one line."""
    mde = cr.detectable()
    if not mde:
        return ""
    items = sorted(mde.items(), key=lambda kv: (kv[1], kv[0]))
    text = ", ".join(f"{md_code(f)} {md_code(u)} {v:.1f} %" for (f, u), v in items)
    return f"\nSmallest change it could have seen (minimum detectable effect, the median band per family): {text}.\n"


def untested_why(cr):
    """The reasons of the rows not tested, for the counts line: `too few samples`, `emulated guests`."""
    why = {j.untested_because for j in cr.of(cr_.NOT_TESTED)}
    return ", ".join(text for w, text in ((cr_.FEW_SAMPLES, "too few samples"), (cr_.EMULATED, "emulated guests"))
                     if w in why) or "too few samples"


def not_tested(cr):
    """Which rows could not be tested, by target, with why."""
    few = [j for j in cr.of(cr_.NOT_TESTED) if j.untested_because != cr_.EMULATED]
    emulated = [j for j in cr.of(cr_.NOT_TESTED) if j.untested_because == cr_.EMULATED]
    out = ""
    if few:
        out += (f"\n**Not tested** ({len(few)} rows): {_by_target(few, lambda ns: f' (n = {min(ns)})')}: fewer than "
                f"{cr.need} samples on a side, so the U test cannot reach α = {cr.alpha:g} whatever the values; these "
                f"rows are neither changed nor unchanged.\n")
    if emulated:
        out += (f"\n**Not tested across runs** ({len(emulated)} rows): {_by_target(emulated)}: emulated (TCG) "
                f"guests, whose {TCG_ACROSS_RUNS}; compare them within one run (against metal, or "
                f"`make lab-ab`). These rows are neither changed nor unchanged.\n")
    return out


def _by_target(rows, detail=lambda ns: ""):
    """`target` N rows[detail of their sample counts], for the first NOT_TESTED_SHOWN targets, and how many more."""
    by = {}
    for j in rows:
        by.setdefault(j.group, []).append(min(j.n))
    names = [f"{md_code(t)} {len(ns)} rows{detail(ns)}" for t, ns in list(by.items())[:NOT_TESTED_SHOWN]]
    more = f" and {len(by) - NOT_TESTED_SHOWN} more target(s)" if len(by) > NOT_TESTED_SHOWN else ""
    return ", ".join(names) + more


def changed_table(t, cr, budget):
    """(Markdown, rows shown): the changed rows, largest first, cut to the budget."""
    rows = sorted(cr.of(cr_.CHANGED), key=lambda j: -abs(j.change_pct) if j.change_pct is not None else float("-inf"))
    cells = {(r.group, r.name, r.unit): r.cells for r in t.rows if (r.group, r.name, r.unit) in
             {(j.group, j.name, j.unit) for j in rows}}
    head = (f"\n### Changed beyond run-to-run noise (largest first)\n\n| target | benchmark | unit | {md_code(cr.base, in_table=True)} | "
            f"{md_code(cr.head, in_table=True)} | host drift | target's core clock, HEAD | change after drift and clock | band | p | verdict |\n"
            "|---|---|---|--:|--:|--:|--:|--:|--:|--:|---|\n")
    if not rows:
        return "", 0
    empty = {}
    lines = (f"| {md_code(j.group, in_table=True)} | {md_code(j.name, in_table=True)} | {md_code(unit, in_table=True)} | "
             f"{a} | {b} | {fmt.pct(j.drift_pct)} | "
             f"{'' if j.clock_pct is None else fmt.pct(j.clock_pct)} | "
             f"{fmt.pct(j.change_pct)} | {j.band_pct:.1f}% | {j.p:.3f} | {md_text(j.verdict)} |\n"
             for j in rows for c in [cells.get((j.group, j.name, j.unit), empty)]
             for unit, (a, b) in [fmt.scaled(j.unit, [c.get(cr.base), c.get(cr.head)])])
    return markdown.fit(head, lines, budget)


def within_note(j):
    """What a row within run-to-run noise says instead of worse or better."""
    drift = f"host drift of {j.drift_pct:+.1f} %" if j.drift_pct is not None else "no host drift measured"
    drift += clock_note(j)
    if j.raw_change_pct is not None:  # crossrun: metal's drift may not be this row's
        drift += f", {fmt.pct(j.raw_change_pct)} without it: the target differs from metal on this row"
    return f"≈ within run-to-run noise ({drift})"


def clock_note(j):
    """`, at an equal core clock (the target's clock -2.10% in HEAD)` for a time row judged on its clocks twin, else ""."""
    return "" if j.clock_pct is None else f", at an equal core clock (the target's clock {fmt.pct(j.clock_pct)} in HEAD)"


def notes(cr):
    """{(target, name, unit): text} for the rows a table should not call worse or better."""
    out = {}
    for j in cr.rows:
        if j.status in (cr_.NOISE, cr_.CONTROL):
            out[(j.group, j.name, j.unit)] = within_note(j)
        elif j.status == cr_.NOT_TESTED:
            out[(j.group, j.name, j.unit)] = ("not tested (emulated guest)" if j.untested_because == cr_.EMULATED
                                              else f"not tested (n = {min(j.n)})")
    return out
