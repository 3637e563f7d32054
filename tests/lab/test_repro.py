"""End-to-end: `make repro` with the smoke profile on metal and the CPU-quota
container (real dockerd and Ansible; no guest, to keep the test's time in
reason). Every seed must get a verdict on both targets, the report must carry
the Reproductions section, and only the jobs each scenario reads may run.
The test checks the pipeline, not the figures: which verdict each seed gets
is not asserted, so the smoke profile (one tiny repetition of each job per
round) serves as well as quick, and two rounds as well as the ten seed 003's
min-rounds asks for (the plan still says 10; the lab's vars override it)."""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import docker
import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
SEEDS = ("002", "004", "000", "001", "003")
TARGETS = ("metal", "container-quota")
PROFILE = "smoke"
ROUNDS = 2
RUN_ID = f"repro-e2e-{PROFILE}"

pytestmark = pytest.mark.lab


@pytest.fixture(scope="module")
def repro(lab_factory):
    lab = lab_factory("repro", 22480)
    vars_file = lab.root / "lab-vars.json"
    vars_file.write_text(json.dumps({**lab.vars(), "bench_count": ROUNDS}))
    plan_dir = lab.root / "plan"
    proc = subprocess.run(
        ["make", "--no-print-directory", "repro", f"PROFILE={PROFILE}", f"REPRO_RUN_ID={RUN_ID}",
         f"REPRO_TARGETS={' '.join(TARGETS)}", f"REPRO_PLAN_DIR={plan_dir}",
         f"RESULTS_DIR={lab.results_dir}", f"LAB_ARGS=-e @{vars_file}"],
        cwd=REPO, capture_output=True, text=True, timeout=2400,
        env=dict(os.environ, ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0"))
    (lab.root / "make-repro.log").write_text(proc.stdout + proc.stderr)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-5000:]
    return lab, proc.stdout, plan_dir


def test_every_seed_has_a_verdict_on_every_target(repro):
    lab, _, _ = repro
    md = (lab.results_dir / "runs" / RUN_ID / "report.md").read_text()
    section = md.split("## Reproductions", 1)[1].split("\n## ", 1)[0]
    for seed in SEEDS:
        block = section.split(f"### Seed {seed}:", 1)[1].split("### Seed", 1)[0]
        rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| (\S+) \| (✅ reproduced|❌ not reproduced|⚖️ inconclusive|❔ cannot tell here) \|",
                                                            block, re.M)}
        assert set(TARGETS) <= rows.keys(), (seed, block)
    html = (lab.results_dir / "runs" / RUN_ID / "report.html").read_text()
    assert "Reproductions" in html and "<img" in html


def test_only_the_planned_targets_and_jobs_ran(repro):
    lab, _, plan_dir = repro
    run_dir = lab.results_dir / "runs" / RUN_ID
    # metal-aa is metal's A/A control: measured with metal's jobs, no verdicts of its own
    assert {p.stem for p in run_dir.glob("*.txt")} == set(TARGETS) | {"metal-aa"}
    plan = json.loads((plan_dir / "bench-vars.json").read_text())["bench_only_by_target"]
    assert set(plan) == set(TARGETS)
    for target in (*TARGETS, "metal-aa"):
        text = (run_dir / f"{target}.txt").read_text()
        assert f"only: {plan.get(target, plan['metal'])}\n" in text, target
        for bench in ("Memcpy", "Snowflake", "Clock", "Storefwd", "Fence", "Align"):
            assert f"\nBenchmark{bench}/" in text, (target, bench)


def test_the_quota_container_is_the_only_container_started(repro):
    lab, _, plan_dir = repro
    provision = yaml.safe_load((plan_dir / "provision-vars.json").read_text())
    assert provision == {"guests_variants_only": [], "containers_variants_only": ["quota"]}
    client = docker.from_env()
    running = {c.name for c in client.containers.list(filters={"name": lab.prefix})}
    assert running == {lab.prefix + "quota"}


def test_make_repro_prints_the_verdicts(repro):
    _, out, _ = repro
    assert "## Reproductions" in out and "Verdicts: " in out
