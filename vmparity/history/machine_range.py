"""An unexplained row beside its own history: the range in which the same row of
the same target stood against metal on this machine's other stored runs (for a
run just made, the runs before it), so that a reader can tell a draw this host
has made before from a change that is new. Evidence beside the row, not a
decision: the row stays unexplained, and its change and p are this run's alone
(docs/noise.md).

A row's *level* in one run is its median against the mean median of its host's
controls (metal, metal-aa) in that run, so the host's drift between runs is out
of it; a time row with a clocks twin moves as that twin does, as the judgement
compares it (decide/coreclock.py). Only runs of the same physical machine count
(the `machine` fingerprint key of the run's metal, results/machine.py)."""

import math
from dataclasses import dataclass

import numpy as np

from ..decide import coreclock, crossrun
from ..errors import InputError
from ..results import inputs, machine
from ..results.targets import METAL

# The newest runs of the machine looked at: enough for a range that a host's usual
# draws fill, few enough that a benchmark changed long ago does not set it.
RUNS = 16
# Fewer other runs say too little of where a row usually stands: no range then.
MIN_RUNS = 4


@dataclass(frozen=True)
class MachineRange:
    runs: int
    low_pct: float
    high_pct: float

    def holds(self, pct):
        """Whether a change of pct lies within the range the other runs spanned."""
        return self.low_pct <= pct <= self.high_pct


def attach(run_dir, files, explained):
    """Set `machine_range` on each unexplained row of explained ({target: explain.Result}) that
    this run's machine measured on at least MIN_RUNS of its newest RUNS other runs in
    run_dir's parent; a run that names no machine gets none."""
    who = machine.of_run(files)
    if who is None:
        return
    levels, _ = machine_levels(run_dir.parent, who, run_dir, crossrun.controls_of, most=RUNS)
    for target, result in explained.items():
        for f in result.unexplained:
            series = levels.get((target, f.name, f.unit), ())
            if f.pct is not None and len(series) >= MIN_RUNS:
                f.machine_range = MachineRange(len(series), math.expm1(min(series)) * 100, math.expm1(max(series)) * 100)


def machine_levels(runs_dir, who, leave_out, controls_of, most=None):
    """({(target, name, unit): [level per run, in run order]}, how many runs) of the
    runs in runs_dir that machine `who` measured (the newest `most` of them, or all),
    the run at leave_out left out (the one under test)."""
    per_run = []
    if not runs_dir.is_dir():
        return {}, 0
    for run_dir in sorted((p for p in runs_dir.iterdir() if p.is_dir()), reverse=True):
        if most is not None and len(per_run) >= most:
            break
        if run_dir.resolve() == leave_out.resolve() or _metal_machine(run_dir) not in (who, None):
            continue  # the run under test; another machine's run is no evidence (its metal says so, read alone)
        try:
            run = inputs.load(run_dir)
        except InputError:
            continue  # a run the history cannot read is no evidence; compare reports bad input itself
        if machine.of_run(run.files) == who:
            per_run.append(_levels(run.files, controls_of))
    levels = {}
    for run_levels in reversed(per_run):
        for key, level in run_levels.items():
            levels.setdefault(key, []).append(level)
    return levels, len(per_run)


def _metal_machine(run_dir):
    """The machine the run's metal file names, read without the other targets' files (None: look closer)."""
    rf = inputs.stored_file(run_dir, METAL)
    return machine.of_config(rf.config) if rf else None


def _levels(files, controls_of):
    """{(target, name, unit): log median − mean log median of the target's controls} of one run."""
    medians = {}
    for rf in files:
        for sec in rf.sections:
            s = sec.samples
            for number, name in enumerate(s.names):
                for packed in s.columns_of(number):
                    v = packed.of(number)
                    if len(v):
                        medians[(rf.target, name, packed.unit)] = float(np.median(v))
    medians = coreclock.medians_at_equal_clock(medians)  # as the judgement compares them
    pairs = controls_of(sorted({t for t, _, _ in medians}))
    out = {}
    for (t, name, unit), m in medians.items():
        ctl = [medians.get((c, name, unit)) for c in pairs.get(t, ()) if c]
        ctl = [c for c in ctl if c is not None and c > 0]
        if m > 0 and ctl and t not in pairs.get(t, ()):
            out[(t, name, unit)] = math.log(m) - float(np.mean(np.log(ctl)))
    return out
