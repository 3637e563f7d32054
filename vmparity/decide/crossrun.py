"""Noise control across runs: HEAD's row counts as changed against BASE only
beyond what identical code shows from one run to the next (docs/noise.md,
"Across runs").

Two runs are two moments of a shared host. Per row, the lab's two passes of
metal (`metal`, `metal-aa`: results/targets.py) say how the host moved between them:
their mean change (in log space) is the row's **host drift** D, and how far
the two disagree, ε = |Δ_metal − Δ_metal-aa|, is a cross-run A/A draw of that
row. A target's own change is its change with the drift taken out,

    ρ = median(HEAD / e^D) / median(BASE) − 1,

tested with the U test on BASE against the drift-corrected HEAD, and it
counts only when significant among all the rows tested (Benjamini–Hochberg
at false discovery rate α over the comparison's p-values: some 850 rows are
tested, and a few dozen pass α each by chance) and larger than

    band = max(3 %, ε/2 + 4·s)

s: the sampling error of the target's two medians (from their median
absolute deviations, so a slow repetition does not widen it); ε/2: how far
one stray control can move D. (A third term, three times the row's run-to-run
step on the same machine in the stored history, was removed on 2026-12-06: on
eight same-code pairs it held no false alarm and cost recall; docs/method.md.)
And a target whose own change lies between the two controls'
changes (or within max(3 %, 4·s) of the nearer) moved as one of them did, the
host's, and is not changed whatever its band: a row whose repetitions sit on one
level (a vDSO read at 83.03 clocks) has no spread to widen the band, and half the
controls' disagreement alone is its edge. The band uses only what the controls
and the target's own samples say, never the other rows of the
target, so a change that moves every row of one target is not mistaken for noise.

Time is compared at an equal core clock where the benchmarks measured it
(coreclock.py): a time row with a clocks twin (`ns/op` beside `clocks/op`)
is judged on that twin's values put at BASE's clock, the controls' as well.
The host puts each repetition in its own turbo bin, a few % apart, and which
bins a run drew is the host's, not the code's: it was the main reason a
planted +10 % went unseen in a container's time rows (docs/noise.md).

The drift is metal's workload's. Where the target differs from its metal on
the row within BASE and within HEAD alike (a container whose fence buffer
fits in the L3 that metal's 1 GiB one misses), it measures something else
there, and metal's drift need not be its own: such a row counts as changed
only when its raw change (without D) is beyond the band as well, in the same
direction.

What this cannot see: a change that moves every target alike, metal
included, is indistinguishable from host drift across runs; the summary says
how far the host moved, and a same-run A/B (BASE and HEAD in one run's
rounds) is the way to judge such a change.
"""

import math
from dataclasses import dataclass, field

import numpy as np

from .. import stats
from . import coreclock, layers
from ..results.targets import TCG_GUEST, aa_control_of, host_suffix, is_aa_control, is_lab_metal, metal_of, metal_target
from ..query.names import family

FLOOR_PCT = 3.0  # as the in-run rule's (noise.FLOOR_PCT): no finding below it
SPREAD_Z = 4.0  # sampling errors a change must clear: runs differ by more than their samples say (docs/noise.md)
_MEDIAN_SE = 1.2533 * 1.4826  # sd of a median of normal values ≈ this · MAD / √n

CHANGED, NOISE, SAME, NOT_TESTED, CONTROL = "changed", "within noise", "same", "not tested", "control"
# Why a row is not tested: too few samples for the U test, or an emulated guest, whose whole
# speed is the emulator's and moves from run to run (docs/noise.md, "Across runs").
FEW_SAMPLES, EMULATED = "too few samples", "emulated guest"


@dataclass
class RowJudgement:
    group: str  # the target
    name: str
    unit: str
    status: str  # CHANGED, NOISE, SAME, NOT_TESTED or CONTROL
    change_pct: float = None  # ρ, the target's change with the host drift taken out
    drift_pct: float = None  # the row's host drift (the controls' mean change)
    band_pct: float = None
    p: float = None
    verdict: str = None  # better | worse | changed (unit of unknown direction), for CHANGED rows
    n: tuple = ()  # (BASE samples, HEAD samples)
    higher_better: bool = None
    raw_change_pct: float = None  # the change without the drift, where the target differs from metal in a run
    clock_pct: float = None  # how much faster the target's core clock ran in HEAD, for a time row put at BASE's clock
    untested_because: str = None  # FEW_SAMPLES or EMULATED, for NOT_TESTED rows


@dataclass
class CrossRun:
    base: str
    head: str
    alpha: float
    controls: list  # the control targets the drift came from ([] when the runs have none)
    rows: list = field(default_factory=list)  # RowJudgement per compared row
    need: int = 0  # samples per side the U test needs at alpha
    tested: int = 0  # rows that took the U test: the family the false discovery rate is over

    def of(self, status):
        return [r for r in self.rows if r.status == status]

    def host_drift(self):
        """(median, lower quartile, upper quartile) in % of how much slower the host
        got between the runs over the controls' rows (negative: faster), or None."""
        d = [slower_pct(r.drift_pct, r.higher_better) for r in self.rows if r.status == CONTROL]
        d = [x for x in d if x is not None]
        if not d:
            return None
        q = np.quantile(d, [0.5, 0.25, 0.75])
        return float(q[0]), float(q[1]), float(q[2])

    def detectable(self):
        """{(family, unit): median band in %}: the smallest change a typical row of
        the family could have shown (its minimum detectable effect)."""
        bands = {}
        for r in self.rows:
            if r.band_pct is not None and r.status in (CHANGED, NOISE, SAME):
                bands.setdefault((family(r.name), r.unit), []).append(r.band_pct)
        return {k: float(np.median(v)) for k, v in bands.items()}

    def regressions_over(self, threshold_pct):
        """Changed rows in the worse direction larger than threshold_pct (a change from zero counts)."""
        return [r for r in self.of(CHANGED) if r.verdict == "worse"
                and (r.change_pct is None or abs(r.change_pct) > threshold_pct)]


def slower_pct(change_pct, higher_better):
    """A change in % as "slower by" (a throughput that fell 20 % is 25 % slower)."""
    if change_pct is None or higher_better is None or change_pct <= -100:
        return None
    return (100 / (1 + change_pct / 100) - 100) if higher_better else change_pct


def applies(inputs, layout):
    """Cross-run control is for two stored runs compared target by target."""
    return layout.pivot_runs and len(inputs) == 2 and all(i.is_run for i in inputs)


def row_values(layout):
    """{(group, name, unit): {column: values}} for every result the layout places."""
    out = {}
    for _inp, _rf, sec, group, column, number, name in layout.results():
        for packed in sec.samples.columns_of(number):
            cell = out.setdefault((group, name, packed.unit), {})
            v = np.asarray(packed.of(number), dtype=float)
            cell[column] = np.concatenate([cell[column], v]) if column in cell else v
    return out


def controls_of(targets):
    """{target: (metal, metal-aa or None)}: the controls on each target's host."""
    metals = [t for t in targets if is_lab_metal(t)]
    out = {}
    for t in targets:
        # the lab metal whose rack suffix the target carries; the longest wins (metal-rack1 vs metal-rack10)
        m = metal_of(t, metals)
        if m is not None:
            aa = aa_control_of(m)
            out[t] = (m, aa if aa in targets else None)
    return out


def judge(table, values, exact_units=(), without=frozenset()):
    """The CrossRun judgement of a two-run table (columns BASE, HEAD; groups = targets),
    or None when the runs share no target besides the controls (nothing to hold
    against them: the plain comparison stands, and says it is not noise-controlled).

    values: row_values(); without: the layers switched off (layers.CONTROL_VETO, CONTROL_SPREAD, FDR), to measure them."""
    base, head = table.columns[0], table.columns[-1]
    _, need = stats.samples_for_utest(table.alpha)
    targets = sorted({r.group for r in table.rows})
    controls = controls_of(targets)
    shared = {g for (g, _, _), cells in values.items() if base in cells and head in cells}
    if not any(t in controls and t not in controls[t] for t in shared):
        return None
    cr = CrossRun(base, head, table.alpha, sorted({c for pair in controls.values() for c in pair if c}), need=need)
    values, clock = coreclock.at_equal_clock(values, base, head)  # time rows with a clocks twin, at BASE's clock
    change = {}  # (target, name, unit) -> log change of the row's medians, HEAD against BASE
    for key, cells in values.items():
        if base in cells and head in cells:
            change[key] = _log_change(cells[base], cells[head])
    family_drift = _family_drift(change, controls)
    todo, unlike = [], []  # unlike: (index in todo, [(metal, target) values per run])
    like_a_control = set()  # indices in todo of rows that moved as one of their controls did
    for r in table.rows:
        key = (r.group, r.name, r.unit)
        cells = values.get(key, {})
        if base not in cells or head not in cells:
            continue  # on one side only: compare's own listing says so
        b, h = cells[base], cells[head]
        pair = controls.get(r.group)
        drift, eps = _drift(change, pair, r.name, r.unit, family_drift)
        j = RowJudgement(r.group, r.name, r.unit, SAME, n=(len(b), len(h)),
                         drift_pct=None if drift is None else _pct(drift), higher_better=r.higher_better)
        cr.rows.append(j)
        if pair and r.group in pair:
            j.status = CONTROL
            continue
        if min(len(b), len(h)) < need:
            j.status, j.untested_because = NOT_TESTED, FEW_SAMPLES
            continue
        if TCG_GUEST in {table.configs.get((r.group, c), {}).get("target-kind") for c in (base, head)}:
            # Under TCG every row is the emulator's speed, which moves by 5-10 % between runs (and
            # copies of 1 MiB and more by 4x, per process): beyond any band the controls give, and
            # not the code's. Within one run, against metal or BASE, such a guest is judged as always.
            j.status, j.untested_because = NOT_TESTED, EMULATED
            continue
        if r.unit in exact_units or drift is None or not (np.median(b) > 0 and np.median(h) > 0):
            drift, eps = 0.0, 0.0  # nothing to take out: the raw change, held against the same band
        if key in clock:
            j.clock_pct = _pct(clock[key])
        hc = h / math.exp(drift)
        j.change_pct = _pct(_log_change(b, hc))
        spread = SPREAD_Z * math.hypot(_median_se(b), _median_se(h))
        if layers.CONTROL_SPREAD in without:
            eps = 0.0
        j.band_pct = max(FLOOR_PCT, eps / 2 + spread)
        todo.append((j, b, h, hc, r.higher_better))
        if drift:
            if layers.CONTROL_VETO not in without and _moved_like_a_control(change, pair, key, max(FLOOR_PCT, spread)):
                like_a_control.add(len(todo) - 1)
            metal = values.get((pair[0], r.name, r.unit), {})
            unlike.append((len(todo) - 1, [(metal[c], cells[c]) for c in (base, head) if c in metal]))
    _mark_unlike_metal(todo, unlike, table.alpha)
    tests = stats.compare_many([(b, hc) for j, b, h, hc, _ in todo], table.alpha)
    unlike_rows = [i for i, (j, *_) in enumerate(todo) if j.raw_change_pct is not None]
    raw = dict(zip(unlike_rows, stats.compare_many([todo[i][1:3] for i in unlike_rows], table.alpha)))
    # the drift may not be an unlike row's own: it must be significant without it too
    ps = [max(c.p, raw[i].p) if i in raw else c.p for i, c in enumerate(tests)]
    discovered = _discoveries(ps, table.alpha) if layers.FDR not in without else [p <= table.alpha for p in ps]
    plain_moved = {(r.group, r.name, r.unit) for r in table.rows
                   if (d := r.deltas.get(head)) is not None and d.comparison.significant}
    cr.tested = len(ps)
    for i, ((j, b, h, hc, better), c) in enumerate(zip(todo, tests)):
        j.p = ps[i]
        beyond = discovered[i] and _beyond(j.change_pct, j.band_pct) and i not in like_a_control
        if i in raw:  # the drift may not be this row's: changed only if it is changed without it too
            beyond = beyond and _beyond(j.raw_change_pct, j.band_pct) \
                and (_median(h) > _median(b)) == (_median(hc) > _median(b))
            if not beyond:  # the comment shows the smaller of the two
                j.change_pct = min(j.change_pct, j.raw_change_pct, key=lambda x: abs(x or 0))
        if beyond:
            j.status = CHANGED
            up = _median(hc) > _median(b)
            j.verdict = "changed" if better is None else ("better" if up == better else "worse")
        elif c.significant or (i in raw and raw[i].significant) or (j.group, j.name, j.unit) in plain_moved:
            j.status = NOISE  # the host's drift or the target's clock was all of what the plain test saw
    return cr


def _discoveries(ps, alpha):
    """Which of the rows' p-values are discoveries at false discovery rate alpha over all of
    them (Benjamini–Hochberg): a comparison of two runs tests some 850 rows, and at α = 0.05
    each, a few dozen pass by chance, one of them now and then beyond its band as well; the
    regression gate must not fail on that (docs/noise.md, "Across runs")."""
    return [bool(q <= alpha) for q in stats.false_discovery_adjusted(ps)]


def _beyond(change_pct, band_pct):
    # a change from (or to) zero has no percentage to hold against the band, as in noise.py
    return change_pct is None or abs(change_pct) > band_pct


def _mark_unlike_metal(todo, unlike, alpha):
    """Mark the rows whose target differs from its metal within BASE and within HEAD (significant
    and beyond FLOOR_PCT in each): the host drift metal measured there is of another workload (a
    container's fence buffer that fits in the L3 where metal's does not), so their raw change is
    kept beside the corrected one (RowJudgement.raw_change_pct) and both must be beyond the band.
    Both runs, so that the change under test (a target that became unlike metal in HEAD) does
    not take its own drift correction away."""
    flat = [(i, m, t) for i, runs in unlike if len(runs) == 2 for m, t in runs]
    differs = {}
    for (i, m, t), c in zip(flat, stats.compare_many([(m, t) for _, m, t in flat], alpha)):
        ratio = _log_change(m, t)
        differs.setdefault(i, []).append(c.significant and ratio is not None and abs(_pct(ratio)) > FLOOR_PCT)
    for i, both in differs.items():
        if all(both):
            j, b, h = todo[i][0], todo[i][1], todo[i][2]
            j.raw_change_pct = _pct(_log_change(b, h))


def apply(table, cr):
    """Mark the table's significant deltas that the cross-run judgement holds to be
    within run-to-run noise (controls' rows are the host drift itself)."""
    table.crossrun = cr
    judged = {(j.group, j.name, j.unit): j for j in cr.rows}
    for r in table.rows:
        j = judged.get((r.group, r.name, r.unit))
        if j is None or j.status == CHANGED:
            continue
        d = r.deltas.get(cr.head)
        if d is not None and d.comparison.significant and not d.within_noise:
            r.mark_within_noise(cr.head)


def _log_change(b, h):
    mb, mh = _median(b), _median(h)
    if not (0 < mb < math.inf and 0 < mh < math.inf):
        return None
    return math.log(mh) - math.log(mb)  # not log(mh / mb): the quotient of extreme values under- or overflows


def _median(v):
    return float(np.quantile(v, 0.5, method="median_unbiased"))  # stats.summarize_block's centre


def _median_se(v):
    """The relative sampling error of a median, in %, from the median absolute deviation."""
    m = _median(v)
    if m == 0:
        return 0.0
    return 100 * _MEDIAN_SE * float(np.median(np.abs(v - m))) / abs(m) / math.sqrt(len(v))


def _pct(log_change):
    return None if log_change is None else (math.exp(log_change) - 1) * 100


def _drift(change, pair, name, unit, family_drift):
    """(D, ε in %) of one row: the controls' mean log change and their disagreement."""
    if not pair:
        return None, 0.0
    moved = [m for m in _controls_moved(change, pair, name, unit) if m is not None]
    if not moved:
        return family_drift.get((pair[0], family(name), unit)), 0.0
    eps = 100 * abs(moved[0] - moved[1]) if len(moved) == 2 else 0.0
    return float(np.mean(moved)), eps


def _controls_moved(change, pair, name, unit):
    """The log changes of a row's controls (metal, then metal-aa), None where one has no value."""
    return [change.get((c, name, unit)) for c in pair or () if c]


def _moved_like_a_control(change, pair, key, own_band_pct):
    """Whether the target's own change lies between its two controls' changes on the row, or
    within own_band_pct (its band without the controls' disagreement) of the nearer: when metal
    and metal-aa disagree, the host's drift is somewhere between them, and a target that moved as
    one of them did is within what the controls show, however tight its own samples (a row whose
    repetitions sit on one level has no spread to widen its band: docs/noise.md)."""
    moved = _controls_moved(change, pair, key[1], key[2])
    own = change.get(key)
    if len(moved) != 2 or None in moved or own is None:
        return False
    room = math.log1p(own_band_pct / 100)
    return min(moved) - room <= own <= max(moved) + room


def _family_drift(change, controls):
    """{(metal, family, unit): median drift}: for a row the controls did not measure."""
    fam = {}
    for (t, name, unit), c in change.items():
        if c is not None and (is_lab_metal(t) or is_aa_control(t)):
            fam.setdefault((metal_target(host_suffix(t)), family(name), unit), []).append(c)
    return {k: float(np.median(v)) for k, v in fam.items()}
