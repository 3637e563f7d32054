"""A run's trust figures in words, one line each (decide/figures.py holds them as data): the
end of `make lab-up`, `make lab-noise` and `vmparity noise`, the A/A headline of explain,
the checks of a level of the host the report states."""

import math

from ..decide import bandwidth, clockcheck
from ..decide.figures import above_goal_stops, bandwidth_checks, clock_checks, paired_model, per_target, sensitivity
from ..stats.sensitivity import POWER


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


def clock_sentence(c):
    """One target's core clock against metal's and what follows for its time rows."""
    return _level_sentence(c, "its time rows", "at an equal clock")


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


def _pct(x):
    return f"{x:.1f} %" if math.isfinite(x) else "∞"
