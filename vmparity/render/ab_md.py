"""Markdown for an A/B run (vmparity.lab.ab_compare.AB, taken duck-typed): HEAD
against BASE per target, for the report's section and `pr-comment --ab`."""

import io

from ..decide import figures, judgement
from . import explanation, fmt, fold, markdown
from .escape import md_code, md_text


def title(ab):
    return (f"HEAD against BASE {md_code(ab.base_ref)} ({md_code(ab.base_commit[:12])}) in one run, "
            f"{md_code(ab.run_id)}")


def noise(ab):
    """The A/A line: how often two passes of the same environment differ in this run."""
    if not ab.aa:
        return ("**Noise:** this run has no A/A control (`metal-aa`): HEAD's differences from BASE are tested, "
                "not held against the run's noise.\n")
    out = []
    for m in ab.aa:
        line = (f"**Noise:** the A/A control ({md_code(m.aa)} against {md_code(m.metal)}, both HEAD, in every "
                f"round) differs significantly in {m.significant} of {m.rows} rows ({100 * m.share:.1f} %)")
        pm = ab.aa_paired.get(m.metal)
        if pm is not None:
            line += (f"; round by round, as HEAD is held against BASE, {len(pm.beyond_rows)} of {pm.rows} rows "
                     f"are beyond noise ({100 * pm.share:.1f} %)")
        out.append(line + ".\n")
    return "".join(out) + same_binary(ab)


def same_binary(ab):
    """The programs BASE and HEAD ran byte-identical: their rows are a same-code control inside the run;
    or why no row could be taken for the same binary's: a manifest that is not its side's build."""
    wrong = getattr(ab, "manifests_disagree", None) or []
    if wrong:
        said = "; ".join(f"{md_code(name)} has sha256 {md_code(digest[:12])}, its side's files record "
                         f"`binary-sha256` {', '.join(md_code(r[:12]) for r in recorded)}"
                         for name, digest, recorded in wrong)
        return (f"\n**Manifests disagree with the results:** {said}. A manifest that is not the build its side ran "
                "says nothing of which programs BASE and HEAD ran alike, so no row is taken for the same binary's: "
                "every row is decided as the code's.\n")
    programs = sorted(getattr(ab, "same_programs", ()) or ())
    if not programs or not ab.pairs:
        return ""
    beyond, rows = ab.same_binary_rows()
    share = f" ({100 * beyond / rows:.1f} %)" if rows else ""
    return (f"\n**Same binaries:** BASE and HEAD ran byte-identical {', '.join(md_code(p) for p in programs)} "
            f"(`MANIFEST~base.sha256` against `MANIFEST.sha256`): their rows can move only by the run's noise, and "
            f"{beyond} of their {rows} rows are beyond it{share}, this run's own false alarms. They are not the code's "
            "doing, and `--fail-on-regression` passes them.\n")


def method(ab):
    """Which comparison was made, in one paragraph."""
    if not ab.pairs:
        return ""
    return (f"\nEach target's HEAD is compared with its BASE side (`<target>~base`), which ran BASE's build right "
            f"before or after it in every round (the order is in `rounds.json`), **paired by round**: the ratios "
            f"HEAD/BASE of the rounds both sides measured, Wilcoxon signed-rank, α = {ab.pairs[0].table.alpha:g}, "
            "and a change (their median) counts only when it is significant and beyond the row's band from the "
            "ratios' spread and the run's A/A control (docs/noise.md, \"A/B in one run\"). A change that no "
            "environment difference between the two sides explains is the code's.\n" + _unpaired(ab))


def _unpaired(ab):
    """Which targets had rows whose rounds do not pair (or too few did): those keep the U test on medians."""
    some = [f"{md_code(p.target)} {p.unpaired} of {p.paired + p.unpaired}" for p in ab.pairs if p.unpaired]
    if not some:
        return ""
    return ("Rows whose rounds do not pair, or with fewer common rounds than the signed-rank test needs to "
            f"reach α (six at 0.05), are decided unpaired (Mann–Whitney U on medians): {', '.join(some)}.\n")


def per_target(ab):
    """One row per target: worse, better, within noise, explanations, the code's rows, the smallest change seen."""
    lines = ["", "| target | kind | worse | better | within noise | explained by | by the code (unexplained) "
                 "| smallest change seen |", "|---|---|--:|--:|--:|---|--:|--:|"]
    for p in ab.pairs:
        f = figures.per_target(p.table, {p.target: p.result})[0]
        rules = ", ".join(dict.fromkeys(md_code(e.rule["id"], in_table=True) for e in p.result.explanations)) or "—"
        lines.append(f"| {md_code(p.target, in_table=True)} | {md_text(p.kind)} | {f.worse} | {f.better} | {f.within} "
                     f"| {rules} | {f.unexplained} | {fmt.mde_time_clocks(p.mde, p.mde_clocks)} |")
    out = "\n".join(lines) + "\n" + different_rows(ab)
    if ab.head_only:
        out += no_base(ab)
    out += not_measured(ab)
    if ab.base_only:
        out += f"\nBASE side without HEAD (not compared): {', '.join(md_code(t) for t in ab.base_only)}.\n"
    return out


def different_rows(ab):
    """The pairs whose two sides hold different benchmarks: named, never shown as the code's changes."""
    odd = [p for p in ab.pairs if getattr(p, "base_only_rows", 0) or getattr(p, "head_only_rows", 0)]
    if not odd:
        return ""
    parts = [f"{md_code(p.target)}: {p.base_only_rows} row(s) only on BASE, {p.head_only_rows} only on HEAD, "
             f"{p.common_rows} on both" for p in odd]
    return ("\n**The two sides hold different benchmarks** (those rows are not compared, and not counted as the "
            f"code's): {'; '.join(parts)}. A benchmark the change added or removed shows so; a side from another "
            "suite or another run does too, and then this is no A/B run of it.\n")


def no_base(ab):
    """The targets without a BASE side (the A/A pass, or one whose BASE side failed)."""
    return f"\nNo BASE side (not compared): {', '.join(md_code(t) for t in ab.head_only)}.\n"


def not_measured(ab):
    """The targets the run left out, both sides: their kind's rounds are too few for any test of HEAD against
    BASE to reach α (lab/ab.sides), so they are named here rather than missing without a word."""
    groups = {}
    for t, v in sorted((getattr(ab, "not_measured", None) or {}).items()):
        groups.setdefault((v.get("kind", ""), v.get("rounds"), v.get("need")), []).append(t)
    alpha = ab.pairs[0].table.alpha if ab.pairs else 0.05
    out = ""
    for (kind, rounds, need), ts in groups.items():
        out += (f"\nNot measured in this A/B run: {', '.join(md_code(t) for t in ts)} ({md_text(kind or 'target')}, "
                f"which takes {rounds} round{'' if rounds == 1 else 's'}: fewer than the {need} a side any test of HEAD "
                f"against BASE needs to reach α = {alpha:g}; `make lab-up` compares them with metal, and more rounds for "
                "the kind in an A/B run (`bench_ab_rounds_by_kind`) bring them into an A/B run with both sides; docs/noise.md, "
                "\"A/B in one run\").\n")
    return out


def changed(ab, budget):
    """(Markdown, rows shown, rows beyond noise): the rows beyond noise of every target, largest first."""
    rows = [(p, r, d) for p in ab.pairs for r in p.table.rows for col, d in r.deltas.items()
            if col == p.target and judgement.beyond(d)]
    rows.sort(key=lambda x: -abs(x[2].pct) if x[2].pct is not None else float("-inf"))
    if not rows:
        return "\nNo row of any target changed beyond noise.\n", 0, 0
    head = ("\n### Changed beyond noise (largest first)\n\n| target | benchmark | unit | BASE | HEAD | change | p | verdict |\n"
            "|---|---|---|--:|--:|--:|--:|---|\n")
    lines = (f"| {md_code(p.target, in_table=True)} | {md_code(r.name, in_table=True)} | {md_code(unit, in_table=True)} "
             f"| {a} | {b} | {fmt.delta(d)} | {d.comparison.p:.3f} | {fmt.verdict_mark(d)} |\n"
             for p, r, d in rows
             for unit, (a, b) in [fmt.scaled(r.unit, [r.cells.get(p.table.columns[0]), r.cells.get(p.target)])])
    text, shown = markdown.fit(head, lines, budget)
    return text, shown, len(rows)


def explanations(ab, details=True):
    """Per target, what the explain rules say (environment differences between the sides) and the code's rows."""
    out = io.StringIO()
    for p in ab.pairs:
        res = p.result
        if not res.explanations and not res.unexplained and not res.within_noise and not res.same_binary:
            continue
        out.write(fold.open_(f" against its BASE side: {len(res.explanations)} explanation(s), "
                             f"{len(res.unexplained)} row(s) changed by the code", bold=p.target))
        explanation.markdown(res, out, details=details)
        if res.same_binary:
            out.write(f"\n**Same binary on both sides** ({len(res.same_binary)} row(s) beyond noise that no rule explains, "
                      "whose program BASE and HEAD ran byte-identical: the run's noise, not the code):\n\n")
            out.writelines(f"- {md_code(f.name)} {md_code(f.unit)}: {fmt.pct(f.pct)}\n" for f in res.same_binary)
        out.write(fold.close())
    return out.getvalue()
