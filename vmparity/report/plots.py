"""The report's plots (matplotlib, headless). Each returns PNG bytes, or None without data.

They read medians from a comparison Table built with by=target, so every
target of the run is one column.
"""

import io

import matplotlib

matplotlib.use("Agg")  # no display on a lab host or in CI
import matplotlib.pyplot as plt  # noqa: E402

from ..names import param_number, split_name  # noqa: E402


def _png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=96, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


def _series(table, base_name, unit, key):
    """{(target, other params…): [(x, median)]} for rows of one benchmark family."""
    out = {}
    for r in table.rows:
        base, params, procs = split_name(r.name)
        if base != base_name or r.unit != unit:
            continue
        x = procs if key == "procs" and procs is not None else param_number(params.get(key))
        rest = tuple(sorted((k, v) for k, v in params.items() if k != key))
        for target, s in r.cells.items():
            if x is not None:
                out.setdefault((target, rest), []).append((x, s.center))
    return {k: sorted(v) for k, v in out.items()}


def memcpy(table):
    """B/s against copy size per target (log axes), each target's nt-threshold as a vertical line."""
    series = _series(table, "BenchmarkMemcpy", "B/s", "size")
    series = {k: v for k, v in series.items() if dict(k[1]).get("tunable", "default") == "default"}
    if not series:
        return None
    fig, ax = plt.subplots(figsize=(9, 5))
    colors = {}
    for (target, rest), pts in series.items():
        color = colors.setdefault(target, f"C{len(colors)}")
        link = dict(rest).get("link", "")
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=color,
                linestyle="--" if link == "dynamic" else "-", label=f"{target} {link}".strip())
    for target, color in colors.items():
        nt = param_number(table.configs.get(("", target), {}).get("nt-threshold"))
        if nt:
            ax.axvline(nt, color=color, linestyle=":", linewidth=1.5)
            ax.annotate(f"nt-threshold {target}", (nt, 1), xycoords=("data", "axes fraction"),
                        rotation=90, va="top", ha="right", fontsize=7, color=color)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("copy size (bytes)")
    ax.set_ylabel("bytes/s (higher is better)")
    ax.set_title("memcpy throughput (tunable=default); dotted: each target's non-temporal threshold")
    ax.legend(fontsize=7)
    ax.grid(True, which="both", alpha=0.3)
    return _png(fig)


def clock(table):
    """ns per call for every clock and path, one bar per target."""
    data = {}
    for r in table.rows:
        base, params, _ = split_name(r.name)
        if base == "BenchmarkClock" and r.unit == "ns/op":
            data[f"{params.get('clock')}/{params.get('path')}"] = {t: s.center for t, s in r.cells.items()}
    if not data:
        return None
    targets = [c for c in table.columns if any(c in v for v in data.values())]
    fig, ax = plt.subplots(figsize=(max(8, len(data) * 0.8), 5))
    width = 0.8 / max(1, len(targets))
    for i, t in enumerate(targets):
        xs = [j + i * width for j in range(len(data))]
        ax.bar(xs, [v.get(t, 0) for v in data.values()], width=width, label=t)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(data))])
    ax.set_xticklabels(list(data), rotation=45, ha="right", fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("ns per call (lower is better)")
    ax.set_title("clock reads: vDSO vs syscall per clock")
    ax.legend(fontsize=7)
    ax.grid(True, axis="y", which="both", alpha=0.3)
    return _png(fig)


def snowflake(table):
    """ns/op against GOMAXPROCS per design and target, with the 244 ns floor."""
    series = _series(table, "BenchmarkSnowflake", "ns/op", "procs")
    if not series:
        return None
    fig, ax = plt.subplots(figsize=(9, 5))
    colors, styles = {}, {}
    for (target, rest), pts in series.items():
        impl = dict(rest).get("impl", "?")
        color = colors.setdefault(target, f"C{len(colors)}")
        style = styles.setdefault(impl, ["-", "--", ":", "-."][len(styles) % 4])
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=color, linestyle=style, label=f"{impl} · {target}")
    floors = {param_number(c.get("snowflake-floor-ns")) for c in table.configs.values()} - {None}
    for floor in floors or {244}:
        ax.axhline(floor, color="black", linewidth=1, linestyle=":")
        ax.annotate(f"floor {floor:g} ns (4096 IDs/ms)", (0, floor), xycoords=("axes fraction", "data"), fontsize=7, va="bottom")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("GOMAXPROCS")
    ax.set_ylabel("ns per ID (lower is better)")
    ax.set_title("snowflake ID generators")
    ax.legend(fontsize=7, ncol=2)
    ax.grid(True, which="both", alpha=0.3)
    return _png(fig)


PLOTS = [("memcpy.png", "memcpy bytes/s against size", memcpy),
         ("clock.png", "clock ns/call per clock and path", clock),
         ("snowflake.png", "snowflake ns/op against GOMAXPROCS", snowflake)]
