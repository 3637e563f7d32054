"""The layers on top of a policy's base test, by name, so that each can be switched off
and its two error rates measured with and without it (docs/method.md, the ablation table;
`vmparity power RUN --without LAYER`, tests/perf_ablation.py).

A layer stays only while that table shows it pays (docs/DESIGN, "One judgement").
Two kinds:

- decision layers, which decide sees and table.build passes down (`without`):
  the fast level, the core-clock and bandwidth twins of the in-run policy, and
  the control veto, the control spread and the false-discovery control of the
  across-runs policy;
- measurement layers, which the lab applied to the run's files before any
  decision (rounds added for the wide rows, confirming rounds for the rows
  beyond noise): a stored run can be put back as
  it was without them (results/unlayered.py), and then decided as always.
"""

from ..errors import InputError

FAST_LEVEL = "fast-level"
CLOCK_TWIN = "clock-twin"
BANDWIDTH_TWIN = "bandwidth-twin"
CONTROL_VETO = "control-veto"
CONTROL_SPREAD = "control-spread"  # the band's ε/2 across runs: how far one stray control moves the drift
FDR = "fdr"  # across runs: a row counts only as a discovery at false discovery rate α over the comparison's rows
ADDED_ROUNDS = "added-rounds"
CONFIRM_ROUNDS = "confirm-rounds"

IN_RUN = (FAST_LEVEL, CLOCK_TWIN, BANDWIDTH_TWIN)
ACROSS_RUNS = (CONTROL_VETO, CONTROL_SPREAD, FDR)
MEASUREMENT = (ADDED_ROUNDS, CONFIRM_ROUNDS)
ALL = IN_RUN + ACROSS_RUNS + MEASUREMENT


def parse(spec):
    """The layers named in a comma-separated spec ("fast-level,clock-twin"), as a frozenset;
    InputError naming the unknown one."""
    names = [s.strip() for s in (spec or "").split(",") if s.strip()]
    for n in names:
        if n not in ALL:
            raise InputError("--without", f"{n!r} is not a layer; expected one of {', '.join(ALL)}")
    return frozenset(names)
