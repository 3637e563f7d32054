"""`vmparity noise RUN`: the run's trust figures: the A/A control's share of
significant rows, the host's noise against its usual (history/host_noise.py), and
per target the rows beyond noise and unexplained; for an
A/B run (make lab-ab) also each target's HEAD against its BASE side.

--format text prints the figures a line each (the end of `make lab-up`),
markdown as a list, json the per-target figures and the same lines."""

import dataclasses
import json

from ..decide import figures
from ..errors import InputError
from ..render import run_figures
from ..render.escape import md_text, terminal
from ..render.text import wrapping
from ..report import context

FORMATS = ("text", "markdown", "json")


def run(run_arg, out, err, alpha=0.05, results_dir=None, fmt="text"):
    if fmt not in FORMATS:
        raise InputError("--format", f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    ctx, _ = context.build(run_arg, alpha, None, results_dir, err, draw_plots=False)
    lines = (run_figures.lines(ctx.table, ctx.explained, ctx.host_noise, ctx.mde_goals)
             + (run_figures.ab_lines(ctx.ab) if ctx.ab else []))
    if fmt == "json":
        doc = {"schema": "vmparity-noise/1", "alpha": alpha, "baseline": ctx.table.columns[0],
               "aa": [{"aa": m.aa, "metal": m.metal, "headline": run_figures.aa_headline(m)} for m in ctx.table.noise],
               "targets": [dataclasses.asdict(f) for f in figures.per_target(ctx.table, ctx.explained)],
               "lines": lines}
        out.write(json.dumps(doc, ensure_ascii=False, indent=1) + "\n")
    elif fmt == "markdown":
        for line in lines:  # a line indented under the one before it is an item of that one's list
            nested = line.startswith("  ")
            out.write(("  - " if nested else "- ") + md_text(line.strip()) + "\n")
    else:
        # a line each, wrapped at the terminal's width ($COLUMNS) under a deeper indent than an item's
        with wrapping(out, hang=4) as out:
            for line in lines:
                out.write(terminal(line) + "\n")
    return 0
