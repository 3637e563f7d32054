"""Per seed and per target: did the seed's effect reproduce here?

Pure functions. `judge_run(run)` takes a run — {target name: parsed result
file} (vmparity.resultfile.ResultFile or anything with `.config` and
`.benchmarks` of objects with `.units` and `.values`) — and returns one
Verdict per scenario per target the scenario covers: `reproduced`,
`not reproduced` (with the numbers measured here) or `cannot tell here`
(with the reason). A target the scenario wants but the run lacks gets a
`cannot tell here` too: nothing is left out.
"""

from dataclasses import dataclass

from ..names import is_aa_control, is_lab_metal
from .measure import Target, contrast, fmt, median
from .scenarios import covered_targets, load_scenarios

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
CANNOT_TELL = "cannot tell here"
INCONCLUSIVE = "inconclusive"  # the effect's confidence interval straddles the seed's bar


def _straddles(what, c, bar):
    return (f"{what}: {c.interval()} straddles the {bar:g}x bar ({c.note()}); "
            "more rounds (PROFILE=full or bench_count) would decide")

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


def judge_run(run, scenarios=None):
    """Every scenario's verdict on every target it covers, scenario order then run order."""
    scenarios = load_scenarios() if scenarios is None else scenarios
    # the A/A control is a second pass of metal, there to measure noise: no verdicts of its own
    targets = {name: Target(name, rf) for name, rf in run.items() if not is_aa_control(name)}
    out = []
    for sc in scenarios:
        for name, present in covered_targets(sc, list(targets)):
            if not present:
                out.append(Verdict(sc["seed"], name, CANNOT_TELL, "", "target not in this run"))
                continue
            out.append(JUDGES[sc["seed"]](sc, targets[name], reference_metal(targets, name)))
    return out


def reference_metal(targets, name=""):
    """The metal target `name` is measured against: the lab's metal of the same
    host (on a rack guests and containers carry their host's `-<host>` suffix),
    else the first lab metal, else the first target whose fingerprint says metal."""
    named = {n: t for n, t in targets.items() if is_lab_metal(n)}
    same_host = [t for n, t in named.items() if n != "metal" and name.endswith(n[len("metal"):])]
    fallback = next(iter(named.values()), next((t for t in targets.values() if t.kind == "metal"), None))
    return same_host[0] if same_host else fallback


def _missing(sc, t, base, program):
    return Verdict(
        sc["seed"],
        t.name,
        CANNOT_TELL,
        "",
        f"no {base} results on this target ({program} did not run or was filtered out)",
    )


# seed 000: storefwd ---------------------------------------------------------


def judge_storefwd(sc, t, metal=None):
    base, exp = "BenchmarkStorefwd", sc["expect"]
    s = {
        (size, form): t.samples(base, "ns/entry", size=size, form=form)
        for size in (28, 32)
        for form in ("overlap", "fresh")
    }
    if any(v is None for v in s.values()):
        return _missing(sc, t, base, "storefwd")
    slow = contrast(s[28, "overlap"], s[32, "overlap"])
    fresh = contrast(s[28, "fresh"], s[32, "fresh"])
    here = (
        f"overlap {fmt(slow.a)} vs {fmt(slow.b)} ns/entry (28 vs 32 B, {slow.ratio:.2f}x, {slow.note()}); "
        f"fresh {fmt(fresh.a)} vs {fmt(fresh.b)} ({fresh.ratio:.2f}x)"
    )
    blocks = t.samples(base, "store-fwd-blocks/entry", size=28, form="overlap")
    if blocks is not None:
        here += f"; {fmt(median(blocks))} store-forward blocks per 28-byte entry"
    if t.is_tcg:
        return Verdict(sc["seed"], t.name, CANNOT_TELL, here, TCG_REASON)
    decision = slow.decide(exp["min-ratio"])
    if decision == "unsure":
        return Verdict(sc["seed"], t.name, INCONCLUSIVE, here,
                       _straddles("28-byte overlap over 32-byte overlap", slow, exp["min-ratio"]))
    ok = decision == "yes" and fresh.ratio < exp["fresh-max-ratio"]
    if ok:
        return Verdict(sc["seed"], t.name, REPRODUCED, here)
    why = (
        slow.why_not(exp["min-ratio"], "28-byte overlap over 32-byte overlap")
        if decision == "no"
        else f"the fresh form is slow too ({fresh.ratio:.2f}x), so the overlap is not the cause"
    )
    return Verdict(sc["seed"], t.name, NOT_REPRODUCED, here, why)


# seed 001: fence ------------------------------------------------------------


def judge_fence(sc, t, metal=None):
    base, exp = "BenchmarkFence", sc["expect"]
    unit = "cycles/iter" if t.samples(base, "cycles/iter", work="llc", barrier="none") is not None else "ns/iter"
    med, parts = {}, []
    for work in ("llc", "tlb", "div"):
        for barrier in ("none", "lock", "mfence"):
            x = t.samples(base, unit, work=work, barrier=barrier)
            if x is not None:
                med[work, barrier] = x
        if all((work, b) in med for b in ("none", "lock", "mfence")):
            none = median(med[work, "none"])
            ov = {b: (median(med[work, b]) - none) / median(med[work, b]) for b in ("lock", "mfence")}
            seed = sc["seed-figures"][work]
            parts.append(
                f"{work}: mfence {ov['mfence']:.0%} / lock {ov['lock']:.0%} of the loop "
                f"(seed {seed['actual-mfence']:.0%} / {seed['actual-lock']:.0%})"
            )
    work = exp["work"]
    if not all((work, b) in med for b in ("none", "lock", "mfence")):
        return _missing(sc, t, base, "fence")
    here = "; ".join(parts) + f" [{unit}" + ("" if unit == "cycles/iter" else ", TSC unusable") + "]"
    if t.is_tcg:
        return Verdict(sc["seed"], t.name, CANNOT_TELL, here, TCG_REASON)
    mf_vs_lock = contrast(med[work, "mfence"], med[work, "lock"])
    none = median(med[work, "none"])
    mf_overhead = (mf_vs_lock.a - none) / mf_vs_lock.a
    if mf_overhead >= exp["min-mfence-overhead"] and mf_vs_lock.clear(1.0):
        profile = sc["seed-figures"][work]["profile-mfence"]
        return Verdict(
            sc["seed"],
            t.name,
            REPRODUCED,
            here,
            f"the mfence loop takes {mf_vs_lock.ratio:.1f}x the lock loop's cycles ({mf_vs_lock.note()}); "
            f"the seed's profile put the mfence pair at {profile:.0%}: cycles, not profiles, give the cost",
        )
    return Verdict(
        sc["seed"],
        t.name,
        NOT_REPRODUCED,
        here,
        f"mfence overhead on {work} is {mf_overhead:.0%} (< {exp['min-mfence-overhead']:.0%}) "
        f"or not clearly above lock ({mf_vs_lock.note()})",
    )


# seed 003: align ------------------------------------------------------------


def judge_align(sc, t, metal=None):
    base, exp = "BenchmarkAlign", sc["expect"]
    pads = t.param_values(base, "pad")
    if not pads:
        return _missing(sc, t, base, "align")
    times = {p: t.samples(base, "ns/iter", pad=p) for p in pads}
    fast = min(pads, key=lambda p: median(times[p]))
    slow = max(pads, key=lambda p: median(times[p]))
    spread = contrast(times[slow], times[fast])
    here = (
        f"{len(pads)} pads: {fmt(spread.b)} to {fmt(spread.a)} ns/iter "
        f"(pad={fast} vs pad={slow}, +{spread.ratio - 1:.0%}, {spread.note()})"
    )
    here += f"; PMU {t.config.get('pmu', 'unknown')}"
    source = t.config.get("align-insn-source", "unavailable (no align-insn-source key)")
    insns = {p: t.samples(base, "insns/iter", pad=p) for p in pads}
    if any(v is None for v in insns.values()) or source.startswith("unavailable"):
        here += "; instructions not counted"
        return Verdict(
            sc["seed"],
            t.name,
            CANNOT_TELL,
            here,
            f"instruction counts unavailable here ({source}; pmu: {t.config.get('pmu', '?')})",
        )
    counts = [median(v) for v in insns.values()]
    equal = (max(counts) - min(counts)) <= exp["max-insn-difference"] * max(counts)
    span = fmt(min(counts)) if equal else f"{fmt(min(counts))}–{fmt(max(counts))}"
    here += f"; {span} insns/iter {'on every pad' if equal else ''} from {source.split()[0]}".replace("  ", " ")
    if t.is_tcg:
        return Verdict(sc["seed"], t.name, CANNOT_TELL, here, TCG_REASON)
    if not equal:
        return Verdict(sc["seed"], t.name, NOT_REPRODUCED, here, "instruction counts differ between pads")
    decision = spread.decide(1 + exp["min-spread"])
    if decision == "yes":
        return Verdict(sc["seed"], t.name, REPRODUCED, here, "same instructions, different time")
    if decision == "unsure":
        return Verdict(sc["seed"], t.name, INCONCLUSIVE, here,
                       "same instructions; " + _straddles("the slowest pad over the fastest", spread, 1 + exp["min-spread"]))
    return Verdict(
        sc["seed"],
        t.name,
        NOT_REPRODUCED,
        here,
        "same instructions, and " + spread.why_not(1 + exp["min-spread"], "the slowest pad over the fastest"),
    )


# seed 002: memcpy and the non-temporal threshold ----------------------------

def _memcpy_ns(t, tunable, size):
    for link in ("static", "dynamic"):
        x = t.samples("BenchmarkMemcpy", "ns/op", link=link, tunable=tunable, size=size)
        if x is not None:
            return x
    return None


def judge_memcpy(sc, t, metal):
    base, exp = "BenchmarkMemcpy", sc["expect"]
    if not t.has(base):
        return _missing(sc, t, base, "memcpy")
    nt = t.number("nt-threshold")
    sizes = t.param_values(base, "size")
    if nt is None:
        return Verdict(
            sc["seed"],
            t.name,
            CANNOT_TELL,
            "",
            f"nt-threshold not in the header ({t.config.get('nt-threshold', 'missing')})",
        )
    if t.kind == "metal" or metal is None or metal is t:
        return _memcpy_nt_penalty(sc, t, nt, sizes, exp)
    mnt = metal.number("nt-threshold")
    here = f"nt-threshold {nt:#x} here, {mnt:#x} on {metal.name}" if mnt is not None else f"nt-threshold {nt:#x}"
    if mnt is None:
        return Verdict(sc["seed"], t.name, CANNOT_TELL, here, f"{metal.name} has no nt-threshold")
    if nt == mnt:
        return Verdict(
            sc["seed"],
            t.name,
            NOT_REPRODUCED,
            here + " (equal)",
            f"this target computes the same threshold as {metal.name} "
            f"(threads-per-core {t.config.get('threads-per-core', '?')}, "
            f"topoext {t.config.get('topoext', '?')}, glibc {t.config.get('glibc', '?')})",
        )
    lo, hi = sorted((nt, mnt))
    between = [s for s in sizes if lo < s <= hi]
    if not between:
        return Verdict(sc["seed"], t.name, CANNOT_TELL, here, f"no measured copy size lies between {lo:#x} and {hi:#x}")
    if t.is_tcg:
        return Verdict(sc["seed"], t.name, CANNOT_TELL, here + f"; sizes between: {between}", TCG_REASON)
    # The side with the lower threshold uses non-temporal stores at these sizes.
    slow_side, fast_side = (t, metal) if nt < mnt else (metal, t)
    rows, decisions, closed, unsure = [], [], True, None
    for size in between:
        a, b = _memcpy_ns(slow_side, "default", size), _memcpy_ns(fast_side, "default", size)
        fa, fb = _memcpy_ns(slow_side, "l3-3q", size), _memcpy_ns(fast_side, "l3-3q", size)
        if a is None or b is None:
            continue
        c = contrast(a, b)
        decisions.append(c.decide(exp["min-slowdown"]))
        unsure = unsure or (c if decisions[-1] == "unsure" else None)
        row = f"{size} B: {fmt(c.a)} vs {fmt(c.b)} ns ({c.ratio:.1f}x, {c.note()})"
        if fa is not None and fb is not None:
            fixed = contrast(fa, fb)
            closed &= fixed.ratio < exp["gap-closed-below"]
            row += f", with l3-3q {fixed.ratio:.1f}x"
        else:
            closed = False
        rows.append(row)
    here += f"; {slow_side.name} (lower threshold) vs {fast_side.name}: " + "; ".join(rows)
    if "yes" not in decisions and unsure is not None:
        return Verdict(sc["seed"], t.name, INCONCLUSIVE, here, _straddles("the slowest size", unsure, exp["min-slowdown"]))
    if "yes" in decisions:
        return Verdict(
            sc["seed"],
            t.name,
            REPRODUCED,
            here,
            "the 3/4-L3 tunable closes the gap" if closed else "the 3/4-L3 tunable does not close the gap",
        )
    return Verdict(
        sc["seed"],
        t.name,
        NOT_REPRODUCED,
        here,
        f"thresholds differ but no size between them is {exp['min-slowdown']}x slower",
    )


def _memcpy_nt_penalty(sc, t, nt, sizes, exp):
    """On metal: the mechanism itself — NT stores (tunable=min) below the threshold vs the default.
    `min`'s threshold is the one glibc applied (memcpy-nt-threshold-min), read back by benchrun."""
    low = t.number("memcpy-nt-threshold-min")
    if low is None:
        return Verdict(sc["seed"], t.name, CANNOT_TELL, f"nt-threshold {nt:#x}",
                       "no memcpy-nt-threshold-min in the header: nobody checked that tunable=min took effect "
                       f"({t.config.get('memcpy-nt-threshold-min', 'missing')})")
    if low >= nt:
        return Verdict(sc["seed"], t.name, CANNOT_TELL, f"nt-threshold {nt:#x}, tunable=min applied {low:#x}",
                       "tunable=min did not lower the threshold here")
    below = [s for s in sizes if low < s <= nt]
    here = f"nt-threshold {nt:#x}, tunable=min applied {low:#x}"
    rows, decisions, unsure = [], [], None
    for size in below:
        a, b = _memcpy_ns(t, "min", size), _memcpy_ns(t, "default", size)
        if a is None or b is None:
            continue
        c = contrast(a, b)
        decisions.append(c.decide(exp["min-nt-penalty"]))
        unsure = unsure or (c if decisions[-1] == "unsure" else None)
        rows.append(f"{size} B: {fmt(c.a)} ns with NT stores vs {fmt(c.b)} ({c.ratio:.1f}x, {c.note()})")
    if not rows:
        return Verdict(
            sc["seed"],
            t.name,
            CANNOT_TELL,
            here,
            f"no measured size between {low:#x} and the threshold with both "
            "tunable=min and tunable=default",
        )
    here += "; " + "; ".join(rows)
    if t.is_tcg:
        return Verdict(sc["seed"], t.name, CANNOT_TELL, here, TCG_REASON)
    if "yes" in decisions:
        return Verdict(
            sc["seed"],
            t.name,
            REPRODUCED,
            here,
            "a lower threshold makes cache-sized copies slower (the seed's mechanism)",
        )
    if unsure is not None:
        return Verdict(sc["seed"], t.name, INCONCLUSIVE, here,
                       _straddles("NT stores over cached copies", unsure, exp["min-nt-penalty"]))
    return Verdict(sc["seed"], t.name, NOT_REPRODUCED, here, "non-temporal stores cost no more than cached ones here")


# seed 004: snowflake and the clock ------------------------------------------


def judge_snowflake(sc, t, metal):
    base, exp = "BenchmarkSnowflake", sc["expect"]
    clock = exp["clock"]
    path = t.config.get(f"clock-verdict-{clock}")
    if not t.has(base):
        return _missing(sc, t, base, "snowflake")
    quota, visible = t.number("cpu-quota"), t.number("cpus-visible")
    parts = [f"clock {clock}: {path or 'no clock-verdict'} (clocksource {t.config.get('clocksource', '?')})"]
    tw, tk = exp["per-call-clock-impl"], exp["ticker-impl"]
    procs = t.procs_values(base, impl=tw)
    if not procs:
        return _missing(sc, t, base, "snowflake")
    p1 = procs[0]
    h_tw, h_tk = (t.samples(base, "ns/op", procs=p1, impl=i) for i in (tw, tk))
    if h_tk is None:
        return _missing(sc, t, f"{base}/impl={tk}", "snowflake")
    here_ratio = median(h_tw) / median(h_tk)
    parts.append(f"{tw}/{tk} at procs={p1}: {here_ratio:.2f}")
    # The container side of the seed: a quota below the visible CPUs.
    if t.kind == "container" and quota is not None and visible and quota < visible:
        q = max(1, round(quota))
        top = max(procs)
        if q in procs and top > q:
            c = contrast(t.samples(base, "ns/op", procs=top, impl=tw), t.samples(base, "ns/op", procs=q, impl=tw))
            parts.append(
                f"{tw} at GOMAXPROCS={top} (visible) vs {q} (quota {quota:g}): "
                f"{fmt(c.a)} vs {fmt(c.b)} ns/op ({c.ratio:.2f}x, {c.note()})"
            )
            decision = c.decide(exp["min-oversubscription-slowdown"])
            if decision == "unsure":
                return Verdict(sc["seed"], t.name, INCONCLUSIVE, "; ".join(parts),
                               _straddles("GOMAXPROCS above the quota", c, exp["min-oversubscription-slowdown"]))
            status = REPRODUCED if decision == "yes" else NOT_REPRODUCED
            return Verdict(
                sc["seed"],
                t.name,
                status,
                "; ".join(parts),
                "GOMAXPROCS above the quota "
                + ("oversubscribes" if status == REPRODUCED else "costs nothing clear here"),
            )
        return Verdict(
            sc["seed"],
            t.name,
            CANNOT_TELL,
            "; ".join(parts),
            f"quota {quota:g} of {visible:g} visible CPUs, but snowflake ran at procs {procs} only",
        )
    if t.kind == "container" and quota is None:
        parts.append("no CPU quota")
    if metal is None or metal is t:
        status = REPRODUCED if path == "fallback" else NOT_REPRODUCED
        return Verdict(
            sc["seed"],
            t.name,
            status,
            "; ".join(parts),
            (
                "the clock left the vDSO"
                if path == "fallback"
                else "the clock stays in the vDSO: the seed's native rows, not its Docker for Mac row"
            ),
        )
    m_tw, m_tk = (metal.samples(base, "ns/op", procs=p1, impl=i) for i in (tw, tk))
    if m_tw is None or m_tk is None:
        return Verdict(
            sc["seed"], t.name, CANNOT_TELL, "; ".join(parts), f"{metal.name} has no snowflake at procs={p1}"
        )
    m_ratio = median(m_tw) / median(m_tk)
    extra = here_ratio / m_ratio
    parts.append(f"on {metal.name} {m_ratio:.2f}: the per-call-clock design is {extra:.2f}x worse off here")
    if path == "fallback" and extra >= exp["min-extra-slowdown"]:
        return Verdict(
            sc["seed"],
            t.name,
            REPRODUCED,
            "; ".join(parts),
            "clock_gettime is a system call here and the per-call-clock design suffers most",
        )
    if path != "fallback":
        return Verdict(sc["seed"], t.name, NOT_REPRODUCED, "; ".join(parts), "the clock stays in the vDSO here")
    return Verdict(
        sc["seed"],
        t.name,
        NOT_REPRODUCED,
        "; ".join(parts),
        f"the clock falls back, but {tw} is not {exp['min-extra-slowdown']}x worse off than on {metal.name}",
    )


JUDGES = {"000": judge_storefwd, "001": judge_fence, "002": judge_memcpy, "003": judge_align, "004": judge_snowflake}
