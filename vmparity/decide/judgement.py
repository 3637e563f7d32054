"""One judgement: what a decided row says, read the same way by every command.

A table's rows are decided as the table is built, under the policy its
inputs call for (decide/policy.py; table.build records it): the U test, the
A/A band (noise.py), the paired rule and the fast level (paired.py,
fastlevel.py), the cross-run judge (crossrun.py). What they decide is read
here and nowhere else: whether a row is beyond noise (`beyond`), and the
whole verdict (`verdict`): beyond or within noise, the change, its p, which
test decided, and the smallest change the row could have shown. compare's
formats, explain's findings, the figures of `noise` and the report, the
planted-effect trials, the A/B pairs, lab verify and the gate all ask it, so
the same files under the same policy get one answer in every command.
"""

from dataclasses import dataclass

from ..results.spec import speed_units
from . import policy


def beyond(d):
    """A row's delta is beyond noise: significant at the table's α, and not marked within noise."""
    return d is not None and d.comparison.significant and not d.within_noise


def within(d):
    """Significant, but no larger than the controls show (the table's "(noise)")."""
    return d is not None and d.comparison.significant and d.within_noise


@dataclass(frozen=True)
class Verdict:
    policy: str  # the policy's key (decide/policy.py)
    beyond: bool
    within_noise: bool
    pct: float  # the change against the baseline, % (None from a baseline of 0)
    p: float
    test: str  # which test decided (policy.SIGNED_RANK, FAST_LEVEL, U_BAND, CROSS_RUN, U_TEST)
    mde: float  # the smallest change % the row could have shown beyond noise; None without a noise model


def test_of(table, d):
    """Which test decided a delta of the table: the one the paired rule named, else the policy's."""
    if d.test:
        return d.test
    if table.policy is policy.ACROSS_RUNS:
        return policy.CROSS_RUN
    return policy.U_BAND if table.noise else policy.U_TEST


def verdict(table, row, column):
    """The Verdict of one row of column against the table's baseline; None where the row has no delta there."""
    d = row.deltas.get(column)
    if d is None:
        return None
    return Verdict(table.policy.key, beyond(d), within(d), d.pct, d.comparison.p, test_of(table, d),
                   row_mde(table, row, column))


def row_mde(table, row, column):
    """The minimum detectable effect % of one row of column against the baseline, from
    the run's noise model (inf: its rounds can never reach α); None without a noise model,
    without that column, or in a unit that a change of speed does not move (a count)."""
    if not table.noise or row.unit not in speed_units():
        return None
    d = row.deltas.get(column)
    return None if d is None else mde_of(table.noise[0], row, column, d, row.spreads)


def mde_of(model, row, column, d, spreads):
    """The row's figure from the noise model (paired.DecidedNoise keys its paired rows by column)."""
    return model.mde(row.name, row.unit, spreads.get(column), d.comparison.n2, target=column)
