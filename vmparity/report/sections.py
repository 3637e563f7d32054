"""The report's sections: a list of functions, each taking the Context and returning Markdown (or None).

To add a section, write a function and put it in SECTIONS. The
Reproductions section is the seeds' verdicts (vmparity.repro), none for a run
without any of the seeds' benchmarks.
"""

from dataclasses import dataclass, field, replace

from ..decide import figures
from ..render import ab_md, explanation, fold
from ..render import verdicts as verdicts_md
from ..repro import report_section as repro_section
from . import history_section, hosts, run_quality
from ..render import markdown as md_table
from ..render.escape import md_code, md_text


@dataclass
class Context:
    run_dir: object  # pathlib.Path
    run_id: str
    table: object  # Table with one column per target
    explained: dict  # target -> explain.Result against the baseline
    plots: list  # [(file name, title)] of the plots written
    hosts: list = field(default_factory=list)  # hosts.HostView per metal host (one on a single host)
    rack: object = None  # hosts.HostView of the metals side by side, on a rack
    ab: object = None  # lab.ab_compare.AB of an A/B run (make lab-ab): HEAD against BASE per target
    verdicts: dict = None  # the lab's verdicts on explanations (`vmparity lab verify`, verdicts.json), or None
    verdicts_run: str = None  # the verify run that holds them
    host_noise: object = None  # history.host_noise.HostNoise: the A/A scatter against the machine's usual, or None
    mde_goals: dict = None  # the lab's sensitivity goal per target, and why its added rounds stopped (round_record.mde_goals)


def _host_contexts(ctx):
    """(host name, a Context narrowed to that host's table) per metal host."""
    return [(v.host, replace(ctx, table=v.table, explained=v.explained)) for v in ctx.hosts or []]


def summary(ctx):
    """The first screen: how far the run can be trusted in a sentence, its warnings, one line per
    target, and the main differences with their cause and fix. The method follows the verdicts."""
    title = f"# vmparity report: run {md_code(ctx.run_id)}"
    if ctx.rack is not None:
        return _rack_summary(ctx, title)
    if len(ctx.table.columns) == 1:
        base = md_code(ctx.table.columns[0])
        return f"{title}\n\nOne target ({base}): nothing to compare it with; results and plots below.\n"
    spent = run_quality.budget(ctx)
    return "\n".join([title, "", run_quality.headline(ctx), "", *([spent, ""] if spent else []), *_warnings(ctx),
                      _target_table(ctx), _main_differences(ctx)])


def _rack_summary(ctx, title):
    names = ", ".join(md_code(h) for h, _ in _host_contexts(ctx))
    out = [title, "",
           f"**Rack run:** {len(ctx.hosts)} metal hosts ({names}). Each host's targets are compared with that "
           "host's metal, beyond the noise of that host's own A/A control; the hosts' metals are compared with "
           "each other under *Hosts compared*.", "", *_warnings(ctx)]
    for host, sub in _host_contexts(ctx):
        out += [f"## Host {md_code(host)}", "", run_quality.headline(sub), "", _target_table(sub),
                _main_differences(sub)]
    return "\n".join(out)


def _warnings(ctx):
    """The rounds' warnings (partial run, failed target, busy host), as a list ending in a blank line."""
    lines = run_quality.warnings(ctx)
    return [*lines, ""] if lines else []


def _target_table(ctx):
    """The baseline line and one summary row per target compared with it; the lab's verdicts on
    its explanations where `make lab-verify` tested them."""
    base = md_code(ctx.table.columns[0])
    verdicts = _verdicts_of_targets(ctx)
    lines = [f"Baseline: {base}. Each target is compared with it at α = {ctx.table.alpha:g}, {_test_named(ctx.table)}; "
             "worse and better count the rows beyond noise.", "",
             "| target | kind | worse | better | within noise | explained by | unexplained |"
             + (" lab verdicts |" if verdicts is not None else ""),
             "|---|---|--:|--:|--:|---|--:|" + ("---|" if verdicts is not None else "")]
    for f in figures.per_target(ctx.table, ctx.explained):  # the A/A control's figure is the noise line above
        res = ctx.explained[f.target]
        rules = ", ".join(dict.fromkeys(md_code(e.rule['id'], in_table=True) for e in res.explanations)) or "—"
        line = (f"| {md_code(f.target, in_table=True)} | {md_text(f.kind)} | {f.worse} | {f.better} | {f.within} "
                f"| {rules} | {f.unexplained} |")
        if verdicts is not None:
            line += f" {md_text(verdicts.get(f.target, '—'))} |"
        lines.append(line)
    if verdicts is None and any(ctx.explained[f.target].explanations for f in figures.per_target(ctx.table, ctx.explained)):
        lines += ["", "An explanation is a hypothesis until the lab applies its fix and measures again: "
                      "`make lab-verify` does, and its verdicts join this table."]
    return "\n".join(lines) + "\n"


def _verdicts_of_targets(ctx):
    """{target: "1 verified, 1 refuted"} from the run's verdicts.json, or None without one."""
    if not ctx.verdicts:
        return None
    counts = {}
    for v in ctx.verdicts.get("verdicts", []):
        counts.setdefault(v["target"], {}).setdefault(v["verdict"], 0)
        counts[v["target"]][v["verdict"]] += 1
    return {t: ", ".join(f"{n} {verdict}" for verdict, n in c.items()) for t, c in counts.items()}


def _main_differences(ctx):
    """One bullet per rule that explains rows beyond noise, most rows first: its cause in a
    phrase, the targets, and the fix (each target's own fix, with the evidence, under *Why they
    differ*); then the rows no rule explains, counted."""
    by_rule = {}
    for col in ctx.table.columns[1:]:
        res = ctx.explained.get(col)
        for e in res.explanations if res is not None else []:
            by_rule.setdefault(e.rule["id"], []).append(e)
    unexplained = {c: len(r.unexplained) for c, r in ctx.explained.items() if r.unexplained}
    if not by_rule and not unexplained:
        return ""
    out = ["**Main differences** (cause, where, fix; each target's evidence under *Why they differ*):", ""]
    for rule_id, es in sorted(by_rule.items(), key=lambda kv: -sum(len(e.rows) for e in kv[1])):
        where = ", ".join(f"{md_code(e.b)} ({len(e.rows)} row(s))" for e in es)
        fix = f"**Fix** (for {md_code(es[0].b)}): {md_text(es[0].fix)}"
        out.append(f"- **{md_text(es[0].rule['title'])}** ({md_code(rule_id)}): {where}.  \n  {fix}")
    if unexplained:
        out.append("- **No rule explains** " + ", ".join(f"{n} row(s) of {md_code(c)}" for c, n in unexplained.items())
                   + ": listed under *Why they differ*.")
    return "\n".join(out) + "\n"


def _test_named(t):
    """Which test decided the rows: a lab run's paired rows by the signed-rank test on
    their per-round ratios (run_quality.noise says how), the rest by the U test."""
    counts = getattr(t.noise[0], "paired_rows", {}) if t.noise else {}
    paired = sum(counts.values())
    if not paired:
        return "by the Mann–Whitney U test on the repetitions"
    compared = sum(1 for r in t.rows for c in r.deltas if c in counts)
    how = "round by round (the signed-rank test on each row's ratios to both passes; *Method and noise*, below)"
    if paired == compared:
        return f"{how}, in all {compared} rows"
    return f"{how} in {paired} of {compared} rows, by the Mann–Whitney U test on the repetitions in the others"


def ab(ctx):
    """An A/B run: HEAD against BASE per target, first, since it is what the run was for."""
    if ctx.ab is None:
        return None
    rows, _, _ = ab_md.changed(ctx.ab, 10 ** 9)
    return "\n".join(["## A/B: " + ab_md.title(ctx.ab), "", ab_md.noise(ctx.ab) + ab_md.method(ctx.ab),
                      ab_md.per_target(ctx.ab), rows, ab_md.explanations(ctx.ab)])


def explanations(ctx):
    if len(ctx.table.columns) == 1:
        return None
    out = ["## Why they differ", ""]
    for _, sub in _host_contexts(ctx) if ctx.rack is not None else [("", ctx)]:
        out += _explained_folds(sub)
    return "\n".join(out)


def _explained_folds(ctx):
    out = []
    for col in ctx.table.columns[1:]:
        if col not in ctx.explained:
            continue
        res = ctx.explained[col]
        n = len(res.explanations)
        out.append(fold.open_(f" vs {ctx.table.columns[0]}: {n} explanation(s), {len(res.unexplained)} unexplained",
                              bold=col))
        buf = _Buf()
        explanation.markdown(res, buf, verdicts=_verdict_index(ctx), verdicts_run=ctx.verdicts_run)
        out += [buf.text(), fold.close()]
    return out


def _verdict_index(ctx):
    return {(v["target"], v["rule"]): v for v in (ctx.verdicts or {}).get("verdicts", [])}


def method(ctx):
    """How the run was judged and how far to trust it, after the verdicts: the A/A control's full
    figures, then the host's levels, the sensitivity and the rounds folded."""
    if len(ctx.table.columns) == 1:
        return None
    out = ["## Method and noise", ""]
    for host, sub in _host_contexts(ctx) if ctx.rack is not None else [("", ctx)]:
        if host:
            out += [f"### Host {md_code(host)}", ""]
        out += [run_quality.noise(sub), fold.open_("Core clock, memory bandwidth and sensitivity"),
                run_quality.levels(sub), fold.close()]
    out += [fold.open_("Rounds"), run_quality.hygiene(ctx), fold.close()]
    return "\n".join(out)


def verifications(ctx):
    """The lab's verdicts on the explanations: each fix applied and measured again (`make lab-verify`)."""
    if not ctx.verdicts:
        return None
    return "## Verified explanations\n\n" + verdicts_md.table(ctx.verdicts, ctx.verdicts_run)


def hosts_compared(ctx):
    """The rack's metals side by side: how the hosts themselves differ, and in which fingerprint keys."""
    if ctx.rack is None:
        return None
    sub = replace(ctx, table=ctx.rack.table, explained=ctx.rack.explained)
    metals = [c for c in sub.table.columns if c in {v.metal for v in ctx.hosts}]
    keys = hosts.differing_keys(sub.table, metals)
    head = "| key | " + " | ".join(md_code(m, in_table=True) for m in metals) + " |\n|---|" + "---|" * len(metals)
    rows = [f"| {md_code(k, in_table=True)} | " + " | ".join(md_code(v[m], in_table=True) for m in metals) + " |"
            for k, v in keys.items()]
    differ = (f"Fingerprint keys that differ between the hosts' metals ({len(keys)}):\n\n{head}\n" + "\n".join(rows)
              if keys else "No fingerprint key differs between the hosts' metals.")
    return "\n".join(["## Hosts compared", "", _target_table(sub), "", differ, "", *_explained_folds(sub)])


def plots(ctx):
    if not ctx.plots:
        return None
    out = ["## Plots", ""]
    for name, title in ctx.plots:
        out += [f"[{title}]({name})", "", f"![{title}]({name})", ""]
    return "\n".join(out)


def comparison(ctx):
    buf = _Buf()
    md_table.render(ctx.table, buf)
    return f"## All results\n{fold.open_('every benchmark, every target')}{buf.text()}{fold.close()}"


def fingerprints(ctx):
    cols = ctx.table.columns
    cfgs = [ctx.table.configs.get(("", c), {}) for c in cols]
    keys = list(dict.fromkeys(k for c in cfgs for k in c))
    differ = [k for k in keys if len({c.get(k) for c in cfgs}) > 1 and k not in ("target", "run-id")]
    head = "| key | " + " | ".join(md_code(c, in_table=True) for c in cols) + " |\n|---|" + "---|" * len(cols) + "\n"

    def rows(ks):
        return "".join(f"| {md_code(k, in_table=True)} | " + " | ".join(md_code(c.get(k, ""), in_table=True) for c in cfgs)
                       + " |\n" for k in ks)
    return (f"## Fingerprints\n\nKeys that differ between targets:\n\n{head}{rows(differ)}"
            f"{fold.open_('every key')}{head}{rows(keys)}{fold.close()}")


def reproductions(ctx):
    return repro_section(ctx.run_dir)


class _Buf:
    def __init__(self):
        self.parts = []

    def write(self, s):
        self.parts.append(s)

    def text(self):
        return "".join(self.parts)


# Verdicts first (what differs, why, the fix), then the method they rest on, then the material.
SECTIONS = [summary, ab, hosts_compared, explanations, verifications, method, history_section.history_section, plots,
            reproductions, comparison, fingerprints]
