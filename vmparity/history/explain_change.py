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
    out = []
    for broad in (False, True):
        if out:
            break  # broad rules only explain what no narrower rule did
        for rule in rules:
            if bool(rule.get("broad")) != broad:
                continue
            if any(explain._matches(alt, f, before_cfg, after_cfg) for alt in rule["when"]):
                e = explain._explanation(rule, "", before_name, after_name, before_cfg, after_cfg, [f])
                if e is not None:
                    out.append(e)
    return out
