"""Fixtures of the end-to-end lab test: a lab of its own (prefix, state dir,
port range, results dir) so it never touches a lab the user runs, driven by
the real ansible-playbook against the real libvirtd, qemu and dockerd."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = REPO / ".venv" / "bin"
PLAYBOOKS = REPO / "ansible" / "playbooks"


def require(condition: bool, why: str) -> None:
    if not condition:
        pytest.skip(why)


@dataclass
class Run:
    rc: int
    output: str

    def recap(self) -> dict[str, dict[str, int]]:
        """PLAY RECAP per host: {'localhost': {'ok': 3, 'changed': 0, ...}}."""
        out = {}
        for m in re.finditer(r"^(\S+)\s+: ((?:\w+=\d+\s*)+)$", self.output, re.M):
            out[m.group(1)] = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", m.group(2))}
        return out


@dataclass
class Lab:
    """One isolated lab: its extra vars go to every playbook run."""
    root: Path
    prefix: str
    port_first: int
    extra: dict = field(default_factory=dict)

    @property
    def state_dir(self) -> Path:
        return self.root / "state"

    @property
    def results_dir(self) -> Path:
        return self.root / "results"

    @property
    def ssh_key(self) -> Path:
        return self.state_dir / "ssh" / "id_ed25519"

    def vars(self) -> dict:
        return {
            "vmparity_prefix": self.prefix,
            "vmparity_state_dir": str(self.state_dir),
            "guests_ssh_port_first": self.port_first,
            "guests_ssh_port_last": self.port_first + 49,
            "bench_results_dir": str(self.results_dir),
            "bench_staging_dir": str(self.root / "staging"),
            # the daemons are shared with whoever else uses this machine
            "host_prep_stop_daemons_on_teardown": False,
            # `make test-lab` installs the packages (deps) before the test
            "host_prep_install_packages": False,
            **self.extra,
        }

    def _command(self, name: str, args, extra):
        vars_file = self.root / f"vars-{os.getpid()}-{len(list(self.root.glob('vars-*.json')))}.json"
        vars_file.write_text(json.dumps({**self.vars(), **extra}))
        env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible" / "ansible.cfg"),
                   ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0")
        return [str(VENV_BIN / "ansible-playbook"), str(PLAYBOOKS / name), "-e", f"@{vars_file}", *args], env

    def _log(self, name: str, text: str) -> None:
        (self.root / f"{name}.{len(list(self.root.glob(name + '.*.log')))}.log").write_text(text)

    def playbook(self, name: str, *args: str, timeout: int = 1500, **extra) -> Run:
        cmd, env = self._command(name, args, extra)
        proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)
        self._log(name, proc.stdout + proc.stderr)
        return Run(proc.returncode, proc.stdout + proc.stderr)

    def start_playbook(self, name: str, *args: str, **extra) -> subprocess.Popen:
        """A playbook running in the background, for a test that breaks something under it."""
        cmd, env = self._command(name, args, extra)
        return subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def finish(self, name: str, proc: subprocess.Popen, timeout: int = 1500) -> Run:
        out, _ = proc.communicate(timeout=timeout)
        self._log(name, out)
        return Run(proc.returncode, out)


def _prerequisites() -> None:
    require(os.geteuid() == 0, "the lab test runs libvirtd/dockerd/debootstrap: it needs root")
    require((VENV_BIN / "ansible-playbook").exists(), f"{VENV_BIN}/ansible-playbook missing: run `make venv`")
    require((REPO / "build" / "bench" / "MANIFEST.sha256").exists(), "build/bench missing: run `make bench`")
    for tool in ("libvirtd", "virtlogd", "dockerd", "qemu-system-x86_64", "qemu-img", "docker"):
        require(shutil.which(tool, path="/usr/sbin:/usr/bin:/sbin:/bin:/usr/local/bin") is not None,
                f"{tool} not installed: run `make apt-deps`")


@pytest.fixture(scope="session")
def lab_factory(tmp_path_factory):
    """Make isolated labs; tear every one down at the end, whatever happened."""
    _prerequisites()
    made: list[Lab] = []

    def make(name: str, port_first: int, **extra) -> Lab:
        lab = Lab(tmp_path_factory.mktemp(name), f"vmparity-{name}-", port_first, extra)
        made.append(lab)
        return lab

    yield make
    for lab in made:
        lab.playbook("lab-down.yml", timeout=600)
