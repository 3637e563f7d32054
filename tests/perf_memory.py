"""`make bench-memory`: peak memory of `vmparity compare` on 50 MB result files.

Three shapes: bench-compare's files (ns/op only, and ns/op + B/s like
memcpy; 10 repetitions per benchmark) and a soak run (one benchmark repeated
over the whole file, so one U test takes every value). For each it
generates two files of about --megabytes and a small one (the first lines
of the same run), and runs `vmparity compare` (default text output) on the
big file against the small one and on the two big files. It prints each
run's peak resident memory against the largest file's size, benchstat's on
the same files for reference, and fails (exit 1) when vmparity's peak is
over --limit times the largest file. Time is bench-compare's business; the
wall time shown only tells a starved run apart.
"""
import argparse
import os
import random
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import perf_compare  # noqa: E402

MB = 1_000_000
SMALL_LINES = 1_000


# Runs each command from a fresh, small interpreter: Linux counts into a
# child's peak RSS (wait4, RUSAGE_CHILDREN) the peak of the process that
# started it, and this one has just generated 100 MB of files.
MEASURE = """
import resource, subprocess, sys, time
t0 = time.perf_counter()
with open(sys.argv[1], "w") as out:
    code = subprocess.run(sys.argv[2:], stdout=out).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, time.perf_counter() - t0, code)
"""


def peak_rss(cmd, sink):
    """(peak resident bytes of the command, wall seconds)."""
    r = subprocess.run([sys.executable, "-c", MEASURE, str(sink), *cmd], capture_output=True, text=True, check=True)
    kib, wall, code = r.stdout.split()
    if code != "0":
        raise SystemExit(f"bench-memory: {' '.join(cmd)} exited {code}")
    return int(kib) * 1024, float(wall)  # ru_maxrss is in KiB on Linux


def make_files(d, slug, generate, megabytes):
    probe = d / f"probe-{slug}.txt"
    generate(probe, 10_000, 1, 1.0)
    per_line = probe.stat().st_size / 10_000
    probe.unlink()
    lines = int(megabytes * MB / per_line) // perf_compare.COUNT * perf_compare.COUNT
    big_old, big_new, small = d / f"big-old-{slug}.txt", d / f"big-new-{slug}.txt", d / f"small-{slug}.txt"
    generate(big_old, lines, 1, 1.0)
    generate(big_new, lines, 2, 1.05)
    generate(small, SMALL_LINES, 2, 1.05)
    return big_old, big_new, small


def soak(path, lines, seed, shift):
    """One benchmark, `lines` repetitions (values rounded as Go prints them, so with ties)."""
    rng = random.Random(seed)
    with open(path, "w") as f:
        f.write("goos: linux\ngoarch: amd64\n")
        f.writelines(f"BenchmarkSoak-8 1000 {100 * shift * rng.gauss(1, 0.05):.5g} ns/op\n" for _ in range(lines))


SHAPES = [  # (label, file name part, generator(path, lines, seed, shift))
    ("ns/op", "ns", lambda path, lines, seed, shift: perf_compare.generate(path, lines, seed, shift, 1)),
    ("ns/op + B/s", "ns-bs", lambda path, lines, seed, shift: perf_compare.generate(path, lines, seed, shift, 2)),
    ("one benchmark", "soak", soak),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--megabytes", type=float, default=50)
    ap.add_argument("--limit", type=float, default=2.0, help="largest peak allowed, in multiples of the largest file")
    ap.add_argument("--dir", default="build/bench-memory")
    ap.add_argument("--benchstat", default=os.environ.get("BENCHSTAT", "build/gobin/benchstat"))
    ap.add_argument("--vmparity", default=str(Path(sys.executable).with_name("vmparity")))
    a = ap.parse_args()
    d = Path(a.dir)
    d.mkdir(parents=True, exist_ok=True)
    print(f"bench-memory: peak RSS of `vmparity compare` (limit: {a.limit:g}x the largest file)")
    over = 0
    for shape, slug, generate in SHAPES:
        big_old, big_new, small = make_files(d, slug, generate, a.megabytes)
        for what, files in (("big vs small", (big_old, small)), ("big vs big", (big_old, big_new))):
            largest = max(f.stat().st_size for f in files)
            sizes = " + ".join(f"{f.stat().st_size / MB:.1f} MB" for f in files)
            rss, wall = peak_rss([a.vmparity, "compare", *map(str, files)], d / "vmparity.out")
            ref, _ = peak_rss([a.benchstat, *map(str, files)], d / "benchstat.out")
            ok = rss <= a.limit * largest
            over += not ok
            print(f"  {shape:13s} {what:12s} ({sizes}): vmparity {rss / MB:6.1f} MB = {rss / largest:.2f}x "
                  f"in {wall:5.1f} s; benchstat {ref / MB:6.1f} MB  {'ok' if ok else 'OVER THE LIMIT'}")
    print(f"load average: {os.getloadavg()[0]:.2f}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
