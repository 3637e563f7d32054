"""`make bench-compare`: time `vmparity compare` and benchstat on the same two big files.

For each shape (ns/op only, and ns/op + B/s like memcpy) it generates two
result files of --lines result lines each (10 repetitions, 10% of the
benchmarks shifted by 5%), runs both tools on them alternately --repeat
times in their default text output and prints the best wall and CPU time of
each, the ratio, and whether the targets hold (vmparity < 2 s and within 1.5x
of benchstat). This is a benchmark, not a test: it reports, it does not
assert.
"""

import argparse
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import resultgen  # noqa: E402

COUNT = 10


def generate(path, lines, seed, shift, units):
    rng = random.Random(seed)
    header = [f"{k}: {v}".rstrip() for k, v in dict(resultgen.METAL, **{"run-id": "bench-compare"}).items()]
    header.append("Unit B/s better=higher")
    n_bench = lines // COUNT
    out = header
    for rep in range(COUNT):
        for b in range(n_bench):
            size = 64 + b * 64
            ns = size / 40.0 * (shift if b % 10 == 0 else 1.0) * rng.gauss(1, 0.02)
            extra = f" {size / ns * 1e9:.6g} B/s" if units == 2 else ""
            out.append(f"BenchmarkMemcpy/link=static/tunable=default/size={size} 1000000 {ns:.6g} ns/op{extra}")
    path.write_text("\n".join(out) + "\n")


def timed(cmd, sink):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with open(sink, "w") as out:
        subprocess.run(cmd, stdout=out, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--dir", default="build/bench-compare")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--benchstat", default=os.environ.get("BENCHSTAT", "build/gobin/benchstat"))
    ap.add_argument("--vmparity", default=str(Path(sys.executable).with_name("vmparity")))
    a = ap.parse_args()
    d = Path(a.dir)
    d.mkdir(parents=True, exist_ok=True)
    for units, shape in ((1, "ns/op"), (2, "ns/op + B/s")):
        measure(a, d, units, shape)
    print(f"load average: {os.getloadavg()[0]:.2f} (the machine is shared; cpu times are the steadier figure)")


def measure(a, d, units, shape):
    old, new = d / f"old-{units}.txt", d / f"new-{units}.txt"
    generate(old, a.lines, 1, 1.0, units)
    generate(new, a.lines, 2, 1.05, units)
    print(f"bench-compare: 2 files x {a.lines} result lines ({a.lines // COUNT} benchmarks x {COUNT}, {shape})")
    tools = {
        "vmparity": [a.vmparity, "compare", str(old), str(new)],
        "benchstat": [a.benchstat, str(old), str(new)],
    }
    best = {name: (float("inf"), float("inf")) for name in tools}
    for i in range(a.repeat):  # alternate so both see the same machine load
        for name, cmd in tools.items():
            wall, cpu = timed(cmd, d / f"{name}-{units}.out")
            best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
            print(f"  run {i + 1}: {name:9s} wall {wall:6.3f} s  cpu {cpu:6.3f} s")
    (vw, vc), (bw, bc) = best["vmparity"], best["benchstat"]
    print(f"  best of {a.repeat}: vmparity {vw:.3f} s (cpu {vc:.3f} s), benchstat {bw:.3f} s (cpu {bc:.3f} s); "
          f"ratio wall {vw / bw:.2f}x, cpu {vc / bc:.2f}x")
    print(f"  targets: vmparity < 2 s: {'met' if vw < 2 else 'MISSED'}; "
          f"within 1.5x of benchstat: {'met' if vw <= 1.5 * bw else 'MISSED'}")


if __name__ == "__main__":
    main()
