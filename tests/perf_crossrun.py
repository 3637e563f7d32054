"""How well two runs are compared across runs (vmparity/decide/crossrun.py): both error rates.

    .venv/bin/python tests/perf_crossrun.py [--pair BASE HEAD]… [--shift PCT]… [--seed N]

False positives: for each pair of runs of identical code (by default the
repro pair and lab runs in both directions, read from results/ as it was
when they were measured: tests/archived_runs.py), the share of compared rows reported changed and whether
`--fail-on-regression 10` passes. False negatives: HEAD's copy with one
target (never metal or metal-aa) made PCT % slower (`plant_slowdown`), the
share of that target's tested rows found changed and worse. The seed picks
which rows of the target are planted when --rows is below 1 (all by
default). The targets docs/noise.md states are printed beside the figures.
"""

import argparse
import random
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vmparity.decide import crossrun  # noqa: E402
from vmparity.results import inputs  # noqa: E402
from vmparity import table  # noqa: E402
from vmparity.results.spec import known_units  # noqa: E402
from vmparity.results.targets import is_aa_control, is_lab_metal  # noqa: E402

sys.path.insert(0, str(ROOT / "tests"))
import archived_runs  # noqa: E402

SAME_CODE_PAIRS = [
    ("2026-11-24T08-46-26Z-repro-quick-b", "2026-11-24T08-46-26Z-repro-quick-a"),
    ("2026-11-24T08-46-26Z-repro-quick-a", "2026-11-24T08-46-26Z-repro-quick-b"),
    ("2026-11-23T19-21-27Z-lab-quick", "2026-11-24T08-24-57Z-lab-quick"),
    ("2026-11-24T08-24-57Z-lab-quick", "2026-11-23T19-21-27Z-lab-quick"),
    ("2026-11-25T20-48-17Z-lab-quick", "2026-11-25T21-48-01Z-ab-quick"),  # the A/B run's HEAD side
    ("2026-11-25T21-48-01Z-ab-quick", "2026-11-25T20-48-17Z-lab-quick"),
    ("2026-11-26T00-31-52Z-lab-quick", "2026-11-26T00-56-07Z-lab-quick"),  # two fresh lab-up runs, isolated
    ("2026-11-26T00-56-07Z-lab-quick", "2026-11-26T00-31-52Z-lab-quick"),
    # two fresh lab-up runs with core clocks, both directions
    ("2026-11-26T04-04-25Z-lab-quick", "2026-11-26T06-07-03Z-lab-quick"),
    ("2026-11-26T06-07-03Z-lab-quick", "2026-11-26T04-04-25Z-lab-quick"),
    # two with the TCG guests in six rounds (tested by sample count, not across runs: emulated)
    ("2026-11-26T06-23-06Z-lab-quick", "2026-11-26T06-56-00Z-lab-quick"),
    ("2026-11-26T06-56-00Z-lab-quick", "2026-11-26T06-23-06Z-lab-quick"),
    # the next fresh run (benchrun recording each throttled job's wall time; the benchmarks unchanged)
    ("2026-11-26T06-56-00Z-lab-quick", "2026-11-26T08-51-09Z-lab-quick"),
    ("2026-11-26T08-51-09Z-lab-quick", "2026-11-26T06-56-00Z-lab-quick"),
    # and the next, a busier host (the time rows judged at an equal core clock from here on)
    ("2026-11-26T08-51-09Z-lab-quick", "2026-11-26T11-36-08Z-lab-quick"),
    ("2026-11-26T11-36-08Z-lab-quick", "2026-11-26T08-51-09Z-lab-quick"),
    # a fresh pair run after the equal-clock judgement was settled: out of sample
    ("2026-11-26T11-36-08Z-lab-quick", "2026-11-26T12-09-49Z-lab-quick"),
    ("2026-11-26T12-09-49Z-lab-quick", "2026-11-26T11-36-08Z-lab-quick"),
]
MAX_CHANGED_SHARE = 0.01  # same code: at most 1 % of compared rows reported changed
GATE_PCT = 10
RECALL_TARGETS = {10: 0.80, 20: 0.95}
_UNIT_LINE = re.compile(r"Unit\s+(\S+)\s+.*better=(higher|lower)")


def plant_slowdown(run_dir, out_dir, target, pct, keep=None):
    """A copy of run_dir in out_dir whose `target` is pct % slower: every value of a
    lower-is-better unit times (1 + pct/100), of a higher-is-better unit divided by it.
    keep(name) -> False leaves a benchmark as it was (plant into some rows only)."""
    shutil.copytree(run_dir, out_dir)
    path = Path(out_dir) / f"{target}.txt"
    factor = 1 + pct / 100
    higher = dict(known_units())
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        m = _UNIT_LINE.match(line)
        if m:
            higher[m.group(1)] = m.group(2) == "higher"
        fields = line.split()
        if line.startswith("Benchmark") and len(fields) >= 4 and (keep is None or keep(fields[0])):
            for i in range(2, len(fields) - 1, 2):
                value = float(fields[i])
                fields[i] = f"{value / factor if higher.get(fields[i + 1]) else value * factor:.9g}"
            line = " ".join(fields)
        lines.append(line)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Path(out_dir)


def judged(base, head, results_dir, without=frozenset()):
    """without: the cross-run layers switched off (vmparity/decide/layers.py), as tests/perf_ablation.py measures."""
    loaded = inputs.load_all([str(base), str(head)], results_dir)
    t = table.build(loaded, without=without)
    if t.crossrun is None:
        raise SystemExit(f"{base} and {head} share no target besides the controls: nothing to judge across runs")
    return t.crossrun


def same_code(cr):
    changed = len(cr.of(crossrun.CHANGED))
    gate = len(cr.regressions_over(GATE_PCT))
    return changed, len(cr.rows), gate


def planted_targets(cr):
    """Targets with tested rows, the controls left out."""
    tested = {j.group for j in cr.rows if j.status not in (crossrun.NOT_TESTED, crossrun.CONTROL)}
    return sorted(t for t in tested if not (is_lab_metal(t) or is_aa_control(t)))


def recall(base, head, target, pct, results_dir, keep, work, without=frozenset()):
    # The copy is named by both runs: a run can be HEAD of two pairs (A against B, A against C).
    copy = work / f"{Path(str(head)).name}-vs-{Path(str(base)).name}-{target}-{pct}"
    out = plant_slowdown(inputs.resolve(head, results_dir), copy, target, pct, keep)
    cr = judged(base, out, results_dir, without)
    rows = [j for j in cr.rows if j.group == target and j.status != crossrun.NOT_TESTED and (keep is None or keep(j.name))]
    found = [j for j in rows if j.status == crossrun.CHANGED and j.verdict == "worse"]
    others = [j for j in cr.of(crossrun.CHANGED) if j.group != target]
    return len(found), len(rows), len(others)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pair", nargs=2, action="append", metavar=("BASE", "HEAD"), help="runs of identical code (repeatable)")
    ap.add_argument("--shift", type=float, action="append", metavar="PCT", help="planted slowdowns (default 10 and 20)")
    ap.add_argument("--target", action="append", help="plant into this target (default: every tested one but the controls)")
    ap.add_argument("--rows", type=float, default=1.0, help="share of the target's benchmarks planted, chosen by --seed")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--results-dir", help="where the runs are (default: results/, or for the default pairs, and for "
                    "runs results/ no longer holds, results/ as it was in the history: tests/archived_runs.py)")
    a = ap.parse_args(argv)
    pairs = a.pair or SAME_CODE_PAIRS
    a.results_dir = a.results_dir or str(archived_runs.results_dir([r for p in a.pair or () for r in p]))
    shifts = a.shift or sorted(RECALL_TARGETS)
    rng = random.Random(a.seed)
    chosen = {}

    def keep(name):  # the same choice for a benchmark name in every plant of this run of the script
        if a.rows >= 1:
            return True
        if name not in chosen:
            chosen[name] = rng.random() < a.rows
        return chosen[name]

    print(f"cross-run noise control (docs/noise.md); seed {a.seed}, rows planted {a.rows:g}")
    totals = {s: [0, 0] for s in shifts}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for base, head in pairs:
            cr = judged(base, head, a.results_dir)
            changed, rows, gate = same_code(cr)
            ok = changed <= MAX_CHANGED_SHARE * rows and gate == 0
            print(f"\n{head} against {base}: same code: {changed} of {rows} rows changed ({100 * changed / rows:.2f} %), "
                  f"--fail-on-regression {GATE_PCT}: {'passes' if gate == 0 else f'fails ({gate} rows)'} "
                  f"[target: <= {100 * MAX_CHANGED_SHARE:g} % and passes: {'met' if ok else 'MISSED'}]")
            for target in a.target or planted_targets(cr):
                for pct in shifts:
                    found, planted, others = recall(base, head, target, pct, a.results_dir, keep, work)
                    totals[pct][0] += found
                    totals[pct][1] += planted
                    share = found / planted if planted else 0.0
                    want = RECALL_TARGETS.get(pct)
                    verdict = f" [target >= {100 * want:g} %: {'met' if share >= want else 'MISSED'}]" if want else ""
                    print(f"  +{pct:g} % planted into {target}: found in {found} of {planted} tested rows ({100 * share:.1f} %)"
                          f"{verdict}; other targets' rows changed: {others}")
    print("\nall pairs:")
    for pct, (found, planted) in totals.items():
        print(f"  +{pct:g} %: found in {found} of {planted} planted rows ({100 * found / max(planted, 1):.1f} %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
