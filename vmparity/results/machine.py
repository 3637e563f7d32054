"""Which physical machine a result came from: the `machine` fingerprint key.

envprobe records it (bench-src/go/envprobe/machine.go): on metal a digest of
what stays with the hardware and its installation (/etc/machine-id, the DMI
product UUID, the CPU's model name, family/model/stepping and L3 size; the
microcode is evidence only); in a container or guest the lab
passes the host's own value in (VMPARITY_MACHINE), since a container's
hostname changes every run and a guest's /etc/machine-id is its image's.
Like-for-like across runs is decided by it (pr-comment, the cross-run band's
history), not by host names. Files written before the key existed have no
identity: callers fall back to what they did before.
"""

from .targets import is_lab_metal

KEY = "machine"


def of_config(config):
    """The machine identity a header names, or None (absent or unreadable)."""
    value = (config or {}).get(KEY, "").strip()
    return value if value and not value.startswith("unknown") else None


def of_run(files):
    """A run's machine: its lab metal's identity, else the one its files name (if only one), else None."""
    for rf in files:
        if is_lab_metal(rf.target) and of_config(rf.config):
            return of_config(rf.config)
    named = {of_config(rf.config) for rf in files} - {None}
    return named.pop() if len(named) == 1 else None
