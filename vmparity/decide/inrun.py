"""The in-run policy's evidence for one target (docs/noise.md, "Paired by round", "The
fast level", "Time at an equal core clock, within a run", "Large copies at an equal
memory bandwidth").

From the per-round values of metal, its A/A pass and a target ({(name, unit):
{round: value}}, results/round_record.per_round) this gives what the paired rule
and the fast level judge the target's rows on: whether its time rows may be
judged at an equal core clock and its large copies at an equal memory bandwidth
(clockcheck.py, bandwidth.py), the rows put so on every side, their per-round
log ratios against both passes, and the rule calibrated on the A/A pair put the
same way. table/paired_rounds.py writes the verdicts into the table's rows.
"""

from dataclasses import dataclass

from . import bandwidth, clockcheck, coreclock, fastlevel, layers, paired


@dataclass
class TargetEvidence:
    model: paired.PairedModel  # the rule calibrated on the A/A pair put as this target's rows are
    diffs: dict  # (name, unit) -> per-round log ratios against both passes
    sides: tuple  # (metal, its A/A pass, the target) per-round values, as judged
    at_equal_clock: frozenset  # the time rows judged on their core-clock twin
    at_equal_bandwidth: frozenset  # the large copies' rows judged on their reference twin
    clock_check: object = None  # clockcheck.ClockCheck, None where not checked
    bandwidth_check: object = None  # the reference copy's check (bandwidth.py), None where not checked


class Calibration:
    """The paired rule calibrated on the A/A pair once per way of comparing a target: time
    rows as measured or at an equal core clock, large copies as measured or at an equal
    memory bandwidth, the pair's rows put as the target's are."""

    def __init__(self, metal, aa, alpha, higher, without=frozenset()):
        """metal, aa: the passes' per-round values; higher: unit -> higher is better;
        without: the layers (decide/layers.py) switched off, to measure what they pay."""
        self.metal, self.aa, self.alpha, self.higher = metal, aa, alpha, higher
        self.without = without
        self.clock_twinned = coreclock.twinned_rows(metal) & coreclock.twinned_rows(aa)
        self.bandwidth_twinned = bandwidth.twinned_rows(metal) & bandwidth.twinned_rows(aa)
        self._models = {}

    def model(self, at_clock, at_bandwidth):
        key = (at_clock, at_bandwidth)
        if key not in self._models:
            clocked = self.clock_twinned if at_clock else frozenset()
            bw = self.bandwidth_twinned if at_bandwidth else frozenset()
            metal, aa = (bandwidth.per_round_at_equal_bandwidth(coreclock.per_round_at_equal_clock(v, clocked), bw)
                         for v in (self.metal, self.aa))
            # as the rows are judged: a row on its reference twin with that twin's rows
            self._models[key] = calibrated(metal, aa, self.alpha, self.higher, lambda k: bandwidth.judged_unit(k, bw),
                                           fast=layers.FAST_LEVEL not in self.without)
        return self._models[key]

    def target(self, name, kind, own):
        """The TargetEvidence of target `name` of `kind` from its per-round values `own`."""
        chk = clockcheck.check(name, kind, self.metal, self.aa, own, self.alpha) \
            if layers.CLOCK_TWIN not in self.without else None
        bw = bandwidth.check(name, kind, self.metal, self.aa, own, self.alpha) \
            if layers.BANDWIDTH_TWIN not in self.without else None
        at_clock, at_bandwidth = chk is not None and not chk.differs, bw is not None and not bw.differs
        replaced = self.clock_twinned & coreclock.twinned_rows(own) if at_clock else frozenset()
        replaced_bw = self.bandwidth_twinned & bandwidth.twinned_rows(own) if at_bandwidth else frozenset()
        sides = tuple(bandwidth.per_round_at_equal_bandwidth(coreclock.per_round_at_equal_clock(v, replaced),
                                                             replaced_bw) for v in (self.metal, self.aa, own))
        metal_side, aa_side, own_side = sides
        diffs = {key: paired.against_passes(metal_side.get(key, {}), aa_side.get(key, {}), own_side[key])
                 for key in own_side}
        return TargetEvidence(self.model(at_clock, at_bandwidth), diffs, sides, frozenset(replaced - replaced_bw),
                              frozenset(replaced_bw), chk, bw)


def calibrated(metal, aa, alpha, higher, unit_of=None, fast=True):
    """The paired rule and the fast level's beside it (fast=False: the paired rule alone), from
    the A/A pair; higher: unit -> higher is better; unit_of as paired.calibrate's; alpha the
    run's, which both rules take."""
    pm = paired.calibrate(paired.pair_differences(metal, aa), alpha, unit_of)
    pm.floor_scale = paired.TWO_PASS_FLOOR
    if not fast:
        return pm
    return pm.with_fast(fastlevel.calibrate(metal, aa, lambda unit: higher.get(unit, False), paired.TWO_PASS_FLOOR,
                                            unit_of, alpha))
