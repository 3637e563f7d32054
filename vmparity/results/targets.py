"""Target names and kinds, with their one definition here (benchmark names: query/names.py).

Target names and kinds: the lab names the host itself `metal`, its A/A control
pass `metal-aa`, a guest `guest-<variant>` and a container
`container-<variant>`; a rack appends `-<host>` to every one of them
(vmparity_target_suffix). A target's kind says what ran it. The Ansible roles
get these through the filter plugin of the `vmparity` role, the repro plan and
the verdicts import them.
"""

import fnmatch
import re

from ..errors import InputError

METAL = "metal"
AA_CONTROL = "metal-aa"  # the host's metal measured a second time in every round
GUEST_PREFIX = "guest-"
CONTAINER_PREFIX = "container-"

# The target-kind a result file carries (envprobe detects the same four).
METAL_KIND, KVM_GUEST, TCG_GUEST, CONTAINER = "metal", "kvm-guest", "tcg-guest", "container"
KINDS = (METAL_KIND, KVM_GUEST, TCG_GUEST, CONTAINER)
# Why a TCG guest's rows are not held against the code across runs (the cross-run judgement and the
# PR comment's history notes say it alike): measured on this machine's runs of 2026-11-25/26.
TCG_ACROSS_RUNS = ("every row is the emulator's speed, which moves by 5–10 % from run to run (and by up to 4x "
                   "on large copies) whatever the code")
# What runs a lab target decides its kind: the host itself, a libvirt domain of
# type kvm, one of type qemu (TCG: emulation, never to be mistaken for
# virtualization), or docker.
KIND_BY_RUNNER = {"host": METAL_KIND, "kvm": KVM_GUEST, "qemu": TCG_GUEST, "docker": CONTAINER}


# Names that become file and directory names (a run id, a host, a target): letters, digits,
# '.', '_' and '-', never starting with a '.' or '-' (so never `..`, a hidden file or an
# option), never a '/' (so never a path). A target may also carry '+' (the intervention
# targets of `vmparity lab verify`) and end in `~base` (an A/B run's BASE side, below).
# At most NAME_MAX characters: a run id also names the sibling `.ingest-<id>-<8 random characters>` it
# is assembled in, a target `<target>.env.json`, and a file name has 255 bytes.
NAME_MAX = 200
_PLAIN = r"[A-Za-z0-9][A-Za-z0-9._-]*"
PLAIN_NAME = re.compile(_PLAIN + r"\Z")
PLAIN_NAME_WORDS = "letters, digits, '.', '_' or '-', starting with a letter or digit"
# The same, as the JSON Schema of a name that a record holds (a run a record links to, a host).
PLAIN_NAME_SCHEMA = {"type": "string", "pattern": f"^{_PLAIN}$", "maxLength": NAME_MAX,
                     "description": f"a name of {PLAIN_NAME_WORDS}, at most {NAME_MAX} characters"}


def check_plain_name(name, where, what):
    """name, when it can name a file or directory of a run (a run id, a host); else InputError
    at `where` (the option or file that gave it) saying what is allowed."""
    if not isinstance(name, str) or not PLAIN_NAME.match(name) or len(name) > NAME_MAX:
        shown = name[:80] if isinstance(name, str) else name
        raise InputError(where, f"{what} {shown!r} cannot name a file: expected {PLAIN_NAME_WORDS}, "
                                f"at most {NAME_MAX} characters")
    return name


def metal_target(suffix=""):
    """The host's own target: metal (metal-rack02 on a rack)."""
    return f"{METAL}{suffix}"


def guest_target(variant, suffix=""):
    """The target of a guest variant: nosmt -> guest-nosmt (guest-nosmt-rack02 on a rack)."""
    return f"{GUEST_PREFIX}{variant}{suffix}"


def container_target(variant, suffix=""):
    """The target of a container variant: quota -> container-quota."""
    return f"{CONTAINER_PREFIX}{variant}{suffix}"


def guest_variant(target, suffix=""):
    """The variant of a guest target, else None: guest-nosmt -> nosmt, and on a rack whose
    host suffix is `suffix` guest-nosmt-kvm01 -> nosmt (the suffix is the host's, not the
    variant's: a variant name may itself hold a dash)."""
    name = without_suffix(target, suffix)
    return name[len(GUEST_PREFIX):] if name.startswith(GUEST_PREFIX) else None


def container_variant(target, suffix=""):
    """The variant of a container target, else None: container-quota -> quota (container-quota-rack01
    -> quota with suffix `-rack01`)."""
    name = without_suffix(target, suffix)
    return name[len(CONTAINER_PREFIX):] if name.startswith(CONTAINER_PREFIX) else None


def without_suffix(target, suffix):
    """The target's name without its host's rack suffix (unchanged when it does not carry it)."""
    return target[:-len(suffix)] if suffix and target.endswith(suffix) else target


def target_kind(runner):
    """The kind of a target run by `runner` (host, kvm, qemu or docker)."""
    try:
        return KIND_BY_RUNNER[runner]
    except KeyError:
        raise ValueError(f"unknown runner {runner!r}: expected one of {', '.join(KIND_BY_RUNNER)}") from None


def matches(target, pattern):
    """A target matches a glob over plain target names as it is or with a rack
    host suffix: `guest-nosmt` covers `guest-nosmt-rack02`."""
    return fnmatch.fnmatchcase(target, pattern) or fnmatch.fnmatchcase(target, pattern + "-*")


def is_aa_control(target):
    """The A/A control pass: `metal-aa`, `metal-aa-<host>` on a rack."""
    return target == AA_CONTROL or target.startswith(AA_CONTROL + "-")


def is_lab_metal(target):
    """The lab names the host's own target `metal` (`metal-<host>` on a rack), even
    when the host is itself a VM or a container, as a CI runner often is. The
    A/A control pass (`metal-aa…`) is not the reference; it measures its noise,
    which is why a rack host cannot be called `aa` or `aa-…`."""
    return (target == METAL or target.startswith(METAL + "-")) and not is_aa_control(target)


def host_suffix(target):
    """The `-<host>` a rack appends to every target of one host: what the lab's
    metal (or its A/A pass) carries after its base name ("" on a single host)."""
    for base in (AA_CONTROL, METAL):
        if target == base or target.startswith(base + "-"):
            return target[len(base):]
    return None


def on_host_of(target, metal_target):
    """A target runs on the host of the lab metal `metal_target`: it carries
    that metal's rack suffix (every target does on a single host, suffix "")."""
    suffix = host_suffix(metal_target)
    return suffix is not None and head_of(target).endswith(suffix)  # an A/B run's BASE side runs there too


def aa_control_of(metal_target):
    """The A/A control's name for a lab metal target: metal -> metal-aa, metal-rack01 -> metal-aa-rack01."""
    return AA_CONTROL + metal_target[len(METAL):]


def metal_of(target, metals):
    """The lab metal (of `metals`) whose host `target` runs on: the one whose rack
    suffix it carries, the longest when several fit (`-rack10` over `-rack1`… and
    `-rack-1` over `-1`); None when none does. The one rule for which metal a
    target belongs to: the report's per-host views, the repro verdicts, the
    cross-run controls and the history's host all ask it."""
    fits = [m for m in metals if on_host_of(target, m)]
    return max(fits, key=lambda m: len(host_suffix(m))) if fits else None


# `vmparity lab verify` measures a target with one fix applied as a target of
# its own, `<target>+<fix>` (guest-hpet-clock+clocksource-tsc). A lab run
# measures such a target only when named (bench_targets_only): one left running
# by a verify must not join the next lab-up's rounds.
INTERVENTION_SEP = "+"


def is_intervention(target):
    return INTERVENTION_SEP in target


def intervention_target(target, fix, suffix=""):
    """The target of `target` with the fix `fix` applied: guest-hpet-clock+clocksource-tsc; on a
    rack the host suffix stays last (guest-hpet-clock+clocksource-tsc-kvm01), as the roles name the
    guest of the derived variant `hpet-clock+clocksource-tsc` there, so every rule that finds a
    target's host by its suffix (metal_of) finds it for the intervention target too."""
    return f"{without_suffix(target, suffix)}{INTERVENTION_SEP}{fix}{suffix}"


# A/B in one run (`make lab-ab BASE=<ref>`): every target runs the suite built
# at BASE beside the working tree's, and the BASE side is stored as a target of
# its own, `<target>~base`. `~` is no part of any other name (rack suffixes are
# `-<host>`), so the side never reads as a host and a plain lab run is unchanged.
BASE_SIDE = "~base"


def base_side(target):
    """The BASE side's name of a target in an A/B run: guest-nosmt -> guest-nosmt~base."""
    return f"{target}{BASE_SIDE}"


# A target's name as a file name: PLAIN_NAME with '+', and `~base` at the end.
TARGET_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*(" + re.escape(BASE_SIDE) + r")?\Z")
# The same, as the JSON Schema of a target's name that a record holds (rounds.json, a verify plan).
TARGET_NAME_SCHEMA = {"type": "string", "pattern": "^" + TARGET_NAME.pattern.removesuffix(r"\Z") + "$",
                      "maxLength": NAME_MAX, "description": "a target's name (letters, digits, '.', '_', '+' or "
                                                            "'-', and '~base' at the end)"}


def is_target_name(name):
    """Whether name can name a target's files (`<target>.txt`, `<target>.env.json`)."""
    return isinstance(name, str) and bool(TARGET_NAME.match(name)) and len(name) <= NAME_MAX


def is_base_side(target):
    return target.endswith(BASE_SIDE) and len(target) > len(BASE_SIDE)


def head_of(target):
    """The target a BASE side belongs to (guest-nosmt~base -> guest-nosmt); the name itself otherwise."""
    return target[:-len(BASE_SIDE)] if is_base_side(target) else target
