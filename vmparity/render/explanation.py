"""Render explain results as text, Markdown or JSON."""

import json
import math
from collections import Counter

from ..decide import noise
from ..query.names import family
from . import fmt, fold, run_figures
from . import verdicts as verdicts_md
from .escape import md_code, md_text, terminal


def _row(f, seen=True):
    return f"{f.name} {_unit(f)}: {_change(f, seen)}"


def _unit(f):
    if f.at_equal_bandwidth:
        return f"{f.unit} at an equal memory bandwidth"
    return f"{f.unit} at an equal core clock" if f.at_equal_clock else f.unit


def _change(f, seen=True):
    """seen: say the row's minimum detectable effect, where a rule has not already said what the row is
    (an unexplained row, one within noise): a change found in a row that could only see large ones is
    weak evidence."""
    if f.side:
        return f"only on {f.side}"
    could = f"; could see {fmt.mde(f.mde)}" if seen and f.mde is not None else ""
    return f"{fmt.pct(f.pct)} ({f.verdict}, p={f.p:.3f}{could}{_machine_range(f)})"


def _machine_range(f):
    """Where an unexplained row stood on this machine's other stored runs (history/machine_range.py)."""
    b = f.machine_range
    if b is None:
        return ""
    where = "within" if b.holds(f.pct) else "beyond"
    return f"; {where} the {b.low_pct:+.1f} … {b.high_pct:+.1f} % of this machine's {b.runs} other runs"


def _heading(e):
    return f"{e.group + ': ' if e.group else ''}{e.b} vs {e.a}"


def noise_line(result):
    """What the A/A control says about this comparison, or that there is none: its false-alarm
    figure under the rule that judged the rows, as `vmparity noise` and the report say it."""
    m = result.noise
    if m is None:
        return ("noise: no A/A control beside these results, so significant differences are not "
                "checked against the run's own noise (a lab run has one: metal-aa)")
    return (f"noise: A/A control {m.aa} vs {m.metal}: {run_figures.aa_headline(m)}; {len(result.within_noise)} "
            f"significant row(s) here are within that noise (docs/noise.md)")


def text(result, out):
    """For a terminal: every value passes through escape.terminal."""
    t = terminal
    out.write(t(noise_line(result)) + "\n")
    if not result.explanations and not result.unexplained:
        out.write("no significant differences beyond noise\n")
    for e in result.explanations:
        out.write(f"[{t(e.rule['id'])}] {t(e.rule['title'])} — {t(_heading(e))}\n")
        out.write(f"  cause: {t(e.cause)}\n  fix:   {t(e.fix)}\n  evidence:\n")
        for k, va, vb in e.evidence:
            out.write(t(f"    {k}: {va!r} ({e.a}) vs {vb!r} ({e.b}){'' if va != vb else '  (same)'}") + "\n")
        for f in e.rows:
            out.write(f"    row {t(_row(f, seen=False))}\n")
        out.write("\n")
    if result.unexplained:
        out.write(f"unexplained ({len(result.unexplained)} significant row(s) no rule matched):\n")
        for f in result.unexplained:
            out.write(f"  {t(f.group + ': ' if f.group else '')}{t(_row(f))}\n")
    if result.within_noise:
        out.write(f"within noise ({len(result.within_noise)} significant row(s) {result.within_label}):\n")
        for f in result.within_noise:
            out.write(f"  {t(f.group + ': ' if f.group else '')}{t(_row(f))}\n")
    for side, only, listed in subset_lines(result):
        out.write(t(f"not measured on {side} (its run selected only: {only}): {listed}") + "\n")


def subset_lines(result):
    """One line per side that measured a subset: which benchmarks the other side has and it did not select."""
    out = []
    for side, only in result.subset_runs.items():
        fams = Counter(family(f.name) for f in result.not_selected if f.side != side)
        out.append((side, only, ", ".join(f"{name} ({n} row(s))" for name, n in sorted(fams.items()))))
    return out


def _md_row(f, seen=True):
    """`name` unit: change — the row as Markdown (the rule text is plain text, shown literally)."""
    return f"{md_code(f.name)} {md_text(_unit(f))}: {md_text(_change(f, seen))}"


def markdown(result, out, details=True, verdicts=None, verdicts_run=None):
    """verdicts: {(target, rule id): the lab's verdict (verdicts.json)} shown beside each explanation."""
    if not result.explanations and not result.unexplained:
        out.write("No significant differences beyond noise.\n")
    for e in result.explanations:
        out.write(f"- **{md_text(e.rule['title'])}** ({md_code(e.rule['id'])}, {md_text(_heading(e))}, "
                  f"{len(e.rows)} row(s))  \n")
        out.write(f"  {md_text(e.cause)}  \n  **Fix:** {md_text(e.fix)}\n")
        v = (verdicts or {}).get((e.b, e.rule["id"]))
        if v is not None:
            out.write("  " + verdicts_md.line(v, verdicts_run))
        if details:
            out.write(fold.open_("evidence", indent="  "))
            out.write(f"  | key | {md_code(e.a, in_table=True)} | {md_code(e.b, in_table=True)} |\n  |---|---|---|\n")
            for k, va, vb in e.evidence:
                mark = "" if va == vb else " ⬅"
                out.write(f"  | {md_code(k, in_table=True)} | {md_code(va, in_table=True)} "
                          f"| {md_code(vb, in_table=True)}{mark} |\n")
            out.write("\n")
            for f in e.rows:
                out.write(f"  - {_md_row(f, seen=False)}\n")
            out.write(fold.close(indent="  "))
    if result.unexplained:
        out.write(f"\n**Unexplained** ({len(result.unexplained)} significant row(s) no rule matched):\n\n")
        for f in result.unexplained:
            out.write(f"- {md_text(f.group) + ': ' if f.group else ''}{_md_row(f)}\n")
    if result.within_noise and details:
        out.write("\n" + fold.open_(f"Within noise: {len(result.within_noise)} significant row(s) {result.within_label}"))
        for f in result.within_noise:
            out.write(f"- {md_text(f.group) + ': ' if f.group else ''}{_md_row(f)}\n")
        out.write(fold.close())
    for side, only, listed in subset_lines(result):
        out.write(f"\nNot measured on {md_code(side)} (its run selected only {md_code(only)}): {md_text(listed)}.\n")


def to_dict(result):
    def row(f):
        out = {"group": f.group, "benchmark": f.name, "unit": f.unit, "pct": f.pct, "p": f.p,
               "verdict": f.verdict, "only-on": f.side or None}
        if f.mde is not None:
            out["mde-pct"] = f.mde if math.isfinite(f.mde) else None
        if f.at_equal_clock:
            out["at-equal-clock"] = True
        if f.at_equal_bandwidth:
            out["at-equal-bandwidth"] = True
        return out
    return {
        "schema": "vmparity-explain/1",
        "explanations": [
            {"rule": e.rule["id"], "title": e.rule["title"], "group": e.group, "a": e.a, "b": e.b,
             "cause": e.cause, "fix": e.fix,
             "evidence": [{"key": k, "a": va, "b": vb} for k, va, vb in e.evidence],
             "rows": [row(f) for f in e.rows]}
            for e in result.explanations
        ],
        "unexplained": [row(f) for f in result.unexplained],
        "absent-keys": result.missing,
        "within-noise": [row(f) for f in result.within_noise],
        "not-selected": [row(f) for f in result.not_selected],
        "subset-runs": result.subset_runs,
        "policy": result.policy.key if result.policy is not None else None,
        "noise": None if result.noise is None else {
            "metal": result.noise.metal, "aa": result.noise.aa, "rows": result.noise.rows,
            "significant": result.noise.significant, "floor-pct": noise.FLOOR_PCT,
            "band-standard-errors": noise.K_SE},
    }


def as_json(result, out):
    json.dump(to_dict(result), out, indent=1, ensure_ascii=False)
    out.write("\n")


FORMATS = {"text": text, "markdown": markdown, "json": as_json}
