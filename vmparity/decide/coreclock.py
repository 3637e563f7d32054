"""Time at an equal core clock, for judging a row across runs (crossrun.py,
history/machine_range.py; docs/noise.md, "Time at an equal core clock").

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

from ..results.spec import core_clock_units, known_units, time_units


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
    for the rows replaced. A row is replaced on every target or on none, so a target and
    the controls its drift comes from are compared in one measure."""
    out, clock = dict(values), {}
    compared = {k: cells for k, cells in values.items() if base in cells and head in cells}
    for keys in _by_row(compared).values():
        parts = [_at_equal_clock(values, key, base, head) for key in keys]
        if all(p is not None for p in parts):
            for key, (cells, moved) in zip(keys, parts):
                out[key], clock[key] = cells, moved
    return out, clock


def _at_equal_clock(values, key, base, head):
    """(the row's samples at BASE's clock per column, the log change of its clock), or None."""
    target, name, unit = key
    cells, twin = values[key], values.get((target, name, twin_unit(unit)))
    if not twin or not all(c in twin for c in (base, head)):
        return None
    t_base, c_base = _median(cells[base]), _median(twin[base])
    t_head, c_head = _median(cells[head]), _median(twin[head])
    clocks = {c: np.asarray(twin[c], dtype=float) for c in (base, head)}
    if not all(0 < x < math.inf for x in (t_base, c_base, t_head, c_head)) or \
            not all(np.all((v > 0) & np.isfinite(v)) for v in clocks.values()):
        return None
    higher = known_units().get(unit)
    # lower is better: time = clocks / GHz; a throughput is work per time, ∝ GHz / clocks
    at_base = {c: (t_base * c_base / v) if higher else v * (t_base / c_base) for c, v in clocks.items()}
    ghz = [(c * t) if higher else (c / t) for c, t in ((c_base, t_base), (c_head, t_head))]
    return at_base, math.log(ghz[1]) - math.log(ghz[0])


def medians_at_equal_clock(medians):
    """One run's {(target, name, unit): median} with each time row that has a clocks twin
    given the value that moves as that twin does (its median, inverted for a throughput):
    for run-to-run steps, where a constant factor per row drops out. On every target or
    none, as at_equal_clock."""
    out = dict(medians)
    for keys in _by_row(medians).values():
        twins = [medians.get((t, name, twin_unit(unit))) for t, name, unit in keys]
        if all(tw and tw > 0 and medians[k] > 0 for k, tw in zip(keys, twins)):
            for (t, name, unit), tw in zip(keys, twins):
                out[(t, name, unit)] = 1 / tw if known_units().get(unit) else tw
    return out


def twinned_rows(per_round, twin_of=twin_unit):
    """The rows of one target's {(name, unit): {round: value}} that hold their twin (twin_of:
    unit -> the twin's unit or None; the clocks twin unless told) in every round they hold,
    positive throughout (per_round_on_twin can replace them)."""
    out = set()
    for (name, unit), rounds in per_round.items():
        twin_u = twin_of(unit)
        twin = per_round.get((name, twin_u)) if twin_u else None
        if twin and set(twin) == set(rounds) and all(v > 0 for v in twin.values()):
            out.add((name, unit))
    return out


def pair_at_equal_clock(metal, aa):
    """(metal, aa, twinned) of two sides' per-round values with the time rows both hold a
    clocks twin of put at an equal clock (per_round_at_equal_clock), as the paired rule
    calibrates on the A/A pair (table/paired_rounds.py) and the host's noise is read (history/host_noise.py)."""
    twinned = twinned_rows(metal) & twinned_rows(aa)
    return per_round_at_equal_clock(metal, twinned), per_round_at_equal_clock(aa, twinned), twinned


def per_round_at_equal_clock(per_round, keys):
    """One target's {(name, unit): {round: value}} with the time rows `keys` (twinned_rows,
    the same on every side compared) given their clocks twin's values (inverted for a
    throughput): within one run, where a row's ratios to metal's are compared round by
    round and a constant per row drops out (clockcheck.py says when a target's rows may
    be judged so)."""
    return per_round_on_twin(per_round, keys, twin_unit)


def per_round_on_twin(per_round, keys, twin_of):
    """per_round with the rows `keys` given their twin's values (twin_of: unit -> the twin's
    unit), inverted for a throughput; the input is left as it was."""
    out = dict(per_round)
    for name, unit in keys:
        twin = per_round[(name, twin_of(unit))]
        out[(name, unit)] = {k: 1 / v for k, v in twin.items()} if known_units().get(unit) else dict(twin)
    return out


def _by_row(keyed):
    """{(name, unit): [(target, name, unit) …]} of the time rows that have a clocks unit."""
    rows = {}
    for target, name, unit in keyed:
        if twin_unit(unit):
            rows.setdefault((name, unit), []).append((target, name, unit))
    return rows


def _median(v):
    return float(np.median(v)) if len(v) else math.nan
