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
    front end, non-temporal stores): on a TCG guest the timings are QEMU's, so
    a decision taken on them becomes "cannot tell here", keeping the numbers.
    Verdicts that say what is missing, or rest on the fingerprint, stand."""

    @functools.wraps(judge)
    def judged(sc, t, metal=None):
        v = judge(sc, t, metal)
        if t.is_tcg and v.status != CANNOT_TELL and v.rests_on_timings:
            return Verdict(v.seed, v.target, CANNOT_TELL, v.here, TCG_REASON)
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
