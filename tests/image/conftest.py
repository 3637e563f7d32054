"""Fixtures for the image tests: the real daemons (started here only when none
runs, and then stopped by their own PID), the cached image, the repo paths."""
from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from rack.kvm_host import wait_for  # tests/ is on sys.path (tests/conftest.py)

REPO = Path(__file__).resolve().parents[2]
VM_TEMPLATES = REPO / "vm-templates"
CACHE_DIR = Path(os.environ.get("CACHE_DIR", Path.home() / ".cache" / "vmparity"))


@pytest.fixture(scope="session")
def image_dir() -> Path:
    """The current cached image, built by the recipe when missing (make image does it first)."""
    subprocess.run([str(VM_TEMPLATES / "image" / "build-image.sh")], check=True,
                   env={**os.environ, "CACHE_DIR": str(CACHE_DIR)})
    return (CACHE_DIR / "image" / "current").resolve()


@pytest.fixture(scope="session")
def libvirt_conn():
    """A connection to the system libvirtd; starts virtlogd/libvirtd (-d) when absent."""
    import libvirt

    libvirt.registerErrorHandler(lambda *_: None, None)   # errors arrive as exceptions
    started: list[int] = []

    def try_open():
        try:
            return libvirt.open("qemu:///system")
        except libvirt.libvirtError:
            return None

    conn = try_open()
    if conn is None:
        for daemon in ("virtlogd", "libvirtd"):
            pidfile = Path(f"/run/{daemon}.pid")
            subprocess.run([daemon, "-d"], check=True)
            wait_for(pidfile.exists, 30, f"{daemon} pid file {pidfile}")
            started.append(int(pidfile.read_text().split()[0]))
        wait_for(lambda: try_open() is not None, 60, "libvirtd on qemu:///system")
        conn = try_open()
    yield conn
    conn.close()
    for pid in reversed(started):        # stop only what this session started
        os.kill(pid, signal.SIGTERM)


@pytest.fixture(scope="session")
def docker_client(tmp_path_factory):
    """A docker client; starts `dockerd --bridge=none --iptables=false` when none answers."""
    import docker
    import docker.errors

    def ping():
        try:
            return docker.from_env().ping()
        except docker.errors.DockerException:
            return False

    proc = None
    if not ping():
        log = tmp_path_factory.mktemp("dockerd") / "dockerd.log"
        proc = subprocess.Popen(["dockerd", "--bridge=none", "--iptables=false"],
                                stdout=log.open("w"), stderr=subprocess.STDOUT)
        wait_for(ping, 60, f"dockerd (log {log})")
    client = docker.from_env(timeout=600)
    yield client
    client.close()
    if proc is not None:
        proc.terminate()
        proc.wait(timeout=60)
