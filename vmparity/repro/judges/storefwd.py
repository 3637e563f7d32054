"""Seed 000: 28-byte entries copied through overlapping 16-byte stores are
slower than 32-byte ones (store forwarding fails); the fresh form is not."""

from ..measure import contrast, fmt, median
from .verdict import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, Verdict, hardware_effect, missing, straddles

BASE = "BenchmarkStorefwd"


@hardware_effect
def judge_storefwd(sc, t, metal=None):
    expect = sc["expect"]
    samples = {
        (size, form): t.samples(BASE, "ns/entry", size=size, form=form)
        for size in (28, 32)
        for form in ("overlap", "fresh")
    }
    if any(v is None for v in samples.values()):
        return missing(sc, t, BASE, "storefwd")
    overlap = contrast(samples[28, "overlap"], samples[32, "overlap"])
    fresh = contrast(samples[28, "fresh"], samples[32, "fresh"])
    here = (
        f"overlap {fmt(overlap.a)} vs {fmt(overlap.b)} ns/entry (28 vs 32 B, {overlap.ratio:.2f}x, {overlap.note()}); "
        f"fresh {fmt(fresh.a)} vs {fmt(fresh.b)} ({fresh.ratio:.2f}x)"
    )
    blocks = t.samples(BASE, "store-fwd-blocks/entry", size=28, form="overlap")
    if blocks is not None:
        here += f"; {fmt(median(blocks))} store-forward blocks per 28-byte entry"
    what = "28-byte overlap over 32-byte overlap"
    decision = overlap.decide(expect["min-ratio"])
    if decision == "unsure":
        return Verdict(sc["seed"], t.name, INCONCLUSIVE, here, straddles(what, overlap, expect["min-ratio"]))
    if decision == "yes" and fresh.ratio < expect["fresh-max-ratio"]:
        return Verdict(sc["seed"], t.name, REPRODUCED, here)
    why = (
        overlap.why_not(expect["min-ratio"], what)
        if decision == "no"
        else f"the fresh form is slow too ({fresh.ratio:.2f}x), so the overlap is not the cause"
    )
    return Verdict(sc["seed"], t.name, NOT_REPRODUCED, here, why)
