#!/usr/bin/python
# Gives the benchmarks a CPU of their own during the rounds (pyperf's
# `system tune` idea, by affinity): the controller, the lab's daemons and the
# guests not being measured are confined to the other CPUs, and every
# affinity changed is saved so that `state: restored` puts it back.
from __future__ import annotations

DOCUMENTATION = r"""
module: vmparity_isolate
short_description: Confine the lab's controller, daemons and idle guests to the CPUs the benchmarks do not use
description:
  - On a host with at least two CPUs the last CPU is left to the benchmark (benchrun --pin-serial last
    pins the single-threaded programs there) and these processes are confined to the others by
    sched_setaffinity on every thread - the controller (the topmost ansible-playbook above this module
    and its descendants; on a remote host this module's own ancestors, the SSH session), Ansible's SSH
    connection masters, dockerd, containerd and its shims, libvirt's daemons, and the qemu of every lab
    guest but I(measuring).
  - The original mask of every thread it changes is kept in I(state_file) the first time it is changed,
    so repeated calls (one per measured guest) and I(state=restored) give back the original masks.
  - A guest's vCPU thread that libvirt pinned (vcpupin, a cgroup cpuset) refuses another mask; it is
    re-pinned with C(virsh vcpupin --live) instead, and back afterwards.
  - On a host with one CPU nothing changes and the result says why.
options:
  state:
    description: C(confined) confines (again) and releases I(measuring); C(restored) restores every saved mask.
    type: str
    choices: [confined, restored]
    default: confined
  state_file:
    description:
      - Where the original masks are kept between calls; one file per machine, shared by every lab run on it
        (make test runs two labs side by side), so that the first run saves a daemon's mask and the last one
        to leave restores it.
    type: path
    required: true
  holder:
    description: Who holds the isolation (the run and host); C(restored) restores only when no other holder is left.
    type: str
    default: lab
  measuring:
    description: The libvirt domain being measured (its qemu keeps its own mask); "" for none.
    type: str
    default: ""
  guest_prefix:
    description: Only qemu processes of domains whose name starts with this are the lab's guests.
    type: str
    default: vmparity-
  pin:
    description:
      - Whether the benchmarks are pinned to the last CPU (benchrun --pin-serial last) or run on every CPU
        (benchrun --widen), where the scheduler puts them on the CPU the confined processes leave idle and
        can still move them off it when something else wakes there. Only changes the recorded summary.
    type: bool
    default: false
  guest_match:
    description:
      - And only those whose command line contains this (the lab's state directory, where their overlays
        are): another lab's guests on the same machine (a test bed) are not this lab's to move.
    type: str
    default: ""
author: vmparity
"""

EXAMPLES = r"""
- name: Give the benchmarks a CPU of their own
  vmparity_isolate:
    state_file: /var/tmp/vmparity-bench/isolation.json
  register: bench_isolation
"""

RETURN = r"""
isolation:
  description: >-
    cpus (the host's), bench-cpu, others (the CPUs of the confined processes), summary and guest-summary
    (the result header's line for metal and the containers, and for a guest), confined ({group: [pids]}), released ([pids]), errors ([str]); restored ([pids]) when restoring.
  returned: always
  type: dict
"""

import json
import os

DAEMONS = {
    "dockerd": "daemons", "containerd": "daemons", "containerd-shim": "daemons",
    "containerd-shim-runc-v2": "daemons", "docker-proxy": "daemons",
    "libvirtd": "daemons", "virtqemud": "daemons", "virtlogd": "daemons", "virtlockd": "daemons",
}
CONTROLLER = "ansible-playbook"


def parse_cpulist(text):
    """A kernel CPU list ("0-1,4") as a set of ints."""
    cpus = set()
    for part in text.strip().split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def cpulist(cpus):
    """The kernel form of a set of CPUs: {0, 2, 3, 4} -> "0,2-4"."""
    out, cpus = [], sorted(cpus)
    i = 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else f"{cpus[i]}-{cpus[j]}")
        i = j + 1
    return ",".join(out)


def _is_controller(p):
    argv = p.get("cmdline") or []
    return any(os.path.basename(a) == CONTROLLER for a in argv[:2])


def _guest_of(p, prefix, match=""):
    """The domain name of a lab guest's qemu (-name guest=<name>,...), else None."""
    if not p["comm"].startswith("qemu-system"):
        return None
    argv = p.get("cmdline") or []
    if match and not any(match in a for a in argv):
        return None
    for i, a in enumerate(argv):
        if a == "-name" and i + 1 < len(argv):
            for field in argv[i + 1].split(","):
                name = field[len("guest="):] if field.startswith("guest=") else None
                if name and name.startswith(prefix):
                    return name
    return None


def plan(procs, self_pid, cpus, measuring="", guest_prefix="vmparity-", cp_dir=None, guest_match=""):
    """Which processes go to the other CPUs. procs: {pid: {"ppid", "comm", "cmdline": [argv]}}
    (kernel threads have no cmdline and are never moved). Returns {"bench-cpu", "others",
    "groups": {group: [pids]}, "release": [pids]} or {"none": why} on a host of one CPU.
    Groups: controller (the topmost ansible-playbook above self_pid and every descendant; without one,
    self_pid's ancestors below PID 1: a remote host's SSH session), ssh-masters (Ansible's ControlPersist
    masters, in cp_dir), daemons (DAEMONS), idle-guests (the lab's qemu - guest_prefix, guest_match - but
    `measuring`'s, which is released)."""
    cpus = set(cpus)
    if len(cpus) < 2:
        return {"none": f"{len(cpus)} CPU: nothing to give the benchmark alone"}
    bench = max(cpus)
    children = {}
    for pid, p in procs.items():
        children.setdefault(p["ppid"], []).append(pid)
    chain, pid = [], self_pid
    while pid in procs and pid > 1 and pid not in chain:
        chain.append(pid)
        pid = procs[pid]["ppid"]
    tops = [q for q in chain if _is_controller(procs[q])]
    if tops:
        controller, todo = set(), [tops[-1]]
        while todo:
            q = todo.pop()
            if q not in controller:
                controller.add(q)
                todo.extend(children.get(q, []))
    else:
        controller = set(chain)
    groups = {"controller": set(), "ssh-masters": set(), "daemons": set(), "idle-guests": set()}
    release = set()
    for pid, p in procs.items():
        if pid <= 1 or not p.get("cmdline") or p["comm"] == "benchrun":
            continue
        guest = _guest_of(p, guest_prefix, guest_match)
        if guest is not None:
            (release if guest == measuring else groups["idle-guests"]).add(pid)
        elif pid in controller:
            groups["controller"].add(pid)
        elif p["comm"] in DAEMONS:
            groups[DAEMONS[p["comm"]]].add(pid)
        elif (cp_dir and p["comm"] == "ssh" and any("[mux]" in a for a in p["cmdline"])
              and any(cp_dir in a for a in p["cmdline"])):
            groups["ssh-masters"].add(pid)
    return {"bench-cpu": bench, "others": sorted(cpus - {bench}),
            "groups": {g: sorted(v) for g, v in groups.items()}, "release": sorted(release)}


def summary(p, cpus, guest=False, pin=False):
    """The one line the result headers record (`isolation`): for metal and the containers (their serial
    benchmarks pinned to the bench CPU, or every benchmark on every CPU), and (guest=True) for a guest,
    whose benchmarks run in its qemu with the mask it had before."""
    if "none" in p:
        return f"none ({p['none']})"
    others = cpulist(p["others"])
    if guest:
        return (f"the measured guest's qemu on CPUs {cpulist(cpus)}; controller, daemons and the other "
                f"guests on CPU {others}")
    if pin:
        return f"serial benchmarks on CPU {p['bench-cpu']}; controller, daemons and idle guests on CPU {others}"
    return f"benchmarks on CPUs {cpulist(cpus)}; controller, daemons and idle guests on CPU {others}"


# --- reading and changing the host (not unit-tested: /proc and sched_setaffinity) ---

def read_procs():
    procs = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="utf-8", errors="replace") as f:
                stat = f.read()
            with open(f"/proc/{name}/cmdline", "rb") as f:
                argv = [a.decode("utf-8", "replace") for a in f.read().split(b"\0") if a]
        except OSError:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        rest = stat[stat.rindex(")") + 2:].split()
        procs[int(name)] = {"ppid": int(rest[1]), "comm": comm, "cmdline": argv, "start": rest[19]}
    return procs


def host_cpus():
    """The CPUs a process of this host may use: online, and in PID 1's cpuset."""
    with open("/sys/devices/system/cpu/online", encoding="utf-8") as f:
        online = parse_cpulist(f.read())
    try:
        return online & os.sched_getaffinity(1)
    except OSError:
        return online


def _tids(pid):
    try:
        return [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        return []


def vcpu_of(tid_comm):
    """The vCPU number of a qemu vCPU thread ("CPU 1/TCG", "CPU 0/KVM"), else None."""
    parts = tid_comm.strip().split()
    if len(parts) == 2 and parts[0] == "CPU" and "/" in parts[1]:
        n = parts[1].split("/")[0]
        if n.isdigit():
            return int(n)
    return None


def _comm(pid, tid):
    try:
        with open(f"/proc/{pid}/task/{tid}/comm", encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def _vcpupin(domain, vcpu, cpus):
    import subprocess
    r = subprocess.run(["virsh", "-c", "qemu:///system", "vcpupin", domain, str(vcpu), cpulist(cpus), "--live"],
                       capture_output=True, text=True, check=False)
    return None if r.returncode == 0 else (r.stderr.strip() or f"virsh exit {r.returncode}")


def confine(procs, p, state, errors, guests=None):
    """Move every thread of the planned processes; keep each thread's first mask in state. A guest's
    vCPU thread that libvirt pinned (EINVAL: its cgroup cpuset has no CPU of the mask) is re-pinned
    with virsh (guests: {pid: domain}); its first pinning is kept under "vcpus"."""
    others = set(p["others"])
    for group, pids in p["groups"].items():
        for pid in pids:
            saved = state.setdefault(str(pid), {"start": procs[pid]["start"], "group": group, "tids": {}})
            if saved["start"] != procs[pid]["start"]:  # the PID was reused: a new process
                state[str(pid)] = saved = {"start": procs[pid]["start"], "group": group, "tids": {}}
            for tid in _tids(pid):
                try:
                    saved["tids"].setdefault(str(tid), sorted(os.sched_getaffinity(tid)))
                    os.sched_setaffinity(tid, others)
                except OSError as e:
                    vcpu = vcpu_of(_comm(pid, tid)) if e.errno == 22 and guests and pid in guests else None
                    if vcpu is not None:
                        saved.setdefault("domain", guests[pid])
                        saved.setdefault("vcpus", {}).setdefault(str(vcpu), saved["tids"].get(str(tid)))
                        why = _vcpupin(guests[pid], vcpu, others)
                        if why:
                            errors.append(f"{guests[pid]} vCPU {vcpu}: virsh vcpupin: {why}")
                    elif e.errno != 3:  # ESRCH: the thread ended meanwhile
                        errors.append(f"{procs[pid]['comm']} {pid}/{tid}: {e.strerror}")


def restore(procs, pids, state, errors):
    """Give the saved processes among pids (all: None) their masks back; forget them."""
    done = []
    for key in list(state):
        pid = int(key)
        if pids is not None and pid not in pids:
            continue
        saved = state.pop(key)
        if pid not in procs or procs[pid]["start"] != saved["start"]:
            continue  # ended (or the PID is another process now)
        for vcpu, mask in (saved.get("vcpus") or {}).items():  # libvirt's pinning first: it sets the cpuset
            why = _vcpupin(saved["domain"], vcpu, set(mask)) if mask else None
            if why:
                errors.append(f"{saved['domain']} vCPU {vcpu}: virsh vcpupin: {why}")
        main = saved["tids"].get(key) or next(iter(saved["tids"].values()), None)
        for tid in _tids(pid):
            mask = saved["tids"].get(str(tid), main)
            if mask is None:
                continue
            try:
                os.sched_setaffinity(tid, set(mask))
            except OSError as e:
                if e.errno not in (3, 22):  # 22: a vCPU thread, given back by virsh above
                    errors.append(f"{procs[pid]['comm']} {pid}/{tid}: {e.strerror}")
        done.append(pid)
    return sorted(done)


HOLD_HOURS = 6  # a holder older than this died without restoring (its run would have ended)


def enter(state, holder, now):
    """Register holder (a run on this host) in the shared state; returns the state's procs."""
    if "procs" not in state:  # a state without holders: every key is a process
        state = {"holders": {}, "procs": dict(state)}
    state.setdefault("holders", {})[holder] = now
    return state


def leave(state, holder, now):
    """Drop holder (and holders older than HOLD_HOURS); True when no other holder is left, so the
    saved masks are to be restored now. Two labs on one machine (make test runs two) confine the same
    daemons: the first saves their masks, the last one out restores them, none restores the other's."""
    state = enter(state, holder, now)
    state["holders"].pop(holder, None)
    for h, t in list(state["holders"].items()):
        if now - t > HOLD_HOURS * 3600:
            state["holders"].pop(h)
    return state, not state["holders"]


class StateError(Exception):
    """The state file cannot be read."""


PARAMS = {"state": "confined", "state_file": None, "holder": "lab", "measuring": "", "guest_prefix": "vmparity-",
          "guest_match": "", "pin": False}


def apply(params, now=None):
    """Confine (and release `measuring`) or restore, as the parameters say; returns (changed, isolation).
    The module's main() calls it in a process of its own; the role's action of the same name calls it
    in the controller's process when the host is the controller itself (action_plugins/vmparity_isolate.py).
    Raises StateError when the state file cannot be read."""
    import fcntl
    import time

    path, holder = os.path.expanduser(params["state_file"]), params["holder"]
    now = time.time() if now is None else now
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path + ".lock", "a", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one read-modify-write at a time, whichever lab
        try:
            with open(path, encoding="utf-8") as f:
                state = json.load(f)
        except FileNotFoundError:
            state = {}
        except (OSError, ValueError) as e:
            raise StateError(f"{path}: {e}") from e
        procs, errors = read_procs(), []
        if params["state"] == "restored":
            state, last = leave(state, holder, now)
            done = restore(procs, None, state["procs"], errors) if last else []
            with open(path, "w", encoding="utf-8") as f:
                json.dump(state, f)
            return bool(done), {"restored": done, "errors": errors, "held-by-others": sorted(state["holders"])}
        state = enter(state, holder, now)
        cpus = host_cpus()
        p = plan(procs, os.getpid(), cpus, params["measuring"], params["guest_prefix"],
                 os.path.expanduser("~/.ansible/cp"), params["guest_match"])
        result = {"cpus": cpulist(cpus), "summary": summary(p, cpus, pin=params["pin"]),
                  "guest-summary": summary(p, cpus, guest=True), "errors": errors}
        if "none" not in p:
            released = restore(procs, set(p["release"]), state["procs"], errors)
            guests = {pid: _guest_of(procs[pid], params["guest_prefix"]) for pid in p["groups"]["idle-guests"]}
            confine(procs, p, state["procs"], errors, guests)
            result.update({"bench-cpu": p["bench-cpu"], "others": cpulist(p["others"]),
                           "confined": p["groups"], "released": released})
        with open(path, "w", encoding="utf-8") as f:
            json.dump(state, f)
    return "none" not in p, result


def main():
    from ansible.module_utils.basic import AnsibleModule

    module = AnsibleModule(argument_spec={
        "state": {"type": "str", "choices": ["confined", "restored"], "default": "confined"},
        "state_file": {"type": "path", "required": True},
        "holder": {"type": "str", "default": "lab"},
        "measuring": {"type": "str", "default": ""},
        "guest_prefix": {"type": "str", "default": "vmparity-"},
        "guest_match": {"type": "str", "default": ""},
        "pin": {"type": "bool", "default": False},
    }, supports_check_mode=False)
    try:
        changed, isolation = apply(module.params)
    except StateError as e:
        module.fail_json(msg=str(e))
    module.exit_json(changed=changed, isolation=isolation)


if __name__ == "__main__":
    main()
