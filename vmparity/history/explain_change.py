"""The explain rules, applied to a change in time instead of a difference between targets.

When a track moves at a run where its fingerprint changed too, the run
before and the run at the change are the two sides (A and B) a rule sees,
and the moved row is the finding: the same rules that explain metal against
a guest explain last week against today.
"""

from ..decide import explain


def at_change(name, unit, pct, p, verdict, before_cfg, after_cfg, before_name, after_name, rules):
    """Explanations (explain.Explanation) of one moved row; empty when no rule matches."""
    f = explain.Finding("", name, unit, pct, p, verdict)
    return explain.apply_rules(rules, "", before_name, after_name, before_cfg, after_cfg, [f])[0]
