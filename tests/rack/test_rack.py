"""The rack path, end to end, as from an ops laptop: the simulated rack
(bed.py: two rack hosts, each a container of the lab image with sshd, its
own dockerd and libvirtd; one TCG guest on rack01) driven over SSH only by
site.yml with an ordinary rack inventory, collected into one run; a host
killed mid-run and filled in with --limit; a host down at the start; fab
over the same hosts; the rack's own teardown. The tests run in file order
and share one bed (module scope): each builds on the rack the one before left.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import time
from datetime import datetime
from pathlib import Path

import pytest

from rack import bed as rack_bed  # tests/rack/bed.py (tests/conftest.py puts tests/ on the path)

pytestmark = pytest.mark.rack

REPO = Path(__file__).resolve().parents[2]
PLAYBOOKS = REPO / "ansible" / "playbooks"
HOSTS = [h.name for h in rack_bed.HOSTS]
PROFILE = ["-e", "bench_profile=smoke"]
# The fault tests check the pipeline (what is kept, recorded and filled in), not the jobs:
# the clock job alone (test_site_yml_collects_every_host_into_one_run runs every job)
FAULT_PROFILE = [*PROFILE, "-e", "bench_only=^clock$"]


class Laptop:
    """Runs commands as the bed's laptop (its HOME, ssh config and known_hosts)."""

    def __init__(self, root: Path, state: dict):
        self.root = root
        self.wrapper = state["laptop"]
        self.inventory = state["inventory"]
        self.results = root / "results"
        self.staging = root / "staging"
        self.logs = root / "logs"
        self.logs.mkdir(exist_ok=True)

    def _argv(self, playbook: str, args) -> list[str]:
        return [self.wrapper, "ansible-playbook", "-i", self.inventory, str(PLAYBOOKS / playbook),
                "-e", f"bench_results_dir={self.results}", "-e", f"bench_staging_dir={self.staging}", *args]

    def playbook(self, playbook: str, *args: str, timeout: int = 1200) -> tuple[int, str]:
        proc = subprocess.run(self._argv(playbook, args), cwd=REPO, capture_output=True, text=True, timeout=timeout)
        return self._log(playbook, proc.returncode, proc.stdout + proc.stderr)

    def start(self, playbook: str, *args: str) -> subprocess.Popen:
        return subprocess.Popen(self._argv(playbook, args), cwd=REPO, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)

    def finish(self, playbook: str, proc: subprocess.Popen, timeout: int = 1200) -> tuple[int, str]:
        out, _ = proc.communicate(timeout=timeout)
        return self._log(playbook, proc.returncode, out)

    def _log(self, playbook, rc, out):
        n = len(list(self.logs.glob("*.log")))
        (self.logs / f"{n:02d}-{playbook}.log").write_text(out)
        return rc, out

    def run(self, *argv: str, timeout: int = 600) -> subprocess.CompletedProcess:
        env = dict(os.environ, VMPARITY_RESULTS_DIR=str(self.results))
        return subprocess.run([self.wrapper, *argv], cwd=REPO, env=env, capture_output=True, text=True,
                              timeout=timeout)


def recap(output: str) -> dict[str, dict[str, int]]:
    out = {}
    for m in re.finditer(r"^(\S+)\s+: ((?:\w+=\d+\s*)+)$", output, re.M):
        out[m.group(1)] = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", m.group(2))}
    return out


def rounds_record(laptop: Laptop, run_id: str) -> dict:
    return json.loads((laptop.results / "runs" / run_id / "rounds.json").read_text())


def intervals(record: dict, host: str) -> list[tuple[datetime, datetime, str]]:
    fmt = "%Y-%m-%d %H:%M:%S.%f"
    return sorted((datetime.strptime(w["start"], fmt), datetime.strptime(w["end"], fmt), t)
                  for r in record["hosts"][host] for t, w in r["timings"].items() if w)


def docker(*args: str) -> None:
    subprocess.run(["docker", *args], check=True, capture_output=True, timeout=120)


def container(host: str) -> str:
    return next(h.container for h in rack_bed.HOSTS if h.name == host)


@pytest.fixture(scope="module")
def laptop(tmp_path_factory):
    if os.geteuid() != 0:
        pytest.skip("the rack bed runs docker in docker and libvirtd: it needs root")
    root = tmp_path_factory.mktemp("rack")
    state = rack_bed.up(root / "bed", rack_bed.HOSTS)
    yield Laptop(root, state)
    rack_bed.down(root / "bed")


def test_bed_reaches_hosts_only_over_ssh_with_checked_host_keys(laptop):
    home = Path(json.loads((laptop.root / "bed" / "state.json").read_text())["home"])
    assert (home / ".ssh" / "id_ed25519").stat().st_mode & 0o777 == 0o600
    for host in HOSTS:
        assert laptop.run("ssh", host, "hostname").stdout.strip() == host
    # a host key the laptop does not know is refused, never added
    known = home / ".ssh" / "known_hosts"
    saved = known.read_text()
    known.write_text("")
    try:
        refused = laptop.run("ssh", "-o", "ControlPath=none", HOSTS[0], "true")  # a new connection, not the master
        assert refused.returncode != 0 and "verification failed" in refused.stderr
    finally:
        known.write_text(saved)
    # no password login: sshd refuses the method outright
    pw = laptop.run("ssh", "-o", "ControlPath=none", "-o", "PreferredAuthentications=password", "-o", "PubkeyAuthentication=no", HOSTS[0], "true")
    assert pw.returncode != 0 and "Permission denied" in pw.stderr


RUN = "rack-test-one-run"


def test_site_yml_collects_every_host_into_one_run(laptop):
    rc, out = laptop.playbook("site.yml", *PROFILE, "-e", "bench_count=2", "-e", f"bench_run_id={RUN}")
    assert rc == 0, out[-3000:]
    run = laptop.results / "runs" / RUN
    expected = {f"{t}-{h}" for h in HOSTS for t in ("metal", "metal-aa", "container-nolimit")} | {"guest-nosmt-rack01"}
    assert {p.stem for p in run.glob("*.txt")} == expected
    assert "target-kind: tcg-guest" in (run / "guest-nosmt-rack01.txt").read_text()
    record = rounds_record(laptop, RUN)
    assert sorted(record["hosts"]) == HOSTS and not record["partial"]
    # one target at a time on each host; the hosts measured at the same time
    for host in HOSTS:
        spans = intervals(record, host)
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:])), f"{host} ran two targets at once: {spans}"
    first, second = intervals(record, HOSTS[0]), intervals(record, HOSTS[1])
    assert first[0][0] < second[-1][1] and second[0][0] < first[-1][1], "the hosts did not run in parallel"
    report = (run / "report.md").read_text()
    for host in HOSTS:
        assert f"## Host `{host}`" in report and f"Baseline: `metal-{host}`" in report
    assert "## Hosts compared" in report and "differ between the hosts' metals" in report


def test_second_provisioning_changes_nothing(laptop):
    rc, out = laptop.playbook("lab-up.yml")
    assert rc == 0, out[-3000:]
    changed = {h: r["changed"] for h, r in recap(out).items() if r["changed"]}
    assert changed == {}, f"provisioning again changed something: {changed}"


def test_fab_probe_and_quick_make_one_run(laptop):
    probe = laptop.run("fab", "-H", ",".join(HOSTS), "probe")
    assert probe.returncode == 0, probe.stderr[-2000:]
    quick = laptop.run("fab", "-H", ",".join(HOSTS), "quick", "--profile", "smoke")
    assert quick.returncode == 0, quick.stderr[-2000:]
    run_id = re.search(r"stored run (\S+):", quick.stdout).group(1)
    assert {p.stem for p in (laptop.results / "runs" / run_id).glob("*.txt")} == {f"metal-{h}" for h in HOSTS}


KILLED = "rack-test-host-killed"


def test_host_killed_mid_run_keeps_the_others_and_fills_in(laptop):
    proc = laptop.start("bench.yml", *FAULT_PROFILE, "-e", "bench_count=3", "-e", f"bench_run_id={KILLED}")
    round_one = laptop.staging / KILLED / "rounds" / "1" / "host-rack02.json"
    deadline = time.monotonic() + 900
    while not round_one.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(1)
    assert round_one.exists(), "rack02 never finished a round"
    docker("kill", container("rack02"))
    rc, out = laptop.finish("bench.yml", proc)
    assert rc != 0, "a host died and the play says nothing"
    record = rounds_record(laptop, KILLED)
    assert record["partial"] and "rack02" in record["failed-hosts"], record
    run = laptop.results / "runs" / KILLED
    for target in ("metal-rack01", "metal-aa-rack01", "container-nolimit-rack01", "guest-nosmt-rack01"):
        assert (run / f"{target}.txt").is_file()
        assert target not in record["failed"] and target not in record["missing-rounds"]
    kept = {p.name: p.read_bytes() for p in run.iterdir() if "rack01" in p.name}

    docker("start", container("rack02"))
    rc, out = laptop.playbook("site.yml", "--limit", "rack02", *FAULT_PROFILE, "-e", "bench_count=3",
                              "-e", f"bench_run_id={KILLED}")
    assert rc == 0, out[-3000:]
    record = rounds_record(laptop, KILLED)
    assert not record["partial"] and not record.get("failed-hosts"), record
    assert {p.name: p.read_bytes() for p in run.iterdir() if "rack01" in p.name} == kept
    assert {"metal-rack02.txt", "container-nolimit-rack02.txt"} <= {p.name for p in run.iterdir()}


def test_host_down_at_the_start_is_recorded_and_filled_in(laptop):
    docker("stop", container("rack02"))
    try:
        rc, out = laptop.playbook("bench.yml", *FAULT_PROFILE, "-e", "bench_run_id=rack-test-host-down")
    finally:
        docker("start", container("rack02"))
    assert rc != 0
    record = rounds_record(laptop, "rack-test-host-down")
    assert "Connection refused" in record["failed-hosts"]["rack02"]["msg"], record
    assert (laptop.results / "runs" / "rack-test-host-down" / "metal-rack01.txt").exists()
    # back after a restart (its daemons, containers and guests gone): provisioned
    # again and measured whole into the same run
    rc, out = laptop.playbook("site.yml", "--limit", "rack02", *FAULT_PROFILE, "-e", "bench_run_id=rack-test-host-down")
    assert rc == 0, out[-3000:]
    record = rounds_record(laptop, "rack-test-host-down")
    assert not record["partial"], record
    assert (laptop.results / "runs" / "rack-test-host-down" / "container-nolimit-rack02.txt").exists()


def test_lab_down_over_ssh_removes_the_rack_lab(laptop):
    rc, out = laptop.playbook("lab-down.yml", timeout=900)
    assert rc == 0, out[-3000:]
    listing = laptop.run("ssh", "rack01", "virsh -c qemu:///system list --all --name; docker ps -a --format '{{.Names}}'")
    assert "vmparity-" not in listing.stdout, listing.stdout
