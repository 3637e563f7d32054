"""`vmparity explain A B`: the likely cause and fix of every significant difference."""

from .. import explain, inputs, table
from ..render import explanation


def analyse(base, head, alpha=0.05, results_dir=None, rules=None):
    """Load both sides (fingerprints required), compare and explain; returns (table, result)."""
    loaded = inputs.load_all([base, head], results_dir, require_fingerprint=True)
    t = table.build(loaded, alpha=alpha)
    return t, explain.explain(t, t.configs, explain.load_rules(rules))


def run(base, head, out, err, alpha=0.05, fmt="text", results_dir=None, rules=None):
    _, result = analyse(base, head, alpha, results_dir, rules)
    explanation.FORMATS[fmt](result, out)
    return 0
