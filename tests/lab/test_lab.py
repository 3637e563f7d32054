"""End-to-end: the local lab with real libvirtd, qemu (TCG here), dockerd and
Ansible. Bring it up, run the smoke profile on metal, every guest variant and
both containers, check what was collected, run lab-up again (nothing may
change), probe two guests with Fabric, tear down and check nothing is left.
Plus the failures a user meets: a bad variant, a host without docker, a guest
that never reaches SSH."""
from __future__ import annotations

import json
import os
import shlex
import subprocess
import time
from pathlib import Path

import docker
import libvirt
import pytest
import yaml

from vmparity.lab import variants

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = REPO / ".venv" / "bin"

pytestmark = pytest.mark.lab

RUN_ID = "lab-e2e-smoke"


def variants_expected() -> dict[str, dict]:
    """Each variant's expectations as the lab applies them under TCG/KVM here
    (under TCG, `vmparity lab variants` drops what the emulator cannot present)."""
    accel = "kvm" if _kvm_usable() else "qemu"
    return {name: variants.effective(v, accel) for name, v in variants.load_guests().items()}


def _kvm_usable() -> bool:
    flags = Path("/proc/cpuinfo").read_text().split()
    return os.access("/dev/kvm", os.R_OK | os.W_OK) and ("vmx" in flags or "svm" in flags)


def container_variants() -> list[str]:
    return list(variants.load_containers())


def header(path: Path) -> dict[str, str]:
    """The configuration lines of a result file (everything before the first Benchmark line)."""
    config = {}
    for line in path.read_text().splitlines():
        if line.startswith("Benchmark"):
            break
        key, sep, value = line.partition(":")
        if sep and " " not in key:
            config[key] = value.strip()
    return config


def lab_domains(prefix: str) -> list[str]:
    conn = libvirt.open("qemu:///system")
    try:
        return [d.name() for d in conn.listAllDomains(0) if d.name().startswith(prefix)]
    finally:
        conn.close()


# --- failures a user meets (fast ones first) ------------------------------------

def test_bad_variant_is_rejected_with_file_and_field(lab_factory, tmp_path):
    lab = lab_factory("badvar", 22450)
    bad = tmp_path / "variants.yml"
    data = yaml.safe_load((REPO / "vm-templates" / "variants.yml").read_text())
    data["variants"]["nosmt"]["vcpus"] = 3          # != sockets * cores * threads
    bad.write_text(yaml.safe_dump(data, sort_keys=False))
    # host_prep too: it starts libvirtd, which the check for leftover domains below asks
    run = lab.playbook("lab-up.yml", "--tags", "host_prep,guests", guests_variants_file=str(bad))
    assert run.rc != 0
    assert str(bad) in run.output and "nosmt" in run.output and "vcpus" in run.output, run.output[-3000:]
    assert lab_domains(lab.prefix) == []


def test_host_without_docker_is_named(lab_factory):
    lab = lab_factory("nodocker", 22460)
    socket = "unix:///nonexistent/vmparity/docker.sock"
    run = lab.playbook("lab-up.yml", "--tags", "containers", containers_docker_host=socket)
    assert run.rc != 0
    assert "host localhost: no Docker daemon answers at " + socket in run.output, run.output[-3000:]


def test_guest_that_never_reaches_ssh_names_guest_and_console_log(lab_factory):
    lab = lab_factory("noboot", 22470)
    run = lab.playbook("lab-up.yml", "--skip-tags", "containers",
                       guests_variants_only=["nosmt"], guests_boot_timeout=15,
                       # no such root disk: the initramfs gives up, sshd never starts
                       guests_base_cmdline="root=/dev/nonexistent rw console=ttyS0")
    assert run.rc != 0
    console_log = lab.state_dir / "console" / f"{lab.prefix}nosmt.log"
    assert f"guest {lab.prefix}nosmt (variant nosmt)" in run.output, run.output[-3000:]
    assert "did not reach SSH" in run.output and str(console_log) in run.output
    assert "in each of 2 boot(s)" in run.output  # a stalled boot gets one more (guests_boot_attempts)
    assert console_log.exists() and console_log.stat().st_size > 0
    down = lab.playbook("lab-down.yml")
    assert down.rc == 0, down.output[-3000:]
    assert lab_domains(lab.prefix) == []


# --- the whole lab ----------------------------------------------------------------

@pytest.fixture(scope="module")
def lab(lab_factory):
    lab = lab_factory("e2e", 22400)
    up = lab.playbook("lab-up.yml")
    assert up.rc == 0, up.output[-5000:]
    return lab


def test_lab_up_starts_every_guest_and_container(lab):
    names = lab_domains(lab.prefix)
    assert sorted(names) == sorted(lab.prefix + v for v in variants_expected())
    client = docker.from_env()
    running = {c.name for c in client.containers.list(filters={"name": lab.prefix})}
    assert running == {lab.prefix + v for v in container_variants()}
    quota = client.containers.get(lab.prefix + "quota").attrs["HostConfig"]
    assert quota["NetworkMode"] == "none" and 0 < quota["NanoCpus"] < os.cpu_count() * 1e9
    # the guests were reached through OpenSSH's shared connection (guests_connection), not a Python
    # started in each: a control socket per guest's port (register.yml's control path), which the
    # next playbook run reuses
    ports = json.loads((lab.state_dir / "ports.json").read_text())
    sockets = {p.name.split("-")[0] for p in (Path.home() / ".ansible" / "cp").glob("*")}
    assert {str(ports[name]) for name in names} <= sockets, (ports, sockets)


def test_smoke_profile_runs_and_is_collected_everywhere(lab):
    # smoke profile, two rounds: every target twice, interleaved, with the A/A control
    run = lab.playbook("bench.yml", bench_profile="smoke", bench_count="2", bench_run_id=RUN_ID)
    assert run.rc == 0, run.output[-5000:]
    # two rounds decide no row paired: the lab asks for added rounds and is told why none
    assert "no round added after 0: no row has a finite minimum detectable effect" in run.output, run.output[-5000:]
    # nor can two rounds call a row beyond noise: none is measured again
    assert "no round added after 0: no row of metal's A/A pass, nor one that no rule explains of a target, is beyond noise" in run.output, \
        run.output[-5000:]
    # and that is decided last, after the rounds for the wide rows
    phases = [run.output.index(f"TASK [bench : {task}]") for task in (
        "Plan added round 1 for the wide rows", "Plan added round 1 to measure the rows beyond noise again")]
    assert phases == sorted(phases), run.output[-5000:]
    run_dir = lab.results_dir / "runs" / RUN_ID
    expected = {"metal", "metal-aa"} | {f"guest-{v}" for v in variants_expected()} \
        | {f"container-{v}" for v in container_variants()}
    assert {p.stem for p in run_dir.glob("*.txt")} == expected
    for target in expected:
        assert (run_dir / f"{target}.env.json").exists()
        config = header(run_dir / f"{target}.txt")
        assert config["target"] == target and config["run-id"] == RUN_ID and config["profile"] == "smoke"
        assert any(line.startswith("Benchmark") for line in (run_dir / f"{target}.txt").read_text().splitlines())
    assert (run_dir / "MANIFEST.sha256").read_text() == (REPO / "build" / "bench" / "MANIFEST.sha256").read_text()
    # metal is whatever the host really is (this CI host is itself a container in a VM):
    # the lab does not override it, benchrun's own detection says it
    metal = header(run_dir / "metal.txt")
    assert metal["target-kind"] in {"metal", "kvm-guest", "tcg-guest", "container"}
    assert "overrides detection" not in metal["target-kind-evidence"]
    for v in container_variants():
        assert header(run_dir / f"container-{v}.txt")["target-kind"] == "container"


def test_rounds_interleave_targets_one_at_a_time_with_an_aa_control(lab):
    run_dir = lab.results_dir / "runs" / RUN_ID
    rec = json.loads((run_dir / "rounds.json").read_text())
    (host, rounds), = rec["hosts"].items()
    targets = {p.stem for p in run_dir.glob("*.txt")}
    assert [r["round"] for r in rounds] == [1, 2] and all(set(r["order"]) == targets for r in rounds)
    assert "loadavg" in rounds[0]["hygiene"] and "busy-processes" in rounds[0]["hygiene"]
    # the lab's goal, and why no round was added for the wide rows, kept for the report
    assert rec["added-stop"] == {host: {"goal-pct": 3, "why": "no row has a finite minimum detectable effect: "
                                                              "too few rounds to decide it"}}, rec.get("added-stop")
    spans = sorted((t["start"], t["end"]) for r in rounds for t in r["timings"].values())
    assert len(spans) == 2 * len(targets)
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:])), "two targets ran at once"
    for target in targets:
        config = header(run_dir / f"{target}.txt")
        assert config["count"] == "2" and config["rounds"].startswith("2 ")
        # bench_share reaches every target, guests too: half the profile's time per repetition, fence all of it
        assert config["share"] == ("memcpy=2, clock=2, storefwd=2, align=2 (each of these ran with 1/N of its "
                                   "profile's time in each repetition; fence with the whole of it)"), config
        # the thresholds glibc applied, read back per memcpy variant; min really is lower
        assert int(config["memcpy-nt-threshold-min"], 16) < int(config["memcpy-nt-threshold-default"], 16)
        assert config["memcpy-tunables-min"].endswith("=" + config["memcpy-nt-threshold-min"])
    noise = subprocess.run([str(VENV_BIN / "vmparity"), "noise", str(run_dir)], capture_output=True, text=True)
    assert noise.returncode == 0 and noise.stdout.startswith("A/A noise (metal-aa vs metal): "), noise
    # the run states how small a change it could have seen, per target and family (two rounds: none)
    assert "sensitivity: the smallest change each target's rows would show" in noise.stdout, noise.stdout
    assert "remeasured" not in rec  # the re-measures of disturbed repetitions were removed on 2026-12-06
    report = subprocess.run([str(VENV_BIN / "vmparity"), "report", str(run_dir), "--out", str(lab.results_dir / "rep")],
                            capture_output=True, text=True)
    assert report.returncode == 0, report.stderr
    md = (lab.results_dir / "rep" / "report.md").read_text()
    assert md.splitlines()[2].startswith("**Noise:** the A/A control (`metal` measured twice")
    assert "**Sensitivity:** the smallest change this run would call beyond noise" in md


def test_a_time_budget_keeps_the_run_to_its_deadline(lab, tmp_path):
    """bench_minutes (make lab-up LAB_MINUTES): the rounds are planned to fit the time left, a planned
    round that would end after the deadline is skipped, and the run, its record and its report say so.
    The budget's file gives estimates far below what a round takes here, as a host slower than its
    estimates would: more rounds are planned than fit, and the pace of the first ones stops the rest."""
    config = yaml.safe_load((REPO / "vmparity" / "lab" / "budget.yaml").read_text())
    config["floor-rounds"] = {k: 2 for k in config["floor-rounds"]}
    config["repetition-seconds"]["quick"] = {k: 0.1 for k in config["repetition-seconds"]["quick"]}
    config["after-seconds"], config["planned-share"] = 5, 1.0
    config["between-targets-seconds"] = config["between-rounds-seconds"] = 0
    (tmp_path / "budget.yaml").write_text(yaml.safe_dump(config))
    run_id, started = "e2e-budget", int(time.time())
    run = lab.playbook("bench.yml", bench_profile="quick", bench_only="^clock$", bench_count="30",
                       bench_targets_only=["metal", "container-nolimit"], bench_run_id=run_id,
                       bench_minutes=1.2, bench_started=started, bench_budget_config=str(tmp_path / "budget.yaml"))
    assert run.rc == 0, run.output[-5000:]
    assert "lab-progress: budget 1.2 min" in run.output and "lab-progress: localhost round 1 of " in run.output
    rec = json.loads((lab.results_dir / "runs" / run_id / "rounds.json").read_text())
    plan, (host,) = rec["budget"]["plan"], rec["budget"]["hosts"].values()
    assert plan["minutes"] == 1.2 and plan["estimates-from"] == str(tmp_path / "budget.yaml")
    measured = [r["round"] for r in rec["hosts"]["localhost"] if not r.get("added")]
    assert len(measured) == host["planned-rounds-measured"] >= 2
    assert host["skipped-rounds"] and len(measured) + len(host["skipped-rounds"]) == plan["planned-rounds"], rec["budget"]
    assert "skipped: it would end after the deadline" in run.output
    # the rounds kept to the deadline: the last planned one began before it
    deadline = started + 72 - 5
    last = max(t["start"] for r in rec["hosts"]["localhost"] if not r.get("added") for t in r["timings"].values())
    assert time.mktime(time.strptime(last[:19], "%Y-%m-%d %H:%M:%S")) <= deadline
    report = subprocess.run([str(VENV_BIN / "vmparity"), "--results-dir", str(lab.results_dir), "report", run_id,
                             "--out", str(tmp_path / "rep")], capture_output=True, text=True)
    assert report.returncode == 0, report.stderr
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "**Budget:** 1.2 min from provisioning to this report" in md and "were skipped to keep to the deadline" in md


def test_each_guest_fingerprint_shows_its_variant(lab):
    run_dir = lab.results_dir / "runs" / RUN_ID
    kind = "kvm-guest" if _kvm_usable() else "tcg-guest"
    for variant, spec in variants_expected().items():
        config = header(run_dir / f"guest-{variant}.txt")
        assert config["target-kind"] == kind, (variant, config.get("target-kind-evidence"))
        for key, value in spec["expect"].items():
            assert config[key.replace("_", "-")] == str(value), (variant, key, config.get(key.replace("_", "-")))


def test_ab_run_holds_both_sides_of_every_target(lab, tmp_path):
    """make lab-ab's path, small: BASE (this commit, checked out and built by `vmparity lab ab`
    and its own make bench) and the working tree's build on metal, one guest and one container,
    in the same smoke round; the run holds both sides of every target and compares them."""
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    ab = subprocess.run([str(VENV_BIN / "vmparity"), "lab", "ab", "--base", commit, "--dir", str(tmp_path / "ab"),
                         "--repo", str(REPO)], capture_output=True, text=True)
    assert ab.returncode == 0, ab.stderr
    where = {k.removeprefix("ab_"): shlex.split(v)[0] for k, _, v in (line.partition("=") for line in ab.stdout.split())}
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    try:
        build = subprocess.run(["make", "--no-print-directory", "-C", where["src"], "bench"], env=env,
                               capture_output=True, text=True, timeout=900)
        assert build.returncode == 0, build.stderr[-3000:]
        base_manifest = (Path(where["bench"]) / "MANIFEST.sha256").read_text()  # the worktree goes below
        run_id = "e2e-ab"
        # two quick jobs are enough to show both sides everywhere (and keep the TCG guest's share short)
        run = lab.playbook("bench.yml", bench_profile="smoke", bench_run_id=run_id, bench_only="^(clock|snowflake)$",
                           bench_targets_only=["metal", "guest-nosmt", "container-nolimit"],
                           bench_ab_base_dir=where["bench"], bench_ab_base_ref="HEAD", bench_ab_base_commit=commit)
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", where["src"]], capture_output=True)
    assert run.rc == 0, run.output[-5000:]
    run_dir = lab.results_dir / "runs" / run_id
    heads = ["metal", "guest-nosmt", "container-nolimit"]
    assert {p.stem for p in run_dir.glob("*.txt")} == {"metal-aa", *heads, *(f"{t}~base" for t in heads)}
    for t in heads:
        head, base = header(run_dir / f"{t}.txt"), header(run_dir / f"{t}~base.txt")
        assert (head["ab-side"], base["ab-side"]) == ("head", "base")
        assert base["commit"] == commit[:12] and head["ab-base-commit"] == base["ab-base-commit"] == commit
        assert base["target-kind"] == head["target-kind"]
    assert (run_dir / "MANIFEST~base.sha256").read_text() == base_manifest
    rec = json.loads((run_dir / "rounds.json").read_text())
    assert rec["ab"] == {"base-ref": "HEAD", "base-commit": commit}
    (order,) = [r["order"] for rounds in rec["hosts"].values() for r in rounds]
    for t in heads:  # a target's two sides one right after the other
        assert abs(order.index(t) - order.index(f"{t}~base")) == 1, order
    comment = subprocess.run([str(VENV_BIN / "vmparity"), "pr-comment", "--ab", str(run_dir)],
                             capture_output=True, text=True)
    assert comment.returncode == 0, comment.stderr
    assert f"HEAD against BASE `HEAD` (`{commit[:12]}`)" in comment.stdout
    assert all(any(line.startswith("BenchmarkSnowflake") for line in (run_dir / f"{t}~base.txt").read_text().splitlines())
               for t in heads)
    assert all(f"| `{t}` |" in comment.stdout for t in heads), comment.stdout


def test_lab_up_again_changes_nothing(lab):
    run = lab.playbook("lab-up.yml")
    assert run.rc == 0, run.output[-5000:]
    recap = run.recap()
    assert recap and all(counts["changed"] == 0 for counts in recap.values()), recap


def test_a_variant_given_more_memory_updates_its_running_container(lab, tmp_path):
    # docker's default swap limit (twice the memory) stayed from the first start, and a larger
    # memory_mib then failed: "Memory limit should be smaller than already set memoryswap limit"
    more = tmp_path / "containers.yml"
    data = yaml.safe_load((REPO / "docker" / "variants.yml").read_text())
    data["variants"]["quota"]["memory_mib"] = 4096
    more.write_text(yaml.safe_dump(data, sort_keys=False))
    client = docker.from_env()
    try:
        run = lab.playbook("lab-up.yml", "--tags", "containers", containers_variants_file=str(more))
        assert run.rc == 0, run.output[-5000:]
        host = client.containers.get(lab.prefix + "quota").attrs["HostConfig"]
        assert host["Memory"] == host["MemorySwap"] == 4096 << 20
    finally:
        back = lab.playbook("lab-up.yml", "--tags", "containers")
    assert back.rc == 0, back.output[-5000:]
    host = client.containers.get(lab.prefix + "quota").attrs["HostConfig"]
    assert host["Memory"] == variants.load_containers()["quota"]["memory_mib"] << 20


def test_fabric_probe_prints_two_guests_side_by_side(lab):
    ports = json.loads((lab.state_dir / "ports.json").read_text())
    hosts = [f"root@127.0.0.1:{ports[lab.prefix + v]}" for v in ("nosmt", "smt-topoext")]
    proc = subprocess.run([str(VENV_BIN / "fab"), "-r", str(REPO), "-i", str(lab.ssh_key),
                           "-H", ",".join(hosts), "probe"],
                          capture_output=True, text=True, timeout=600, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = {line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:-1]]
            for line in proc.stdout.splitlines() if line.count("│") == 4}
    assert rows["host"] == [lab.prefix + "nosmt", lab.prefix + "smt-topoext"], proc.stdout
    assert {"threads-per-core", "clocksource", "nt-threshold", "target-kind"} <= rows.keys(), proc.stdout
    assert all(h.split("@")[1] in proc.stdout for h in hosts)


def test_fabric_quick_fetches_a_result(lab):
    port = json.loads((lab.state_dir / "ports.json").read_text())[lab.prefix + "nosmt"]
    env = dict(os.environ, VMPARITY_RESULTS_DIR=str(lab.results_dir))
    proc = subprocess.run([str(VENV_BIN / "fab"), "-r", str(REPO), "-i", str(lab.ssh_key),
                           "-H", f"root@127.0.0.1:{port}", "quick", "--profile", "smoke", "--run-id", "fab-e2e"],
                          capture_output=True, text=True, timeout=900, cwd=REPO, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    stored = list((lab.results_dir / "runs" / "fab-e2e").glob("*.txt"))
    assert len(stored) == 1 and header(stored[0])["profile"] == "smoke"


def test_a_guest_destroyed_mid_run_keeps_the_rest_and_is_filled_in(lab):
    run_id = "e2e-fault"
    staging = lab.root / "staging" / run_id / "rounds"
    victim = lab.prefix + "nosmt"
    # the pipeline, not every variant or job: metal (and its A/A pass), the guest to break,
    # another guest and a container show what is kept and what is filled in; the clock job
    # alone (test_smoke_profile_runs_and_is_collected_everywhere runs every job)
    targets = ["metal", "guest-nosmt", "guest-hpet-clock", "container-nolimit"]
    proc = lab.start_playbook("bench.yml", bench_profile="smoke", bench_count="2", bench_run_id=run_id,
                              bench_targets_only=targets, bench_only="^clock$")
    deadline = time.monotonic() + 900
    # destroy the guest once round 1 is under way and before it measured it
    while time.monotonic() < deadline and proc.poll() is None:
        done = {p.stem for p in staging.glob("1/*.txt")}
        if done and "guest-nosmt" not in done:
            subprocess.run(["virsh", "-c", "qemu:///system", "destroy", victim], check=True, capture_output=True)
            break
        if "guest-nosmt" in done:  # measured before we could break it: break it before round 2
            subprocess.run(["virsh", "-c", "qemu:///system", "destroy", victim], check=True, capture_output=True)
            break
        time.sleep(0.5)
    run = lab.finish("bench.yml", proc)
    assert run.rc != 0, "a run with a failed target must exit non-zero"
    assert "guest-nosmt in round" in run.output
    run_dir = lab.results_dir / "runs" / run_id
    rec = json.loads((run_dir / "rounds.json").read_text())
    assert rec["partial"] and "guest-nosmt" in rec["failed"], rec
    finished = {p.stem for p in run_dir.glob("*.txt")}
    assert {"metal", "metal-aa", "guest-hpet-clock", "container-nolimit"} <= finished
    before = {t: (run_dir / f"{t}.txt").read_bytes() for t in finished if t != "guest-nosmt"}

    # restart the guest, run again with the same id: only guest-nosmt is measured and added
    assert lab.playbook("lab-up.yml").rc == 0
    again = lab.playbook("bench.yml", bench_profile="smoke", bench_count="2", bench_run_id=run_id,
                         bench_targets_only=targets, bench_only="^clock$")
    assert again.rc == 0, again.output[-5000:]
    rec = json.loads((run_dir / "rounds.json").read_text())
    assert not rec["partial"] and rec["filled-in"][0]["targets"] == ["guest-nosmt"]
    assert header(run_dir / "guest-nosmt.txt")["count"] == "2"
    assert all((run_dir / f"{t}.txt").read_bytes() == b for t, b in before.items())
    assert not (lab.root / "staging" / run_id).exists(), "staging is cleaned once the run is stored"


def _judged(lab, run_id, target):
    """How the run judged target's rows (n, change, test, within noise) and its failed or missing
    rounds: what a failed verify needs to say why it found nothing to verify."""
    run_dir = lab.results_dir / "runs" / run_id
    table = subprocess.run([str(VENV_BIN / "vmparity"), "compare", str(run_dir), "--by", "target", "--format", "csv"],
                           capture_output=True, text=True)
    rows = [line for line in table.stdout.splitlines() if f",{target}," in line]
    rec = json.loads((run_dir / "rounds.json").read_text()) if (run_dir / "rounds.json").exists() else {}
    return (f"\n{run_id}, {target} against metal:\n" + "\n".join(rows[:12]) + table.stderr[-1000:]
            + f"\nfailed {rec.get('failed')}, missing rounds {rec.get('missing-rounds')}")


def test_lab_verify_proves_an_explanation_by_applying_its_fix(lab):
    """`make lab-verify` on a run of this lab: the hpet guest's clock rows are explained by
    vdso-fallback; its fix (clocksource=tsc) is applied to a derived guest booted by the same
    role, measured in the same rounds, and the verdict is stored with a plan that can run again
    (112 s of lab-verify here, 4 min 52 s for the test with the lab's bring-up)."""
    base = "e2e-verify-base"
    # the base run: metal, its A/A pass and the hpet guest, the clock job only, five rounds for every
    # target, the TCG guest too. The U test needs 4 a side, and at four a single lost or disturbed
    # value left every row within noise: a fresh machine's CI (2026-12-06) found no explanation to verify
    run = lab.playbook("bench.yml", bench_profile="smoke", bench_count="5", bench_run_id=base,
                       bench_targets_only=["metal", "guest-hpet-clock"], bench_only="^clock$",
                       bench_rounds_by_kind={})
    assert run.rc == 0, run.output[-5000:]
    vars_file = lab.root / "verify-vars.json"
    vars_file.write_text(json.dumps(lab.vars()))
    started = time.monotonic()
    proc = subprocess.run(
        ["make", "--no-print-directory", "lab-verify", f"LAB_VERIFY_RUN={base}", "LAB_VERIFY_TARGETS=guest-hpet-clock",
         "LAB_VERIFY_PROFILE=smoke", "LAB_VERIFY_ROUNDS=5", "LAB_VERIFY_BUILD=", f"RESULTS_DIR={lab.results_dir}",
         f"LAB_VERIFY_DIR={lab.root / 'verify-files'}", f"LAB_ARGS=-e @{vars_file}"],
        cwd=REPO, capture_output=True, text=True, timeout=1200)
    (lab.root / "lab-verify.log").write_text(proc.stdout + proc.stderr)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-5000:] + _judged(lab, base, "guest-hpet-clock")
    assert "lab-verify: took " in proc.stdout
    base_dir = lab.results_dir / "runs" / base
    plan = json.loads((base_dir / "verify-plan.json").read_text())
    item = next(i for i in plan["interventions"] if i["target"] == "guest-hpet-clock+clocksource-tsc")
    assert {c["field"]: c["to"] for c in item["changes"]}["kernel_cmdline_extra"] == "clocksource=tsc tsc=reliable"
    (verify_id,) = [r["run"] for r in json.loads((base_dir / "verifications.json").read_text())["verified-by"]]
    verify_dir = lab.results_dir / "runs" / verify_id
    assert {p.stem for p in verify_dir.glob("*.txt")} == {
        "metal", "metal-aa", "guest-hpet-clock", "guest-hpet-clock+clocksource-tsc"}
    assert header(verify_dir / "guest-hpet-clock+clocksource-tsc.txt")["clocksource"] == "tsc"
    result = json.loads((verify_dir / "verdicts.json").read_text())
    verdicts = {(v["target"], v["rule"]): v for v in result["verdicts"]}
    # Under TCG the fix brings the vDSO back (the vdso rows ~10x closer to metal) but emulation, which
    # the lab cannot change, carries the rest of the gap: measured here "partly" (16 % of the gap over
    # the rule's 15 rows, 10 moved beyond noise); under KVM it is "verified". Either way the fix moved
    # rows toward metal beyond noise; a wrong cause would be "refuted". How many of them clear
    # the band is the host's noise as much as the fix's: on a noisy hour (2026-11-28 00:20, the A/A
    # pair's scatter 4-7x its usual) 1 of smoke's 5 rows did in 4 rounds, so the size of the effect
    # is checked on the vDSO row itself below, not by that count. Five rounds, as lab-verify's
    # default: at four a side one slowed or lost value of the guest's leaves the U test between
    # the guest and its fix unable to call any row moved (CI of 2026-11-29 saw "refuted" once).
    vdso = verdicts[("guest-hpet-clock", "vdso-fallback")]
    assert vdso["verdict"] in ("verified", "partly") and vdso["moved"] >= 1, json.dumps(vdso)
    row = next(n for n in vdso["numbers"] if n["name"] == "BenchmarkClock/clock=monotonic/path=vdso")
    assert (1 + row["after-pct"] / 100) * 4 < 1 + row["before-pct"] / 100, row
    # tcg-emulation is broad: it claims only rows no narrower rule explained, and with the clock job alone
    # vdso-fallback may explain them all; where it claims rows, the lab cannot apply its fix here
    not_testable = [v for v in verdicts.values() if v["verdict"] == "not testable here"]
    assert all(v["reason"] for v in not_testable), not_testable
    tcg = verdicts.get(("guest-hpet-clock", "tcg-emulation"))
    assert tcg is None or tcg["verdict"] == "not testable here", tcg
    assert f"**Lab verdict:** {vdso['verdict']} by `guest-hpet-clock+clocksource-tsc`" in (base_dir / "report.md").read_text()
    # the stored plan runs again: the same interventions, from the run, not derived anew
    again = subprocess.run([str(VENV_BIN / "vmparity"), "--results-dir", str(lab.results_dir), "lab", "verify", base,
                            "--targets", "guest-hpet-clock", "--rounds", "5", "--write", str(lab.root / "again")],
                           capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert json.loads((base_dir / "verify-plan.json").read_text()) == plan
    assert json.loads((lab.root / "again" / "bench-vars.json").read_text()) == \
        json.loads((lab.root / "verify-files" / "bench-vars.json").read_text())
    # lab-verify ends by pausing its intervention guest (no CPU time beside the next lab run), and a
    # lab run leaves a paused guest out of its inventory; the original guest runs on
    conn = libvirt.open("qemu:///system")
    try:
        assert conn.lookupByName(lab.prefix + "hpet-clock+clocksource-tsc").state()[0] == libvirt.VIR_DOMAIN_PAUSED
        assert conn.lookupByName(lab.prefix + "hpet-clock").state()[0] == libvirt.VIR_DOMAIN_RUNNING
    finally:
        conn.close()
    print(f"lab-verify took {time.monotonic() - started:.0f} s")


def test_lab_down_leaves_no_domain_overlay_or_container(lab):
    run = lab.playbook("lab-down.yml")
    assert run.rc == 0, run.output[-5000:]
    again = lab.playbook("lab-down.yml")  # idempotent, even with the daemons it started now stopped
    assert again.rc == 0, again.output[-5000:]
    assert all(counts["changed"] == 0 for counts in again.recap().values()), again.recap()
    assert "kept: " in again.output
    assert lab_domains(lab.prefix) == []
    assert not (lab.state_dir / "overlays").exists()
    client = docker.from_env()
    assert client.containers.list(all=True, filters={"name": lab.prefix}) == []
    tags = [t for img in client.images.list() for t in img.tags]
    assert not [t for t in tags if t.startswith((lab.prefix + "base:", lab.prefix + "bench:"))]
    assert lab.ssh_key.exists(), "the lab key is kept (the results stay reproducible with it)"
