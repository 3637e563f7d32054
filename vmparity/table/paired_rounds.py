"""Deciding a table's rows round by round (decide/paired.py) where its rounds pair.

Two users: a lab run's targets against metal (`apply_in_run`: every report,
`vmparity noise` and the planted-effect trials build their run table through
table.build, which calls it), and an A/B run's HEAD against its BASE side
(lab/ab_compare.py calls `decide`). A row whose rounds do not pair, or with
fewer paired rounds than the signed-rank test needs to reach α (the TCG guests
of runs before 2026-11-26, three rounds), keeps the unpaired rule's delta (decide/noise.py).
"""

from dataclasses import replace

from ..decide import bandwidth, fastlevel, inrun, judgement, layers, paired, policy
from ..results import round_record
from ..results.targets import is_aa_control, is_lab_metal, metal_of
from ..stats import Comparison, sensitivity
from ._row import Delta, Row, verdict


def decide(t, col, pm, diffs, alpha, fallback_mde=None, at_equal_clock=frozenset(), sides=None,
           at_equal_bandwidth=frozenset()):
    """Replace column col's deltas in t by the paired rule's (model pm) where diffs
    {(name, unit): per-round log ratios} reach α; fallback_mde(row, delta) gives the
    rest's figure; at_equal_clock, at_equal_bandwidth: the keys whose diffs are their
    clocks twin's, their reference twin's (their deltas say so); sides: (metal, its A/A
    pass, col) per-round values, whose fast levels pm's fast-level rule holds against
    each other (decide/fastlevel.py), if it has one.
    Returns ({(name, unit): mde %}, (paired rows, unpaired rows, most rounds))."""
    rows, row_mde = [], {}
    n_paired = n_unpaired = most = 0
    for r in t.rows:
        d = r.deltas.get(col)
        key = (r.name, r.unit)
        if d is None:
            rows.append(r)
            continue
        ev = paired.evidence(diffs[key], _fast(sides, key, r.higher_better)) if key in diffs and pm is not None else None
        if ev is not None and sensitivity.signed_rank_reachable(ev.n, alpha):
            # a row judged on its reference twin is that twin's evidence, and is held to the
            # A/A pair's twin rows (their spread, λ and fast level), not to the family's
            # time rows, nearly all of them copies a core's caches hold
            unit = bandwidth.judged_unit(key, at_equal_bandwidth)
            pct, p = pm.reading(r.name, unit, ev)
            cmp = Comparison(p, ev.n, ev.n, alpha)
            beyond = pm.beyond(r.name, unit, ev)
            deltas = dict(r.deltas)
            deltas[col] = Delta(cmp, pct, verdict(cmp, pct, r.higher_better), cmp.significant and not beyond,
                                at_equal_clock=key in at_equal_clock, at_equal_bandwidth=key in at_equal_bandwidth,
                                test=pm.decided_by(r.name, unit, ev))
            rows.append(Row(r.group, r.name, r.unit, r.higher_better, r.cells, deltas, r.spreads))
            row_mde[key] = pm.mde(r.name, unit, ev)
            n_paired += 1
            most = max(most, ev.n)
        else:
            if fallback_mde is not None:
                row_mde[key] = fallback_mde(r, d)
            n_unpaired += 1
            rows.append(r)
    t.rows = rows
    return row_mde, (n_paired, n_unpaired, most)


def _fast(sides, key, higher_better):
    if sides is None:
        return None
    metal, aa, own = sides
    return fastlevel.against_passes(metal.get(key, {}), aa.get(key, {}), own.get(key, {}), bool(higher_better))


def apply_in_run(t, inp, without=frozenset()):
    """A lab run's table (columns by target, metal first, its A/A pass among them, one
    run): each target's rows decided against both passes of metal round by round where
    they pair, λ and the floor from the A/A pair's own rounds (docs/noise.md, "Paired by
    round"). Time rows are compared at an equal core clock (their clocks twins' ratios)
    on every target whose clock the check finds to be the host's (decide/clockcheck.py),
    and large copies' time rows at an equal memory bandwidth (their reference twins'
    ratios) on every target whose reference copy runs as fast as metal's (decide/
    bandwidth.py); as measured on the rest. The table's noise model becomes a
    paired.DecidedNoise. Nothing changes for a run without rounds.json or a table
    without an A/A model. without: the layers switched off (decide/layers.py)."""
    if not t.noise:
        return
    record = round_record.load(inp.path)
    if not record:
        return
    model = t.noise[0]
    files = {rf.target: rf for rf in inp.files}
    if model.metal not in files or model.aa not in files:
        return
    measured = {c: round_record.per_round(files[c], record) for c in t.columns if c in files}
    metal, aa = measured[model.metal], measured[model.aa]
    higher = {r.unit: bool(r.higher_better) for r in t.rows}
    cal = inrun.Calibration(metal, aa, t.alpha, higher, without)
    row_mde, counts, checks, bw_checks = {}, {}, {}, {}
    metals = [c for c in t.columns if is_lab_metal(c)]
    for col in t.columns[1:]:
        if is_aa_control(col) or col not in measured or metal_of(col, metals) != model.metal:
            continue
        ev = cal.target(col, t.configs.get(("", col), {}).get("target-kind"), measured[col])
        if ev.clock_check is not None:
            checks[col] = ev.clock_check
        if ev.bandwidth_check is not None:
            bw_checks[col] = ev.bandwidth_check
        mdes, (n_paired, _, _) = decide(t, col, ev.model, ev.diffs, t.alpha, at_equal_clock=ev.at_equal_clock,
                                        sides=ev.sides, at_equal_bandwidth=ev.at_equal_bandwidth)
        row_mde.update({(col, *key): v for key, v in mdes.items()})
        counts[col] = n_paired
    figure = cal.model(layers.CLOCK_TWIN not in without, layers.BANDWIDTH_TWIN not in without)  # the A/A figure's rule
    if model.aa in t.columns:
        decide_control(t, model.aa, figure)
    t.noise = [paired.decided(model, figure, row_mde, counts, checks, bw_checks), *t.noise[1:]]


def decide_control(t, col, pm):
    """The A/A pass's column (col): its rows beyond noise are the run's A/A figure's (pm.beyond_rows: the
    pass against metal round by round, under the rule every target is held to, the band without the row's
    own |Δ_AA|), so that compare, the report and `noise` count the same false alarms; its other significant
    rows are within noise. A row the rule calls beyond reads as a target's does: the fast level's change and
    p where that rule called it, else the signed-rank test's."""
    # pm.beyond_rows holds the fast level's rows too (PairedModel.with_fast); those read as the fast level's
    reading = {(n, u): (pct, p, policy.SIGNED_RANK) for n, u, pct, p in pm.beyond_rows}
    reading.update({(n, u): (pct, p, policy.FAST_LEVEL) for n, u, pct, p in (pm.fast.beyond_rows if pm.fast else [])})
    rows = []
    for r in t.rows:
        d, key = r.deltas.get(col), (r.name, r.unit)
        if d is None or (key not in reading and not judgement.beyond(d)):
            rows.append(r)
            continue
        if key in reading:
            pct, p, test = reading[key]
            cmp = Comparison(p, d.comparison.n1, d.comparison.n2, t.alpha)
            new = Delta(cmp, pct, verdict(cmp, pct, r.higher_better), False, test=test)
        else:
            new = replace(d, within_noise=True)
        rows.append(Row(r.group, r.name, r.unit, r.higher_better, r.cells, {**r.deltas, col: new}, r.spreads))
    t.rows = rows
