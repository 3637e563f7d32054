"""vmparity compare and benchstat read the same files into the same rows,
with the same `~`/significant verdicts and the same deltas.

The files are real `go test -bench` output (tests/testdata/gotest/, made
with `go test -run '^$' -bench … -benchmem -count 6 -benchtime 20ms strconv
unicode/utf8`, PASS/ok lines and all; sub-*.txt from `-bench BenchmarkFullRune
-cpu 1,2`), a file whose configuration changes part-way (notes.txt: `note:
before` + old.txt, `note: after` + new.txt) and files with custom units and
Unit lines (units-*.txt).
"""

import json

import pytest

import benchstat_csv
from vmparity.query.filter import tidy_unit

SCALE = {"ns/op": 1e-9, "MB/s": 1e6}  # benchstat shows ns/op in sec/op and MB/s in B/s

CASES = {
    "go test output": ["old.txt", "new.txt"],
    "sub-benchmarks and gomaxprocs": ["sub-old.txt", "sub-new.txt"],
    "configuration changing part-way": ["notes.txt"],
    "compare two configurations of one file": ["--col", "note", "notes.txt"],
    "rows by name, columns by gomaxprocs": ["--col", "/gomaxprocs", "--row", ".name", "sub-old.txt"],
    "columns by sub-benchmark": ["--col", "/gomaxprocs", "sub-new.txt"],
    "filter on a sub-benchmark and a unit": ["--filter", "/gomaxprocs:2 .unit:ns/op", "sub-old.txt", "sub-new.txt"],
    "filter with OR, regexp and negation": ["--filter", ".name:(AppendQuote OR /Valid/) -pkg:unicode/utf8", "old.txt", "new.txt"],
    "fixed column order": ["--col", "note@(after before)", "notes.txt"],
    "custom units and Unit lines": ["units-old.txt", "units-new.txt"],
    "one table for both configurations": ["--table", "", "notes.txt"],
    "a configuration key ignored": ["--ignore", "note", "notes.txt"],
    "tables by sub-benchmark": ["--table", "/gomaxprocs", "sub-old.txt", "sub-new.txt"],
    "gomaxprocs ignored: its cells pooled": ["--ignore", "/gomaxprocs", "sub-old.txt", "sub-new.txt"],
    "tables by package, columns by file": ["--table", "pkg", "old.txt", "new.txt"],
}


def ours(cli, args):
    r = cli("compare", *args, "--format", "json")
    assert r.code == 0, r.err
    data = json.loads(r.out)
    rows = []
    for row in data["rows"]:
        name = row["benchmark"][len("Benchmark"):]
        for col, cell in row["columns"].items():
            d = row["deltas"].get(col)
            delta = None
            if d is not None:
                delta = "~" if not d["significant"] else f"{d['pct']:+.2f}%"
            rows.append((name, tidy_unit(row["unit"]), col, cell["median"] * SCALE.get(row["unit"], 1), delta))
    return rows


def normalise(rows):
    """Sorted, with 0% written one way (benchstat prints `0.00%` for exact units)."""
    out = []
    for name, unit, col, centre, delta in rows:
        if delta in ("0.00%", "+0.00%", "-0.00%"):
            delta = "+0.00%"
        out.append((name, unit, col, delta, float(f"{centre:.6g}")))
    return sorted(out)


@pytest.mark.parametrize("args", CASES.values(), ids=CASES.keys())
def test_same_rows_verdicts_and_deltas_as_benchstat(cli, benchstat, testdata, monkeypatch, args):
    d = testdata / "gotest"
    monkeypatch.chdir(d)
    bs_args = [a.replace("--", "-", 1) if a.startswith("--") else a for a in args]
    theirs = normalise(benchstat_csv.run(benchstat, bs_args, d))
    mine = normalise(ours(cli, args))
    assert theirs, "benchstat printed no rows"
    assert [r[:4] for r in mine] == [r[:4] for r in theirs]
    for a, b in zip(mine, theirs):
        assert a[4] == pytest.approx(b[4], rel=1e-5), (a, b)


def test_unknown_direction_is_compared_not_judged(cli, testdata):
    d = testdata / "gotest"
    r = cli("compare", d / "units-old.txt", d / "units-new.txt", "--format", "json")
    rows = {(x["benchmark"], x["unit"]): next(iter(x["deltas"].values())) for x in json.loads(r.out)["rows"]}
    assert rows[("BenchmarkParse/size=small-2", "GB/s")]["verdict"] == "changed"
    assert rows[("BenchmarkIndex-2", "hits/op")]["verdict"] == "better"  # declared better=higher
    assert rows[("BenchmarkParse/size=small-2", "ns/op")]["verdict"] == "worse"
    assert "Unit GB/s better=higher" in r.err


def test_bad_projection_and_filter_are_usage_errors(cli, testdata):
    f = testdata / "gotest" / "old.txt"
    for args, expected in [(["--col", "x@("], "--col"), (["--filter", "(pkg:strconv"], "--filter"),
                           (["--filter", ".name:/(/"], "regular expression"), (["--row", ".unit"], ".unit can only"),
                           (["--filter", "pkg:nothing"], "no benchmark results")]:
        r = cli("compare", f, *args)
        assert r.code == 2 and expected in r.err and "Traceback" not in r.err, (args, r.err)
