"""What a judge returns, and the rules every judge shares: the statuses, the
TCG rule, and how a missing benchmark or an undecided interval is worded."""

import functools
from dataclasses import dataclass, field

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
CANNOT_TELL = "cannot tell here"
INCONCLUSIVE = "inconclusive"  # the effect's confidence interval straddles the seed's bar

TCG_REASON = (
    "TCG guests emulate the CPU in software: caches, store buffers, fences and "
    "the front end are QEMU's, not the hardware's"
)
# A KVM guest whose host is itself a TCG guest (the rack bed's nested KVM host):
# KVM configures it as on a rack, but underneath its CPU is still QEMU's.
NESTED_REASON = (
    "a KVM guest of a host that is itself emulated (its metal's target-kind is tcg-guest): KVM sets its "
    "topology, features and clock as on real hardware, but " + TCG_REASON.replace("TCG guests emulate", "TCG emulates")
    + "; timing needs a host with real vmx/svm"
)


def emulated(t, metal=None):
    """Why timings of target `t` (measured against `metal`, its host's) say nothing of the hardware, or None:
    a TCG guest, or a KVM guest of an emulated host (the host's own fingerprint says tcg-guest)."""
    if t.is_tcg:
        return TCG_REASON
    if metal is not None and metal is not t and metal.is_tcg:
        return NESTED_REASON
    return None


@dataclass(frozen=True)
class Verdict:
    seed: str
    target: str
    status: str
    here: str  # what was measured here, with numbers ("" when nothing was)
    reason: str = ""  # why it cannot tell, or what the numbers mean
    # False when the decision comes from the fingerprint alone (e.g. two equal
    # nt-thresholds), which emulation does not falsify.
    rests_on_timings: bool = field(default=True, compare=False, repr=False)


def hardware_effect(judge):
    """For seeds whose effect lives in the CPU (store forwarding, fences, the
    front end, non-temporal stores): on a TCG guest, or a KVM guest of an
    emulated host, the timings are QEMU's, so a decision taken on them becomes
    "cannot tell here", keeping the numbers. Verdicts that say what is
    missing, or rest on the fingerprint, stand."""

    @functools.wraps(judge)
    def judged(sc, t, metal=None):
        v = judge(sc, t, metal)
        why = emulated(t, metal)
        if why and v.status != CANNOT_TELL and v.rests_on_timings:
            return Verdict(v.seed, v.target, CANNOT_TELL, v.here, why)
        return v

    return judged


def missing(sc, t, base, program):
    return Verdict(sc["seed"], t.name, CANNOT_TELL, "",
                   f"no {base} results on this target ({program} did not run or was filtered out)")


def any_clears(contrasts, bar):
    """Over contrasts of several sizes: ("yes", None) when one clears the bar, else
    ("unsure", the first undecided one) when one straddles it, else ("no", None)."""
    decisions = [(c.decide(bar), c) for c in contrasts]
    if any(d == "yes" for d, _ in decisions):
        return "yes", None
    unsure = next((c for d, c in decisions if d == "unsure"), None)
    return ("unsure", unsure) if unsure is not None else ("no", None)


def straddles(what, c, bar):
    return (f"{what}: {c.interval()} straddles the {bar:g}x bar ({c.note()}); "
            "more rounds (PROFILE=full or bench_count) would decide")
