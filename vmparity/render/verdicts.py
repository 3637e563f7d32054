"""The lab's verdicts on explanations (`vmparity lab verify`, verdicts.json) as Markdown:
one line beside each explanation, and the run's table of them. Values go through render.escape."""

import json

from .escape import md_code, md_text


def _pct(x):
    return "—" if x is None else f"{x:+.1f}%"


def _value(x):
    """A changed value as the variant files spell it (JSON for anything but text)."""
    return x if isinstance(x, str) else json.dumps(x)


def line(v, run):
    """The verdict beside an explanation: what was changed, the verdict, the numbers."""
    head = f"**Lab verdict:** {md_text(v['verdict'])}"
    if v.get("intervention"):
        head += f" by {md_code(v['intervention'])}"
    if v.get("share") is not None:
        head += f", {md_text(format(v['share'], '.0%'))} of the gap closed (median over {v.get('rows', 0)} row(s))"
    head += f" (verify run {md_code(run)})"
    out = [head + "  ", f"  {md_text(v.get('reason', ''))}"]
    if v.get("carried-by"):
        share = v.get("carried-share")
        out[-1] += (f" The difference of these rows is carried by {md_code(v['carried-by'])}"
                    + (f" ({md_text(format(share, '.0%'))} closed)." if share is not None else "."))
    changes = v.get("changes") or []
    if changes:
        out[-1] += "  \n  Changed: " + "; ".join(
            f"{md_code(c['field'])} {md_code(_value(c['from']))} → {md_code(_value(c['to']))}" for c in changes)
    numbers = v.get("numbers") or []
    if numbers:
        shown = numbers[:6]
        out[-1] += "  \n  Against metal, before → after the fix: " + "; ".join(
            f"{md_code(n['name'])} {md_text(n['unit'])} {_pct(n['before-pct'])} → {_pct(n['after-pct'])}"
            for n in shown) + (f"; … {len(numbers) - len(shown)} more" if len(numbers) > len(shown) else "")
    return "\n".join(out) + "\n"


def table(result, run):
    """Every verdict of a verify run as one Markdown table."""
    rows = ["| target | rule | intervention | verdict | gap closed | rows moved / closed |", "|---|---|---|---|--:|--:|"]
    for v in result.get("verdicts", []):
        share = "" if v.get("share") is None else format(v["share"], ".0%")
        counts = f"{v['moved']} / {v['closed']} of {v['rows']}" if "rows" in v else ""
        verdict = v["verdict"] + (f" (carried by `{v['carried-by']}`)" if v.get("carried-by") else "")
        rows.append(f"| {md_code(v['target'], in_table=True)} | {md_code(v['rule'], in_table=True)} "
                    f"| {md_code(v.get('intervention') or '—', in_table=True)} | {md_text(verdict)} "
                    f"| {share} | {counts} |")
    secs = f" in {result['seconds']} s" if result.get("seconds") is not None else ""
    head = (f"The lab applied each explanation's fix to a copy of its target and measured it again in the same "
            f"rounds as the original, metal and metal-aa (verify run {md_code(run)} of run "
            f"{md_code(result.get('verifies', '?'))}{secs}).")
    bisection = [f"- {md_code(b['target'])}: its unexplained rows are carried by "
                 + (md_code(b["attributed-to"]) if b.get("attributed-to") else "no single field") + " ("
                 + ", ".join(f"{md_code(f)} {md_text(st['verdict'])}" for f, st in b["steps"].items()) + ")"
                 for b in result.get("bisection", [])]
    tail = ("\n**Bisection** (one environment field at a time set as on metal, for the rows no rule explains):\n\n"
            + "\n".join(bisection) + "\n") if bisection else ""
    return head + "\n\n" + "\n".join(rows) + "\n" + tail
