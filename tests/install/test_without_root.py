"""The two ways in without root (README, "The vmparity command" and "On a rack,
from a laptop"), run here as they are on a laptop: by an unprivileged user
(nobody, through setpriv when the suite runs as root), in a copy of the
repository's files, from PyPI and the Go module proxy alone, with a HOME of
its own and a PATH without the lab's venv.

- `pip install .` into a fresh venv gives a `vmparity` that compares two files
  like benchstat and reads a stored run, and names the extra it lacks.
- `make laptop` gives a rack's controller: vmparity, Ansible and Fabric in
  .venv, and the built suite, with the Go that go.mod names.

Slow (minutes: everything is downloaded and built anew), so it is a suite of
`make test` (make test-install), not of `make check`.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.install

REPO = Path(__file__).resolve().parents[2]
RUN = "2026-11-28T08-43-58Z-lab-quick"  # a committed lab run (results/runs)
UNPRIVILEGED = 65534  # nobody:nogroup on Debian
# What a laptop user has on PATH: the system's tools and its Go, not this
# machine's venv or root's own Python (pyenv's shims live under /root).
PATH = ":".join(p for p in ("/usr/local/go/bin", "/usr/local/bin", "/usr/bin", "/bin") if Path(p).is_dir())


class User:
    """Runs commands as the unprivileged user, in `home`, on a copy of the repository at `src`."""

    def __init__(self, top: Path):
        self.home, self.src = top / "home", top / "src"

    def run(self, *argv, cwd=None, env=None, timeout=1200) -> subprocess.CompletedProcess:
        env = {"HOME": str(self.home), "PATH": PATH, "LANG": "C.UTF-8", "TMPDIR": str(self.home / "tmp"), **(env or {})}
        drop = [] if os.geteuid() != 0 else [
            "setpriv", f"--reuid={UNPRIVILEGED}", f"--regid={UNPRIVILEGED}", "--clear-groups", "--"]
        return subprocess.run([*drop, *map(str, argv)], cwd=cwd or self.src, env=env, capture_output=True,
                              text=True, timeout=timeout)


@pytest.fixture(scope="module")
def user():
    # Not under pytest's tmp_path: its parents are root's, mode 0700, which nobody cannot enter.
    top = Path(tempfile.mkdtemp(prefix="vmparity-install-", dir="/var/tmp"))
    try:
        top.chmod(0o755)
        u = User(top)
        (u.home / "tmp").mkdir(parents=True)
        # the repository's files as a clone has them (the working tree's, so that a change is tested
        # before it is committed), without build/, .venv or anything else git does not track
        files = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                               capture_output=True, check=True).stdout.split(b"\0")
        for name in filter(None, files):
            source = REPO / os.fsdecode(name)
            if source.is_file():
                target = u.src / os.fsdecode(name)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)
        if os.geteuid() == 0:
            subprocess.run(["chown", "-R", f"{UNPRIVILEGED}:{UNPRIVILEGED}", str(top)], check=True)
        whoami = u.run("id", "-u")
        assert whoami.stdout.strip() != "0", "the install routes must be tried without root"
        yield u
    finally:
        # Go keeps its module cache read-only: writable again, or a user without root could not remove it
        subprocess.run(["chmod", "-R", "u+w", str(top)], capture_output=True)
        shutil.rmtree(top, ignore_errors=True)


def test_pip_install_gives_a_vmparity_that_compares_and_reads_a_run(user):
    venv = user.home / "venv"
    made = user.run("python3", "-m", "venv", venv)
    assert made.returncode == 0, made.stderr
    pip = user.run(venv / "bin" / "pip", "install", "-q", ".")
    assert pip.returncode == 0, pip.stderr[-3000:]
    vmparity = venv / "bin" / "vmparity"
    old, new = (f"tests/testdata/gotest/{n}.txt" for n in ("old", "new"))
    compare = user.run(vmparity, "compare", "-table", "", old, new)
    assert compare.returncode == 0 and compare.stdout.startswith("policy: plain-files"), compare
    assert "new against old: 3 of 12 row(s) beyond noise" in compare.stdout, compare.stdout
    noise = user.run(vmparity, "noise", f"results/runs/{RUN}")
    assert noise.returncode == 0 and noise.stdout.startswith("A/A noise (metal-aa vs metal): "), noise
    # without the report extra (matplotlib), report says how to get it: exit 2, never a traceback
    report = user.run(vmparity, "report", f"results/runs/{RUN}", "--out", user.home / "report")
    assert report.returncode == 2 and "pip install '.[report]'" in report.stderr, report
    assert "Traceback" not in report.stderr


def test_make_laptop_gives_a_controller_with_ansible_and_the_built_suite(user):
    laptop = user.run("make", "--no-print-directory", "laptop")
    assert laptop.returncode == 0, (laptop.stdout + laptop.stderr)[-4000:]
    venv = user.src / ".venv" / "bin"
    syntax = user.run(venv / "ansible-playbook", "--syntax-check", "-i", "ansible/inventories/rack-example",
                      "ansible/playbooks/site.yml", env={"ANSIBLE_CONFIG": "ansible/ansible.cfg"})
    assert syntax.returncode == 0, (syntax.stdout + syntax.stderr)[-3000:]
    benchrun = user.run("build/bench/benchrun", "--help")
    assert "usage: benchrun --profile" in benchrun.stdout + benchrun.stderr, benchrun
    assert (user.src / "build" / "bench" / "MANIFEST.sha256").is_file()
    fab = user.run(venv / "fab", "--list")
    assert fab.returncode == 0 and "probe" in fab.stdout, fab
    # the collections the roles use came with the ansible package or from ansible-galaxy, into the user's HOME
    listed = user.run(venv / "ansible-galaxy", "collection", "list", "community.libvirt")
    assert listed.returncode == 0 and "community.libvirt" in listed.stdout, listed
