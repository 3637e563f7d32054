"""Synthetic run histories for the history tests and `make bench-history`.

Noise like the lab's (measured on results/runs/*/metal.txt, 5 repetitions a
run): every row has its own spread (robust CV drawn log-uniformly between
ROW_CV_LOW and ROW_CV_HIGH, the lab's quieter half of rows), every run of a
target its own level (lognormal, RUN_SD: a shared machine is not the same
machine twice), and a share of samples are slowed by interference
(SPIKE_SHARE of samples × 1.2 … 2.0; the lab shows a fifth of samples beyond
20 %). Shifts multiply a row's level from a given run on.
"""

import math
import random
from dataclasses import dataclass, field
from pathlib import Path

import resultgen

ROW_CV_LOW, ROW_CV_HIGH = 0.015, 0.08
RUN_SD = 0.01
SPIKE_SHARE = 0.10


@dataclass
class Shift:
    target: str
    row: int
    run: int  # index of the first run at the new level
    factor: float


@dataclass
class Plan:
    runs: int
    targets: list
    rows: int  # per target
    count: int = 5
    seed: int = 1
    shifts: list = field(default_factory=list)
    fingerprint_changes: dict = field(default_factory=dict)  # run index -> {key: value} from then on
    row_cv: dict = field(default_factory=dict)  # (target, row) -> robust CV, filled by write()
    names: list = None  # benchmark names by row (default BenchmarkSynth/row=NNN)

    def run_id(self, i):
        return f"2026-01-01T00-00-00Z-{i:05d}"

    def commit(self, i):
        return f"{(i * 2654435761) % 16**12:012x}c0ffee{i:08x}"[:40].ljust(40, "0")

    def name(self, row):
        return self.names[row] if self.names else f"BenchmarkSynth/row={row:03d}"


def plan_cvs(plan):
    rng = random.Random(plan.seed)
    for t in plan.targets:
        for r in range(plan.rows):
            plan.row_cv[(t, r)] = math.exp(rng.uniform(math.log(ROW_CV_LOW), math.log(ROW_CV_HIGH)))
    return plan


def write(plan, runs_dir):
    """Write plan.runs run directories under runs_dir; returns the plan (with row_cv)."""
    if not plan.row_cv:
        plan_cvs(plan)
    rng = random.Random(plan.seed + 1)
    runs_dir = Path(runs_dir)
    base = {(t, r): 10.0 * (1 + r) for t in plan.targets for r in range(plan.rows)}
    level = {k: 1.0 for k in base}
    by_run = {}
    for s in plan.shifts:
        by_run.setdefault(s.run, []).append(s)
    extra = {}
    for i in range(plan.runs):
        for s in by_run.get(i, []):
            level[(s.target, s.row)] *= s.factor
        extra.update(plan.fingerprint_changes.get(i, {}))
        d = runs_dir / plan.run_id(i)
        d.mkdir(parents=True, exist_ok=True)
        for t in plan.targets:
            header = dict(resultgen.METAL, **{"run-id": plan.run_id(i), "target": t, "count": str(plan.count),
                                              "commit": plan.commit(i), "branch": "main", "dirty": "no"})
            header.update(extra)
            lines = [f"{k}: {v}".rstrip() for k, v in header.items()]
            run_level = math.exp(rng.gauss(0, RUN_SD))
            for _ in range(plan.count):
                for r in range(plan.rows):
                    v = base[(t, r)] * level[(t, r)] * run_level * math.exp(rng.gauss(0, plan.row_cv[(t, r)] / 1.0))
                    if rng.random() < SPIKE_SHARE:
                        v *= rng.uniform(1.2, 2.0)
                    lines.append(f"{plan.name(r)} 1000000 {v:.6g} ns/op")
            (d / f"{t}.txt").write_text("\n".join(lines) + "\n")
    return plan
