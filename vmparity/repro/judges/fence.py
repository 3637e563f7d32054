"""Seed 001: an mfence pair costs far more than a profile says, a locked
read-modify-write pair less; cycles, not profiles, give the cost."""

from ..measure import contrast, median
from .verdict import NOT_REPRODUCED, REPRODUCED, Verdict, hardware_effect, missing

BASE = "BenchmarkFence"
BARRIERS = ("none", "lock", "mfence")


@hardware_effect
def judge_fence(sc, t, metal=None):
    expect = sc["expect"]
    unit = "cycles/iter" if t.samples(BASE, "cycles/iter", work="llc", barrier="none") is not None else "ns/iter"
    samples, parts = {}, []
    for work in ("llc", "tlb", "div"):
        for barrier in BARRIERS:
            x = t.samples(BASE, unit, work=work, barrier=barrier)
            if x is not None:
                samples[work, barrier] = x
        if all((work, b) in samples for b in BARRIERS):
            none = median(samples[work, "none"])
            overhead = {b: (median(samples[work, b]) - none) / median(samples[work, b]) for b in ("lock", "mfence")}
            seed = sc["seed-figures"][work]
            parts.append(
                f"{work}: mfence {overhead['mfence']:.0%} / lock {overhead['lock']:.0%} of the loop "
                f"(seed {seed['actual-mfence']:.0%} / {seed['actual-lock']:.0%})"
            )
    work = expect["work"]
    if not all((work, b) in samples for b in BARRIERS):
        return missing(sc, t, BASE, "fence")
    here = "; ".join(parts) + f" [{unit}" + ("" if unit == "cycles/iter" else ", TSC unusable") + "]"
    mfence_vs_lock = contrast(samples[work, "mfence"], samples[work, "lock"])
    none = median(samples[work, "none"])
    mfence_overhead = (mfence_vs_lock.a - none) / mfence_vs_lock.a
    if mfence_overhead >= expect["min-mfence-overhead"] and mfence_vs_lock.clear(1.0):
        profile = sc["seed-figures"][work]["profile-mfence"]
        return Verdict(sc["seed"], t.name, REPRODUCED, here,
                       f"the mfence loop takes {mfence_vs_lock.ratio:.1f}x the lock loop's cycles ({mfence_vs_lock.note()}); "
                       f"the seed's profile put the mfence pair at {profile:.0%}: cycles, not profiles, give the cost")
    return Verdict(sc["seed"], t.name, NOT_REPRODUCED, here,
                   f"mfence overhead on {work} is {mfence_overhead:.0%} (< {expect['min-mfence-overhead']:.0%}) "
                   f"or not clearly above lock ({mfence_vs_lock.note()})")
