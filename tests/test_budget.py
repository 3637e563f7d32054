"""A lab run in a time budget (vmparity/lab/budget.py): the plan of its rounds, the estimates
from a stored run, the record merged into rounds.json and the report's paragraph."""

import json
import shutil
from pathlib import Path

import pytest

from test_rounds import _stage
from vmparity.errors import InputError
from vmparity.lab import budget, rounds

ROOT = Path(__file__).resolve().parents[1]
RUN = "2026-11-28T08-43-58Z-lab-quick"  # a committed lab run: metal, its A/A pass, 2 containers, 3 TCG guests
LAB = [{"target": "metal", "kind": ""}, {"target": "metal-aa", "kind": ""},
       {"target": "container-nolimit", "kind": "container"}, {"target": "container-quota", "kind": "container"},
       {"target": "guest-nosmt", "kind": "tcg-guest"}, {"target": "guest-smt-topoext", "kind": "tcg-guest"},
       {"target": "guest-hpet-clock", "kind": "tcg-guest"}]
CONFIG = budget.load_config()


def _plan(minutes, provisioned=150, hosts=None, most=10, **kw):
    return budget.plan(minutes, 1000.0, 1000.0 + provisioned, hosts or {"localhost": LAB}, "quick", most, CONFIG, **kw)


def test_ample_minutes_give_the_profiles_rounds_and_tcg_guests_their_floor():
    p = _plan(60)
    assert p["count"] == 10 and p["rounds_by_kind"] == {"tcg-guest": 3} and p["floor"] == 6
    assert "short" not in p["record"]
    assert p["deadline"] == 1000 + 3600 - CONFIG["after-seconds"]


def test_the_planned_rounds_fit_their_share_of_the_time_left():
    for minutes in (12, 14, 16, 18):
        p = _plan(minutes)
        room = (1000 + 60 * minutes - CONFIG["after-seconds"] - 1150) * CONFIG["planned-share"]
        per = p["target_seconds"]["localhost"]
        used = sum(min(p["count"], 3 if t.startswith("guest-") else p["count"]) * s for t, s in per.items()) \
            + p["count"] * CONFIG["between-rounds-seconds"]
        assert 6 <= p["count"] <= 10
        assert used <= room or p["count"] == 6
    assert [_plan(m)["count"] for m in (12, 14, 16, 18)] == sorted(_plan(m)["count"] for m in (12, 14, 16, 18))
    assert _plan(12)["count"] < _plan(18)["count"]


def test_too_few_minutes_keep_the_floor_and_say_the_run_will_overrun():
    p = _plan(4)
    assert p["count"] == 6
    assert "will take longer than 4 min" in p["record"]["short"]


def test_a_profile_with_fewer_rounds_than_the_floor_keeps_its_own():
    assert budget.plan(10, 0, 0, {"h": LAB}, "smoke", 1, CONFIG)["count"] == 1


def test_the_slowest_host_of_a_rack_sets_the_rounds():
    fast = [t for t in LAB if not t["target"].startswith("guest-")]
    alone = _plan(11, hosts={"a": fast})["count"]
    both = _plan(11, hosts={"a": fast, "b": LAB})["count"]
    assert both == _plan(11, hosts={"b": LAB})["count"] and both < alone


def test_no_minutes_and_an_unknown_profile_are_refused():
    with pytest.raises(InputError, match="LAB_MINUTES"):
        _plan(0)
    with pytest.raises(InputError, match="profile 'huge'"):
        budget.plan(10, 0, 0, {"h": LAB}, "huge", 10, CONFIG)


def test_estimates_come_from_the_newest_stored_run_of_the_profile(tmp_path):
    kinds = {t["target"]: budget.kind_of(t) for t in LAB}
    seconds, run = budget.stored_seconds(ROOT / "results" / "runs", "quick", kinds)
    assert run is not None and run.endswith("-lab-quick")
    assert 5 < seconds["metal"] < 15 and 10 < seconds["tcg-guest"] < 40  # a TCG guest is the slower
    # a newer run whose record is broken is passed over, not a stop
    runs = tmp_path / "runs"
    shutil.copytree(ROOT / "results" / "runs" / RUN, runs / RUN)
    (runs / "2099-01-01T00-00-00Z-lab-quick").mkdir()
    (runs / "2099-01-01T00-00-00Z-lab-quick" / "rounds.json").write_text('{"hosts": []}')
    (runs / "2099-01-02T00-00-00Z-ab-quick").mkdir()  # an A/B run times no lab-up repetition
    shutil.copy(ROOT / "results" / "runs" / RUN / "rounds.json", runs / "2099-01-02T00-00-00Z-ab-quick")
    seconds2, run2 = budget.stored_seconds(runs, "quick", kinds)
    assert run2 == RUN and seconds2["container"] > 0
    assert budget.stored_seconds(tmp_path / "none", "quick", kinds) == ({}, None)
    p = _plan(14, stored=seconds2, stored_run=run2)
    assert p["record"]["estimates-from"] == RUN and p["record"]["repetition-seconds"]["metal"] == seconds2["metal"]


def test_a_config_without_a_key_is_refused_naming_it(tmp_path):
    f = tmp_path / "budget.yaml"
    f.write_text("floor-rounds: {metal: 6}\n")
    with pytest.raises(InputError, match="missing cap-rounds"):
        budget.load_config(f)


def test_the_command_prints_the_plan_and_refuses_bad_hosts(cli, tmp_path):
    r = cli("--results-dir", tmp_path, "lab", "budget", "--minutes", "12", "--started", "1000", "--now", "1100",
            "--profile", "quick", "--most", "10", "--hosts", json.dumps({"localhost": LAB}))
    assert r.code == 0, r.err
    p = json.loads(r.out)
    assert p["count"] >= 6 and p["record"]["estimates-from"] == "vmparity/lab/budget.yaml"
    r = cli("lab", "budget", "--minutes", "12", "--started", "1000", "--profile", "quick", "--most", "10",
            "--hosts", '["metal"]')
    assert r.code == 2 and "--hosts" in r.err


def test_durations_read_as_minutes_and_seconds():
    assert budget.duration(45) == "45 s" and budget.duration(200.4) == "3 min 20 s" and budget.duration(-3) == "0 s"


def test_the_merge_keeps_the_plan_and_each_hosts_use_of_it(tmp_path):
    staging = _stage(tmp_path, 2)
    plan = _plan(12)["record"]
    (staging / "rounds" / "budget.json").write_text(json.dumps(plan))
    host = {"host": "localhost", "measured-seconds": 300.5, "planned-rounds-measured": 2, "skipped-rounds": [],
            "pace": 1.1, "added-seconds": 20, "confirm-seconds": 15}
    (staging / "rounds" / "budget-localhost.json").write_text(json.dumps(host))
    rounds.merge(staging)
    rec = json.loads((staging / "rounds.json").read_text())
    assert rec["budget"]["plan"] == plan
    assert rec["budget"]["hosts"]["localhost"]["measured-seconds"] == 300.5
    # a host record of the wrong shape is refused naming its file
    (staging / "rounds" / "budget-localhost.json").write_text(json.dumps(dict(host, **{"skipped-rounds": "3"})))
    with pytest.raises(InputError, match="budget-localhost.json"):
        rounds.merge(staging)


def test_the_report_says_what_the_budget_bought(cli, tmp_path):
    run = tmp_path / "runs" / RUN
    shutil.copytree(ROOT / "results" / "runs" / RUN, run)
    (run / "MANIFEST.sha256").unlink()  # the run is edited below
    rec = json.loads((run / "rounds.json").read_text())
    plan = _plan(12)["record"]
    rec["budget"] = {"plan": plan, "hosts": {"localhost": {"measured-seconds": 512.0, "skipped-rounds": [9, 10]}}}
    (run / "rounds.json").write_text(json.dumps(rec))
    r = cli("--results-dir", tmp_path, "report", RUN)
    assert r.code == 0, r.err
    text = (run / "report.md").read_text()
    head = text[:text.index("Main differences")] if "Main differences" in text else text[:4000]
    assert "**Budget:** 12 min" in head and "The rounds took 8 min 32 s" in head
    assert "rounds 9, 10 were skipped" in head
    assert "2x the minutes of measuring would bring that to about" in head


VERIFY = [{"target": "metal", "kind": ""}, {"target": "container-quota", "kind": "container"},
          {"target": "container-quota+seccomp-unconfined", "kind": "container"},
          {"target": "guest-nosmt", "kind": "tcg-guest"}, {"target": "guest-nosmt+clocksource-tsc", "kind": "tcg-guest"}]


def test_lab_verify_has_a_budget_of_its_own_whose_floor_is_what_a_verdict_needs():
    from vmparity.lab import verify

    config = budget.load_config("verify")
    assert config["estimates-from-runs"] == "verify" and budget.config_name("verify").endswith("budget-verify.yaml")
    # every kind at least the rounds a verdict's U test needs with its spare, TCG guests too, none capped
    need = verify.rounds_by_kind(10)["tcg-guest"]
    assert set(config["floor-rounds"].values()) == {need} and config["cap-rounds"] == {}
    # all the time to the planned rounds: none added for wide rows nor to measure rows again
    assert config["planned-share"] == 1.0 and set(config["phase-shares"].values()) == {0}
    short, ample = (budget.plan(m, 1000.0, 1120.0, {"localhost": VERIFY}, "quick", 10, config,
                                config_name=budget.config_name("verify")) for m in (4, 30))
    assert short["count"] == need and short["floor"] == need and short["rounds_by_kind"] == {}
    assert ample["count"] == 10 and ample["record"]["estimates-from"] == "vmparity/lab/budget-verify.yaml"
    with pytest.raises(InputError, match="no such budget file"):
        budget.load_config("nonesuch")


def test_a_verify_budget_estimates_from_stored_verify_runs_only(tmp_path):
    runs = tmp_path / "runs"
    shutil.copytree(ROOT / "results" / "runs" / RUN, runs / RUN)
    kinds = {t["target"]: budget.kind_of(t) for t in LAB}
    assert budget.stored_seconds(runs, "quick", kinds, "verify") == ({}, None)
    shutil.copytree(ROOT / "results" / "runs" / RUN, runs / "2099-01-01T00-00-00Z-verify-quick")
    seconds, run = budget.stored_seconds(runs, "quick", kinds, "verify")
    assert run == "2099-01-01T00-00-00Z-verify-quick" and seconds["metal"] > 0
    assert budget.stored_seconds(runs, "quick", kinds)[1] == RUN
