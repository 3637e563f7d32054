"""Two sides (files or runs) compared and explained: what `vmparity explain` and the PR comment show."""

from .. import table
from ..decide import explain
from ..results import inputs
from ..results.spec import required_keys


def analyse(base, head, alpha=0.05, results_dir=None, rules=None):
    """Load both sides, compare and explain; returns (table, result)."""
    return analyse_loaded(inputs.load_all([base, head], results_dir), alpha, results_dir, rules)


def analyse_loaded(loaded, alpha=0.05, results_dir=None, rules=None):
    """analyse of the two sides already loaded (inputs.load_all): a caller that reads more
    of them (the PR comment's host noise) loads them once. Two files of one lab run are
    judged as that run's report judges them (table.build takes them as the run, with its
    A/A pass), and explained as its pair of columns."""
    t = table.build(loaded, alpha=alpha)
    if t.by == "target" and len(t.columns) > 2 and not any(inp.is_run for inp in loaded):
        t = table.pair_table(t, loaded[1].files[0].target)
    rules = explain.load_rules(rules)
    result = explain.explain(t, t.configs, rules)
    result.missing = explain.missing_keys(t.configs, rules, required_keys())
    result.policy = t.policy
    if t.crossrun is not None:
        result.within_label = "within run-to-run noise: the host's drift between the runs, or less than the band (docs/noise.md)"
    return t, result
