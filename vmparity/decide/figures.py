"""A run's trust figures, one place for the report's first lines, the end of
`make lab-up` and `make lab-noise`: the A/A noise share, per target the rows
beyond noise and the ones no rule explains, and how small a difference the
run could have seen (the minimum detectable effect per benchmark family)."""

import math
from dataclasses import dataclass

import numpy as np

from ..results.spec import speed_units
from . import bandwidth, clockcheck, judgement
from .judgement import row_mde  # noqa: F401  (figures.row_mde: the renderers and tests read it here)
from ..results.targets import TCG_GUEST, is_aa_control
from ..query.names import family
from ..stats.sensitivity import POWER


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
    held: int = 0  # unexplained rows held against their range on this machine's other runs (machine_range.py)
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


def lines(table, explained, host_noise=None, goals=None):
    """Plain-text figures, one line each (the end of lab-up prints them); host_noise: the
    run's host_noise.HostNoise, or None; goals: the lab's sensitivity goal per target
    (round_record.mde_goals), or None."""
    out = []
    if table.noise:
        for m in table.noise:
            out.append(f"A/A noise ({m.aa} vs {m.metal}): {aa_headline(m)}")
        if host_noise is not None:
            out.append(("WARNING " if host_noise.noisier else "") + f"host noise: {host_noise.sentence()}")
    else:
        out.append("A/A noise: no A/A control in this run (differences are not checked against noise)")
    for f in per_target(table, explained):
        out.append(f"{f.target} ({f.kind}) vs {table.columns[0]}: {f.beyond} of {f.rows} rows "
                   f"({100 * f.beyond_share:.1f} %) beyond noise, {f.unexplained_words()}, {f.within} within noise")
    return out + level_check_lines(table) + sensitivity_lines(table, goals)


def clock_checks(table):
    """{target: clockcheck.ClockCheck} of the run's noise model ({} without one)."""
    return getattr(table.noise[0], "clock_checks", {}) if table.noise else {}


def clock_sentence(c):
    """One target's core clock against metal's and what follows for its time rows."""
    return _level_sentence(c, "its time rows", "at an equal clock")


def bandwidth_checks(table):
    """{target: the check of its reference copy (decide/bandwidth.py)} ({} without one)."""
    return getattr(table.noise[0], "bandwidth_checks", {}) if table.noise else {}


def bandwidth_sentence(c):
    """One target's reference copy against metal's and what follows for its large copies."""
    return _level_sentence(c, "its large copies' time rows", "at an equal memory bandwidth")


def _level_sentence(c, rows, at):
    """A check of a level of the host (clockcheck.level_check) and how `rows` are compared after it."""
    if c.why_not:
        return f"not checked ({c.why_not}), so {rows} are compared as measured"
    how = (f"beyond noise, so {rows} are compared as measured" if c.differs else
           f"within noise (it would have seen ±{_pct(c.mde)}), so {rows} are compared {at}")
    return f"{c.pct:+.1f} % over {c.rounds} rounds, {how}"


def level_check_lines(table):
    """Plain text: each target's checks of a level of the host against metal's: its core
    clock (decide/clockcheck.py) and its reference copy's bandwidth (decide/bandwidth.py)."""
    out = []
    checks = clock_checks(table)
    if checks:
        out += [f"core clock against metal's, round by round ({clockcheck.DOC}):",
                *(f"  {t}: {clock_sentence(c)}" for t, c in checks.items())]
    checks = bandwidth_checks(table)
    if checks:
        out += [f"reference copy's bandwidth against metal's, round by round ({bandwidth.DOC}):",
                *(f"  {t}: {bandwidth_sentence(c)}" for t, c in checks.items())]
    return out


def paired_model(m):
    """The paired rule's model of an A/A noise model (decide/paired.py), None where no row paired."""
    pm = getattr(m, "paired", None)
    return pm if pm is not None and pm.rows else None


def aa_headline(m):
    """The run's false-alarm figure first: where rows were decided round by round, the A/A rows
    that rule calls beyond noise, since every target's rows are judged by it; the significant
    count under the unpaired test comes after, as what a test without a band would have said.
    (Led by the significant count, a noisy hour's 9.7 % read as the false-alarm rate while the
    rule's was 2.7 %.)"""
    significant = f"{m.significant} of {m.rows} rows ({100 * m.share:.1f} %) differ significantly"
    pm = paired_model(m)
    if pm is None:
        return significant
    rule = "round by round and at the fast level" if pm.fast is not None else "round by round"
    return (f"{len(pm.beyond_rows)} of {pm.rows} rows ({100 * pm.share:.1f} %) beyond noise under the rule "
            f"every target is judged by ({rule}); {significant} under the U test alone, without a band "
            f"or the pairing by round")


def ab_lines(ab):
    """An A/B run (lab.ab_compare.AB, duck-typed): one line per target, HEAD against its
    BASE side, for the end of `make lab-ab` (`vmparity noise RUN`)."""
    out = [f"A/B: HEAD against BASE {ab.base_ref} ({ab.base_commit[:12]}), each target against its BASE side:"]
    for p in ab.pairs:
        (f,) = per_target(p.table, {p.target: p.result})
        out.append(f"  {p.target} ({p.kind}): {f.beyond} of {f.rows} rows ({100 * f.beyond_share:.1f} %) beyond noise "
                   f"({f.worse} worse, {f.better} better), {f.within} within noise; smallest change seen {_pct(p.mde)}"
                   + (f" (core clocks {_pct(p.mde_clocks)})" if p.mde_clocks is not None else ""))
    for t, v in sorted((getattr(ab, "not_measured", None) or {}).items()):
        out.append(f"  {t} ({v.get('kind', '?')}): not measured, its kind takes {v.get('rounds')} round(s), fewer than "
                   f"the {v.get('need')} a side an A/B test needs (docs/noise.md)")
    return out


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


def sensitivity_lines(table, goals=None):
    """One line per target: each family's median and worst minimum detectable effect; a
    family whose median is above the lab's goal (goals: round_record.mde_goals) says so,
    and a last line why no more rounds were added."""
    fams = sensitivity(table, goals)
    by_target = {}
    for f in fams:
        by_target.setdefault(f.target, []).append(f)
    out = []
    if by_target:
        out.append(f"sensitivity: the smallest change each target's rows would show beyond noise with {POWER:.0%} power "
                   "(minimum detectable effect, median / worst row of each benchmark family):")
    for target, fs in by_target.items():
        out.append(f"  {target}: " + "; ".join(f"{f.family.removeprefix('Benchmark')} {f.unit} "
                                              f"{_pct(f.median)} / {_pct(f.worst)}"
                                              + (f" (above the {f.goal:g} % goal)" if f.above_goal else "")
                                              for f in fs))
    for goal, why in above_goal_stops(fams, goals):
        out.append(f"  above the goal: a family's median above the lab's bench_mde_goal ({goal:g} %)"
                   + (f"; the rounds added for the wide rows stopped: {why}" if why else ""))
    return out


def above_goal_stops(fams, goals):
    """[(goal %, why the rounds for the wide rows stopped, or None)] of the targets with a
    family above the goal, each once, in the families' order."""
    seen = {}
    for f in fams:
        if f.above_goal:
            g = (goals or {}).get(f.target) or {}
            seen.setdefault((f.goal, g.get("why")), None)
    return list(seen)


def _pct(x):
    return f"{x:.1f} %" if math.isfinite(x) else "∞"
