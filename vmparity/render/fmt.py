"""Number formatting shared by the renderers (benchstat-like: 4 significant digits, SI prefix)."""

import math

from ..stats.sensitivity import POWER

_PREFIXES = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n")]


def value(v):
    if v is None:
        return "?"
    if math.isinf(v):
        return "∞" if v > 0 else "-∞"
    if v == 0:
        return "0"
    mag = abs(v)
    for scale, prefix in _PREFIXES:
        if mag >= scale:
            break
    scaled = v / scale
    digits = max(0, 3 - int(math.floor(math.log10(abs(scaled)))))
    return f"{scaled:.{digits}f}{prefix}"


# The mark of a time row's change taken at an equal core clock (decide/clockcheck.py) and
# the line that says what it means, under every table that shows one.
EQUAL_CLOCK_MARK = "†"
# The same for a large copy's time row taken at an equal memory bandwidth (decide/bandwidth.py).
EQUAL_BANDWIDTH_MARK = "‡"


def __getattr__(name):
    """EQUAL_CLOCK_NOTE and EQUAL_BANDWIDTH_NOTE cite their judge's doc, and the judges import the in-run
    machinery: only a table that shows a mark pays for it, not the start-up of `compare` of two files."""
    if name == "EQUAL_CLOCK_NOTE":
        from ..decide import clockcheck

        return (f"{EQUAL_CLOCK_MARK} a time row compared at an equal core clock: the change is its core-clock "
                f"twin's, round by round, since that target's clock was the host's ({clockcheck.DOC}).")
    if name == "EQUAL_BANDWIDTH_NOTE":
        from ..decide import bandwidth

        return (f"{EQUAL_BANDWIDTH_MARK} a large copy's time row compared at an equal memory bandwidth: the "
                f"change is its reference twin's (refcopies/op), round by round, since that target's copy loop "
                f"ran as fast as metal's ({bandwidth.DOC}).")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def delta(d, mde=None):
    """A row's change against the baseline; a row with no significant change shows, where the
    run has an A/A control, the smallest change it could have called beyond noise."""
    if d is None:
        return ""
    if d.verdict == "~":
        return f"~ (±{mde:.1f}%)" if mde is not None and math.isfinite(mde) else "~"
    if d.pct is None:
        return "?"
    mark = EQUAL_CLOCK_MARK if d.at_equal_clock else EQUAL_BANDWIDTH_MARK if d.at_equal_bandwidth else ""
    if d.within_noise:
        return f"{d.pct:+.2f}%{mark} (noise)"
    return f"{d.pct:+.2f}%{mark}"


# The legend of a `~ (±x%)` cell, under every table that shows one.
MDE_NOTE = (f"~ (±x%): no significant difference, and x the smallest change this row could have called beyond "
            f"noise ({POWER:.0%} power; its minimum detectable effect, docs/noise.md).")


def any_at_equal_clock(rows):
    """Whether a shown change of these rows was taken at an equal core clock (its note is due)."""
    return any(d is not None and d.at_equal_clock and d.verdict != "~" for r in rows for d in r.deltas.values())


def any_at_equal_bandwidth(rows):
    """Whether a shown change of these rows was taken at an equal memory bandwidth (its note is due)."""
    return any(d is not None and d.at_equal_bandwidth and d.verdict != "~" for r in rows for d in r.deltas.values())


def pct(p):
    return "?" if p is None else f"{p:+.2f}%"


def mde(x):
    """A minimum detectable effect: `±2.4%`, or why there is none."""
    if x is None:
        return "?"
    return f"±{x:.1f}%" if math.isfinite(x) else "none (too few samples to reach α)"


def mde_time_clocks(time, clocks):
    """A pair's smallest change seen in its time rows, and in its core-clock rows when it has them:
    `±2.4% (core clocks ±1.3%)`."""
    return mde(time) + (f" (core clocks {mde(clocks)})" if clocks is not None else "")


def p_n(c):
    """benchstat's `p=0.000 n=10` (or n=10+8 when the sides differ)."""
    n = f"n={c.n1}" if c.n1 == c.n2 else f"n={c.n1}+{c.n2}"
    return f"p={c.p:.3f} {n}"


def verdict_mark(d):
    if d.within_noise:
        return "≈ within noise"
    mark = {"better": "✅ better", "worse": "❌ worse", "~": "~", "same": "same", "?": "?",
            "changed": "changed"}.get(d.verdict, d.verdict)
    return f"{mark} (same binary: noise)" if d.same_binary else mark


def direction(higher_better):
    if higher_better is None:
        return "direction unknown"
    return "higher is better" if higher_better else "lower is better"


# benchstat's unit normalisation and scaling (golang.org/x/perf/benchunit): `ns` in a
# unit's numerator becomes `sec` and `MB` becomes `B` (Tidy); a unit counting bytes
# scales by 1024 (Ki, Mi, Gi, Ti), any other by 1000 (T … n); the cells of one row
# share one scale, chosen by its smallest value (CommonScale).

def _tokens(unit):
    """(token, start, in the denominator) for each part of a unit such as `ns/op` or `B*op/s`."""
    denom, i, n = False, 0, len(unit)
    while i < n:
        c = unit[i]
        if c == "*":
            denom = False
        elif c == "/":
            denom = True
        if c in "*/-" or c.isspace():
            i += 1
            continue
        j = i
        while j < n and not (unit[j] in "*/-" or unit[j].isspace()):
            j += 1
        yield unit[i:j], i, denom
        i = j


def tidy_unit(unit):
    """(benchstat's name for `unit`, the factor its values are multiplied by): ns/op -> sec/op, 1e-9."""
    if unit == "ns/op":
        return "sec/op", 1e-9
    if unit == "MB/s":
        return "B/s", 1e6
    if "ns" not in unit and "MB" not in unit:
        return unit, 1.0
    factor, edits = 1.0, []
    for tok, at, denom in _tokens(unit):
        if denom:
            continue
        if tok == "ns":
            edits.append((at, 2, "sec"))
            factor /= 1e9
        elif tok == "MB":
            edits.append((at, 2, "B"))
            factor *= 1e6
    for at, length, new in reversed(edits):
        unit = unit[:at] + new + unit[at + length:]
    return unit, factor


def _binary(unit):
    return any(tok in ("B", "MB", "bytes") and not denom for tok, _, denom in _tokens(unit))


def _factors(binary):
    if binary:
        return [(2.0 ** e, p) for e, p in zip(range(40, -1, -10), ["Ti", "Gi", "Mi", "Ki", ""])]
    return [(10.0 ** e, p) for e, p in zip(range(12, -10, -3), ["T", "G", "M", "k", "", "m", "µ", "n"])]


class Scaler:
    """Format values of one tidied unit as benchstat does: `4.101n`, `2.271Gi`, `171.0`."""

    def __init__(self, prec, factor, prefix):
        self.prec, self.factor, self.prefix = prec, factor, prefix

    def __call__(self, v):
        if v is None:
            return "?"
        if math.isinf(v) or math.isnan(v):
            return value(v)
        return f"{v / self.factor:.{self.prec}f}{self.prefix}"


def common_scale(values, unit):
    """The one Scaler for `values` (already tidied) in `unit` (tidied): benchstat's CommonScale."""
    finite = [abs(v) for v in values if v is not None and v != 0 and math.isfinite(v)]
    if not finite:
        return Scaler(3, 1.0, "")
    low = min(finite)
    factors = _factors(_binary(unit))
    for f, prefix in factors:
        if low >= 99.995 * f:
            return Scaler(1, f, prefix)
        if low >= 9.9995 * f:
            return Scaler(2, f, prefix)
        if low >= 0.99995 * f:
            return Scaler(3, f, prefix)
    f, prefix = factors[-1]
    scaled = low / f
    for i in range(8):
        if scaled >= 9.9995 * 10.0 ** -(i + 1) or i == 7:
            return Scaler(i + 3, f, prefix)


def scaled_summary(s, factor, scaler):
    """A summary cell in benchstat's units: `4.101n ± 3%`."""
    if s is None:
        return ""
    return f"{scaler(s.center * factor)} ± {s.pct_range()}"


def scaled(unit, summaries):
    """One row's cells as benchstat prints them, for a table that shows raw Summaries (Markdown,
    the PR comment): (the tidied unit, one `928.9p ± 2%` per summary, "" for None), one scale
    for the row, so that `928.9m ns/iter` reads as `928.9p sec/iter`."""
    shown, factor = tidy_unit(unit)
    scale = common_scale([s.center * factor for s in summaries if s is not None], shown)
    return shown, [scaled_summary(s, factor, scale) for s in summaries]


def scaled_value(unit, v):
    """A lone value (a geomean) in its tidied unit, scaled as benchstat scales it."""
    shown, factor = tidy_unit(unit)
    return "?" if v is None else common_scale([v * factor], shown)(v * factor)

