"""`vmparity explain A B`: the likely cause and fix of every significant difference."""

from pathlib import Path

from .. import explain, inputs, noise, table
from ..names import aa_control_of, is_lab_metal
from ..render import explanation
from ..resultfile import parse_file


def analyse(base, head, alpha=0.05, results_dir=None, rules=None):
    """Load both sides (fingerprints required), compare and explain; returns (table, result)."""
    loaded = inputs.load_all([base, head], results_dir, require_fingerprint=True)
    t = table.build(loaded, alpha=alpha)
    model = sibling_noise(loaded[0], alpha)
    if model is not None:
        table.apply_noise(t, [model])
    return t, explain.explain(t, t.configs, explain.load_rules(rules))


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
    aa = parse_file(aa_path)
    pair = [inputs.Input(rf.target, Path(rf.path), [rf], False), inputs.Input(aa.target, aa_path, [aa], False)]
    return noise.from_table(table.build(pair, alpha=alpha), rf.target, aa.target)


def run(base, head, out, err, alpha=0.05, fmt="text", results_dir=None, rules=None):
    _, result = analyse(base, head, alpha, results_dir, rules)
    explanation.FORMATS[fmt](result, out)
    return 0
