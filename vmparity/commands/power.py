"""`vmparity power RUN`: plant known effects into copies of a run's target files
and print how many the noise rule finds (recall) beside its false alarms."""

import json

from ..decide import layers
from ..power import trials
from ..render.escape import terminal
from ..render.text import wrapping


def run(run_arg, out, err, results_dir=None, targets=None, effects=None, rows=trials.DEFAULT_ROWS,
        ntrials=trials.DEFAULT_TRIALS, seed=1, alpha=0.05, fmt="text", units=None, without=""):
    """without: the layers of the rule switched off, comma-separated (decide/layers.py)."""
    off = layers.parse(without)
    res = trials.run_trials(run_arg, results_dir, targets, tuple(effects or trials.DEFAULT_EFFECTS), rows, ntrials,
                            seed, alpha, units, off)
    if fmt == "json":
        as_json(res, out, units, off)
    else:
        with wrapping(out) as out:  # its sentences at the terminal's width ($COLUMNS); the table fits it
            text(res, out, units, off)
    return 0


def text(res, out, units=None, without=frozenset()):
    out.write(terminal(f"planted effects in {res.run}: {res.rows} benchmarks a trial, {res.trials} trials per "
                       f"effect and target, seed {res.seed}; the decision is the report's (docs/noise.md)") + "\n")
    if units:
        out.write(terminal(f"counted: the rows whose unit matches {units!r}") + "\n")
    if without:
        out.write(terminal(f"layers switched off: {', '.join(sorted(without))}") + "\n")
    how = "is beyond noise round by round" if res.paired else "differs significantly"
    out.write(f"false alarms: the A/A control {how} in {res.aa_significant} of {res.aa_rows} rows "
              f"({_share(res.aa_significant, res.aa_rows)})\n")
    for target, (beyond, n) in res.run_beyond.items():
        skipped = res.excluded.get(target, 0)
        out.write(terminal(f"{target} before planting: {beyond} of {n} rows beyond noise ({_share(beyond, n)})"
                           + (f"; their {skipped} benchmark(s) are not planted into" if skipped else "")) + "\n")
    out.write(f"\n{'target':<22} {'effect':>7} {'planted':>8} {'found':>6} {'recall':>7}   "
              f"{'MDE <= effect: found':>22}   {'unplanted beyond noise':>22}\n")
    for e in res.effects:
        det = f"{e.detectable_found}/{e.detectable} ({_share(e.detectable_found, e.detectable)})"
        fp = f"{e.unplanted_beyond}/{e.unplanted} ({_share(e.unplanted_beyond, e.unplanted)})"
        out.write(terminal(f"{e.target:<22}") + f" {e.effect:>+6g}% {e.planted:>8} {e.found:>6} "
                  f"{_share(e.found, e.planted):>7}   {det:>22}   {fp:>22}\n")


def as_json(res, out, units=None, without=frozenset()):
    json.dump({
        "schema": "vmparity-power/1", "run": res.run, "seed": res.seed, "rows-per-trial": res.rows,
        "counted-units": units or "every speed unit", "without": sorted(without),
        "trials": res.trials, "baseline": res.baseline,
        "aa": {"rows": res.aa_rows, "significant": res.aa_significant, "paired": res.paired},
        "before-planting": {t: {"beyond-noise": b, "rows": n, "benchmarks-not-planted": res.excluded.get(t, 0)}
                            for t, (b, n) in res.run_beyond.items()},
        "effects": [{"target": e.target, "effect-pct": e.effect, "planted": e.planted, "found": e.found,
                     "recall": e.recall, "mde-at-most-effect": e.detectable, "mde-at-most-effect-found": e.detectable_found,
                     "unplanted": e.unplanted, "unplanted-beyond-noise": e.unplanted_beyond} for e in res.effects],
    }, out, indent=1, ensure_ascii=False)
    out.write("\n")


def _share(a, n):
    return f"{100 * a / n:.0f} %" if n else "–"
