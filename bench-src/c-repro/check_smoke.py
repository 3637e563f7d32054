#!/usr/bin/env python3
"""Runs storefwd, fence and align with `--profile smoke` and checks their
output against docs/formats.md: strict Go benchmark format, every config
line before the first Benchmark line, the contract's names and units, and
that benchstat reads it without a complaint.
Usage: check_smoke.py BENCHSTAT BENCH_DIR. Standard library only."""

import re
import subprocess
import sys
import tempfile
from pathlib import Path

CONFIG = re.compile(r"^([a-z][a-z0-9-]*): (.*)$")
RESULT = re.compile(r"^(Benchmark\S+) ([0-9]+)((?: [-+0-9.e]+ \S+)+)$")
ALIGN_PADS = [0, 1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 60, 62]

EXPECTED = {
    "storefwd": [f"BenchmarkStorefwd/size={s}/form={f}" for s in (28, 32) for f in ("overlap", "fresh")],
    "fence": [
        f"BenchmarkFence/work={w}/barrier={b}" for w in ("llc", "tlb", "div") for b in ("none", "lock", "mfence")
    ],
    "align": [f"BenchmarkAlign/pad={p}" for p in ALIGN_PADS],
}

failures = 0


def check(cond, what):
    global failures
    print(f"{'ok' if cond else 'FAIL'} - {what}")
    if not cond:
        failures += 1


def expected_units(prog, config):
    """Units every line must carry, given what the header says is available."""
    if prog == "storefwd":
        units = {"ns/entry", "flushes/op"}
        if not config["storefwd-pmu"].startswith("unavailable"):
            units.add("store-fwd-blocks/entry")
    elif prog == "fence":
        units = {"ns/iter"}
        if config["fence-tsc"].startswith("usable"):
            units.add("cycles/iter")
    else:
        units = {"ns/iter"}
        if not config["align-insn-source"].startswith("unavailable"):
            units.add("insns/iter")
        if config["align-cycles-source"] == "perf":
            units.add("cycles/iter")
    return units


def parse(prog, text):
    config, results, seen_result = {}, {}, False
    for n, line in enumerate(text.splitlines(), 1):
        if m := CONFIG.match(line):
            check(not seen_result, f"{prog} line {n}: config line {m.group(1)!r} comes before any Benchmark line")
            config[m.group(1)] = m.group(2)
        elif m := RESULT.match(line):
            seen_result = True
            fields = m.group(3).split()
            results[m.group(1)] = {unit: float(v) for v, unit in zip(fields[::2], fields[1::2])}
        else:
            check(False, f"{prog} line {n}: neither a config nor a Benchmark line: {line!r}")
    return config, results


def check_program(bench_dir, prog, out_dir):
    proc = subprocess.run([str(bench_dir / prog), "--profile", "smoke"], capture_output=True, text=True, timeout=120)
    check(proc.returncode == 0, f"{prog} --profile smoke exits 0 (stderr: {proc.stderr.strip()!r})")
    config, results = parse(prog, proc.stdout)
    check(sorted(results) == sorted(EXPECTED[prog]), f"{prog}: exactly the contract's benchmark names")
    keys = {"storefwd": "storefwd-pmu", "fence": "fence-tsc", "align": "align-insn-source"}
    check(keys[prog] in config, f"{prog}: header states {keys[prog]}")
    if keys[prog] in config and (prog != "align" or "align-cycles-source" in config):
        units = expected_units(prog, config)
        for name, values in results.items():
            # Counts of events (store-forward blocks) may be 0; times and rates may not.
            check(
                set(values) == units
                and all(v > 0 or (u.startswith("store-fwd") and v == 0) for u, v in values.items()),
                f"{name}: units {sorted(values)} == {sorted(units)}, all positive",
            )
    if prog == "storefwd":
        flushes = {n: v.get("flushes/op") for n, v in results.items()}
        check(
            all(v == (171.0 if "size=28" in n else 196.0) for n, v in flushes.items()),
            "storefwd: 171 / 196 flushes per op, as in the seed",
        )
    if prog == "align" and config.get("align-insn-source") in ("perf", "callgrind"):
        counts = {v["insns/iter"] for v in results.values()}
        check(max(counts) - min(counts) < 0.01 * max(counts), f"align: equal instructions per pad ({sorted(counts)})")
    path = out_dir / f"{prog}.txt"
    path.write_text(proc.stdout)
    return path


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: check_smoke.py BENCHSTAT BENCH_DIR")
    benchstat, bench_dir = argv[1], Path(argv[2])
    with tempfile.TemporaryDirectory(prefix="check-smoke-") as tmp:
        files = [check_program(bench_dir, prog, Path(tmp)) for prog in EXPECTED]
        proc = subprocess.run([benchstat, *map(str, files)], capture_output=True, text=True)
        complaints = [l for l in (proc.stdout + proc.stderr).splitlines() if re.match(r"^\S+\.txt:\d+: ", l)]
        check(proc.returncode == 0 and not complaints, f"benchstat reads all three outputs ({complaints})")
        for prog, names in EXPECTED.items():
            short = names[0].removeprefix("Benchmark")
            check(short in proc.stdout, f"benchstat table lists {short}")
    print(f"check_smoke: {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
