"""The report's sections: a list of functions, each taking the Context and returning Markdown (or None).

To add a section, write a function and put it in SECTIONS. The
"Reproductions" hook: if the package `vmparity.repro` is importable and has
`report_section(run_dir) -> str | None`, its Markdown is included (nothing
when it returns None, e.g. for a run without reproduction data).
"""

import importlib
from dataclasses import dataclass

from ..render import explanation
from . import history_section, run_quality
from ..render import markdown as md_table


@dataclass
class Context:
    run_dir: object  # pathlib.Path
    run_id: str
    table: object  # Table with one column per target
    explained: dict  # target -> explain.Result against the baseline
    plots: list  # [(file name, title)] of the plots written


def summary(ctx):
    base = ctx.table.columns[0]
    if len(ctx.table.columns) == 1:
        return f"# vmparity report: run `{ctx.run_id}`\n\nOne target (`{base}`): nothing to compare it with; results and plots below.\n"
    lines = [f"# vmparity report: run `{ctx.run_id}`", "", run_quality.noise(ctx), run_quality.hygiene(ctx),
             f"Baseline: `{base}`. Each target is compared with it (Mann–Whitney U, α = {ctx.table.alpha:g}); "
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
        rules = ", ".join(dict.fromkeys(f"`{e.rule['id']}`" for e in res.explanations)) or "—"
        lines.append(f"| `{col}` | {kind} | {worse} | {better} | {len(res.within_noise)} | {rules} | "
                     f"{len(res.unexplained)} |")
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
        out.append(f"<details><summary><b>{col}</b> vs {ctx.table.columns[0]}: {n} explanation(s), "
                   f"{len(res.unexplained)} unexplained</summary>\n")
        buf = _Buf()
        explanation.markdown(res, buf)
        out += [buf.text(), "</details>", ""]
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
    return f"## All results\n\n<details><summary>every benchmark, every target</summary>\n{buf.text()}\n</details>\n"


def fingerprints(ctx):
    cols = ctx.table.columns
    cfgs = [ctx.table.configs.get(("", c), {}) for c in cols]
    keys = list(dict.fromkeys(k for c in cfgs for k in c))
    differ = [k for k in keys if len({c.get(k) for c in cfgs}) > 1 and k not in ("target", "run-id")]
    head = "| key | " + " | ".join(f"`{c}`" for c in cols) + " |\n|---|" + "---|" * len(cols) + "\n"

    def rows(ks):
        return "".join(f"| `{k}` | " + " | ".join(fmt_cell(c.get(k, "")) for c in cfgs) + " |\n" for k in ks)
    return (f"## Fingerprints\n\nKeys that differ between targets:\n\n{head}{rows(differ)}\n"
            f"<details><summary>every key</summary>\n\n{head}{rows(keys)}\n</details>\n")


def fmt_cell(v):
    return "`" + str(v).replace("|", "\\|").replace("`", "'") + "`" if v != "" else ""


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
