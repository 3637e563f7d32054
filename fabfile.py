"""Ad-hoc tasks for an ops laptop, without the full provisioning (Fabric).

    fab -H rack01.example.net,rack02.example.net probe   # fingerprints side by side
    fab -H rack01.example.net,rack02.example.net quick   # quick profile on each, stored as one run
                                                         # (metal-rack01.txt, metal-rack02.txt)

A guest of the local lab: fab -H root@127.0.0.1:<port> -i <state>/ssh/id_ed25519 probe

Both upload build/bench (from `make bench`) to a scratch directory on the
host and check it against MANIFEST.sha256 there before running anything.
"""
from __future__ import annotations

import datetime
import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

from fabric import task
from invoke.exceptions import Exit
from rich.console import Console
from rich.table import Table

from vmparity.results.targets import metal_target

REPO = Path(__file__).resolve().parent
BENCH_DIR = REPO / "build" / "bench"
REMOTE_DIR = "/var/tmp/vmparity-fab"
STAGING = REPO / "build" / "fab-staging"
RESULTS = Path(os.environ.get("VMPARITY_RESULTS_DIR", REPO / "results"))

# Fingerprints of the hosts `probe` ran on, printed together by `probe-table`
# (Fabric runs a task once per host; a post-task runs once after all of them).
_fingerprints: dict[str, dict[str, str]] = {}
# The result files `quick` fetched, stored as one run by `collect`, and that run's id.
_staged: list[Path] = []
_run: dict[str, str] = {}


def _run_id(given: str = "") -> str:
    """One run id for every host of this invocation: the one given, else made once."""
    if "id" not in _run:
        _run["id"] = given or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H-%M-%SZ") \
            + "-fab-" + secrets.token_hex(2)
    return _run["id"]


def _host_label(c) -> str:
    """The host as given with -H (an ssh_config alias stays an alias), with a non-default port."""
    host = getattr(c, "original_host", None) or c.host
    return host if c.port in (None, 22) or host != c.host else f"{host}:{c.port}"


def _manifest() -> list[str]:
    manifest = BENCH_DIR / "MANIFEST.sha256"
    if not manifest.is_file():
        raise Exit(f"{manifest} does not exist; build the binaries first with `make bench`", code=2)
    names = []
    for lineno, line in enumerate(manifest.read_text().splitlines(), 1):
        parts = line.split()
        if len(parts) != 2 or len(parts[0]) != 64:
            raise Exit(f"{manifest}:{lineno}: expected '<sha256>  <file>', got {line!r}", code=2)
        names.append(parts[1].lstrip("*"))
    return names


def _deploy(c, names: list[str]) -> None:
    """Upload the binaries and verify their checksums on arrival."""
    c.run(f"mkdir -p {REMOTE_DIR}", hide=True)
    for name in names + ["MANIFEST.sha256"]:
        c.put(str(BENCH_DIR / name), f"{REMOTE_DIR}/{name}")
    c.run(f"chmod 0755 {' '.join(f'{REMOTE_DIR}/{n}' for n in names)}", hide=True)
    check = c.run(f"cd {REMOTE_DIR} && sha256sum --check --strict --quiet MANIFEST.sha256", hide=True, warn=True)
    if check.failed:
        raise Exit(f"{_host_label(c)}: binaries in {REMOTE_DIR} do not match MANIFEST.sha256: "
                   f"{(check.stdout + check.stderr).strip()}", code=1)


def _parse_config(text: str, label: str) -> dict[str, str]:
    config = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        key, sep, value = line.partition(":")
        if not sep or " " in key.strip():
            raise Exit(f"{label}: envprobe output line {lineno}: expected 'key: value', got {line!r}", code=1)
        config[key.strip()] = value.strip()
    return config


@task
def probe_table(c):
    """Print every probed host's fingerprint side by side (runs after probe)."""
    if not _fingerprints:
        return
    hosts = list(_fingerprints)
    keys = list(dict.fromkeys(k for fp in _fingerprints.values() for k in fp))
    table = Table(title="vmparity fingerprints")
    table.add_column("key", style="bold")
    for host in hosts:
        table.add_column(host)
    for key in keys:
        values = [_fingerprints[h].get(key, "—") for h in hosts]
        style = "yellow" if len(set(values)) > 1 else None
        table.add_row(key, *values, style=style)
    Console(width=max(120, 40 + 40 * len(hosts))).print(table)


@task(post=[probe_table])
def probe(c):
    """Upload envprobe to each host and show the fingerprints side by side."""
    names = _manifest()
    if "envprobe" not in names:
        raise Exit(f"{BENCH_DIR}/MANIFEST.sha256 lists no envprobe; rebuild with `make bench`", code=2)
    _deploy(c, names)
    out = c.run(f"{REMOTE_DIR}/envprobe", hide=True, warn=True)
    if out.failed:
        raise Exit(f"{_host_label(c)}: envprobe failed ({out.exited}): {out.stderr.strip()}", code=1)
    _fingerprints[_host_label(c)] = _parse_config(out.stdout, _host_label(c))


@task
def collect(c):
    """Store every host's result of `quick` as one run (runs after quick)."""
    if not _staged:
        return
    run_id = _run_id()
    # store it like the lab does: validated, all hosts at once, atomically,
    # under results/runs/<run-id>/
    vmparity = Path(sys.executable).with_name("vmparity")
    stored = subprocess.run([str(vmparity), "--results-dir", str(RESULTS), "ingest",
                             "--run-id", run_id, "--manifest", str(BENCH_DIR / "MANIFEST.sha256"),
                             *map(str, _staged)], capture_output=True, text=True)
    if stored.returncode != 0:
        raise Exit(f"vmparity ingest of {len(_staged)} host(s) failed: {stored.stderr.strip()}", code=1)
    print(stored.stdout.strip())
    shutil.rmtree(STAGING / run_id, ignore_errors=True)  # stored: the staged copies are not needed


@task(post=[collect])
def quick(c, profile="quick", run_id=""):
    """Run benchrun (quick profile) on each host; all hosts' results are stored as one run."""
    names = _manifest()
    _deploy(c, names)
    label = _host_label(c)
    run_id = _run_id(run_id)
    # the host is the metal target, named as the lab names a rack host's metal
    target = metal_target("-" + "".join(ch if ch.isalnum() or ch in ".-" else "-" for ch in label.split(".")[0]))
    remote = f"{REMOTE_DIR}/{target}.txt"
    c.run(f"{REMOTE_DIR}/benchrun --profile {profile} --out {remote} --force "
          f"--target {target} --run-id {run_id} --bench-dir {REMOTE_DIR}", pty=False)
    local = STAGING / run_id / f"{target}.txt"
    local.parent.mkdir(parents=True, exist_ok=True)
    c.get(remote, str(local))
    print(f"{label}: result fetched to {local}")
    _staged.append(local)
