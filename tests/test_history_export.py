"""vmparity export: Bencher Metric Format and github-action-benchmark JSON, in the shapes those tools read."""

import json

import numpy as np
import resultgen

from vmparity.results.file import parse_file


def run_dir(tmp_path):
    d = tmp_path / "results" / "runs" / "r1"
    d.mkdir(parents=True)
    for target, cfg in (("metal", resultgen.METAL), ("guest-nosmt", resultgen.NOSMT_GUEST)):
        head = [f"{k}: {v}".rstrip() for k, v in cfg.items()] + ["commit: abc", "Unit B/s better=higher"]
        body = [f"BenchmarkMemcpy/size=1024 1000 {20 + i} ns/op {1e9 + i} B/s" for i in range(10)]
        (d / f"{target}.txt").write_text("\n".join(head + body) + "\n")
    return d


def test_bmf_is_benchmark_measure_value_with_the_median_ci(tmp_path, cli):
    d = run_dir(tmp_path)
    r = cli("export", "--format", "bmf", d)
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert set(doc) == {"metal: BenchmarkMemcpy/size=1024", "guest-nosmt: BenchmarkMemcpy/size=1024"}
    m = doc["metal: BenchmarkMemcpy/size=1024"]
    assert set(m) == {"ns/op", "B/s"}
    vals = parse_file(d / "metal.txt").benchmarks["BenchmarkMemcpy/size=1024"].values[0]
    assert m["ns/op"]["value"] == np.quantile(vals, 0.5, method="median_unbiased")
    assert m["ns/op"]["lower_value"] <= m["ns/op"]["value"] <= m["ns/op"]["upper_value"]
    for measures in doc.values():  # Bencher's schema: every metric has a number "value", bounds optional
        for metric in measures.values():
            assert set(metric) <= {"value", "lower_value", "upper_value"} and isinstance(metric["value"], float)
    r = cli("export", "--format", "bmf", "--target", "metal", d)
    assert list(json.loads(r.out)) == ["BenchmarkMemcpy/size=1024"]


def test_gab_holds_one_direction_per_file(tmp_path, cli):
    d = run_dir(tmp_path)
    r = cli("export", "--format", "gab", "--target", "metal", d)
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert [(e["name"], e["unit"]) for e in doc] == [("BenchmarkMemcpy/size=1024 (ns/op)", "ns/op")]
    assert set(doc[0]) == {"name", "unit", "value", "range", "extra"} and doc[0]["range"].startswith("± ")
    assert "commit abc" in doc[0]["extra"] and "1 measurement(s) of other units left out" in r.err
    up = json.loads(cli("export", "--format", "gab", "--better", "higher", d).out)
    assert sorted(e["name"] for e in up) == ["guest-nosmt: BenchmarkMemcpy/size=1024 (B/s)",
                                             "metal: BenchmarkMemcpy/size=1024 (B/s)"]


def test_export_bad_input_exits_2(tmp_path, cli):
    d = run_dir(tmp_path)
    r = cli("export", "--format", "bmf", "--target", "nowhere", d)
    assert r.code == 2 and "--target" in r.err and "metal" in r.err
    r = cli("export", "--format", "bmf", tmp_path / "missing")
    assert r.code == 2 and "missing" in r.err
