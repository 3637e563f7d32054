"""The report's sections: a list of functions, each taking the Context and returning Markdown (or None).

To add a section, write a function and put it in SECTIONS. The
"Reproductions" hook: if the package `vmparity.repro` is importable and has
`report_section(run_dir) -> str | None`, its Markdown is included (nothing
when it returns None, e.g. for a run without reproduction data).
"""

import importlib
from dataclasses import dataclass

from ..render import explanation, fold
from . import history_section, run_quality
from ..render import markdown as md_table
from ..render.escape import md_code, md_text


@dataclass
class Context:
    run_dir: object  # pathlib.Path
    run_id: str
    table: object  # Table with one column per target
    explained: dict  # target -> explain.Result against the baseline
    plots: list  # [(file name, title)] of the plots written


def summary(ctx):
    base = md_code(ctx.table.columns[0])
    title = f"# vmparity report: run {md_code(ctx.run_id)}"
    if len(ctx.table.columns) == 1:
        return f"{title}\n\nOne target ({base}): nothing to compare it with; results and plots below.\n"
    lines = [title, "", run_quality.noise(ctx), run_quality.hygiene(ctx),
             f"Baseline: {base}. Each target is compared with it (Mann–Whitney U, α = {ctx.table.alpha:g}); "
             "worse and better count the rows beyond noise.", "",
             "| target | kind | worse | better | within noise | explained by | unexplained |",
             "|---|---|--:|--:|--:|---|--:|"]
    for col in ctx.table.columns[1:]:
        if col not in ctx.explained:
            continue  # the A/A control: its figure is the noise line above
        kind = ctx.table.configs.get(("", col), {}).get("target-kind", "?")
        deltas = [r.deltas[col] for r in ctx.table.rows if col in r.deltas and not r.deltas[col].within_noise]
        worse = sum(d.verdict == "worse" for d in deltas)
        better = sum(d.verdict == "better" for d in deltas)
        res = ctx.explained[col]
        rules = ", ".join(dict.fromkeys(md_code(e.rule['id'], in_table=True) for e in res.explanations)) or "—"
        lines.append(f"| {md_code(col, in_table=True)} | {md_text(kind)} | {worse} | {better} | {len(res.within_noise)} "
                     f"| {rules} | {len(res.unexplained)} |")
    return "\n".join(lines) + "\n"


def explanations(ctx):
    if len(ctx.table.columns) == 1:
        return None
    out = ["## Why they differ", ""]
    for col in ctx.table.columns[1:]:
        if col not in ctx.explained:
            continue
        res = ctx.explained[col]
        n = len(res.explanations)
        out.append(fold.open_(f" vs {ctx.table.columns[0]}: {n} explanation(s), {len(res.unexplained)} unexplained",
                              bold=col))
        buf = _Buf()
        explanation.markdown(res, buf)
        out += [buf.text(), fold.close()]
    return "\n".join(out)


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
    try:
        repro = importlib.import_module("vmparity.repro")
    except ImportError:
        return None
    hook = getattr(repro, "report_section", None)
    return hook(ctx.run_dir) if callable(hook) else None


class _Buf:
    def __init__(self):
        self.parts = []

    def write(self, s):
        self.parts.append(s)

    def text(self):
        return "".join(self.parts)


SECTIONS = [summary, explanations, history_section.history_section, plots, reproductions, comparison, fingerprints]
