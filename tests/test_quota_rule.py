"""The CPU-quota rules: CFS throttling (the jobs it stopped) and GOMAXPROCS above the quota (snowflake)."""

import random

import resultgen
from vmparity.decide import explain
from vmparity.results import inputs, throttled_jobs
from vmparity import table


def _pair(tmp_path, throttled, jobs=None):
    """metal against a quota container whose memcpy rows are 1.6x slower; jobs: its cpu-throttled-jobs
    value (None: the key absent, as from a benchrun before it)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    metal = dict(resultgen.METAL, **{"cpu-throttled-periods": "0 of 0", "cpu-throttled-ms": "0"})
    quota = dict(resultgen.METAL, target="container-quota", **{"target-kind": "container", "cpu-quota": "1",
                 "cpu-throttled-periods": f"{throttled} of 900", "cpu-throttled-ms": str(throttled * 40)})
    if jobs is not None:
        metal["cpu-throttled-jobs"] = "none"
        quota["cpu-throttled-jobs"] = jobs
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


def test_throttling_claims_only_the_rows_of_the_jobs_it_stopped(tmp_path):
    """benchrun says which jobs the quota stopped: the rule claims their rows and names them, and leaves a
    slower row of a job that ran unthrottled to the other rules (here: unexplained)."""
    stopped = _pair(tmp_path / "stopped", throttled=240,
                    jobs="memcpy-static/tunable=default 200 of 300 (8000 ms); snowflake 40 of 90 (1600 ms)")
    e = {e.rule["id"]: e for e in stopped.explanations}["cpu-throttling"]
    claimed = {f.name for f in e.rows}
    assert claimed and all(n.startswith("BenchmarkMemcpy/link=static/tunable=default/") for n in claimed)
    # the text names the jobs of the rows it claims, not snowflake's
    assert e.cause.count("these rows' jobs among them: memcpy-static/tunable=default 200 of 300 (8000 ms):") == 1
    assert "snowflake 40" not in e.cause
    assert not [f for f in stopped.unexplained if f.name.startswith("BenchmarkMemcpy/")]

    elsewhere = _pair(tmp_path / "elsewhere", throttled=40, jobs="snowflake 40 of 90 (1600 ms)")
    assert "cpu-throttling" not in {e.rule["id"] for e in elsewhere.explanations}
    assert [f for f in elsewhere.unexplained if f.name.startswith("BenchmarkMemcpy/")]


def test_a_run_that_could_not_read_per_job_throttling_is_read_as_before(tmp_path):
    res = _pair(tmp_path, throttled=240, jobs="unknown (no cpu.stat)")
    e = {e.rule["id"]: e for e in res.explanations}["cpu-throttling"]
    assert any(f.name.startswith("BenchmarkMemcpy/") for f in e.rows) and "while these benchmarks ran" in e.cause


def test_a_job_stopped_for_a_sliver_of_its_time_is_not_blamed(tmp_path):
    """7 ms of stops in a job that ran 2.3 s (0.3 %) cannot make its rows 60 % slower: the rule leaves
    them (unexplained here); the same stops in a job that ran 0.5 s (1.4 %) are blamed, and an entry
    from a benchrun that did not say how long the job ran is read as before (blamed)."""
    def claimed(name, jobs):
        res = _pair(tmp_path / name, throttled=240, jobs=jobs)
        e = {e.rule["id"]: e for e in res.explanations}.get("cpu-throttling")
        return {f.name for f in e.rows if f.name.startswith("BenchmarkMemcpy/")} if e else set()

    assert not claimed("sliver", "memcpy-static/tunable=default 6 of 23 (7 ms of 2300 ms)")
    assert claimed("share", "memcpy-static/tunable=default 6 of 23 (7 ms of 500 ms)")
    assert claimed("older", "memcpy-static/tunable=default 6 of 23 (7 ms)")


def test_the_per_job_value_reads_back_and_a_malformed_one_says_nothing():
    v = "snowflake 3 of 9 (12 ms of 900 ms); memcpy-static/tunable=min 0 of 4 (0 ms of 400 ms)"
    assert throttled_jobs.parse(v) == {"snowflake": (3, 9, 12, 900), "memcpy-static/tunable=min": (0, 4, 0, 400)}
    assert throttled_jobs.stopped_pct(v, "snowflake") == 100 * 12 / 900
    assert throttled_jobs.stopped_pct(v, "clock") == 0.0
    assert throttled_jobs.parse("none") == {} and throttled_jobs.summed(["none", "none"]) == "none"
    assert throttled_jobs.summed([v, "snowflake 1 of 1 (1 ms of 100 ms)"]) == "snowflake 4 of 10 (13 ms of 1000 ms)"
    # a benchrun before the wall time: the entry reads, its share is unknown, and so is any sum with it
    older = "snowflake 1 of 1 (1 ms)"
    assert throttled_jobs.parse(older) == {"snowflake": (1, 1, 1, None)}
    assert throttled_jobs.stopped_pct(older, "snowflake") is None
    assert throttled_jobs.summed([v, older]) == "snowflake 4 of 10 (13 ms)"
    for bad in ("snowflake lots", "unknown (no cpu.stat)", "", None, "snowflake 3 of 9 (12 ms);",
                "snowflake 3 of 9 (12 ms of)"):
        assert throttled_jobs.parse(bad) is None and throttled_jobs.stopped_pct(bad, "snowflake") is None
