"""How far a row moves from run to run on one physical machine: the stored
history's evidence for the cross-run band (crossrun.py, docs/noise.md).

Kept simple and robust on purpose. For every earlier stored run of the same
machine (the `machine` fingerprint key of the run's metal, machine.py), a
target's row has a *level*: its median against the mean median of its host's
controls (metal, metal-aa) in that run, so the host's drift between runs is
out of it; a time row with a clocks twin moves as that twin does, as the
judgement compares it (coreclock.py). In run order, the steps between consecutive levels are what
identical (or nearly identical) code shows from one run to the next; their
median ignores the one step a real change in the history makes. The row's
history band is HISTORY_FACTOR times that median step (for normal noise the
median |step| is about 0.95 σ of a step, so 3 of them is about the 99.9th
percentile of one step), and only with MIN_HISTORY_RUNS levels or more.
"""

import math

import numpy as np

from ..results import inputs, machine
from ..decide import coreclock, crossrun
from ..errors import InputError
from ..results.targets import METAL

MIN_HISTORY_RUNS = 4
HISTORY_FACTOR = 3.0


class RunSpread(dict):
    """{(target, name, unit): band in %}, and how many runs it came from."""

    runs = 0


def for_comparison(loaded, runs_dir):
    """The history bands for table.build(history=) of the inputs `loaded`: two stored runs
    compared target by target (decide/crossrun.py) against the runs of runs_dir; None for
    anything else, or without a runs directory."""
    if runs_dir is None or len(loaded) != 2 or not all(i.is_run for i in loaded):
        return None
    return load(runs_dir, *loaded, crossrun.controls_of)


def load(runs_dir, base, head, controls_of):
    """The history bands for comparing run `head` with `base` (both inputs.Input),
    from the runs in runs_dir of the same machine, HEAD left out. None when the
    two runs do not name one machine."""
    who = machine.of_run(base.files)
    if who is None or who != machine.of_run(head.files):
        return None
    levels, used = machine_levels(runs_dir, who, head.path, controls_of)
    out = RunSpread()
    out.runs = used
    for key, series in levels.items():
        if len(series) >= MIN_HISTORY_RUNS:
            step = float(np.median(np.abs(np.diff(series))))
            out[key] = (math.exp(HISTORY_FACTOR * step) - 1) * 100
    return out


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
