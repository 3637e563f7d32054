"""Is a target's core clock the host's? The check that lets a run compare time
at an equal core clock (docs/noise.md, "Time at an equal core clock, within a run").

Metal and every target of one host run on the same cores in the same rounds.
Which turbo bin a repetition drew is the host's other tenants' doing, a few %
from repetition to repetition (3.59 to 4.09 GHz within one run here), and in
time rows it hides a 5 % difference of the target's own. The benchmarks measure
the clock beside every measurement (coreclock.py), so within a run the time rows
can be judged at an equal clock, as across runs, on one condition: that the
target's clock is the host's, not something the target does to it (a guest
whose idle vCPUs poll and hold the other cores busy, an emulated guest whose
"clock" is the emulator's). This module tests that condition per target:

    g_k    = the repetition's clock: median over its time rows of clocks / ns
    d_k    = log(g_target,k) - mean log(g) of metal's two passes in round k
    differs = the paired rule (paired.py) on d, its floor the A/A pair's
              spread of the same per-round clock ratios

A target whose clock differs beyond noise keeps its time rows as measured and
the report says by how much; for the rest a clock difference smaller than the
check's minimum detectable effect (`mde`, stated) would go unseen in time.
"""

import math
from dataclasses import dataclass

import numpy as np

from ..results.targets import TCG_GUEST
from ..stats import sensitivity
from . import coreclock, paired

# Where the rule is written down, as every output that applies it names it.
DOC = 'docs/noise.md, "Time at an equal core clock, within a run"'

# The clock is one "row" per target; the paired model needs a family to floor it by.
_CLOCK_ROW = ("BenchmarkCoreClock", "GHz")


@dataclass
class ClockCheck:
    target: str
    rounds: int  # rounds with a clock on the target and a pass of metal
    pct: float  # the target's clock against metal's, median over rounds (%)
    p: float
    band: float  # the smallest |pct| that counts (%)
    mde: float  # the smallest clock difference this check finds with 80 % power (%)
    differs: bool  # beyond noise (or not a clock): the target's time rows are compared as measured
    why_not: str = ""  # why the target's clock was not checked against metal's ("": it was)

    @property
    def at_equal_clock(self):
        return not self.differs


def round_clock(per_round):
    """{round: GHz} of one target's {(name, unit): {round: value}}: the median over its
    time rows (ns/…) with a clocks twin of clocks / ns in that round (a row keeps its
    fastest round in both units, so the ratio is the clock that round ran at, near enough)."""
    ratios = {}
    for name, unit in coreclock.twinned_rows(per_round):
        if not unit.startswith("ns/"):
            continue
        twin = per_round[(name, coreclock.twin_unit(unit))]
        for k, ns in per_round[(name, unit)].items():
            if ns > 0:
                ratios.setdefault(k, []).append(math.log(twin[k] / ns))
    return {k: math.exp(float(np.median(v))) for k, v in ratios.items()}


# An emulated guest runs the add chain as translated code: what it measures is the
# emulator's speed at that chain, not a core clock, and its time rows stay time.
EMULATED = "an emulated guest: its clock estimate is the emulator's speed at the add chain, not a core clock"


def check(target, kind, metal, aa, own, alpha):
    """The ClockCheck of a target of `kind` from the per-round values of metal, its A/A pass
    and the target ({(name, unit): {round: value}} each); None when the target has no clocks
    rows or too few rounds for the signed-rank test to reach α (its time rows stay time)."""
    if kind == TCG_GUEST:
        return ClockCheck(target, 0, math.nan, 1.0, math.nan, math.nan, True, EMULATED)
    return level_check(target, round_clock(metal), round_clock(aa), round_clock(own), alpha, _CLOCK_ROW)


def level_check(target, g_metal, g_aa, g_own, alpha, row):
    """The ClockCheck of one per-round level of the host ({round: value} of metal, its A/A
    pass and the target: a core clock here, a reference copy's bandwidth in bandwidth.py)
    against both passes of metal, by the paired rule floored by the A/A pair's own spread
    of it (row: the (family, unit) the model keys that spread by); None when the target
    has too few rounds for the signed-rank test to reach α."""
    ev = paired.evidence(paired.against_passes(g_metal, g_aa, g_own))
    if not g_own or not sensitivity.signed_rank_reachable(ev.n, alpha) or not math.isfinite(ev.spread):
        return None
    aa_ev = paired.evidence(paired.differences(g_metal, g_aa))
    model = paired.PairedModel(alpha, floor_scale=paired.TWO_PASS_FLOOR,
                               family_spread={row: aa_ev.spread if math.isfinite(aa_ev.spread) else 0.0})
    return ClockCheck(target, ev.n, ev.pct, ev.p, model.band(*row, ev), model.mde(*row, ev),
                      model.beyond(*row, ev))
