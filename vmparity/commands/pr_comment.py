"""`vmparity pr-comment BASE HEAD`: the Markdown body of the pull-request comment;
`vmparity pr-comment --ab RUN`: the same for an A/B run (`make lab-ab`), HEAD
against BASE per target in one run, the precise way to judge a code change.

The first line is a hidden marker, so the workflow
(.github/workflows/vmparity-compare.yml) finds and updates its own comment
instead of adding a new one on every push.

A GitHub comment holds at most 65,536 characters, so the body is built in
order of importance within LIMIT: a warning when the sides come from
different machines, the summary, the explanations, then the significant rows
by size of change, then one line saying what was left out and where the full
report is. The table of every row is added only when all of it fits.
"""

import io

from ..decide import crossrun
from ..history import host_noise
from ..errors import InputError
from ..lab import ab_compare
from ..results import inputs
from ..results import machine
from ..history import excursions
from ..render import ab_md, crossrun_md, explanation, fmt, fold, markdown
from ..render.escape import md_code, md_text, terminal
from ..render.gate import gate
from ..report.pair import analyse_loaded

MARKER = "<!-- vmparity-pr-comment -->"
LIMIT = 60_000
MACHINE_KEYS = ("host", "cpu", "goos", "goarch", "target-kind")
# With the machine identity on both sides (machine.py) it decides instead of the
# host name, which a container changes every run and two machines may share.
IDENTITY_KEYS = (machine.KEY,) + tuple(k for k in MACHINE_KEYS if k != "host")
DEFAULT_FULL_REPORT = "the workflow run's summary and its `vmparity-report` artifact"


def machine_differences(t, base, head):
    """[(group, key, base value, head value)] for keys that say the sides ran on different machines."""
    out = []
    for (group, col), cfg in t.configs.items():
        if col != head or (group, base) not in t.configs:
            continue
        other = t.configs[(group, base)]
        keys = IDENTITY_KEYS if machine.of_config(cfg) and machine.of_config(other) else MACHINE_KEYS
        for k in keys:
            if (k in cfg or k in other) and cfg.get(k) != other.get(k):
                out.append((group, k, other.get(k, "(absent)"), cfg.get(k, "(absent)")))
    return out


def render(t, result, base, head, full_report=DEFAULT_FULL_REPORT, limit=LIMIT, noisy_hosts=()):
    """noisy_hosts: [(side, run name, host_noise.HostNoise)] of the sides measured on a host
    noisier than its usual (noisy_sides)."""
    cr = t.crossrun
    sig = t.significant()
    out = io.StringIO()
    out.write(f"{MARKER}\n## vmparity: {md_code(head)} against {md_code(base)}\n\n")
    diffs = machine_differences(t, base, head)
    if diffs:
        keys = ", ".join(dict.fromkeys(md_code(k) for _, k, _, _ in diffs))
        g, k, a, b = diffs[0]
        out.write(f"> ⚠️ **Not a like-for-like comparison:** base and head ran on different machines "
                  f"({keys} differ, e.g. {md_text(k)} {md_code(a)} vs {md_code(b)}{f' for {md_code(g)}' if g else ''}). "
                  "Differences may come from the hardware, not from the change.\n\n")
    for side, name, h in noisy_hosts:
        out.write(f"> ⚠️ **A noisy host:** {side}'s run {md_code(name)} was measured while its host was "
                  f"{h.times_usual:.1f}x noisier than its usual (the A/A pair's round-to-round scatter "
                  f"{h.scatter_pct:.1f} %, against a median of {h.usual[0]:.1f} % on {len(h.history)} earlier runs "
                  "of that machine): a change smaller than its bands may be there unseen; run it again at a "
                  "quieter hour before reading silence as no regression.\n\n")
    groups = {g for g, _ in t.configs}
    for g in sorted(groups - {""}):
        sides = [c for c in (base, head) if (g, c) not in t.configs]
        if sides:
            out.write(f"- target {md_code(g)} has no results in {md_code(sides[0])}: not compared\n")
    if groups - {""}:
        out.write("\n")
    compared = sum(len(r.deltas) for r in t.rows)
    if cr is not None:
        found = cr.of(crossrun.CHANGED)
        out.write(crossrun_md.summary(cr) + crossrun_md.method(cr) + crossrun_md.detectable(cr) + crossrun_md.not_tested(cr))
    elif not sig:
        found = sig
        out.write(f"No significant change (Mann–Whitney U, α = {t.alpha:g}) in {compared} compared rows.\n")
    else:
        found = sig
        worse = [x for x in sig if x[2].verdict == "worse"]
        better = [x for x in sig if x[2].verdict == "better"]
        out.write(f"**{len(worse)} worse**, **{len(better)} better**, {compared - len(sig)} unchanged "
                  f"of {compared} compared rows (Mann–Whitney U, α = {t.alpha:g}).\n")
    tail_reserve = 600
    body = out.getvalue()
    if found:
        body += _explanations(result, limit - len(body) - tail_reserve)
    all_rows = io.StringIO()
    all_rows.write(fold.open_("All rows"))
    markdown.render(t, all_rows, notes=crossrun_md.notes(cr) if cr is not None else None)
    all_rows.write(fold.close())
    if cr is not None:
        rows_md, shown = crossrun_md.changed_table(t, cr, limit - len(body) - tail_reserve)
        if len(body) + len(rows_md) + len(all_rows.getvalue()) <= limit and shown == len(found):
            return body + rows_md + all_rows.getvalue()
        kind = "changed"
    else:
        rows_md, shown = _significant_rows(t, sig, limit - len(body) - tail_reserve) if sig else ("", 0)
        if len(body) + len(rows_md) + len(all_rows.getvalue()) <= limit and shown == len(sig):
            if not sig:
                return body + all_rows.getvalue()
            sig_tables = io.StringIO()
            markdown.render(t, sig_tables, only_significant=True)
            head_line = "\n### Significant changes\n"
            if len(body) + len(head_line) + len(sig_tables.getvalue()) + len(all_rows.getvalue()) <= limit:
                return body + head_line + sig_tables.getvalue() + all_rows.getvalue()
        kind = "significant"
    body += rows_md
    body += (f"\n_Shown: {shown} of {len(found)} {kind} rows, largest changes first; left out: "
             f"{len(found) - shown} {kind} and {compared - len(found)} other rows, to fit one GitHub comment. "
             f"The full report is in {full_report}._\n")
    return body


def _explanations(result, budget):
    """The explanations with their evidence, without it, or only their titles: what fits."""
    for details in (True, False):
        buf = io.StringIO()
        buf.write("\n### Why\n\n")
        explanation.markdown(result, buf, details=details)
        if len(buf.getvalue()) <= budget:
            return buf.getvalue()
    lines = ["\n### Why\n"]
    for e in result.explanations:
        line = f"- **{md_text(e.rule['title'])}** ({md_code(e.rule['id'])}, {len(e.rows)} row(s))\n"
        if sum(map(len, lines)) + len(line) > budget - 200:
            break
        lines.append(line)
    lines.append(f"- {len(result.unexplained)} significant row(s) no rule explains\n")
    return "".join(lines)


def _significant_rows(t, sig, budget):
    """One compact table of significant rows, the largest changes first, cut to the budget."""
    base = t.columns[0]
    order = sorted(sig, key=lambda x: -abs(x[2].pct) if x[2].pct is not None else 0)
    head = (f"\n### Significant changes (largest first)\n\n| target | benchmark | unit | {md_code(base, in_table=True)} | head | change | p | verdict |\n"
            "|---|---|---|--:|--:|--:|--:|---|\n")
    lines = (f"| {md_code(r.group or col, in_table=True)} | {md_code(r.name, in_table=True)} | {md_code(unit, in_table=True)} | {a} | "
             f"{b} | {fmt.delta(d)} | {d.comparison.p:.3f} | {fmt.verdict_mark(d)} |\n"
             for r, col, d in order for unit, (a, b) in [fmt.scaled(r.unit, [r.cells.get(base), r.cells.get(col)])])
    return markdown.fit(head, lines, budget)


def run(base, head, out, err, alpha=0.05, results_dir=None, fail_on_regression=None, full_report=None):
    loaded = inputs.load_all([base, head], results_dir)
    t, result = analyse_loaded(loaded, alpha, results_dir)
    noisy = noisy_sides(loaded)
    out.write(render(t, result, t.columns[0], t.columns[-1], full_report or DEFAULT_FULL_REPORT, noisy_hosts=noisy))
    out.write("\n".join(excursions.pr_notes(head, results_dir)))  # both commits of each recent excursion
    status = gate(t, fail_on_regression, err)
    for side, name, h in noisy if status else ():  # the gate stays shut; the reader learns what to doubt
        err.write(terminal(f"vmparity: {side}'s run {name} was measured on a host {h.times_usual:.1f}x noisier than "
                           "its usual (docs/noise.md, \"The host's noise against its usual\"): run it again at a "
                           "quieter hour before taking a change of the size of its bands as the code's") + "\n")
    return status


def noisy_sides(loaded):
    """[("base" | "head", run name, HostNoise)] of the two loaded operands (inputs.load_all)
    that are lab runs measured on a host noisier than its usual (history/host_noise.py);
    single files have no such figure."""
    out = []
    for side, operand in zip(("base", "head"), loaded):
        h = host_noise.assess(operand.path, operand.files) if operand.is_run else None
        if h is not None and h.noisier:
            out.append((side, operand.path.name, h))
    return out


def render_ab(ab, full_report=DEFAULT_FULL_REPORT, limit=LIMIT):
    """The comment of an A/B run: noise, method, one line per target, the changed rows, then why, within `limit`."""
    body = (f"{MARKER}\n## vmparity: {ab_md.title(ab)}\n\n" + ab_md.noise(ab) + ab_md.method(ab)
            + ab_md.per_target(ab))
    tail_reserve = 600
    rows, shown, found = ab_md.changed(ab, limit - len(body) - tail_reserve)
    body += rows
    why = ab_md.explanations(ab)
    if len(body) + len(why) + tail_reserve > limit:
        why = ab_md.explanations(ab, details=False)
    if len(body) + len(why) + tail_reserve <= limit:
        body += ("\n### Why\n\n" + why) if why else ""
    if shown < found or not why and any(p.result.explanations or p.result.unexplained for p in ab.pairs):
        body += (f"\n_Shown: {shown} of {found} rows beyond noise, largest changes first, to fit one GitHub comment. "
                 f"The full report is in {full_report}._\n")
    return body


def run_ab(run_arg, out, err, alpha=0.05, results_dir=None, fail_on_regression=None, full_report=None):
    loaded = inputs.load(run_arg, results_dir)
    if not loaded.is_run:
        raise InputError(run_arg, "--ab: expected a run directory or run-id of `make lab-ab`, not a single file")
    ab = ab_compare.analyse(loaded, alpha)
    if ab is None:
        raise InputError(loaded.path, "--ab: the run holds no BASE side (<target>~base.txt): expected a run of "
                                      "`make lab-ab BASE=<ref>`; two stored runs are compared with "
                                      "`vmparity pr-comment BASE HEAD`")
    out.write(render_ab(ab, full_report or DEFAULT_FULL_REPORT))
    status = max([gate(p.table, fail_on_regression, err) for p in ab.pairs], default=0)
    blind = [p.target for p in ab.pairs if p.no_common_rows]
    if fail_on_regression is not None and blind:  # a gate passes only what it compared
        err.write(terminal(f"vmparity: the BASE and HEAD sides of {', '.join(blind)} share no benchmark: nothing "
                           "of it was compared, so the gate cannot pass it") + "\n")
        status = 1
    return status
