"""One run in the JSON the benchmark dashboards read, so a run feeds them unchanged.

- Bencher Metric Format (BMF, bencher.dev/docs/reference/bencher-metric-format):
  `{benchmark: {measure: {"value", "lower_value", "upper_value"}}}`; the
  measure is the unit (`ns/op`, `B/s`), value the median, the bounds its
  95 % confidence interval (left out when too few samples bound it).
- github-action-benchmark's custom tools: a JSON array of `{"name", "unit",
  "value", "range", "extra"}`. One file feeds one tool, `customSmallerIsBetter`
  or `customBiggerIsBetter`, so it holds the units of one direction only.

A benchmark is named `<target>: <name>` so one run's targets stay apart; with
a target chosen (export --target) the plain Go name is used, as Bencher's
testbed then says where it ran.
"""

import math

from ..results import provenance
from .. import stats


def measurements(loaded, target=None):
    """(label, target, name, unit, higher_is_better, Summary, config) of every result of a run."""
    files = [rf for rf in loaded.files if target is None or rf.target == target]
    keys, samples = [], []
    for rf in files:
        for b in rf.benchmarks.values():
            for unit, values in zip(b.units, b.values):
                label = b.name if target is not None else f"{rf.target}: {b.name}"
                keys.append((label, rf.target, b.name, unit, rf.higher_is_better(unit), rf.config))
                samples.append(values)
    return [k[:5] + (s, k[5]) for k, s in zip(keys, stats.summarize_many(samples))]


def bmf(rows):
    doc = {}
    for label, _target, _name, unit, _hb, s, _cfg in rows:
        m = {"value": s.center}
        if math.isfinite(s.lo) and math.isfinite(s.hi):
            m["lower_value"], m["upper_value"] = s.lo, s.hi
        doc.setdefault(label, {})[unit] = m
    return doc


def gab(rows, higher_is_better):
    """(entries of the chosen direction, number of measurements of the other or an unknown direction)."""
    out, left = [], 0
    for label, target, _name, unit, hb, s, cfg in rows:
        if hb is not higher_is_better:
            left += 1
            continue
        bounded = math.isfinite(s.lo) and math.isfinite(s.hi)
        ci = f"[{s.lo:.6g}, {s.hi:.6g}]" if bounded else "unbounded (too few samples)"
        p = provenance.of(cfg)
        entry = {"name": f"{label} ({unit})", "unit": unit, "value": s.center}
        if bounded:
            entry["range"] = f"± {s.pct_range()}"  # the chart's tooltip shows it as it is
        entry["extra"] = (f"median of {s.n} samples, 95% CI {ci}\ntarget {target} on host {cfg.get('host', 'unknown')}\n"
                          f"run {cfg.get('run-id', 'unknown')}, commit {p['commit']}, branch {p['branch']}, dirty {p['dirty']}")
        out.append(entry)
    return out, left
