"""An unexplained row beside its own history: the range in which the same row of
the same target stood against metal on this machine's other stored runs (their
levels, history/runspread.py; for a run just made, the runs before it), so that a
reader can tell a draw this host has made before from a change that is new.
Evidence beside the row, not a decision: the row stays unexplained, and its
change and p are this run's alone (docs/noise.md)."""

import math
from dataclasses import dataclass

from ..results import machine
from ..decide import crossrun
from . import runspread


@dataclass(frozen=True)
class MachineRange:
    runs: int
    low_pct: float
    high_pct: float

    def holds(self, pct):
        """Whether a change of pct lies within the range the other runs spanned."""
        return self.low_pct <= pct <= self.high_pct


# The newest runs of the machine looked at: enough for a range that a host's usual
# draws fill, few enough that a benchmark changed long ago does not set it.
RUNS = 16


def attach(run_dir, files, explained):
    """Set `machine_range` on each unexplained row of explained ({target: explain.Result}) that
    this run's machine measured on at least runspread.MIN_HISTORY_RUNS of its newest
    RUNS other runs in run_dir's parent; a run that names no machine gets none."""
    who = machine.of_run(files)
    if who is None:
        return
    levels, _ = runspread.machine_levels(run_dir.parent, who, run_dir, crossrun.controls_of, most=RUNS)
    for target, result in explained.items():
        for f in result.unexplained:
            series = levels.get((target, f.name, f.unit), ())
            if f.pct is not None and len(series) >= runspread.MIN_HISTORY_RUNS:
                f.machine_range = MachineRange(len(series), math.expm1(min(series)) * 100, math.expm1(max(series)) * 100)
