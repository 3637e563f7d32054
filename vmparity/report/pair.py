"""Two sides (files or runs) compared and explained: what `vmparity explain` and the PR comment show."""

from pathlib import Path

from .. import table
from ..decide import explain, noise
from ..results import inputs
from ..results.file import parse_file
from ..results.spec import required_keys
from ..results.targets import aa_control_of, is_lab_metal


def analyse(base, head, alpha=0.05, results_dir=None, rules=None):
    """Load both sides, compare and explain; returns (table, result)."""
    return analyse_loaded(inputs.load_all([base, head], results_dir), alpha, results_dir, rules)


def analyse_loaded(loaded, alpha=0.05, results_dir=None, rules=None):
    """analyse of the two sides already loaded (inputs.load_all): a caller that reads more
    of them (the PR comment's host noise) loads them once."""
    t = table.build(loaded, alpha=alpha, history_dir=inputs.runs_dir(results_dir))
    model = sibling_noise(loaded[0], alpha)
    if model is not None:
        noise.apply(t, [model])
    result = explain.explain(t, t.configs, explain.load_rules(rules))
    result.missing = explain.missing_keys(t.configs, explain.load_rules(rules), required_keys())
    if t.crossrun is not None:
        result.within_label = "within run-to-run noise: the host's drift between the runs, or less than the band (docs/noise.md)"
    return t, result


def sibling_noise(base_input, alpha):
    """When A is a lab metal file stored beside its A/A pass, that run's noise model."""
    if base_input.is_run or len(base_input.files) != 1:
        return None
    rf = base_input.files[0]
    if not is_lab_metal(rf.target):
        return None
    aa_path = Path(rf.path).with_name(f"{aa_control_of(rf.target)}.txt")
    if not aa_path.is_file():
        return None
    aa = parse_file(aa_path, run=aa_path.parent)  # found beside the operand, not named: never a link out
    pair = [inputs.Input(rf.target, Path(rf.path), [rf], False), inputs.Input(aa.target, aa_path, [aa], False)]
    return noise.from_table(table.build(pair, alpha=alpha), rf.target, aa.target)
