"""A run's trust figures, as data, one place for the report's first lines, the end of
`make lab-up` and `make lab-noise`: the A/A noise share, per target the rows
beyond noise and the ones no rule explains, and how small a difference the
run could have seen (the minimum detectable effect per benchmark family).
Their sentences are render/run_figures.py's."""

import math
from dataclasses import dataclass

import numpy as np

from ..results.spec import speed_units
from . import judgement
from .judgement import row_mde  # noqa: F401  (figures.row_mde: the renderers and tests read it here)
from ..results.targets import TCG_GUEST, is_aa_control
from ..query.names import family


@dataclass
class TargetFigures:
    target: str
    kind: str
    rows: int  # rows compared with the baseline
    beyond: int  # significant and beyond noise (explained or not)
    within: int  # significant but within noise
    unexplained: int  # beyond noise, no rule matched
    worse: int = 0  # beyond noise and worse
    better: int = 0  # beyond noise and better
    held: int = 0  # unexplained rows held against their range on this machine's other runs (history/machine_range.py)
    new_here: int = 0  # of those, the rows whose change lies beyond that range

    @property
    def beyond_share(self):
        return self.beyond / self.rows if self.rows else 0.0

    def unexplained_words(self, of_them=""):
        """'20 unexplained' ('20 of them unexplained' with of_them=" of them"), and how many of
        them lie beyond the range their rows drew on this machine's other runs."""
        words = f"{self.unexplained}{of_them} unexplained"
        if not self.held:
            return words
        if self.held == self.unexplained:
            return f"{words} ({self.new_here} beyond their row's range on this machine's other runs)"
        return f"{words} ({self.held} with a range on this machine's other runs, {self.new_here} beyond it)"


def per_target(table, explained):
    out = []
    for col in table.columns[1:]:
        if is_aa_control(col) or col not in explained:
            continue
        deltas = [r.deltas[col] for r in table.rows if col in r.deltas]
        res = explained[col]
        beyond = sum(judgement.beyond(d) for d in deltas)
        worse = sum(d.verdict == "worse" and judgement.beyond(d) for d in deltas)
        better = sum(d.verdict == "better" and judgement.beyond(d) for d in deltas)
        held = [f for f in res.unexplained if f.machine_range is not None]
        out.append(TargetFigures(col, table.configs.get(("", col), {}).get("target-kind", "?"), len(deltas),
                                 beyond, len(res.within_noise), len(res.unexplained), worse, better,
                                 len(held), sum(not f.machine_range.holds(f.pct) for f in held)))
    return out


def clock_checks(table):
    """{target: clockcheck.ClockCheck} of the run's noise model ({} without one)."""
    return getattr(table.noise[0], "clock_checks", {}) if table.noise else {}


def bandwidth_checks(table):
    """{target: the check of its reference copy (decide/bandwidth.py)} ({} without one)."""
    return getattr(table.noise[0], "bandwidth_checks", {}) if table.noise else {}


def paired_model(m):
    """The paired rule's model of an A/A noise model (decide/paired.py), None where no row paired."""
    pm = getattr(m, "paired", None)
    return pm if pm is not None and pm.rows else None


@dataclass
class FamilySensitivity:
    target: str
    family: str  # the benchmark's base name
    unit: str
    rows: int
    median: float  # minimum detectable effect in %, median over the family's rows (inf: none)
    worst: float
    goal: float | None = None  # the lab's goal for this target's medians (bench_mde_goal), if it has one

    @property
    def above_goal(self):
        return self.goal is not None and self.median > self.goal


def beyond_rows(table):
    """{column: {(name, unit)}} of the rows the run's rule calls beyond noise: the A/A
    pass's (the paired rule's A/A figure) and every target's against metal."""
    out = {}
    pm = getattr(table.noise[0], "paired", None) if table.noise else None
    aa = [c for c in table.columns if is_aa_control(c)]
    if pm is not None and aa:
        out[aa[0]] = {(name, unit) for name, unit, _, _ in pm.beyond_rows}
    for r in table.rows:
        for col, d in r.deltas.items():
            if not is_aa_control(col) and judgement.beyond(d):
                out.setdefault(col, set()).add((r.name, r.unit))
    return {col: rows for col, rows in out.items() if rows}


def row_mdes(table):
    """(target, name, unit, minimum detectable effect %) of every row of every target
    (not the A/A pass), in the units a change of speed moves, from the run's noise
    model; nothing without one. The figures the report's sensitivity sums up, and
    those the lab adds rounds for (lab/added_rounds.py)."""
    if not table.noise:
        return
    speed = speed_units()
    for r in table.rows:
        if r.unit not in speed:
            continue
        deltas, spreads = r.deltas, r.spreads  # read once: a stored row makes them on each read
        for col, d in deltas.items():
            if not is_aa_control(col):
                yield col, r.name, r.unit, judgement.mde_of(table.noise[0], r, col, d, spreads)


def sensitivity(table, goals=None):
    """[FamilySensitivity] per target (not the A/A pass) and benchmark family, in the
    units a change of speed moves, from the run's noise model; [] without one. goals:
    {target: {"goal-pct", "why"}} (round_record.mde_goals) for the targets the lab holds to one:
    metal's and the containers', not a TCG guest's, whose differences are 10x any noise."""
    per = {}
    for col, name, unit, mde in row_mdes(table):
        per.setdefault((col, family(name), unit), []).append(mde)
    out = []
    for (col, fam, unit), v in per.items():
        finite = [x for x in v if math.isfinite(x)]
        held = (goals or {}).get(col) if table.configs.get(("", col), {}).get("target-kind") != TCG_GUEST else None
        goal = held["goal-pct"] if held else None
        out.append(FamilySensitivity(col, fam, unit, len(v),
                                     float(np.median(v)) if len(finite) * 2 > len(v) else math.inf, max(v), goal))
    # a family's units together (its time beside its core clocks), families in the table's order
    first = {fam: i for i, fam in enumerate(dict.fromkeys(fam for _, fam, _ in per))}
    return sorted(out, key=lambda f: first[f.family])


def above_goal_stops(fams, goals):
    """[(goal %, why the rounds for the wide rows stopped, or None)] of the targets with a
    family above the goal, each once, in the families' order."""
    seen = {}
    for f in fams:
        if f.above_goal:
            g = (goals or {}).get(f.target) or {}
            seen.setdefault((f.goal, g.get("why")), None)
    return list(seen)
