"""`make bench-record-memory`: peak memory of every record reader's command on hostile records, against
the same command on its largest legitimate input (issue 59: at most 2x).

For each record the lab keeps, the command that reads it runs on a copy of the committed run holding
the largest record of its kind (legitimate), then on the same copy with the record replaced by what an
attacker would put there within the readers' bounds (the largest record that still passes the size,
value and nesting checks: 16 MiB of long strings, the most entries a schema takes, a manifest of 1 MiB
of valid lines, a variants file just under the alias bound) and beyond them (a 200 MB file, an alias
bomb, a corrupt index). It prints each peak resident memory, its ratio to the legitimate one, the exit
code, and fails (exit 1) when a ratio is over --limit. Each command runs from a fresh interpreter
(perf_memory.MEASURE): Linux counts into a child's peak the peak of the process that started it.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import archived_runs  # noqa: E402
import hostile_record_cases as hrc  # noqa: E402
from perf_memory import MEASURE  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
LARGEST = {"rounds.json": "2026-11-28T08-43-58Z-lab-quick", "verify-plan.json": "2026-11-26T07-06-17Z-verify-quick",
           "verdicts.json": "2026-11-26T07-06-17Z-verify-quick", "ab": "2026-11-26T12-41-12Z-ab-quick",
           "verifications.json": "2026-11-27T20-39-11Z-lab-quick"}
# the largest of each record the lab stored, and the history of all its runs: results/ as it was (archived_runs.py)
RUNS = None  # set by main()
MiB = 1024 * 1024


def peak(argv, cwd):
    """(peak resident MB, exit code) of `python -m vmparity argv`."""
    r = subprocess.run([sys.executable, "-c", MEASURE, os.devnull, sys.executable, "-m", "vmparity", *map(str, argv)],
                       capture_output=True, text=True, cwd=cwd, env=dict(os.environ, PYTHONPATH=str(REPO),
                                                                         XDG_CACHE_HOME=str(Path(cwd) / "cache")))
    kib, _, code = r.stdout.split()
    return int(kib) / 1024, int(code)


def long_strings(path, limit=16 * MiB - 4096):
    """A JSON list of long strings just under the record size bound: the most text a record reader parses."""
    item = json.dumps("x" * 4000)
    n = limit // (len(item) + 1)
    path.write_text("[" + ",".join([item] * n) + "]")


def many_values(path, record, key, entry, values=190_000):
    """record with key holding as many copies of entry as the 200,000-value bound lets through."""
    per = json.dumps(entry).count(",") + json.dumps(entry).count("{") + json.dumps(entry).count("[") + 1
    record = dict(record, **{key: [entry] * (values // per)})
    path.write_text(json.dumps(record))


def sparse(path, megabytes=200):
    path.unlink(missing_ok=True)
    with open(path, "wb") as f:
        f.truncate(megabytes * MiB)


def nested_bomb(path):
    """The issue's 372-byte alias bomb (a billion items once expanded)."""
    path.write_text(hrc.BILLION_LAUGHS)


def under_alias_bound(path, variants):
    """The variants file with a variant whose aliases expand to about 19,000 items (the bound is 20,000)."""
    text = variants.read_text()
    text += "x-anchors:\n  a: &a [" + ", ".join(["1"] * 130) + "]\n  b: &b [" + ", ".join(["*a"] * 140) + "]\n"
    path.write_text(text)


def valid_manifest(path, limit=MiB - 200):
    line = "0" * 64 + "  " + "p" * 100 + "\n"
    path.write_text("".join(line.replace("p" * 6, f"{i:06d}", 1) for i in range(limit // len(line))))


def cases(root):
    """[(reader, legitimate (argv, setup), [(hostile name, setup)])]; a setup(run dir) makes the input."""
    out = "{ROOT}/out"

    def copy(kind):
        return lambda: shutil.copytree(RUNS / LARGEST[kind], root / "runs" / LARGEST[kind], dirs_exist_ok=True)

    run = lambda kind: root / "runs" / LARGEST[kind]  # noqa: E731
    rounds = json.loads((RUNS / LARGEST["rounds.json"] / "rounds.json").read_text())
    remeasure = {"target": "metal", "round": 1, "job": "memcpy", "host": "localhost", "status": "measured again",
                 "shift-pct": 46.7}
    return [
        ("rounds.json (noise)", ["noise", run("rounds.json")], copy("rounds.json"), [
            ("16 MiB of long strings", lambda: long_strings(run("rounds.json") / "rounds.json")),
            ("the most remeasured entries the bounds let through",
             lambda: many_values(run("rounds.json") / "rounds.json", rounds, "remeasured", remeasure)),
            ("200 MB sparse", lambda: sparse(run("rounds.json") / "rounds.json")),
        ]),
        ("verify-plan.json (lab verify)", ["lab", "verify", run("verify-plan.json"), "--write", out],
         copy("verify-plan.json"), [
            ("16 MiB of long strings", lambda: long_strings(run("verify-plan.json") / "verify-plan.json")),
            ("200 MB sparse", lambda: sparse(run("verify-plan.json") / "verify-plan.json")),
        ]),
        ("verdicts.json (report)", ["report", run("verdicts.json"), "--out", out], copy("verdicts.json"), [
            ("16 MiB of long strings", lambda: long_strings(run("verdicts.json") / "verdicts.json")),
        ]),
        ("verifications.json (report)", ["report", run("verifications.json"), "--out", out],
         copy("verifications.json"), [
            ("16 MiB of long strings", lambda: long_strings(run("verifications.json") / "verifications.json")),
        ]),
        ("MANIFEST~base.sha256 (pr-comment --ab)", ["pr-comment", "--ab", run("ab")], copy("ab"), [
            ("1 MiB of valid lines", lambda: valid_manifest(run("ab") / "MANIFEST~base.sha256")),
            ("200 MB sparse", lambda: sparse(run("ab") / "MANIFEST~base.sha256")),
        ]),
        ("rounds.json of an A/B run (pr-comment --ab)", ["pr-comment", "--ab", run("ab")], copy("ab"), [
            ("16 MiB of long strings", lambda: long_strings(run("ab") / "rounds.json")),
        ]),
        ("variants.yml (lab variants guests)", ["lab", "variants", "guests", root / "variants.yml"],
         lambda: shutil.copy(REPO / "vm-templates" / "variants.yml", root / "variants.yml"), [
            ("aliases expanding to 18,000 items (the schema then refuses the key)", lambda: under_alias_bound(root / "variants.yml",
                                                                       REPO / "vm-templates" / "variants.yml")),
            ("a 372-byte alias bomb", lambda: nested_bomb(root / "variants.yml")),
            ("200 MB sparse", lambda: sparse(root / "variants.yml")),
        ]),
        ("history index (history)", ["--results-dir", root / "hist", "history"],
         lambda: (shutil.copytree(RUNS, root / "hist" / "runs", dirs_exist_ok=True),
                  peak(["--results-dir", root / "hist", "history"], root)), [
            ("rows that do not decode", lambda: _corrupt(root / "hist" / ".index.sqlite",
                                                         "UPDATE tracks SET median = x'000102'")),
            ("not a database", lambda: (root / "hist" / ".index.sqlite").write_bytes(b"\x00" * 4 * MiB)),
        ]),
    ]


def _corrupt(path, statement):
    import sqlite3
    db = sqlite3.connect(path)
    db.execute(statement)
    db.commit()
    db.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=float, default=2.0, help="largest hostile/legitimate peak ratio allowed")
    ap.add_argument("--only", default="", help="only the readers whose name contains this")
    a = ap.parse_args()
    global RUNS
    RUNS = archived_runs.results_dir() / "runs"
    worst, failed = 0.0, []
    with tempfile.TemporaryDirectory(prefix="vmparity-record-memory-") as tmp:
        root = Path(tmp)
        print(f"{'reader / input':72} {'MB':>6} {'ratio':>6} {'exit':>4}")
        for reader, argv, setup, hostile in cases(root):
            if a.only not in reader:
                continue
            argv = [str(x).replace("{ROOT}", str(root)) for x in argv]
            setup()
            legit, code = peak(argv, root)
            print(f"{reader + ': largest legitimate':72} {legit:6.0f} {1:6.2f} {code:>4}", flush=True)
            for name, make in hostile:
                setup()  # the legitimate input back, then made hostile
                make()
                mb, code = peak(argv, root)
                ratio = mb / legit
                worst = max(worst, ratio)
                print(f"{'  ' + name:72} {mb:6.0f} {ratio:6.2f} {code:>4}", flush=True)
                if ratio > a.limit:
                    failed.append(f"{reader}: {name}: {ratio:.2f}x")
            shutil.rmtree(root / "runs", ignore_errors=True)
    print(f"largest ratio {worst:.2f}x (limit {a.limit}x)")
    if failed:
        print("over the limit: " + "; ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
