"""Seed 002: glibc switches memcpy to non-temporal stores above
x86_non_temporal_threshold, computed from the cache size and the threads per
core the target sees. Against the metal, copies between the two thresholds
are slower on the side with the lower one; on the metal itself, the
mechanism: tunable=min (NT stores) against the default below the threshold."""

from ...results.targets import METAL_KIND
from ..measure import contrast, fmt
from .verdict import (
    CANNOT_TELL,
    INCONCLUSIVE,
    NOT_REPRODUCED,
    REPRODUCED,
    Verdict,
    any_clears,
    hardware_effect,
    missing,
    straddles,
)

BASE = "BenchmarkMemcpy"


def copy_ns(t, tunable, size):
    """ns/op of one copy size, from whichever memcpy binary (static or dynamic) ran."""
    for link in ("static", "dynamic"):
        x = t.samples(BASE, "ns/op", link=link, tunable=tunable, size=size)
        if x is not None:
            return x
    return None


@hardware_effect
def judge_memcpy(sc, t, metal):
    expect = sc["expect"]
    if not t.has(BASE):
        return missing(sc, t, BASE, "memcpy")
    threshold = t.number("nt-threshold")
    sizes = t.param_values(BASE, "size")
    if threshold is None:
        return Verdict(sc["seed"], t.name, CANNOT_TELL, "",
                       f"nt-threshold not in the header ({t.config.get('nt-threshold', 'missing')})")
    if t.kind == METAL_KIND or metal is None or metal is t:
        return nt_penalty(sc, t, threshold, sizes, expect)
    return against_metal(sc, t, metal, threshold, sizes, expect)


def against_metal(sc, t, metal, threshold, sizes, expect):
    metal_threshold = metal.number("nt-threshold")
    if metal_threshold is None:
        return Verdict(sc["seed"], t.name, CANNOT_TELL, f"nt-threshold {threshold:#x}", f"{metal.name} has no nt-threshold")
    here = f"nt-threshold {threshold:#x} here, {metal_threshold:#x} on {metal.name}"
    if threshold == metal_threshold:
        return Verdict(sc["seed"], t.name, NOT_REPRODUCED, here + " (equal)",
                       f"this target computes the same threshold as {metal.name} "
                       f"(threads-per-core {t.config.get('threads-per-core', '?')}, "
                       f"topoext {t.config.get('topoext', '?')}, glibc {t.config.get('glibc', '?')})",
                       rests_on_timings=False)
    lo, hi = sorted((threshold, metal_threshold))
    between = [s for s in sizes if lo < s <= hi]
    if not between:
        return Verdict(sc["seed"], t.name, CANNOT_TELL, here, f"no measured copy size lies between {lo:#x} and {hi:#x}")
    # The side with the lower threshold uses non-temporal stores at these sizes.
    nt_side, cached_side = (t, metal) if threshold < metal_threshold else (metal, t)
    rows, contrasts, gap_closed = [], [], True
    for size in between:
        nt_ns, cached_ns = copy_ns(nt_side, "default", size), copy_ns(cached_side, "default", size)
        if nt_ns is None or cached_ns is None:
            continue
        c = contrast(nt_ns, cached_ns)
        contrasts.append(c)
        row = f"{size} B: {fmt(c.a)} vs {fmt(c.b)} ns ({c.ratio:.1f}x, {c.note()})"
        nt_fixed, cached_fixed = copy_ns(nt_side, "l3-3q", size), copy_ns(cached_side, "l3-3q", size)
        if nt_fixed is not None and cached_fixed is not None:
            fixed = contrast(nt_fixed, cached_fixed)
            gap_closed &= fixed.ratio < expect["gap-closed-below"]
            row += f", with l3-3q {fixed.ratio:.1f}x"
        else:
            gap_closed = False
        rows.append(row)
    here += f"; {nt_side.name} (lower threshold) vs {cached_side.name}: " + "; ".join(rows)
    decision, undecided = any_clears(contrasts, expect["min-slowdown"])
    if decision == "unsure":
        return Verdict(sc["seed"], t.name, INCONCLUSIVE, here,
                       straddles("the slowest size", undecided, expect["min-slowdown"]))
    if decision == "yes":
        return Verdict(sc["seed"], t.name, REPRODUCED, here,
                       "the 3/4-L3 tunable closes the gap" if gap_closed else "the 3/4-L3 tunable does not close the gap")
    return Verdict(sc["seed"], t.name, NOT_REPRODUCED, here,
                   f"thresholds differ but no size between them is {expect['min-slowdown']}x slower")


def nt_penalty(sc, t, threshold, sizes, expect):
    """On metal: NT stores (tunable=min) below the threshold against the default.
    `min`'s threshold is the one glibc applied (memcpy-nt-threshold-min), read back by benchrun."""
    applied_min = t.number("memcpy-nt-threshold-min")
    if applied_min is None:
        return Verdict(sc["seed"], t.name, CANNOT_TELL, f"nt-threshold {threshold:#x}",
                       "no memcpy-nt-threshold-min in the header: nobody checked that tunable=min took effect "
                       f"({t.config.get('memcpy-nt-threshold-min', 'missing')})")
    here = f"nt-threshold {threshold:#x}, tunable=min applied {applied_min:#x}"
    if applied_min >= threshold:
        return Verdict(sc["seed"], t.name, CANNOT_TELL, here, "tunable=min did not lower the threshold here")
    rows, contrasts = [], []
    for size in (s for s in sizes if applied_min < s <= threshold):
        nt_ns, cached_ns = copy_ns(t, "min", size), copy_ns(t, "default", size)
        if nt_ns is None or cached_ns is None:
            continue
        c = contrast(nt_ns, cached_ns)
        contrasts.append(c)
        rows.append(f"{size} B: {fmt(c.a)} ns with NT stores vs {fmt(c.b)} ({c.ratio:.1f}x, {c.note()})")
    if not rows:
        return Verdict(sc["seed"], t.name, CANNOT_TELL, here,
                       f"no measured size between {applied_min:#x} and the threshold with both "
                       "tunable=min and tunable=default")
    here += "; " + "; ".join(rows)
    decision, undecided = any_clears(contrasts, expect["min-nt-penalty"])
    if decision == "yes":
        return Verdict(sc["seed"], t.name, REPRODUCED, here,
                       "a lower threshold makes cache-sized copies slower (the seed's mechanism)")
    if decision == "unsure":
        return Verdict(sc["seed"], t.name, INCONCLUSIVE, here,
                       straddles("NT stores over cached copies", undecided, expect["min-nt-penalty"]))
    return Verdict(sc["seed"], t.name, NOT_REPRODUCED, here, "non-temporal stores cost no more than cached ones here")
