"""The report's Reproductions section (the hook `vmparity report` calls)."""

from ..query.names import family
from .render import render_markdown
from ..results.inputs import load_run
from .scenarios import load_scenarios
from .verdicts import judge_run

# The benchmarks the scenarios read; a run with none of them (a run of one
# benchmark only, say) gets no Reproductions section rather than five seeds
# of "cannot tell".
SCENARIO_BENCHMARKS = ("BenchmarkMemcpy", "BenchmarkSnowflake", "BenchmarkClock",
                       "BenchmarkStorefwd", "BenchmarkFence", "BenchmarkAlign")


def report_section(run_dir):
    """Markdown of every seed's verdict on every target of the run, or None."""
    run = load_run(run_dir)
    if not any(family(b) in SCENARIO_BENCHMARKS for rf in run.values() for b in rf.benchmarks):
        return None
    scenarios = load_scenarios()
    return render_markdown(judge_run(run, scenarios), scenarios)
