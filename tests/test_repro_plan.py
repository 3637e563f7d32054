"""`vmparity lab repro-plan`: which jobs `make repro` runs on which target."""

import json
import re

import pytest

from vmparity.lab.checkout import CONTAINER_VARIANTS, GUEST_VARIANTS

JOBS = ["memcpy-static/tunable=default", "memcpy-dynamic/tunable=min", "clock", "snowflake",
        "storefwd", "fence", "align"]


@pytest.fixture
def run_plan(cli):
    def run(*argv):
        r = cli("lab", "repro-plan", "--variants", GUEST_VARIANTS, "--containers", CONTAINER_VARIANTS, *argv)
        return r.code, r.out, r.err
    return run


def jobs_on(plan, target):
    return [j for j in JOBS if re.search(plan["bench_only_by_target"][target], j)]


def test_each_target_runs_only_what_its_scenarios_read(run_plan):
    code, out, err = run_plan()
    assert code == 0, err
    plan = json.loads(out)
    assert plan["bench_targets_only"] == ["metal", "guest-smt-topoext", "guest-nosmt", "guest-hpet-clock",
                                          "container-nolimit", "container-quota"]
    assert jobs_on(plan, "metal") == JOBS
    assert jobs_on(plan, "container-quota") == JOBS
    # seed 002 only, plus the three "*" seeds: no clock or snowflake on the SMT guests
    assert jobs_on(plan, "guest-nosmt") == [j for j in JOBS if j not in ("clock", "snowflake")]
    # seed 004 only, plus the "*" seeds: no memcpy sweep on the slow hpet guest
    assert jobs_on(plan, "guest-hpet-clock") == ["clock", "snowflake", "storefwd", "fence", "align"]


def test_targets_restrict_the_plan_and_the_provisioning(run_plan, tmp_path):
    code, out, err = run_plan("--targets", "metal,container-quota", "--write", tmp_path)
    assert code == 0, err
    assert out.split() == ["-e", f"@{tmp_path.resolve() / 'provision-vars.json'}", "--skip-tags", "guests"]
    assert json.loads((tmp_path / "provision-vars.json").read_text()) == {
        "guests_variants_only": [], "containers_variants_only": ["quota"]}
    bench = json.loads((tmp_path / "bench-vars.json").read_text())
    assert bench["bench_targets_only"] == ["metal", "container-quota"]


def test_unknown_target_is_named_with_the_known_ones(run_plan):
    code, out, err = run_plan("--targets", "metal guest-nosnt")
    assert code == 2 and out == ""
    assert "unknown target(s) guest-nosnt" in err and "guest-nosmt" in err


def test_bad_variants_file_is_named_with_its_line(cli, tmp_path):
    bad = tmp_path / "variants.yml"
    bad.write_text(GUEST_VARIANTS.read_text().replace("  nosmt:\n", "  nosmt:\n    colour: blue\n"))
    r = cli("lab", "repro-plan", "--variants", bad)
    assert r.code == 2 and r.out == ""
    assert f"{bad}:" in r.err and "variant 'nosmt', field 'colour': unknown field" in r.err


def test_a_scenario_that_needs_more_rounds_raises_the_run_s_rounds(run_plan, tmp_path):
    # seed 003's interval needs 10 against 10 repetitions to be decided: the smoke profile's 1 is raised to 10
    code, out, err = run_plan("--profile", "smoke")
    assert code == 0, err
    assert json.loads(out)["bench_count"] == 10
    for profile in ("quick", "full"):  # 10 already: the profile decides
        code, out, err = run_plan("--profile", profile)
        assert code == 0 and "bench_count" not in json.loads(out)
    code, out, err = run_plan("--targets", "guest-nosmt", "--scenarios", str(only_seed_002(tmp_path)))
    assert code == 0 and "bench_count" not in json.loads(out)
    code, out, err = run_plan("--profile", "fast")
    assert code == 2 and "--profile" in err and "'fast': expected one of smoke, quick, full" in err


def only_seed_002(tmp_path):
    import yaml
    from importlib import resources
    data = yaml.safe_load(resources.files("vmparity.repro").joinpath("scenarios.yaml").read_text())
    data["scenarios"] = [s for s in data["scenarios"] if s["seed"] == "002"]
    p = tmp_path / "scenarios.yaml"
    p.write_text(yaml.safe_dump(data))
    return p


@pytest.mark.parametrize("value", [0, "ten", 2.5, True])
def test_a_bad_min_rounds_is_named_with_its_scenario(run_plan, tmp_path, value):
    import yaml
    p = only_seed_002(tmp_path)
    data = yaml.safe_load(p.read_text())
    data["scenarios"][0]["min-rounds"] = value
    p.write_text(yaml.safe_dump(data))
    code, out, err = run_plan("--scenarios", str(p))
    assert code == 2 and out == ""
    assert str(p) in err and "scenario #1 (seed 002): min-rounds" in err and "expected a whole number" in err
