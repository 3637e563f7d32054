"""The baseline: the lab's metal by name, then a target-kind of metal, then the first (docs/formats.md)."""

import json

import pytest

import resultgen
from vmparity.results.targets import is_aa_control, is_lab_metal


def columns(cli, run_dir):
    r = cli("compare", run_dir, "--by", "target", "--format", "json")
    assert r.code == 0, r
    return json.loads(r.out)["columns"]


def make_run(tmp_path, targets):
    tmp_path.mkdir(parents=True, exist_ok=True)
    for target, kind in targets:
        resultgen.target_file(tmp_path, {**resultgen.METAL, "target": target, "target-kind": kind}, count=5,
                              name=f"{target}.txt")
    return tmp_path


@pytest.mark.parametrize("name,lab_metal,aa", [
    ("metal", True, False), ("metal-rack01", True, False), ("metal-aa", False, True),
    ("metal-aa-rack01", False, True), ("metalx", False, False), ("aaa-metal", False, False),
    ("guest-nosmt", False, False),
])
def test_lab_metal_names(name, lab_metal, aa):
    assert is_lab_metal(name) == lab_metal
    assert is_aa_control(name) == aa


def test_a_file_that_claims_metal_and_sorts_first_is_not_the_baseline(cli, tmp_path):
    run = make_run(tmp_path, [("aaa-impostor", "metal"), ("guest-x", "kvm-guest"), ("metal", "metal")])
    assert columns(cli, run)[0] == "metal"


def test_the_aa_control_is_never_the_baseline(cli, tmp_path):
    run = make_run(tmp_path, [("metal-aa", "metal"), ("metal", "metal"), ("container-x", "container")])
    assert columns(cli, run)[:2] == ["metal", "metal-aa"]


def test_on_a_rack_the_host_metal_beats_its_aa_control(cli, tmp_path):
    run = make_run(tmp_path, [("guest-x-rack01", "kvm-guest"), ("metal-aa-rack01", "metal"), ("metal-rack01", "metal")])
    assert columns(cli, run)[0] == "metal-rack01"


def test_without_a_lab_metal_the_kind_decides_then_file_order(cli, tmp_path):
    assert columns(cli, make_run(tmp_path / "a", [("b-guest", "kvm-guest"), ("c-host", "metal")]))[0] == "c-host"
    assert columns(cli, make_run(tmp_path / "b", [("b-guest", "kvm-guest"), ("c-ct", "container")]))[0] == "b-guest"


def test_report_summary_names_the_lab_metal_as_baseline(cli, tmp_path):
    run = make_run(tmp_path / "run", [("aaa-impostor", "metal"), ("metal", "metal")])
    assert cli("report", run, "--out", tmp_path / "out").code == 0
    assert "Baseline: `metal`." in (tmp_path / "out" / "report.md").read_text()
