"""vmparity explain: each DESIGN.md rule fires on the fingerprint it is about, with evidence."""

import json
import random

import pytest

import golden
import resultgen
from vmparity.decide import explain
from vmparity.results import inputs
from vmparity import table
from vmparity.errors import InputError


@pytest.fixture
def in_testdata(testdata, monkeypatch):
    monkeypatch.chdir(testdata)


def explained(cli, a, b):
    r = cli("explain", a, b, "--format", "json")
    assert r.code == 0, r.err
    return json.loads(r.out)


def rule_rows(data, rule):
    return [row for e in data["explanations"] if e["rule"] == rule for row in e["rows"]]


def test_nt_threshold_explains_sizes_between_the_thresholds(cli, in_testdata):
    data = explained(cli, "run-a/metal.txt", "run-a/guest-nosmt.txt")
    sizes = {int(r["benchmark"].rsplit("=", 1)[1]) for r in rule_rows(data, "nt-threshold")}
    assert sizes == {1048576, 4194304, 16777216}  # 0xc0000 < size <= 0x1800000
    e = next(e for e in data["explanations"] if e["rule"] == "nt-threshold")
    assert "GLIBC_TUNABLES=glibc.cpu.x86_non_temporal_threshold=0x1800000" in e["fix"]
    assert "threads='2'" in e["fix"] and "topoext" in e["fix"]
    assert {"key": "nt-threshold", "a": "0x1800000", "b": "0xc0000"} in e["evidence"]
    assert "guest-nosmt" in e["cause"]


def test_vdso_fallback_covers_clock_and_clock_per_id_snowflake(cli, in_testdata):
    data = explained(cli, "run-a/metal.txt", "run-a/guest-hpet.txt")
    names = {r["benchmark"] for r in rule_rows(data, "vdso-fallback")}
    assert "BenchmarkClock/clock=monotonic/path=vdso" in names
    assert all("impl=ticker" not in n for n in names)
    assert any("impl=twitter" in n for n in names)
    e = next(e for e in data["explanations"] if e["rule"] == "vdso-fallback")
    assert {"key": "clocksource", "a": "tsc", "b": "hpet"} in e["evidence"]


def test_cpu_quota_explains_procs_above_the_quota(cli, in_testdata):
    data = explained(cli, "run-a/metal.txt", "run-a/container-quota.txt")
    rows = rule_rows(data, "cpu-quota")
    assert rows and all(int(r["benchmark"].rsplit("-", 1)[1]) > 2 for r in rows)
    assert "GOMAXPROCS=2" in next(e for e in data["explanations"] if e["rule"] == "cpu-quota")["fix"]


def test_unexplained_rows_are_listed_never_dropped(cli, in_testdata):
    data = explained(cli, "run-a/metal.txt", "run-b/metal.txt")
    assert [r["benchmark"] for r in data["unexplained"]] == ["BenchmarkClock/clock=monotonic/path=vdso"]
    # every significant row of compare shows up in explain, explained or not
    cmp = json.loads(cli("compare", "run-a/metal.txt", "run-a/guest-hpet.txt", "--format", "json").out)
    sig = {(r["benchmark"], r["unit"]) for r in cmp["rows"] for d in r["deltas"].values() if d["significant"]}
    data = explained(cli, "run-a/metal.txt", "run-a/guest-hpet.txt")
    seen = {(r["benchmark"], r["unit"]) for e in data["explanations"] for r in e["rows"]}
    seen |= {(r["benchmark"], r["unit"]) for r in data["unexplained"]}
    assert seen == sig


def test_pmu_and_broad_rules(cli, tmp_path):
    import resultgen as g
    a = dict(g.METAL)
    b = dict(g.METAL, **{"target": "other", "pmu": "no", "pmu-reason": "perf_event_paranoid=3", "cpu": "Intel Xeon"})
    body = {"BenchmarkAlign/pad=0": {"ns/iter": [10.0, 10.1, 10.2, 10.0, 10.1, 10.2]}}
    extra = {"BenchmarkAlign/pad=0": {"ns/iter": [20.0, 20.1, 20.2, 20.0, 20.1, 20.2], "insns/iter": [5.0] * 6}}
    g.write(tmp_path / "b.txt", b, body)
    g.write(tmp_path / "a.txt", a, extra)
    r = cli("explain", tmp_path / "a.txt", tmp_path / "b.txt", "--format", "json")
    data = json.loads(r.out)
    by_rule = {e["rule"]: e for e in data["explanations"]}
    assert by_rule["pmu-missing"]["rows"][0]["only-on"] == "metal"
    assert "perf_event_paranoid=3" in by_rule["pmu-missing"]["cause"]
    assert by_rule["cpu-model"]["rows"][0]["unit"] == "ns/iter"  # nothing narrower: the CPU differs


@pytest.mark.parametrize("fmt,ext", [("text", "txt"), ("markdown", "md"), ("json", "json")])
def test_explain_golden(cli, in_testdata, fmt, ext):
    r = cli("explain", "run-a/metal.txt", "run-a/guest-nosmt.txt", "--format", fmt)
    assert r.code == 0, r.err
    golden.check(f"explain-metal-vs-nosmt.{ext}", r.out)


def test_explain_any_pair_names_the_absent_keys_and_check_refuses_them(cli, tmp_path):
    (tmp_path / "x.txt").write_text("target: x\nBenchmarkX 1 1 ns/op\n")
    r = cli("explain", tmp_path / "x.txt", tmp_path / "x.txt")
    assert r.code == 0 and "Absent fingerprint keys" in r.out and "nt-threshold: memcpy switches" in r.out
    r = cli("check", tmp_path / "x.txt")
    assert r.code == 2 and "missing required key" in r.err and "x.txt:2" in r.err


def test_explain_different_cpu_and_goos(cli, tmp_path):
    rows = [f"BenchmarkX-2 1000 {v} ns/op" for v in (10, 10.1, 10.2, 9.9, 10.05, 10.15)]
    (tmp_path / "a.txt").write_text("goos: linux\ngoarch: amd64\ncpu: AMD EPYC\n" + "\n".join(rows) + "\nPASS\n")
    slow = [f"BenchmarkX-2 1000 {2 * v} ns/op" for v in (10, 10.1, 10.2, 9.9, 10.05, 10.15)]
    (tmp_path / "b.txt").write_text("goos: darwin\ngoarch: arm64\ncpu: Apple M2\n" + "\n".join(slow) + "\n")
    r = cli("explain", tmp_path / "a.txt", tmp_path / "b.txt")
    assert r.code == 0, r.err
    assert "[cpu-model] different machine" in r.out and "goos linux vs darwin" in r.out and "cpu AMD EPYC vs Apple M2" in r.out


def test_bad_rules_file_is_named(tmp_path):
    p = tmp_path / "rules.yaml"
    p.write_text("- id: r\n  title: t\n  when: [{colour: red}]\n  cause: c\n  fix: f\n")
    with pytest.raises(InputError, match="unknown condition.*colour"):
        explain.load_rules(p)


@pytest.mark.parametrize("cause", ["{{ A.cpu", "{{ A.cpu | shout }}", "{% if A.cpu is loud %}x{% endif %}"])
def test_a_template_that_would_not_compile_is_refused_when_the_rules_are_loaded(tmp_path, cause):
    """Templates are compiled when first rendered (rule_template.py): what compiling would refuse
    is refused at load all the same, not when a run first matches the rule."""
    p = tmp_path / "rules.yaml"
    p.write_text(f"- id: r\n  title: t\n  when: [{{unit: ns}}]\n  cause: '{cause}'\n  fix: f\n")
    with pytest.raises(InputError, match="r: template error"):
        explain.load_rules(p)


@pytest.mark.parametrize("value", ["ten", 0, -5, True])
def test_a_bad_pct_below_is_named(tmp_path, value):
    p = tmp_path / "rules.yaml"
    p.write_text(f"- id: r\n  title: t\n  when: [{{pct-below: {value}}}]\n  cause: c\n  fix: f\n")
    with pytest.raises(InputError, match="pct-below.*expected a percentage above 0"):
        explain.load_rules(p)


def test_real_benchrun_pair_is_explained_by_the_nt_threshold(cli, testdata):
    """benchrun on one host, once with GLIBC_TUNABLES lowering the threshold to 0x40000."""
    data = explained(cli, testdata / "benchrun" / "metal.txt", testdata / "benchrun" / "low-nt.txt")
    e = next(e for e in data["explanations"] if e["rule"] == "nt-threshold")
    assert "0x40000" in e["cause"] and "tunables differ" in e["cause"]
    sizes = {int(r["benchmark"].rsplit("=", 1)[1]) for r in e["rows"]}
    assert sizes and all(0x40000 < s <= 0xC000000 for s in sizes)
    assert not [r for r in data["unexplained"] if "size=" in r["benchmark"] and int(r["benchmark"].rsplit("=", 1)[1]) > 0x40000]


def test_real_smoke_file_has_a_complete_fingerprint(testdata):
    from vmparity.results.file import parse_file
    rf = parse_file(testdata / "benchrun" / "smoke-all.txt").require_fingerprint()
    assert {"BenchmarkStorefwd", "BenchmarkFence", "BenchmarkAlign", "BenchmarkSnowflake"} <= {n.split("/")[0] for n in rf.benchmarks}


def test_rows_a_subset_run_did_not_select_are_not_measured_there_not_unexplained(tmp_path, cli):
    """A `make repro` container runs only the jobs its seeds read (benchrun --only, the header's `only:`): the
    clock and snowflake rows metal has are not differences of the environments, and no rule may claim them."""
    rng = random.Random(8)
    metal = dict(resultgen.METAL)
    box = dict(resultgen.METAL, target="container-nolimit", only="(?:^memcpy-(static|dynamic)/)",
               **{"target-kind": "container"})
    benches = resultgen.suite(metal, rng, count=6)
    subset = {k: v for k, v in resultgen.suite(box, rng, count=6).items() if k.startswith("BenchmarkMemcpy/")}
    subset[next(iter(subset))].pop("B/s")  # a unit missing inside a benchmark it did run: still one-sided
    a = resultgen.write(tmp_path / "metal.txt", metal, benches)
    b = resultgen.write(tmp_path / "container-nolimit.txt", box, subset)
    t = table.build(inputs.load_all([a, b]))
    res = explain.explain(t, t.configs, explain.load_rules())
    assert {explain.family(f.name) for f in res.not_selected} == {"BenchmarkClock", "BenchmarkSnowflake"}
    assert res.subset_runs == {"container-nolimit": box["only"]}
    claimed = [f for e in res.explanations for f in e.rows] + res.unexplained
    assert not [f for f in claimed if not f.name.startswith("BenchmarkMemcpy/")]
    assert [(f.name, f.unit) for f in res.unexplained if f.side] == [(next(iter(subset)), "B/s")]
    r = cli("explain", a, b)
    assert r.code == 0 and "not measured on container-nolimit (its run selected only: (?:^memcpy-" in r.out
    assert "BenchmarkClock (5 row(s)), BenchmarkSnowflake (8 row(s))" in r.out
    md = cli("explain", a, b, "--format", "markdown").out
    assert "Not measured on `container-nolimit`" in md
    doc = json.loads(cli("explain", a, b, "--format", "json").out)
    assert doc["subset-runs"] == {"container-nolimit": box["only"]} and len(doc["not-selected"]) == 13
