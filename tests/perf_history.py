"""`make bench-history`: `vmparity history` over 1,000 synthetic runs × 300 rows.

Generates the runs (historygen: the lab's noise, shifts of 10 % and 2x
injected at known runs), then measures the index build from cold (goal
< 60 s), `vmparity history` with a warm index (goal < 2 s, best of
--repeat) and checks that the change points found are exactly the injected
ones: none missed, none false, each at its run. 10 % shifts go to rows whose
spread lets 16 + 16 runs resolve them at the Bonferroni level (robust CV ≤
4 %, the lab's quieter rows); 2x shifts go anywhere. (How well changes of
every size, close to each other, are found, beside Apache Otava:
perf_history_quality.py.) Prints the figures; exits 1 when a goal or the
check fails.
"""

import argparse
import json
import os
import random
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import historygen as hg  # noqa: E402
from perf_compare import timed  # noqa: E402  (wall and cpu seconds of one command)

from vmparity.history import index  # noqa: E402

TARGETS = ["metal", "guest-nosmt", "container-quota"]


def plan_for(runs, rows_per_target, seed):
    plan = hg.plan_cvs(hg.Plan(runs=runs, targets=TARGETS, rows=rows_per_target, seed=seed))
    rng = random.Random(seed)
    keys = sorted(plan.row_cv)
    rng.shuffle(keys)
    quiet = [k for k in keys if plan.row_cv[k] <= 0.04]
    n = max(1, len(keys) // 10)  # a tenth of the rows get a 2x shift, a tenth of the quiet ones a 10 % shift
    edge = min(40, runs // 4)
    twox = keys[:n]
    ten = [k for k in quiet if k not in twox][:max(1, len(quiet) // 10)]
    for (t, r), factor in [(k, rng.choice([2.0, 0.5])) for k in twox] + [(k, rng.choice([1.10, 1 / 1.10])) for k in ten]:
        plan.shifts.append(hg.Shift(t, r, rng.randrange(edge, runs - edge), factor))
    return plan


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--rows", type=int, default=300, help="rows per run (over 3 targets)")
    ap.add_argument("--dir", default="build/bench-history")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=12, help="of the synthetic history: its spreads, shifts and noise")
    ap.add_argument("--vmparity", default=str(Path(sys.executable).with_name("vmparity")))
    a = ap.parse_args()
    results = Path(a.dir) / "results"
    shutil.rmtree(results, ignore_errors=True)
    plan = plan_for(a.runs, a.rows // len(TARGETS), seed=a.seed)
    t0 = time.perf_counter()
    hg.write(plan, results / "runs")
    print(f"bench-history: {a.runs} runs × {a.rows} rows × {plan.count} samples written in {time.perf_counter() - t0:.1f} s; "
          f"{sum(s.factor in (2.0, 0.5) for s in plan.shifts)} 2x and {sum(s.factor not in (2.0, 0.5) for s in plan.shifts)} "
          "10 % shifts injected")

    t0, c0 = time.perf_counter(), time.process_time()
    ix = index.Index(results / "runs")
    ix.refresh()
    ix.close()
    cold, cold_cpu = time.perf_counter() - t0, time.process_time() - c0
    size = os.path.getsize(results / index.INDEX_NAME)

    cmd = [a.vmparity, "--results-dir", str(results), "history"]
    warm, warm_cpu = min(timed(cmd, Path(a.dir) / "history.txt") for _ in range(a.repeat))
    warm_json, json_cpu = timed(cmd + ["--format", "json"], Path(a.dir) / "history.json")
    doc = json.loads((Path(a.dir) / "history.json").read_text())
    found = {(t["target"], t["benchmark"], cp["run_id"]) for t in doc["tracks"] for cp in t["change_points"]}
    want = {(s.target, plan.name(s.row), plan.run_id(s.run)) for s in plan.shifts}
    missed, false = want - found, found - want
    print(f"index build from cold: {cold:.1f} s wall, {cold_cpu:.1f} s cpu (goal < 60 s), index {size / 1e6:.0f} MB")
    print(f"vmparity history, warm index, text: {warm:.2f} s wall, cpu {warm_cpu:.2f} s (goal < 2 s); "
          f"json: {warm_json:.2f} s wall, {json_cpu:.2f} s cpu")
    print(f"change points: {len(found)} found, {len(want)} injected, {len(missed)} missed, {len(false)} false "
          f"({doc['method']['tests']} candidate runs, Bonferroni p ≤ {doc['method']['p_threshold']:.2g})")
    for what, items in (("missed", missed), ("false", false)):
        for item in sorted(items)[:10]:
            print(f"  {what}: {item}")
    print(f"load average: {os.getloadavg()[0]:.2f} (the machine is shared)")
    ok = cold < 60 and warm < 2 and not missed and not false
    print("bench-history: " + ("all goals met" if ok else "GOAL MISSED"))
    return 0 if ok else 1



if __name__ == "__main__":
    sys.exit(main())
