"""Regenerate tests/testdata/run-a and run-b (the inputs of the golden-file tests).

    .venv/bin/python tests/make_testdata.py

run-a: metal, an SMT-less guest, an hpet-clocksource guest and a
quota-limited container from one host; run-b: the same metal host again
with a small regression on one benchmark, for pr-comment.
"""

import random
from pathlib import Path

import resultgen as g

DATA = Path(__file__).resolve().parent / "testdata"


def main():
    run_a = DATA / "run-a"
    run_b = DATA / "run-b"
    for d in (run_a, run_b):
        d.mkdir(parents=True, exist_ok=True)
    for seed, cfg in enumerate([g.METAL, g.NOSMT_GUEST, g.HPET_GUEST, g.QUOTA_CONTAINER], 1):
        cfg = dict(cfg, **{"run-id": "run-a"})
        g.write(run_a / f"{cfg['target']}.txt", cfg, g.suite(cfg, random.Random(seed), count=8))
    cfg = dict(g.METAL, **{"run-id": "run-b"})
    benches = g.suite(cfg, random.Random(11), count=8)
    name = "BenchmarkClock/clock=monotonic/path=vdso"
    benches[name]["ns/op"] = [v * 1.2 for v in benches[name]["ns/op"]]  # a 20% regression
    g.write(run_b / "metal.txt", cfg, benches)


if __name__ == "__main__":
    main()
