"""Isolation (docs/noise.md): which processes the bench role's vmparity_isolate
module confines to the other CPUs, and that it gives every mask back."""

import os
import subprocess
from pathlib import Path

import pytest

from vmparity.lab import source_file

PATH = Path(__file__).resolve().parents[1] / "ansible/roles/bench/library/vmparity_isolate.py"
iso = source_file.load("vmparity_isolate", PATH)

CP = "/root/.ansible/cp"
LAB = "/root/.cache/vmparity/lab/"


def proc(ppid, comm, *argv):
    return {"ppid": ppid, "comm": comm, "cmdline": list(argv) or [comm], "start": "1"}


def local_lab():
    """make -> ansible-playbook (main) -> worker -> this module; a docker exec client; the daemons; guests."""
    return {
        1: proc(0, "systemd", "/sbin/init"),
        2: {"ppid": 0, "comm": "kthreadd", "cmdline": [], "start": "1"},  # a kernel thread: no cmdline
        100: proc(1, "make", "make", "lab-up"),
        200: proc(100, "ansible-playboo", "/venv/bin/python", "/venv/bin/ansible-playbook", "site.yml"),
        201: proc(200, "ansible-playboo", "/venv/bin/python", "/venv/bin/ansible-playbook", "site.yml"),
        202: proc(201, "sh", "/bin/sh", "-c", "python3 AnsiballZ_vmparity_isolate.py"),
        203: proc(202, "python3", "python3", "AnsiballZ_vmparity_isolate.py"),
        210: proc(200, "ansible-playboo", "/venv/bin/python", "/venv/bin/ansible-playbook", "site.yml"),
        211: proc(210, "docker", "docker", "exec", "vmparity-nolimit", "/bin/sh"),
        220: proc(210, "benchrun", "/var/tmp/vmparity-bench/benchrun", "--profile", "quick"),
        300: proc(1, "dockerd", "/usr/sbin/dockerd"),
        301: proc(1, "containerd", "/usr/bin/containerd"),
        302: proc(1, "containerd-shim", "/usr/bin/containerd-shim-runc-v2", "-namespace", "moby"),
        303: proc(302, "sleep", "sleep", "infinity"),  # the container's own process: the target
        310: proc(1, "libvirtd", "/usr/sbin/libvirtd"),
        311: proc(1, "virtlogd", "/usr/sbin/virtlogd"),
        400: proc(1, "qemu-system-x86", "/usr/bin/qemu-system-x86_64", "-name", "guest=vmparity-nosmt,debug-threads=on",
                  "-blockdev", '{"filename":"/root/.cache/vmparity/lab/overlays/vmparity-nosmt.qcow2"}'),
        401: proc(1, "qemu-system-x86", "/usr/bin/qemu-system-x86_64", "-name", "guest=vmparity-hpet-clock,debug-threads=on",
                  "-blockdev", '{"filename":"/root/.cache/vmparity/lab/overlays/vmparity-hpet-clock.qcow2"}'),
        402: proc(1, "qemu-system-x86", "/usr/bin/qemu-system-x86_64", "-name", "guest=someone-else,debug-threads=on"),
        403: proc(1, "qemu-system-x86", "/usr/bin/qemu-system-x86_64", "-name", "guest=vmparity-nosmt,debug-threads=on",
                  "-blockdev", '{"filename":"/var/lib/vmparity/lab/overlays/vmparity-nosmt.qcow2"}'),  # a test bed's
        500: proc(1, "ssh", f"ssh: {CP}/22300-a30e9f3098 [mux]"),
        501: proc(1, "ssh", "ssh: /tmp/other-user/.ansible/cp/1-2 [mux]"),
        600: proc(1, "python", "python", "-m", "pytest"),
    }


def test_the_controller_daemons_and_idle_guests_go_to_the_other_cpus():
    p = iso.plan(local_lab(), 203, {0, 1}, cp_dir=CP, guest_match=LAB)
    assert p["bench-cpu"] == 1 and p["others"] == [0]
    g = p["groups"]
    # the whole tree of the topmost ansible-playbook, this module included, but never a benchrun
    assert g["controller"] == [200, 201, 202, 203, 210, 211]
    assert g["daemons"] == [300, 301, 302, 310, 311]
    assert g["idle-guests"] == [400, 401]  # another user's qemu, or another lab's guest, is not this lab's
    assert g["ssh-masters"] == [500]  # this user's ControlPersist masters only
    assert p["release"] == []
    touched = {pid for pids in g.values() for pid in pids}
    assert not touched & {1, 2, 100, 220, 303, 402, 403, 501, 600}
    # without guest_match every lab-named guest counts
    assert iso.plan(local_lab(), 203, {0, 1})["groups"]["idle-guests"] == [400, 401, 403]


def test_the_measured_guest_keeps_its_cpus():
    p = iso.plan(local_lab(), 203, {0, 1}, measuring="vmparity-nosmt", cp_dir=CP, guest_match=LAB)
    assert p["groups"]["idle-guests"] == [401] and p["release"] == [400]


def test_a_remote_host_confines_the_ssh_session_this_module_runs_in():
    procs = {
        1: proc(0, "systemd", "/sbin/init"),
        50: proc(1, "sshd", "sshd: /usr/sbin/sshd -D [listener]"),
        51: proc(50, "sshd", "sshd: root@notty"),
        52: proc(51, "sh", "/bin/sh", "-c", "python3 x.py"),
        53: proc(52, "python3", "python3", "x.py"),
        60: proc(50, "sshd", "sshd: alice@pts/0"),  # someone's login: not the lab's
        300: proc(1, "dockerd", "/usr/sbin/dockerd"),
    }
    p = iso.plan(procs, 53, {0, 1, 2, 3})
    assert p["bench-cpu"] == 3 and p["others"] == [0, 1, 2]
    assert p["groups"]["controller"] == [50, 51, 52, 53] and p["groups"]["daemons"] == [300]


def test_one_cpu_changes_nothing_and_says_why():
    p = iso.plan(local_lab(), 203, {0})
    assert "none" in p and iso.summary(p, {0}).startswith("none (1 CPU")


def test_summaries_and_cpu_lists():
    assert iso.parse_cpulist("0-1,4,6-7\n") == {0, 1, 4, 6, 7}
    assert iso.cpulist({0, 2, 3, 4, 7}) == "0,2-4,7"
    p = iso.plan(local_lab(), 203, {0, 1, 2})
    assert iso.summary(p, {0, 1, 2}) == "benchmarks on CPUs 0-2; controller, daemons and idle guests on CPU 0-1"
    assert iso.summary(p, {0, 1, 2}, pin=True) == ("serial benchmarks on CPU 2; controller, daemons and idle guests "
                                                   "on CPU 0-1")
    assert iso.summary(p, {0, 1, 2}, guest=True).startswith("the measured guest's qemu on CPUs 0-2; ")


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")
def test_confine_then_restore_gives_every_thread_its_mask_back():
    mine = os.sched_getaffinity(0)
    child = subprocess.Popen(["sleep", "30"])
    try:
        procs = iso.read_procs()
        assert procs[child.pid]["comm"] == "sleep"
        first = min(mine)
        p = {"bench-cpu": max(mine), "others": [first], "groups": {"daemons": [child.pid]}, "release": []}
        state, errors = {}, []
        iso.confine(procs, p, state, errors)
        assert errors == [] and os.sched_getaffinity(child.pid) == {first}
        iso.confine(procs, p, state, errors)  # again (a guest's turn): the first mask is kept
        assert state[str(child.pid)]["tids"][str(child.pid)] == sorted(mine)
        assert iso.restore(iso.read_procs(), None, state, errors) == [child.pid]
        assert os.sched_getaffinity(child.pid) == mine and state == {} and errors == []
    finally:
        child.kill()
        child.wait()


def test_a_vcpu_thread_is_known_by_its_name():
    # libvirt pins these (vcpupin: a cgroup cpuset); they are re-pinned with virsh, not sched_setaffinity
    assert iso.vcpu_of("CPU 1/TCG\n") == 1 and iso.vcpu_of("CPU 0/KVM") == 0
    assert iso.vcpu_of("IO mon_iothread") is None and iso.vcpu_of("qemu-system-x86") is None


def test_two_labs_on_one_machine_restore_once_the_last_one_leaves():
    # lab A confines first and saves the daemons' masks; lab B (make test's other lab) joins
    state = iso.enter({}, "A@localhost", 100.0)
    state["procs"]["300"] = {"start": "1", "group": "daemons", "tids": {"300": [0, 1]}}
    state = iso.enter(state, "B@localhost", 110.0)
    state, last = iso.leave(state, "A@localhost", 200.0)
    assert not last and list(state["holders"]) == ["B@localhost"] and "300" in state["procs"]
    state, last = iso.leave(state, "B@localhost", 300.0)
    assert last and state["holders"] == {}
    # a holder that died hours ago does not keep the masks from being restored
    state = iso.enter(iso.enter({}, "dead", 0.0), "C", 10 * 3600.0)
    assert iso.leave(state, "C", 10 * 3600.0 + 5)[1]
    # a state file of the first format (every key a process) is read as processes
    assert iso.enter({"300": {"start": "1"}}, "D", 1.0)["procs"] == {"300": {"start": "1"}}
