"""Seed 003: the same instructions at different code offsets take different
time (the front end, DSB vs MITE); instruction counts are compared first."""

from ..measure import contrast, fmt, median
from .verdict import (
    CANNOT_TELL,
    INCONCLUSIVE,
    NOT_REPRODUCED,
    REPRODUCED,
    Verdict,
    hardware_effect,
    missing,
    straddles,
)

BASE = "BenchmarkAlign"


@hardware_effect
def judge_align(sc, t, metal=None):
    expect = sc["expect"]
    pads = t.param_values(BASE, "pad")
    if not pads:
        return missing(sc, t, BASE, "align")
    times = {p: t.samples(BASE, "ns/iter", pad=p) for p in pads}
    fastest = min(pads, key=lambda p: median(times[p]))
    slowest = max(pads, key=lambda p: median(times[p]))
    spread = contrast(times[slowest], times[fastest])
    here = (
        f"{len(pads)} pads: {fmt(spread.b)} to {fmt(spread.a)} ns/iter "
        f"(pad={fastest} vs pad={slowest}, +{spread.ratio - 1:.0%}, {spread.note()})"
    )
    here += f"; PMU {t.config.get('pmu', 'unknown')}"
    source = t.config.get("align-insn-source", "unavailable (no align-insn-source key)")
    insns = {p: t.samples(BASE, "insns/iter", pad=p) for p in pads}
    if any(v is None for v in insns.values()) or source.startswith("unavailable"):
        here += "; instructions not counted"
        return Verdict(sc["seed"], t.name, CANNOT_TELL, here,
                       f"instruction counts unavailable here ({source}; pmu: {t.config.get('pmu', '?')})")
    counts = [median(v) for v in insns.values()]
    equal = (max(counts) - min(counts)) <= expect["max-insn-difference"] * max(counts)
    span = fmt(min(counts)) if equal else f"{fmt(min(counts))}–{fmt(max(counts))}"
    here += f"; {span} insns/iter {'on every pad' if equal else ''} from {source.split()[0]}".replace("  ", " ")
    if not equal:
        return Verdict(sc["seed"], t.name, NOT_REPRODUCED, here, "instruction counts differ between pads")
    bar = 1 + expect["min-spread"]
    what = "the slowest pad over the fastest"
    decision = spread.decide(bar)
    if decision == "yes":
        return Verdict(sc["seed"], t.name, REPRODUCED, here, "same instructions, different time")
    if decision == "unsure":
        return Verdict(sc["seed"], t.name, INCONCLUSIVE, here, "same instructions; " + straddles(what, spread, bar))
    return Verdict(sc["seed"], t.name, NOT_REPRODUCED, here, "same instructions, and " + spread.why_not(bar, what))
