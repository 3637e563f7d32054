"""`vmparity noise RUN`: the run's trust figures: the A/A control's share of
significant rows, and per target the rows beyond noise and unexplained."""

from ..decide import figures
from ..report import context


def run(run_arg, out, err, alpha=0.05, results_dir=None):
    ctx, _ = context.build(run_arg, alpha, None, results_dir, err, draw_plots=False)
    for line in figures.lines(ctx.table, ctx.explained):
        out.write(line + "\n")
    return 0
