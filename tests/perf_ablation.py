"""The ablation table: both error rates of the rule with each of its layers switched off.

    .venv/bin/python tests/perf_ablation.py [--run RUN]… [--seeds N] [--jobs N]

A layer on top of a policy's base test stays only while it pays
(docs/method.md). For the rule as it is and for each layer of
vmparity/decide/layers.py switched off alone:

- in a run (the in-run policy's layers and the lab's measurement layers), on
  each run of RUNS with SEEDS seeds: the A/A control's rows beyond noise (its
  false alarms) and the recall of planted slowdowns of +3, +5 and +10 % (`vmparity
  power RUN --without LAYER`: 25 benchmarks a trial, one trial per seed, effect
  and target);
- across runs (the cross-run layers), on each pair of consecutive RUNS of one
  machine (same code): the share of rows reported changed, and the recall of the
  same slowdowns planted into every row of one target of HEAD
  (tests/perf_crossrun.py).

Seeded and deterministic: the same runs give the same table.
"""

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
import tempfile

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import archived_runs  # noqa: E402
import perf_crossrun  # noqa: E402
from vmparity.decide import layers  # noqa: E402
from vmparity.power import trials  # noqa: E402

# Ten stored lab runs of two machines (the `machine` key), the newest of each with the
# added rounds of the lab's method (rounds.json `added`; their re-measures, `remeasured`, stay in place).
RUNS = [
    "2026-11-27T16-59-32Z-lab-quick", "2026-11-27T17-49-57Z-lab-quick", "2026-11-27T19-50-41Z-lab-quick",
    "2026-11-27T20-19-24Z-lab-quick", "2026-11-27T20-39-11Z-lab-quick",
    "2026-11-27T22-54-06Z-lab-quick", "2026-11-27T23-27-41Z-lab-quick", "2026-11-28T01-47-27Z-lab-quick",
    "2026-11-28T02-39-00Z-lab-quick", "2026-11-28T05-52-05Z-lab-quick",
]
EFFECTS = (3.0, 5.0, 10.0)
IN_RUN_OFF = ((), *((x,) for x in layers.IN_RUN + layers.MEASUREMENT))
ACROSS_OFF = ((), *((x,) for x in layers.ACROSS_RUNS))


def in_run(job):
    run, off, seed, results_dir = job
    res = trials.run_trials(run, results_dir, effects=EFFECTS, trials=1, seed=seed, without=frozenset(off))
    found = {e: [0, 0] for e in EFFECTS}
    for e in res.effects:
        found[e.effect][0] += e.found
        found[e.effect][1] += e.planted
    return (run, seed), off, (res.aa_significant, res.aa_rows), found


def across(job):
    base, head, off, results_dir = job
    cr = perf_crossrun.judged(base, head, results_dir, frozenset(off))
    changed, rows, _ = perf_crossrun.same_code(cr)
    found = {e: [0, 0] for e in EFFECTS}
    with tempfile.TemporaryDirectory() as tmp:
        for target in perf_crossrun.planted_targets(cr):
            for e in EFFECTS:
                f, n, _ = perf_crossrun.recall(base, head, target, e, results_dir, None, Path(tmp), frozenset(off))
                found[e][0] += f
                found[e][1] += n
    return (base, head), off, (changed, rows), found


def machine_pairs(runs, results_dir):
    """(BASE, HEAD) of consecutive runs of one machine, in the order given."""
    import json

    def machine(run):
        env = Path(results_dir) / "runs" / run / "metal.env.json"
        return json.loads(env.read_text(encoding="utf-8")).get("machine")

    out = []
    for a, b in zip(runs, runs[1:]):
        if machine(a) == machine(b):
            out.append((a, b))
    return out


def add(totals, acts, case, off, false_alarms, found):
    """Sum a case's figures into totals[off]; acts[off]: the cases whose figures the layer
    changed (against the rule as it is), so that a layer absent from the runs shows as such."""
    acts.setdefault(off, set())
    if off:
        if (false_alarms, found) != acts[()][case]:
            acts[off].add(case)
    else:
        acts[()][case] = (false_alarms, found)
    t = totals.setdefault(off, [[0, 0], {e: [0, 0] for e in EFFECTS}])
    t[0][0] += false_alarms[0]
    t[0][1] += false_alarms[1]
    for e, (f, n) in found.items():
        t[1][e][0] += f
        t[1][e][1] += n


def share(a, n):
    return f"{100 * a / n:.1f} %" if n else "–"


def table(title, what, totals, acts, cases):
    lines = [f"| {title} | {what} | " + " | ".join(f"+{e:g} % found" for e in EFFECTS) + " | changed |",
             "|---|---|" + "---|" * len(EFFECTS) + "---|"]
    for off, ((fa, rows), found) in totals.items():
        name = f"without {off[0]}" if off else "**the rule as it is**"
        changed = f"{len(acts[off])} of {cases}" if off else ""
        lines.append(f"| {name} | {fa} of {rows} ({share(fa, rows)}) | "
                     + " | ".join(f"{share(*found[e])}" for e in EFFECTS) + f" | {changed} |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", action="append", help="a stored run (repeatable; default: the ten of RUNS)")
    ap.add_argument("--seeds", type=int, default=2, help="seeds per run in a run (default 2)")
    ap.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    ap.add_argument("--only", choices=("in-run", "across-runs"), help="one half of the table")
    ap.add_argument("--layer", action="append", choices=layers.ALL, help="switch off only this layer (repeatable; "
                    "default: each in turn), beside the rule as it is")
    ap.add_argument("--results-dir", help="where the runs are (default: results/, or for the ten of RUNS, and for "
                    "runs results/ no longer holds, results/ as it was in the history: tests/archived_runs.py)")
    a = ap.parse_args(argv)
    runs = a.run or RUNS
    a.results_dir = a.results_dir or str(archived_runs.results_dir(a.run or ()))
    chosen = [off for off in IN_RUN_OFF if not off or a.layer is None or off[0] in a.layer]
    in_jobs = [(r, off, s, a.results_dir) for off in chosen for r in runs for s in range(1, a.seeds + 1)] \
        if a.only != "across-runs" else []
    pairs = machine_pairs(runs, a.results_dir)
    chosen = [off for off in ACROSS_OFF if not off or a.layer is None or off[0] in a.layer]
    across_jobs = [(b, h, off, a.results_dir) for off in chosen for b, h in pairs] if a.only != "in-run" else []
    print(f"ablation: {len(runs)} runs, {a.seeds} seed(s) each; {len(pairs)} same-code pairs across runs; "
          f"effects {', '.join(f'+{e:g} %' for e in EFFECTS)} (docs/method.md)\n")
    # changed: on how many (run, seed) or pairs switching the layer off changed any figure;
    # each half printed as soon as it is measured
    with ProcessPoolExecutor(a.jobs) as pool:
        in_totals, across_totals, in_acts, across_acts = {}, {}, {(): {}}, {(): {}}
        for case, off, fa, found in pool.map(in_run, in_jobs):
            add(in_totals, in_acts, case, off, fa, found)
        if in_totals:
            print(table("in a run", "A/A rows beyond noise", in_totals, in_acts, len(runs) * a.seeds) + "\n", flush=True)
        for case, off, fa, found in pool.map(across, across_jobs):
            add(across_totals, across_acts, case, off, fa, found)
        if across_totals:
            print(table("across runs", "same-code rows changed", across_totals, across_acts, len(pairs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
