"""Benchmark names: `BenchmarkMemcpy/link=static/size=1024` -> base + parameters."""

from functools import lru_cache


@lru_cache(maxsize=None)
def split_name(name):
    """Return (base, {key: value}, procs) for a Go benchmark name.

    The trailing `-N` GOMAXPROCS suffix Go appends (`procs=4-4`) is stripped
    from the last part and returned as `procs` (None when absent).
    """
    parts = name.split("/")
    procs = None
    last = parts[-1]
    head, dash, tail = last.rpartition("-")
    if dash and tail.isdigit() and head:
        parts[-1], procs = head, int(tail)
    base = parts[0]
    params = {}
    for part in parts[1:]:
        key, eq, value = part.partition("=")
        if eq:
            params[key] = value
    return base, params, procs


def param_number(value):
    """A parameter or header value as a number (`1024`, `0x3000000`, `4.0`), else None."""
    if value is None:
        return None
    text = str(value).strip().split()[0] if str(value).strip() else ""
    try:
        return int(text, 0)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return None


METAL = "metal"
AA_CONTROL = "metal-aa"  # the host's metal measured a second time in every round


def is_aa_control(target):
    """The A/A control pass: `metal-aa`, `metal-aa-<host>` on a rack."""
    return target == AA_CONTROL or target.startswith(AA_CONTROL + "-")


def is_lab_metal(target):
    """The lab names the host's own target `metal` (`metal-<host>` on a rack), even
    when the host is itself a VM or a container, as a CI runner often is. The
    A/A control pass (`metal-aa…`) is not the reference; it measures its noise."""
    return (target == METAL or target.startswith(METAL + "-")) and not is_aa_control(target)


def host_suffix(target):
    """The `-<host>` a rack appends to every target of one host: what the lab's
    metal (or its A/A pass) carries after its base name ("" on a single host)."""
    for base in (AA_CONTROL, METAL):
        if target == base or target.startswith(base + "-"):
            return target[len(base):]
    return None


def aa_control_of(metal_target):
    """The A/A control's name for a lab metal target: metal -> metal-aa, metal-rack01 -> metal-aa-rack01."""
    return AA_CONTROL + metal_target[len(METAL):]
