"""The scenario data: five seeds, the fields the verdicts and the report use."""

import re

import pytest

from vmparity.errors import InputError
from vmparity.repro.scenarios import covered_targets, load_scenarios


def test_every_seed_once_in_the_reports_order():
    assert [s["seed"] for s in load_scenarios()] == ["002", "004", "000", "001", "003"]


def test_seed_figures_carry_the_seeds_numbers():
    sc = {s["seed"]: s for s in load_scenarios()}
    assert sc["000"]["seed-figures"]["overlap"] == {28: 7.343, 32: 4.362}
    assert sc["000"]["seed-figures"]["fresh"] == {28: 4.075, 32: 4.462}
    assert sc["001"]["seed-figures"]["llc"]["mfence"] == 19596840824
    assert sc["002"]["seed-figures"]["vm-default"][1] == 1269
    assert sc["004"]["seed-figures"]["docker-for-mac-4"]["twitter"] == 1086
    for s in sc.values():
        assert s["seed-figures"]["summary"]


def test_only_selects_benchrun_jobs_of_the_scenario_programs():
    jobs = [
        "memcpy-static/tunable=default",
        "memcpy-dynamic/tunable=min",
        "clock",
        "snowflake",
        "storefwd",
        "fence",
        "align",
    ]
    for s in load_scenarios():
        picked = {j.split("/")[0] for j in jobs if re.search(s["only"], j)}
        assert picked == set(s["programs"]), s["seed"]


def test_covered_targets_keeps_unmatched_names():
    sc = {"targets": ["metal", "guest-nosmt", "container-*"]}
    assert covered_targets(sc, ["metal", "container-quota", "container-plain"]) == [
        ("metal", True),
        ("guest-nosmt", False),
        ("container-quota", True),
        ("container-plain", True),
    ]
    assert covered_targets({"targets": ["*"]}, []) == [("*", False)]


def test_bad_scenario_file_names_file_and_entry(tmp_path):
    bad = tmp_path / "scenarios.yaml"
    bad.write_text("scenarios:\n  - seed: '000'\n    title: x\n")
    with pytest.raises(InputError) as e:
        load_scenarios(bad)
    assert str(bad) in str(e.value) and "scenario #1 lacks" in str(e.value)
    bad.write_text("- just a list\n")
    with pytest.raises(InputError, match="scenarios"):
        load_scenarios(bad)
