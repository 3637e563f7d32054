"""vmparity compare and benchstat agree on which rows are significant and on the sign.

Result pairs are generated (equal, shifted by 1%, 5%, 50%, noisy, few
samples), both tools read the same files, and benchstat's CSV output is
parsed for its `~` / delta column and its p-value.
"""

import csv
import io
import json
import random
import subprocess

import pytest

CASES = {
    # name: (shift, noise, count)
    "equal": (1.00, 0.01, 10),
    "shift1pct": (1.01, 0.01, 10),
    "shift5pct": (1.05, 0.02, 10),
    "shift50pct": (1.50, 0.02, 10),
    "slower-half": (0.5, 0.02, 10),
    "noisy": (1.05, 0.20, 10),
    "few3": (1.50, 0.01, 3),
    "few4": (1.50, 0.01, 4),
    "few5": (1.05, 0.01, 5),
    "uneven": (1.10, 0.02, 20),
    "many": (1.01, 0.02, 60),
}


def write_pair(tmp_path, seed):
    """Two files with one benchmark per case, same header (benchstat then makes one table)."""
    rng = random.Random(seed)
    lines = {"old": ["vmparity-format: 1", "target: metal", "target-kind: metal"], "new": None}
    lines["new"] = list(lines["old"])
    for case, (shift, noise, count) in CASES.items():
        base = rng.uniform(50, 5000)
        n_new = count if case != "uneven" else count // 2
        for side, n, factor in (("old", count, 1.0), ("new", n_new, shift)):
            for _ in range(n):
                lines[side].append(f"BenchmarkCase/case={case} 1000 {base * factor * rng.gauss(1, noise):.9g} ns/op")
    paths = {}
    for side, ls in lines.items():
        paths[side] = tmp_path / f"{side}.txt"
        paths[side].write_text("\n".join(ls) + "\n")
    return paths["old"], paths["new"]


def benchstat_rows(benchstat, old, new):
    out = subprocess.run([benchstat, "-format", "csv", str(old), str(new)], capture_output=True, text=True, check=True).stdout
    rows = {}
    for r in csv.reader(io.StringIO(out)):
        if len(r) == 7 and r[0].startswith("Case/"):
            delta, pn = r[5], r[6]
            p = float(pn.split()[0][2:]) if pn.startswith("p=") else 1.0
            rows["Benchmark" + r[0]] = (delta != "~", 0 if delta in ("~", "0.00%") else (1 if delta.startswith("+") else -1), p)
    return rows


@pytest.mark.parametrize("seed", range(6))
def test_agrees_with_benchstat(cli, benchstat, tmp_path, seed):
    old, new = write_pair(tmp_path, seed)
    theirs = benchstat_rows(benchstat, old, new)
    r = cli("compare", old, new, "--format", "json")
    assert r.code == 0, r.err
    ours = {}
    for row in json.loads(r.out)["rows"]:
        (d,) = row["deltas"].values()
        sign = 0 if d["pct"] in (None, 0) or not d["significant"] else (1 if d["pct"] > 0 else -1)
        ours[row["benchmark"]] = (d["significant"], sign, d["p"])
    assert set(ours) == set(theirs) and len(ours) == len(CASES)
    for name in ours:
        assert ours[name][:2] == theirs[name][:2], f"{name}: vmparity {ours[name]} vs benchstat {theirs[name]}"
        assert ours[name][2] == pytest.approx(theirs[name][2], abs=0.0015), name  # benchstat prints 3 decimals


def test_confidence_interval_matches_benchstat(cli, benchstat, tmp_path):
    """The ± column (median CI from order statistics) is benchstat's for n = 3…60."""
    old, new = write_pair(tmp_path, 99)
    out = subprocess.run([benchstat, "-format", "csv", str(old), str(new)], capture_output=True, text=True, check=True).stdout
    theirs = {"Benchmark" + r[0]: (r[2], r[4]) for r in csv.reader(io.StringIO(out)) if len(r) == 7 and r[0].startswith("Case/")}
    r = cli("compare", old, new, "--format", "markdown")
    for name, (ci_old, ci_new) in theirs.items():
        line = next(ln for ln in r.out.splitlines() if f"`{name}`" in ln)
        cells = [c.strip() for c in line.split("|")]
        assert cells[2].endswith(f"± {ci_old}") and cells[3].endswith(f"± {ci_new}"), (name, cells, ci_old, ci_new)


def test_too_few_samples_warns_like_benchstat(cli, tmp_path):
    old, new = write_pair(tmp_path, 3)
    r = cli("compare", old, new)
    assert "need >= 6 samples for confidence interval at level 0.95" in r.out
    assert "need >= 4 samples to detect a difference at alpha level 0.05" in r.out


def test_real_benchrun_files_agree_with_benchstat(cli, benchstat, testdata):
    """Files written by `benchrun` (metal, and the same host with a lowered NT threshold)."""
    a, b = testdata / "benchrun" / "metal.txt", testdata / "benchrun" / "low-nt.txt"
    out = subprocess.run([benchstat, "-table", "", "-format", "csv", str(a), str(b)],
                         capture_output=True, text=True, check=True).stdout
    theirs = {}
    unit = None
    for r in csv.reader(io.StringIO(out)):
        if len(r) == 7 and r[1] and not r[0]:
            unit = r[1]  # the unit header row of each section
        elif len(r) == 7 and r[0].startswith("Memcpy/"):
            theirs[("Benchmark" + r[0], unit)] = r[5] != "~"
    data = json.loads(cli("compare", a, b, "--format", "json").out)
    units = {"ns/op": "sec/op", "B/s": "B/s", "cycles/op": "cycles/op"}  # benchstat shows seconds
    ours = {(r["benchmark"], units[r["unit"]]): next(iter(r["deltas"].values()))["significant"] for r in data["rows"]}
    assert ours == theirs and any(ours.values())
