"""The report's plots (matplotlib, headless). Each returns PNG bytes, or None without data.

They read medians and their confidence intervals from a comparison Table
built with by=target, so every target of the run is one column. Every
median carries its interval as an error bar, and every legend sits outside
the axes so it never hides a point.
"""

import io
import math
import warnings

import matplotlib

matplotlib.use("Agg")  # no display on a lab host or in CI
import matplotlib.pyplot as plt  # noqa: E402

from ..query.names import param_number, split_name  # noqa: E402
from ..render.escape import plot_label  # noqa: E402

# Threshold labels closer than this share of the axes' width would touch.
LABEL_MIN_SPACING = 0.1

# Targets named per threshold line in the legend; the fingerprint table has them all.
THRESHOLD_NAMES = 3

# Medians a log axis can draw: beyond these, matplotlib's transforms run out
# of float precision (denormals, values near the float maximum).
PLOTTABLE = (1e-250, 1e250)


def _png(fig):
    buf = io.BytesIO()
    with warnings.catch_warnings():
        # A name in a script the font lacks is drawn as boxes; the report's
        # tables show it in full, so the warning would only be noise on stderr.
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .* missing from font")
        fig.savefig(buf, format="png", dpi=96, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


def _finish(fig, ax, xlabel, ylabel, title, axis="both"):
    """Label a plot, put its legend outside, grid it; the PNG."""
    if xlabel is not None:
        ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    _legend_outside(ax)
    ax.grid(True, axis=axis, which="both", alpha=0.3)
    return _png(fig)


def _legend_outside(ax, **kw):
    """The legend to the right of the axes: off the data, however many series."""
    legend = ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, **kw)
    for text in legend.get_texts():
        _literal(text)


def _literal(text):
    """Names come from result files: a `$` in one must not switch matplotlib to
    mathtext (an unbalanced one would even raise), so their text is literal.
    (Only theirs: the log axes' tick labels are mathtext.)"""
    text.set_parse_math(False)
    return text


def _error(s):
    """(below, above) distances from the median to its CI bounds, for errorbar's yerr.

    An unbounded side (too few samples) or a bound at or below zero (which a
    log axis cannot draw) gets no bar on that side rather than a wrong one.
    """
    below = s.center - s.lo if _plottable(s.lo) else 0.0
    above = s.hi - s.center if _plottable(s.hi) else 0.0
    return max(below, 0.0), max(above, 0.0)


def _plot_with_ci(ax, pts, **kw):
    """pts: [(x, Summary)] sorted by x; a line through the medians with CI bars."""
    errs = [_error(s) for _, s in pts]
    ax.errorbar([x for x, _ in pts], [s.center for _, s in pts],
                yerr=[[e[0] for e in errs], [e[1] for e in errs]], marker="o", markersize=4,
                capsize=2, elinewidth=1, **kw)


def _plottable(v):
    return PLOTTABLE[0] <= v <= PLOTTABLE[1]


def _series(table, base_name, unit, key):
    """{(target, other params…): [(x, Summary)]} for rows of one benchmark family."""
    out = {}
    for r in table.rows:
        base, params, procs = split_name(r.name)
        if base != base_name or r.unit != unit:
            continue
        x = procs if key == "procs" and procs is not None else param_number(params.get(key))
        if x is None or not _plottable(x):  # the axes are logarithmic
            continue
        rest = tuple(sorted((k, v) for k, v in params.items() if k != key))
        for target, s in r.cells.items():
            if _plottable(s.center):
                out.setdefault((target, rest), []).append((x, s))
    return {k: sorted(v, key=lambda p: p[0]) for k, v in out.items()}


def _thresholds(table, targets):
    """{nt-threshold: [targets]} for the plotted targets, in size order."""
    out = {}
    for target in targets:
        nt = param_number(table.configs.get(("", target), {}).get("nt-threshold"))
        if nt and _plottable(nt):
            out.setdefault(nt, []).append(target)
    return dict(sorted(out.items()))


def _threshold_lines(ax, thresholds):
    """One line per distinct threshold (targets sharing it share it), named in the legend."""
    colors = {}
    for i, (nt, targets) in enumerate(thresholds.items()):
        style = dict(color=str(0.1 + 0.25 * (i % 3)), linestyle=[":", "-.", (0, (1, 3))][i % 3], linewidth=1.5)
        names = ", ".join(plot_label(t) for t in targets[:THRESHOLD_NAMES])
        if len(targets) > THRESHOLD_NAMES:
            names += f" and {len(targets) - THRESHOLD_NAMES} more"
        ax.axvline(nt, label=f"nt-threshold {_size(nt)}: {names}", **style)
        colors[nt] = style["color"]
    return colors


def _threshold_labels(ax, colors):
    """A short hex label at the top of each threshold line, once the log x axis
    is final: beside the line, on its left near the right edge, and one row
    lower when it would touch the previous label."""
    lo, hi = (math.log(v) for v in ax.get_xlim())
    last = {}  # row -> axes fraction of the last label in it
    for nt, color in colors.items():
        frac = (math.log(nt) - lo) / (hi - lo) if hi > lo else 0.5
        row = next((r for r in range(4) if r not in last or frac - last[r] >= LABEL_MIN_SPACING), len(last) % 4)
        last[row] = frac
        right = frac > 0.85
        ax.annotate(_size(nt), (nt, 1.0 - 0.06 * row), xycoords=("data", "axes fraction"),
                    ha="right" if right else "left", va="top", fontsize=7, color=color,
                    xytext=(-3 if right else 3, -3), textcoords="offset points",
                    bbox=dict(boxstyle="square,pad=0.1", facecolor="white", edgecolor="none", alpha=0.85))


def _size(n):
    n = int(n)
    return f"0x{n:x}" if n >= 4096 else str(n)


def memcpy(table):
    """B/s against copy size per target (log axes), each distinct nt-threshold as a vertical line."""
    series = _series(table, "BenchmarkMemcpy", "B/s", "size")
    series = {k: v for k, v in series.items() if dict(k[1]).get("tunable", "default") == "default"}
    if not series:
        return None
    fig, ax = plt.subplots(figsize=(10, 5.5))
    colors = {}
    for (target, rest), pts in series.items():
        color = colors.setdefault(target, f"C{len(colors) % 10}")
        link = dict(rest).get("link", "")
        _plot_with_ci(ax, pts, color=color, linestyle="--" if link == "dynamic" else "-",
                      label=plot_label(f"{target} {link}".strip()))
    threshold_colors = _threshold_lines(ax, _thresholds(table, colors))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    _threshold_labels(ax, threshold_colors)
    return _finish(fig, ax, "copy size (bytes)", "bytes/s (higher is better)",
                   "memcpy throughput (tunable=default, median and CI); vertical: non-temporal thresholds")


def clock(table):
    """ns per call for every clock and path, one bar per target, CI as error bars."""
    data = {}
    for r in table.rows:
        base, params, _ = split_name(r.name)
        if base == "BenchmarkClock" and r.unit == "ns/op":
            cells = {t: s for t, s in r.cells.items() if _plottable(s.center)}
            if cells:
                data[f"{params.get('clock')}/{params.get('path')}"] = cells
    if not data:
        return None
    targets = [c for c in table.columns if any(c in v for v in data.values())]
    fig, ax = plt.subplots(figsize=(max(8, len(data) * 0.8), 5))
    width = 0.8 / max(1, len(targets))
    for i, t in enumerate(targets):
        idx = [j for j, v in enumerate(data.values()) if t in v]
        cells = [v[t] for v in data.values() if t in v]
        errs = [_error(s) for s in cells]
        ax.bar([j + i * width for j in idx], [s.center for s in cells], width=width, label=plot_label(t),
               yerr=[[e[0] for e in errs], [e[1] for e in errs]], error_kw=dict(elinewidth=1, capsize=2))
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(data))])
    for label in ax.set_xticklabels([plot_label(k) for k in data], rotation=45, ha="right", fontsize=8):
        _literal(label)
    ax.set_yscale("log")
    return _finish(fig, ax, None, "ns per call (lower is better)", "clock reads: vDSO vs syscall per clock (median and CI)",
                   axis="y")


def snowflake(table):
    """ns/op against GOMAXPROCS per design and target, with the 244 ns floor."""
    series = _series(table, "BenchmarkSnowflake", "ns/op", "procs")
    if not series:
        return None
    fig, ax = plt.subplots(figsize=(10, 5.5))
    colors, styles = {}, {}
    for (target, rest), pts in series.items():
        impl = dict(rest).get("impl", "?")
        color = colors.setdefault(target, f"C{len(colors) % 10}")
        style = styles.setdefault(impl, ["-", "--", ":", "-."][len(styles) % 4])
        _plot_with_ci(ax, pts, color=color, linestyle=style, label=f"{plot_label(impl)} · {plot_label(target)}")
    floors = {param_number(c.get("snowflake-floor-ns")) for c in table.configs.values()} - {None}
    for floor in {f for f in floors if _plottable(f)} or {244}:
        ax.axhline(floor, color="black", linewidth=1, linestyle=":")
        ax.annotate(f"floor {floor:g} ns (4096 IDs/ms)", (0, floor), xycoords=("axes fraction", "data"),
                    fontsize=7, va="bottom")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    return _finish(fig, ax, "GOMAXPROCS", "ns per ID (lower is better)", "snowflake ID generators (median and CI)")


def draw_all(table, err):
    """{file name: PNG bytes} of every plot with data. A plot that matplotlib
    cannot draw is left out with a warning on err: it only illustrates tables
    the report holds in full, and must not cost the report."""
    images = {}
    for name, _title, fn in PLOTS:
        try:
            png = fn(table)
        except Exception as e:  # noqa: BLE001 - whatever matplotlib raises on odd data
            plt.close("all")
            err.write(f"vmparity: warning: plot {name} left out: {type(e).__name__}: {e}\n")
            continue
        if png is not None:
            images[name] = png
    return images


PLOTS = [("memcpy.png", "memcpy bytes/s against size", memcpy),
         ("clock.png", "clock ns/call per clock and path", clock),
         ("snowflake.png", "snowflake ns/op against GOMAXPROCS", snowflake)]
