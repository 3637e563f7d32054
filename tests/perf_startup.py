"""`make bench-startup`: the whole-process time of `vmparity compare` against benchstat on two small files.

Issue 57 asks for at most 2x benchstat's time (median of several runs). Both
commands run alternately, A B A B ..., so a drift of the shared machine hits
both alike; each run is a whole process (start-up, imports, parsing, output),
as a user waits for it. Beside them it times the interpreter alone
(`python -I -S -c pass` and `python -c pass`): the floor no Python command
goes below, which says how much of the gap is left to vmparity's own code.
This is a benchmark: it reports, it does not assert.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SMALL = [ROOT / "tests/testdata/gotest/old.txt", ROOT / "tests/testdata/gotest/new.txt"]


# A user's shell lets Python write and reuse the .pyc of vmparity's modules; a machine that sets
# PYTHONDONTWRITEBYTECODE (this project's test machines do) would have every run compile them
# again: 359 ms a run against 274 ms with them (2026-12-07)
USER_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def wall(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=USER_ENV)
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15, help="timed runs of each command (default 15), after one warm-up")
    ap.add_argument("--vmparity", default=str(Path(sys.executable).with_name("vmparity")), help="the vmparity command")
    ap.add_argument("--benchstat", default=os.environ.get("BENCHSTAT", "benchstat"), help="the benchstat command")
    a = ap.parse_args()
    files = [str(f) for f in SMALL]
    commands = {
        "benchstat": [a.benchstat, *files],
        "vmparity compare": [a.vmparity, "compare", *files],
        "python -I -S -c pass": [sys.executable, "-I", "-S", "-c", "pass"],
        "python -c pass": [sys.executable, "-c", "pass"],
    }
    times = {name: [] for name in commands}
    for cmd in commands.values():
        wall(cmd)  # warm-up: the page cache and the .pyc files
    for _ in range(a.runs):
        for name, cmd in commands.items():
            times[name].append(wall(cmd))
    med = {name: statistics.median(t) for name, t in times.items()}
    print(f"whole-process wall time on two small files ({', '.join(f.name for f in SMALL)}), median of {a.runs} runs:")
    for name, t in times.items():
        print(f"  {name:22} {med[name] * 1e3:8.1f} ms  (min {min(t) * 1e3:.1f}, max {max(t) * 1e3:.1f})")
    ratio = med["vmparity compare"] / med["benchstat"]
    floor = med["python -I -S -c pass"] / med["benchstat"]
    print(f"vmparity compare / benchstat: {ratio:.1f}x (goal: at most 2x); the interpreter alone, with no import "
          f"at all, is already {floor:.1f}x")


if __name__ == "__main__":
    main()
