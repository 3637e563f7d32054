"""The CPU-quota rules: CFS throttling (any benchmark) and GOMAXPROCS above the quota (snowflake)."""

import random

import resultgen
from vmparity.decide import explain
from vmparity.results import inputs
from vmparity import table


def _pair(tmp_path, throttled):
    metal = dict(resultgen.METAL, **{"cpu-throttled-periods": "0 of 0", "cpu-throttled-ms": "0"})
    quota = dict(resultgen.METAL, target="container-quota", **{"target-kind": "container", "cpu-quota": "1",
                 "cpu-throttled-periods": f"{throttled} of 900", "cpu-throttled-ms": str(throttled * 40)})
    rng = random.Random(5)
    files = []
    for cfg, slow in ((metal, 1.0), (quota, 1.6)):
        benches = resultgen.suite(cfg, rng, count=6)
        for name, units in benches.items():
            if name.startswith("BenchmarkMemcpy/"):  # a single-threaded benchmark, slowed by throttling
                units["ns/op"] = [v * slow for v in units["ns/op"]]
                units["B/s"] = [v / slow for v in units["B/s"]]
        files.append(resultgen.write(tmp_path / f"{cfg['target']}.txt", cfg, benches))
    t = table.build(inputs.load_all(files))
    return explain.explain(t, t.configs, explain.load_rules())


def test_throttling_explains_the_quota_containers_slowdown(tmp_path):
    res = _pair(tmp_path, throttled=240)
    by_rule = {e.rule["id"]: e for e in res.explanations}
    assert "cpu-throttling" in by_rule and "cpu-quota" in by_rule
    e = by_rule["cpu-throttling"]
    assert any(f.name.startswith("BenchmarkMemcpy/") for f in e.rows)
    assert "240 of 900" in e.cause and "GOMAXPROCS=1" in e.fix and "--cpuset-cpus" in e.fix
    assert not [f for f in res.unexplained if f.name.startswith("BenchmarkMemcpy/")]


def test_no_throttling_no_throttling_explanation(tmp_path):
    res = _pair(tmp_path, throttled=0)
    assert "cpu-throttling" not in {e.rule["id"] for e in res.explanations}
    assert [f for f in res.unexplained if f.name.startswith("BenchmarkMemcpy/")]
