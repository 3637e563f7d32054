"""`vmparity noise RUN`: the run's trust figures: the A/A control's share of
significant rows, the host's noise against its usual (decide/host_noise.py), and
per target the rows beyond noise and unexplained; for an
A/B run (make lab-ab) also each target's HEAD against its BASE side."""

from ..decide import figures
from ..render.escape import terminal
from ..report import context


def run(run_arg, out, err, alpha=0.05, results_dir=None):
    ctx, _ = context.build(run_arg, alpha, None, results_dir, err, draw_plots=False)
    for line in (figures.lines(ctx.table, ctx.explained, ctx.host_noise, ctx.mde_goals)
                 + (figures.ab_lines(ctx.ab) if ctx.ab else [])):
        out.write(terminal(line) + "\n")
    return 0
