"""JSON: the whole table, versioned, for other tools."""

import json
import math

from ..decide import judgement
from ..decide.judgement import row_mde  # not figures: it imports every in-run judge

SCHEMA = "vmparity-compare/1"


def _num(x):
    if x is None or (isinstance(x, float) and math.isinf(x)):
        return None  # JSON has no infinity: an unbounded CI side is null
    return x


def to_dict(table):
    rows = []
    for r in table.rows:
        rows.append({
            "group": r.group,
            "benchmark": r.name,
            "unit": r.unit,
            "better": {True: "higher", False: "lower"}.get(r.higher_better, "unknown"),
            "columns": {
                c: {"median": s.center, "ci": [_num(s.lo), _num(s.hi)], "n": s.n, "warnings": s.warnings}
                for c, s in r.cells.items()
            },
            "deltas": {
                c: {"pct": d.pct, "p": d.comparison.p, "significant": d.comparison.significant,
                    "verdict": d.verdict, "warnings": d.comparison.warnings, "test": judgement.test_of(table, d),
                    **({"at-equal-clock": True} if d.at_equal_clock else {}),
                    **({"at-equal-bandwidth": True} if d.at_equal_bandwidth else {}),
                    **(_noise_fields(table, r, c, d) if table.noise else {})}
                for c, d in r.deltas.items()
            },
        })
    return {
        "schema": SCHEMA,
        "alpha": table.alpha,
        "policy": table.policy.key,
        "confidence": table.confidence,
        "by": table.by,
        "columns": table.columns,
        "baseline": table.columns[0],
        "rows": rows,
        "geomeans": [
            {"group": g.group, "unit": g.unit, "values": g.values, "pct": g.pct} for g in table.geomeans
        ],
    }


def _noise_fields(table, row, column, d):
    """A run with an A/A control: whether a significant change is no larger than that
    control shows (the table's "(noise)"), and the smallest change the row could have
    called beyond noise (null where none or where a change of speed does not move it)."""
    mde = row_mde(table, row, column)
    return {"within-noise": d.within_noise, "mde-pct": _num(mde)}


def render(table, out):
    json.dump(to_dict(table), out, indent=1, ensure_ascii=False)
    out.write("\n")
