"""Time at an equal core clock, for judging a row across runs (crossrun.py,
runspread.py; docs/noise.md, "Time at an equal core clock").

The benchmarks measure the core clock right before and after each
measurement and give the row a twin counted in core clocks (`clocks/op` =
ns × GHz; docs/noise.md, "The host's clock"). Which turbo bin a repetition
ran in is the host's other tenants' doing: it differs from repetition to
repetition, from target to target and from run to run, and it was most of
the spread that hid a planted +10 % in a container's time rows across runs
(their medians' sampling error 5 % where their clocks twins' was 2.8 %).
So across runs a time row with a clocks twin is compared at an equal clock:
each repetition's value is its clocks value at one fixed clock, BASE's
(median ns over median clocks of the row in BASE), so BASE's time row keeps
its own size and HEAD's shows what it would have taken at BASE's clock.

What this leaves out, said in the comment: a change of the host's clock
itself between the runs (a rack whose turbo was switched off), and the part
of a code change that lowers its own core's clock (an AVX-512 licence) that
the clock measured right after the code still sees. Both are time, and one
run with BASE and HEAD interleaved (`make lab-ab`) judges time directly.
"""

import math

import numpy as np

from ..results.spec import core_clock_units, known_units, speed_units


def time_units():
    """The speed units counted in time (ns/op, B/s, TSC cycles/op …), which a core clock scales."""
    return speed_units() - core_clock_units()


def twin_unit(unit):
    """The core-clock unit beside a time unit (`ns/op`, `B/s`, `cycles/op` → `clocks/op`), or None."""
    if unit not in time_units():
        return None
    per = "op" if unit.endswith("/s") else unit.split("/", 1)[1]
    twin = f"clocks/{per}"
    return twin if twin in core_clock_units() else None


def at_equal_clock(values, base, head):
    """values ({(target, name, unit): {column: samples}}, crossrun.row_values) with every time
    row whose clocks twin both runs measured replaced by that twin at BASE's clock, and
    {(target, name, unit): how much faster the row's clock ran in HEAD, as a log ratio}
    for the rows replaced."""
    out, clock = dict(values), {}
    for (target, name, unit), cells in values.items():
        twin = values.get((target, name, twin_unit(unit)))
        if not twin or not all(c in cells and c in twin for c in (base, head)):
            continue
        t_base, c_base = _median(cells[base]), _median(twin[base])
        t_head, c_head = _median(cells[head]), _median(twin[head])
        if not all(0 < x < math.inf for x in (t_base, c_base, t_head, c_head)):
            continue
        higher = known_units().get(unit)
        # lower is better: time = clocks / GHz; a throughput is work per time, GHz / clocks
        out[(target, name, unit)] = {c: (t_base * c_base / np.asarray(twin[c], dtype=float)) if higher
                                     else np.asarray(twin[c], dtype=float) * (t_base / c_base)
                                     for c in (base, head)}
        ghz = [(c / t) if not higher else (c * t) for c, t in ((c_base, t_base), (c_head, t_head))]
        clock[(target, name, unit)] = math.log(ghz[1]) - math.log(ghz[0])
    return out, clock


def medians_at_equal_clock(medians):
    """One run's {(target, name, unit): median} with each time row that has a clocks twin
    given the value that moves as that twin does (its median, inverted for a throughput):
    for run-to-run steps, where a constant factor per row drops out."""
    out = dict(medians)
    for (target, name, unit), m in medians.items():
        twin = medians.get((target, name, twin_unit(unit)))
        if twin and twin > 0 and m > 0:
            out[(target, name, unit)] = 1 / twin if known_units().get(unit) else twin
    return out


def _median(v):
    return float(np.median(v)) if len(v) else math.nan
