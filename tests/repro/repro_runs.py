"""Build result-file text for the verdict tests and parse it with the real
parser (vmparity.results.file), so the verdicts see what `benchrun` writes."""

from vmparity.results.file import parse_text

HEADERS = {
    "metal": {
        "target-kind": "metal",
        "nt-threshold": "0x1800000",
        "threads-per-core": "2",
        "topoext": "yes",
        "glibc": "2.36",
        "clocksource": "tsc",
        "pmu": "no",
        "cpu-quota": "none",
        "cpus-visible": "2",
    },
    "guest-nosmt": {
        "target-kind": "kvm-guest",
        "nt-threshold": "0xc00000",
        "threads-per-core": "1",
        "topoext": "no",
        "glibc": "2.36",
        "clocksource": "kvm-clock",
        "pmu": "no",
        "cpu-quota": "none",
        "cpus-visible": "2",
    },
    "guest-hpet-clock": {
        "target-kind": "kvm-guest",
        "nt-threshold": "0x1800000",
        "clocksource": "hpet",
        "pmu": "no",
        "cpu-quota": "none",
        "cpus-visible": "2",
    },
    "guest-tcg": {
        "target-kind": "tcg-guest",
        "nt-threshold": "0x1800000",
        "clocksource": "tsc",
        "pmu": "no",
        "cpu-quota": "none",
        "cpus-visible": "2",
    },
    "container-quota": {
        "target-kind": "container",
        "nt-threshold": "0x1800000",
        "clocksource": "tsc",
        "pmu": "no",
        "cpu-quota": "1",
        "cpus-visible": "2",
    },
}


for _header in HEADERS.values():
    _header.setdefault("memcpy-nt-threshold-min", "0x4041")  # what glibc 2.36 applies for tunable=min


def spread(center, n=5, step=0.01):
    """n distinct samples around center (distinct, so the U test is exact)."""
    return [center * (1 + step * (i - n // 2)) for i in range(n)]


def result_text(target, rows, extra_config=None):
    """rows: {benchmark name: {unit: [samples]}} -> result-file text, one line per repetition."""
    # rack names (metal-rack01, guest-nosmt-rack02) take the header of their local name
    local = next((k for k in HEADERS if target == k or target.startswith(k + "-")), target)
    config = {"vmparity-format": "1", "run-id": "test", "target": target, **HEADERS[local], **(extra_config or {})}
    lines = [f"{k}: {v}" for k, v in config.items()]
    reps = max(len(s) for units in rows.values() for s in units.values())
    for i in range(reps):
        for name, units in rows.items():
            vals = " ".join(f"{s[i]:.6g} {u}" for u, s in units.items())
            lines.append(f"{name} 1000 {vals}")
    return "\n".join(lines) + "\n"


def parsed(target, rows, extra_config=None):
    return parse_text(result_text(target, rows, extra_config), f"{target}.txt")


def storefwd_rows(o28, o32, f28, f32, n=5):
    return {
        f"BenchmarkStorefwd/size={s}/form={f}": {
            "ns/entry": spread(v, n),
            "flushes/op": [171.0 if s == 28 else 196.0] * n,
        }
        for (s, f), v in {(28, "overlap"): o28, (32, "overlap"): o32, (28, "fresh"): f28, (32, "fresh"): f32}.items()
    }


def fence_rows(cycles, n=5):
    """cycles: {(work, barrier): cycles/iter}."""
    return {
        f"BenchmarkFence/work={w}/barrier={b}": {"cycles/iter": spread(c, n), "ns/iter": spread(c / 2.4, n)}
        for (w, b), c in cycles.items()
    }


def align_rows(ns_by_pad, insns_by_pad=None, n=5):
    rows = {}
    for pad, ns in ns_by_pad.items():
        units = {"ns/iter": spread(ns, n, 0.002)}
        if insns_by_pad is not None:
            units["insns/iter"] = [insns_by_pad[pad]] * n
        rows[f"BenchmarkAlign/pad={pad}"] = units
    return rows


def memcpy_rows(ns, n=5):
    """ns: {(tunable, size): ns/op}."""
    return {f"BenchmarkMemcpy/link=static/tunable={t}/size={s}": {"ns/op": spread(v, n)} for (t, s), v in ns.items()}


def snowflake_rows(ns, n=5):
    """ns: {(impl, procs): ns/op}."""
    return {f"BenchmarkSnowflake/impl={i}/procs={p}-{p}": {"ns/op": spread(v, n)} for (i, p), v in ns.items()}
