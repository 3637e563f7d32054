"""Large copies at an equal memory bandwidth, within a run (docs/noise.md, "Large
copies at an equal memory bandwidth").

A copy of 4 MiB or more leaves the core's own caches: the shared last-level cache
and memory set its speed, and on a shared host other tenants' traffic there moves
it by 10-20 % from one repetition to the next, in spells that outlast a job but
not a round (10-35 % minimum detectable effects on those rows, where every other
row of metal and the containers saw 1-3 %). memcpy times those copies against a
glibc-free copy loop run beside them, batch by batch (`refcopies/op`, bench-src/c/
common/refcopy.h): the host's traffic of the moment slows both alike, and the
ratio moved by 3 % where the time moved by 9-17 %.

So within a run a large copy's time rows are judged on that ratio, its twin, as
time rows are judged on their core-clock twin (clockcheck.py), on one condition:
that the target's own copy loop is as fast as metal's round by round, so that
what the twin leaves out is the host's, not the target's. This module tests
that condition per target:

    b_k    = the reference's bandwidth in round k: median over the rows with a
             twin of B/s × refcopies/op (the loop's bytes per second)
    differs = the paired rule on log(b_target,k) against both passes of metal,
              its floor the A/A pair's spread of the same per-round ratios

A target whose copy loop is slower or faster beyond noise (a guest whose memory
is further away, a container held to a memory bandwidth) keeps its large copies'
time rows as measured, and its `refcopies/op` rows say what memcpy itself did.
"""

import math

import numpy as np

from ..results.spec import core_clock_units, reference_units, time_units
from ..results.targets import TCG_GUEST
from . import clockcheck, coreclock

DOC = 'docs/noise.md, "Large copies at an equal memory bandwidth"'

# The one reference unit so far; a row's twin when it has one.
TWIN_UNIT = "refcopies/op"
assert TWIN_UNIT in reference_units()

# The reference bandwidth is one "row" per target; the paired model needs a family to floor it by.
_BANDWIDTH_ROW = ("BenchmarkReferenceCopy", "B/s")

# Under emulation the loop is translated code: its speed is the emulator's, not memory's.
EMULATED = "an emulated guest: its copy loop runs as translated code, at the emulator's speed, not memory's"


def twin_of(unit):
    """A time or core-clock unit's reference twin unit (None for the rest)."""
    return TWIN_UNIT if unit in time_units() | core_clock_units() else None


def twinned_rows(per_round):
    """The time and core-clock rows of one target's {(name, unit): {round: value}} whose
    benchmark holds a reference twin in every round they hold (positive throughout)."""
    return coreclock.twinned_rows(per_round, twin_of)


def per_round_at_equal_bandwidth(per_round, keys):
    """One target's {(name, unit): {round: value}} with the rows `keys` (twinned_rows, the
    same on every side compared) given their reference twin's values, inverted for a
    throughput: within one run, where a row's ratios to metal's are compared round by
    round and a constant per row drops out."""
    return coreclock.per_round_on_twin(per_round, keys, twin_of)


def judged_unit(key, on_twin):
    """The unit a row (name, unit) is calibrated and judged with: its twin's where it is
    among the rows on_twin put on their twin (its evidence is the twin's), else its own."""
    return TWIN_UNIT if key in on_twin else key[1]


def round_bandwidth(per_round):
    """{round: B/s} of the reference copy in one target's measured {(name, unit): {round:
    value}}: the median over the benchmarks with a twin of B/s × refcopies/op (memcpy's
    bytes per second times the loop's copies per memcpy copy)."""
    logs = {}
    for (name, unit), rounds in per_round.items():
        twin = per_round.get((name, TWIN_UNIT))
        if unit != "B/s" or not twin:
            continue
        for k, bps in rounds.items():
            if bps > 0 and twin.get(k, 0) > 0:
                logs.setdefault(k, []).append(math.log(bps * twin[k]))
    return {k: math.exp(float(np.median(v))) for k, v in logs.items()}


def check(target, kind, metal, aa, own, alpha):
    """The check (clockcheck.ClockCheck's fields; pct is the reference's bandwidth against
    metal's, higher faster) of a target of `kind` from the measured per-round values of
    metal, its A/A pass and the target; None when the target has no reference twins or
    too few rounds (its large copies stay time)."""
    if kind == TCG_GUEST:
        return clockcheck.ClockCheck(target, 0, math.nan, 1.0, math.nan, math.nan, True, EMULATED)
    b_metal, b_aa, b_own = round_bandwidth(metal), round_bandwidth(aa), round_bandwidth(own)
    if not b_metal or not b_aa:
        return None
    return clockcheck.level_check(target, b_metal, b_aa, b_own, alpha, _BANDWIDTH_ROW)
