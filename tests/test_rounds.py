"""Interleaved rounds: the schedule and the merge of round files (vmparity.lab.rounds)."""

import json
import random
from types import SimpleNamespace

import pytest

import resultgen
from vmparity.errors import InputError
from vmparity.lab import rounds
from vmparity.report import run_quality
from vmparity.results.file import parse_file

TARGETS = ["metal", "metal-aa", "guest-nosmt", "guest-hpet-clock", "container-nolimit", "container-quota"]


def test_every_target_once_per_round_and_the_order_is_shuffled():
    plan = rounds.schedule(TARGETS, 5, seed=42)
    assert len(plan) == 5
    for order in plan:
        assert sorted(order) == sorted(TARGETS)  # one at a time, each once
    assert len({tuple(o) for o in plan}) > 1  # not the same order every round
    assert rounds.schedule(TARGETS, 5, seed=42) == plan  # recorded seed reproduces it
    assert rounds.schedule(TARGETS, 5, seed=43) != plan


def test_each_target_leads_a_round_about_equally_often():
    firsts = [o[0] for o in rounds.schedule(TARGETS, 600, seed=7)]
    for t in TARGETS:
        assert 60 < firsts.count(t) < 140, (t, firsts.count(t))


def test_a_capped_target_takes_part_in_the_first_rounds_only():
    plan = rounds.schedule(TARGETS, 5, seed=9, limits={"guest-nosmt": 3, "guest-hpet-clock": 3})
    assert [("guest-nosmt" in o) for o in plan] == [True, True, True, False, False]
    assert all("metal" in o and "metal-aa" in o for o in plan)
    with pytest.raises(InputError):
        rounds.schedule(TARGETS, 5, seed=9, limits={"metal": 0})


def test_schedule_refuses_duplicates_and_no_rounds():
    with pytest.raises(InputError):
        rounds.schedule(["metal", "metal"], 3, 1)
    with pytest.raises(InputError):
        rounds.schedule(["metal"], 0, 1)


def test_rounds_for_profile():
    assert rounds.rounds_for("quick") == 10 and rounds.rounds_for("quick", 7) == 7
    with pytest.raises(InputError):
        rounds.rounds_for("fast")


def _stage(tmp_path, n_rounds, targets=("metal", "container-quota"), drop=(), clocksource_at=None, host="localhost"):
    staging = tmp_path / "run"
    plan = rounds.schedule(list(targets), n_rounds, seed=3)
    for k, order in enumerate(plan, 1):
        d = staging / "rounds" / str(k)
        d.mkdir(parents=True)
        (d / f"host-{host}.json").write_text(json.dumps(
            {"host": host, "round": k, "seed": 3, "order": order,
             "hygiene": {"loadavg": "0.1 0.1 0.1", "busy-processes": "none"},
             "timings": {t: {"start": f"2026-11-23 10:0{k}:00", "end": f"2026-11-23 10:0{k}:30"} for t in order}}))
        for t in order:
            if (t, k) in drop:
                continue
            cfg = dict(resultgen.METAL, target=t, count="1")
            cfg["cpu-throttled-periods"] = f"{k} of 100"
            cfg["cpu-throttled-ms"] = str(10 * k)
            # the quota stopped snowflake in every round, memcpy in round 2 only
            cfg["cpu-throttled-jobs"] = (f"snowflake {k} of 50 ({10 * k} ms of 5000 ms)"
                                         + ("; memcpy-static/tunable=min 1 of 20 (3 ms of 2000 ms)" if k == 2 else ""))
            cfg["fence-overhead-llc-lock"] = f"{k}.0%"  # a measurement of this repetition, not fingerprint
            cfg["core-clock"] = f"3.{k}93-4.093 GHz (dependent add chain)"  # the clocks this repetition saw
            # the TSC rate each process measured moves in its last digit; that it is usable is fingerprint
            cfg["fence-tsc"] = "usable (cycles/iter are TSC reference cycles)"
            cfg["fence-tsc-ghz"] = f"2.59{6 + k % 2}0"
            if clocksource_at and k >= clocksource_at:
                cfg["clocksource"] = "hpet"
            resultgen.target_file(d, cfg, seed=k, count=1)
    return staging


def test_merge_gives_one_benchstat_file_per_target_with_every_round(tmp_path):
    staging = _stage(tmp_path, 4)
    merged, missing = rounds.merge(staging)
    assert merged == ["container-quota", "metal"] and missing == {}
    rf = parse_file(staging / "metal.txt")
    assert rf.config["count"] == "4" and rf.config["rounds"].startswith("4 ")
    assert rf.config["cpu-throttled-ms"] == str(10 + 20 + 30 + 40)
    assert rf.config["cpu-throttled-periods"] == "10 of 400"
    assert rf.config["cpu-throttled-jobs"] == ("snowflake 10 of 200 (100 ms of 20000 ms); "
                                               "memcpy-static/tunable=min 1 of 20 (3 ms of 2000 ms)")
    assert "fingerprint-changed" not in rf.config  # per job, per repetition: summed, not a change of environment
    assert all(len(v) == 4 for b in rf.benchmarks.values() for v in b.values)
    rec = json.loads((staging / "rounds.json").read_text())
    assert rec["schema"] == rounds.SCHEMA and rec["missing-rounds"] == {}
    host = rec["hosts"]["localhost"]
    assert [r["round"] for r in host] == [1, 2, 3, 4] and host[0]["seed"] == 3
    assert host[0]["timings"]["metal"]["start"].startswith("2026-11-23")


def test_merge_records_a_fingerprint_that_moved_and_missing_rounds(tmp_path):
    staging = _stage(tmp_path, 3, drop={("container-quota", 3)}, clocksource_at=2)
    (staging / "rounds" / "failed-localhost.json").write_text(json.dumps(
        {"host": "localhost", "failed": {"container-quota": {"round": 3, "rounds_done": 2, "msg": "container died"}}}))
    merged, missing = rounds.merge(staging)
    assert missing == {"container-quota": [3]}
    rf = parse_file(staging / "metal.txt")
    assert rf.config["clocksource"] == "tsc" and rf.config["fingerprint-changed"] == "clocksource"
    rec = json.loads((staging / "rounds.json").read_text())
    assert rec["fingerprint-changed"]["metal"]["clocksource"] == ["tsc", "hpet", "hpet"]
    # the TSC rate moved in every round and is no change of environment; the report says each value once
    assert set(rec["fingerprint-changed"]["metal"]) == {"clocksource"}
    assert ("`metal`: `clocksource` changed during the run: `tsc` in 1 round → `hpet` in 2 rounds"
            in run_quality.hygiene(SimpleNamespace(run_dir=staging)))
    assert rec["partial"] and rec["failed"]["container-quota"]["msg"] == "container died"
    assert parse_file(staging / "container-quota.txt").config["count"] == "2"


def test_merge_names_a_broken_round_file(tmp_path):
    staging = _stage(tmp_path, 2)
    bad = staging / "rounds" / "2" / "metal.txt"
    bad.write_text(bad.read_text().split("Benchmark", 1)[0])
    with pytest.raises(InputError, match="round did not finish"):
        rounds.merge(staging)


def test_seed_for_is_stable():
    assert rounds.seed_for("2026-11-23T10-00-00Z-lab-quick") == rounds.seed_for("2026-11-23T10-00-00Z-lab-quick")
    assert isinstance(random.Random(rounds.seed_for("x")).random(), float)


def _ingest(cli, tmp_path, staging, run_id, *extra):
    files = sorted(staging.glob("*.txt"))
    return cli("--results-dir", tmp_path / "results", "ingest", "--run-id", run_id,
               "--rounds", staging / "rounds.json", *extra, *files)


def test_a_partial_run_is_stored_and_filled_in_without_touching_the_rest(tmp_path, cli):
    staging = _stage(tmp_path / "a", 3, targets=("metal", "metal-aa", "guest-nosmt"),
                     drop={("guest-nosmt", 2), ("guest-nosmt", 3)})
    (staging / "rounds" / "failed-localhost.json").write_text(json.dumps(
        {"host": "localhost", "failed": {"guest-nosmt": {"round": 2, "rounds_done": 1, "msg": "guest destroyed"}}}))
    rounds.merge(staging)
    r = _ingest(cli, tmp_path, staging, "run1")
    assert r.code == 0 and "the run is partial: failed guest-nosmt (round 2)" in r.out, r
    stored = tmp_path / "results" / "runs" / "run1"
    metal_before = (stored / "metal.txt").read_bytes()

    # a complete run cannot be "filled in"; a finished target cannot be replaced that way
    again = _stage(tmp_path / "b", 3, targets=("guest-nosmt", "metal"))
    rounds.merge(again)
    assert _ingest(cli, tmp_path, again, "run1", "--fill-in").code == 2

    fill = _stage(tmp_path / "c", 3, targets=("guest-nosmt",))
    rounds.merge(fill)
    r = _ingest(cli, tmp_path, fill, "run1", "--fill-in")
    assert r.code == 0, r
    rec = json.loads((stored / "rounds.json").read_text())
    assert rec["partial"] is False and rec["failed"] == {} and rec["missing-rounds"] == {}
    assert rec["filled-in"][0]["targets"] == ["guest-nosmt"]
    assert (stored / "metal.txt").read_bytes() == metal_before
    assert parse_file(stored / "guest-nosmt.txt").config["count"] == "3"
    assert _ingest(cli, tmp_path, fill, "run1", "--fill-in").code == 2  # no longer partial


def test_a_rack_host_down_at_the_start_is_recorded_and_filled_in_whole(tmp_path, cli):
    staging = _stage(tmp_path / "a", 2, targets=("metal-rack01", "metal-aa-rack01", "container-nolimit-rack01"),
                     host="rack01")
    (staging / "rounds" / "failed-rack02.json").write_text(json.dumps(
        {"host": "rack02", "failed": {}, "host-failed": {"round": 1, "msg": "ssh: Connection refused"}}))
    rounds.merge(staging)
    r = _ingest(cli, tmp_path, staging, "rack")
    assert r.code == 0 and "host rack02 failed in round 1: ssh: Connection refused" in r.out, r
    stored = tmp_path / "results" / "runs" / "rack"
    rack01 = {p.name: p.read_bytes() for p in stored.glob("*rack01*")}
    assert json.loads((stored / "rounds.json").read_text())["failed-hosts"] == {
        "rack02": {"round": 1, "msg": "ssh: Connection refused"}}

    # the host back: every target it measures is filled in, even those the run never saw
    fill = _stage(tmp_path / "b", 2, targets=("metal-rack02", "metal-aa-rack02", "container-nolimit-rack02"),
                  host="rack02")
    rounds.merge(fill)
    r = _ingest(cli, tmp_path, fill, "rack", "--fill-in")
    assert r.code == 0, r
    rec = json.loads((stored / "rounds.json").read_text())
    assert rec["partial"] is False and rec["failed-hosts"] == {}
    assert {p.name: p.read_bytes() for p in stored.glob("*rack01*")} == rack01
    assert (stored / "container-nolimit-rack02.txt").is_file()


def test_a_fill_in_may_not_replace_a_healthy_host(tmp_path, cli):
    staging = _stage(tmp_path / "a", 1, targets=("metal-rack01",), host="rack01")
    (staging / "rounds" / "failed-rack02.json").write_text(json.dumps(
        {"host": "rack02", "failed": {}, "host-failed": {"round": 1, "msg": "down"}}))
    rounds.merge(staging)
    assert _ingest(cli, tmp_path, staging, "rack").code == 0
    again = _stage(tmp_path / "b", 1, targets=("metal-rack01",), host="rack01")
    rounds.merge(again)
    r = _ingest(cli, tmp_path, again, "rack", "--fill-in")
    assert r.code == 2 and "metal-rack01 finished in the stored run" in r.err


def test_a_unit_only_some_rounds_report_is_left_out_and_named(tmp_path):
    staging = _stage(tmp_path, 2, targets=("metal",))
    one = staging / "rounds" / "1" / "metal.txt"
    lines = one.read_text().split("\n")
    last_unit = next(f for f in lines if f.startswith("BenchmarkMemcpy")).split()[-1]
    # round 1 could not measure one unit (cycles/op needs a TSC calibration a busy round can fail)
    one.write_text("\n".join(" ".join(f.split()[:-2]) if f.startswith("BenchmarkMemcpy") else f for f in lines))
    rounds.merge(staging)
    rf = parse_file(staging / "metal.txt")
    assert rf.config["units-not-in-every-round"] == last_unit
    memcpy = [b for name, b in rf.benchmarks.items() if name.startswith("BenchmarkMemcpy")]
    assert memcpy and all(last_unit not in b.units for b in memcpy)


def test_a_host_that_stops_answering_fails_its_other_targets_at_that_round():
    failed = {"guest-nosmt": {"round": 2, "rounds_done": 1, "msg": "benchrun: exit 1"}}
    targets = iter(["metal-rack02", "guest-nosmt", "container-nolimit-rack02"])  # Ansible's map is a generator
    got = rounds.host_failed(failed, targets, "rack02", "3", "stopped answering")
    assert got == {"metal-rack02": {"round": 3, "rounds_done": 2, "msg": "host rack02 stopped answering"},
                   "guest-nosmt": failed["guest-nosmt"],  # its own, earlier failure is kept
                   "container-nolimit-rack02": {"round": 3, "rounds_done": 2, "msg": "host rack02 stopped answering"}}
    assert rounds.host_failed({}, ["metal"], "rack01", 1, "did not answer")["metal"]["rounds_done"] == 0


def test_merge_records_each_hosts_isolation(tmp_path):
    staging = _stage(tmp_path, 2)
    iso = {"cpus": "0-1", "bench-cpu": 1, "others": "0", "summary": "serial benchmarks on CPU 1; …",
           "confined": {"controller": [200], "daemons": [300]}, "released": [], "errors": []}
    (staging / "rounds" / "isolation-localhost.json").write_text(json.dumps({"host": "localhost", "isolation": iso}))
    rounds.merge(staging)
    rec = json.loads((staging / "rounds.json").read_text())
    assert rec["isolation"] == {"localhost": iso}
    # a run without isolation (bench_isolation: false, older runs) has no key
    staging2 = _stage(tmp_path / "b", 2)
    rounds.merge(staging2)
    assert "isolation" not in json.loads((staging2 / "rounds.json").read_text())
