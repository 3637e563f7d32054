"""`python -m vmparity.repro.plan`: which jobs `make repro` runs on which target."""

import io
import json
import re
from pathlib import Path

from vmparity.repro.plan import main
from vmparity.repro.section import report_section

REPO = Path(__file__).resolve().parents[2]
VARIANTS = REPO / "vm-templates" / "variants.yml"
CONTAINERS = REPO / "docker" / "variants.yml"
JOBS = ["memcpy-static/tunable=default", "memcpy-dynamic/tunable=min", "clock", "snowflake",
        "storefwd", "fence", "align"]


def run_plan(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(["--variants", str(VARIANTS), "--containers", str(CONTAINERS), *map(str, argv)], out, err)
    return code, out.getvalue(), err.getvalue()


def jobs_on(plan, target):
    return [j for j in JOBS if re.search(plan["bench_only_by_target"][target], j)]


def test_each_target_runs_only_what_its_scenarios_read():
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


def test_targets_restrict_the_plan_and_the_provisioning(tmp_path):
    code, out, err = run_plan("--targets", "metal,container-quota", "--write", tmp_path)
    assert code == 0, err
    assert out.split() == ["-e", f"@{tmp_path.resolve() / 'provision-vars.json'}", "--skip-tags", "guests"]
    assert json.loads((tmp_path / "provision-vars.json").read_text()) == {
        "guests_variants_only": [], "containers_variants_only": ["quota"]}
    bench = json.loads((tmp_path / "bench-vars.json").read_text())
    assert bench["bench_targets_only"] == ["metal", "container-quota"]


def test_unknown_target_is_named_with_the_known_ones():
    code, out, err = run_plan("--targets", "metal guest-nosnt")
    assert code == 2 and out == ""
    assert "unknown target(s) guest-nosnt" in err and "guest-nosmt" in err


def test_bad_variants_file_is_named(tmp_path):
    bad = tmp_path / "variants.yml"
    bad.write_text("defaults: {}\n")
    out, err = io.StringIO(), io.StringIO()
    assert main(["--variants", str(bad), "--containers", str(CONTAINERS)], out, err) == 2
    assert str(bad) in err.getvalue() and "variants" in err.getvalue()


def test_report_section_is_none_without_scenario_benchmarks(tmp_path):
    (tmp_path / "metal.txt").write_text("target: metal\ntarget-kind: metal\n"
                                        "BenchmarkStreamcopy/size=64 1 10 ns/op\n")
    assert report_section(tmp_path) is None
