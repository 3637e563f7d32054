"""Planted-effect trials: draw rows, plant, decide as the report does, count.

One trial plants one effect into `rows` benchmarks of one target, drawn at
random (seeded per target, effect and trial) from those the baseline has too,
in a copy of the run; the copy goes through table.build exactly as `vmparity
report` and `vmparity noise` build it, so the decision counted is theirs. A
planted row is *found* when it is beyond noise with the verdict of the
planted direction (worse for a slowdown). The figures beside recall:

- the MDE check: recall among the planted rows whose minimum detectable
  effect (noise.NoiseModel.mde, from the unplanted run) is at most the effect,
  which should be at least sensitivity.POWER if the MDE is what it claims;
- false alarms: the unplanted rows of the target beyond noise in the trials
  (real differences of the target count here too: compare with the run's own
  figure), and the A/A control's significant rows.

An A/B run (make lab-ab) is planted the same way into HEAD's side of a target
(every round's value of a row scaled alike), and decided as its report
decides, against that target's BASE side, paired by round
(vmparity.lab.ab_compare, vmparity.decide.paired), with that rule's MDE.
"""

import random
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..decide import judgement, layers
from ..lab import ab_compare
from ..results import bounded, inputs
from .. import table
from ..results.spec import speed_units
from ..errors import InputError
from ..results.targets import base_side, is_aa_control, is_lab_metal
from . import plant, unlayer

DEFAULT_EFFECTS = (-20.0, -10.0, -5.0, -3.0, 3.0, 5.0, 10.0, 20.0)
DEFAULT_ROWS = 25
DEFAULT_TRIALS = 4


@dataclass
class EffectResult:
    target: str
    effect: float
    planted: int = 0
    found: int = 0
    detectable: int = 0  # planted rows whose MDE is at most the effect
    detectable_found: int = 0
    unplanted: int = 0
    unplanted_beyond: int = 0

    @property
    def recall(self):
        return self.found / self.planted if self.planted else 0.0


@dataclass
class PowerResult:
    run: str
    seed: int
    rows: int
    trials: int
    baseline: str
    aa_rows: int = 0
    aa_significant: int = 0  # A/A rows called different (an A/B run: beyond noise under the paired rule)
    paired: bool = False  # an A/B run, decided paired by round
    run_beyond: dict = field(default_factory=dict)  # target -> (beyond noise, rows) in the unplanted run
    excluded: dict = field(default_factory=dict)  # target -> benchmarks not planted into: they differ already
    effects: list = field(default_factory=list)  # EffectResult


def default_targets(columns, kinds):
    """The targets a planted effect says something about: not the baseline, not the
    A/A pass, not TCG guests (emulation differs from metal in nearly every row)."""
    return [c for c in columns[1:] if not is_aa_control(c) and not is_lab_metal(c) and kinds.get(c) != "tcg-guest"]


def run_trials(run, results_dir=None, targets=None, effects=DEFAULT_EFFECTS, rows=DEFAULT_ROWS,
               trials=DEFAULT_TRIALS, seed=1, alpha=0.05, units=None, without=frozenset()):
    """units: a regular expression; only rows whose unit it matches are counted (a benchmark
    is planted in every speed unit either way), e.g. "^clocks/" against "^ns/".
    without: the layers switched off (decide/layers.py): the measurement layers are taken
    out of a copy of the run (unlayer.py), the decision layers out of every table built."""
    counted = _counted_units(units)
    loaded = inputs.load(run, results_dir)
    if not loaded.is_run:
        raise InputError(run, "expected a run directory or run-id, not a single file")
    if not set(without) & set(layers.MEASUREMENT):
        return _trials_of(loaded, targets, effects, rows, trials, seed, alpha, counted, without)
    with tempfile.TemporaryDirectory(prefix="vmparity-unlayered-") as tmp:
        copy = Path(tmp) / loaded.path.name
        _copy_run(loaded.path, copy)
        unlayer.strip(copy, loaded.files, without)
        res = _trials_of(inputs.load(copy), targets, effects, rows, trials, seed, alpha, counted, without)
        res.run = str(loaded.path)
        return res


def _copy_run(run, copy):
    bounded.no_link_out(run)  # the copy would take in what a link out of the run points to
    shutil.copytree(run, copy, ignore=bounded.not_regular)


def _trials_of(loaded, targets, effects, rows, trials, seed, alpha, counted, without):
    if ab_compare.is_ab(loaded):  # decided HEAD against BASE: no decision layer of the in-run policy applies
        return _run_ab_trials(loaded, targets, effects, rows, trials, seed, alpha, counted)
    run = loaded.path
    base = table.build([loaded], by="target", alpha=alpha, without=without)
    if not base.noise:
        raise InputError(run, "the run has no A/A control (metal and metal-aa): there is no noise rule to test")
    model = base.noise[0]
    kinds = {c: base.configs.get(("", c), {}).get("target-kind") for c in base.columns}
    targets = list(targets or default_targets(base.columns, kinds))
    for t in targets:
        if t not in base.columns[1:] or is_aa_control(t):
            raise InputError("--target", f"{t!r} is not a target of {run} to plant into; expected one of "
                             f"{', '.join(default_targets(base.columns, kinds)) or '(none)'}")
    if not targets:
        raise InputError(run, "no target to plant into (only metal, its A/A pass and TCG guests)")
    pm = getattr(model, "paired", None)
    if pm is not None and pm.rows:  # the A/A figure of the rule that decides: round by round
        res = PowerResult(str(loaded.path), seed, rows, trials, model.metal, pm.rows, len(pm.beyond_rows), paired=True)
    else:
        res = PowerResult(str(loaded.path), seed, rows, trials, model.metal, model.rows, model.significant)
    mde = {}
    for r in base.rows:
        for t in targets:
            d = r.deltas.get(t)
            if d is not None:
                mde[(t, r.name, r.unit)] = model.mde(r.name, r.unit, r.spreads.get(t), d.comparison.n2, target=t)
    for t in targets:
        ds = [(r, r.deltas[t]) for r in base.rows if t in r.deltas]
        res.run_beyond[t] = (sum(judgement.beyond(d) for _, d in ds), len(ds))
    _plant(loaded, targets, lambda t: model.metal, effects, rows, trials, seed, mde, res,
           lambda copy, t: table.build([inputs.load(copy)], by="target", alpha=alpha, without=without),
           _differing(base, targets),
           counted)
    return res


def _counted_units(pattern):
    """The predicate a counted row's unit passes: a speed unit, matching pattern when one is given."""
    speed = speed_units()
    if not pattern:
        return lambda unit: unit in speed
    try:
        rx = re.compile(pattern)
    except re.error as e:
        raise InputError("--unit", f"{pattern!r} is not a regular expression: {e}") from None
    if not any(rx.search(u) for u in speed):
        raise InputError("--unit", f"{pattern!r} matches no speed unit; expected a pattern of one of "
                                   f"{', '.join(sorted(speed))}")
    return lambda unit: unit in speed and rx.search(unit) is not None


def _differing(t, targets):
    """{target: benchmark names with a speed row beyond noise in the unplanted table t}."""
    speed = speed_units()
    return {c: {r.name for r in t.rows if r.unit in speed and c in r.deltas
                and judgement.beyond(r.deltas[c])} for c in targets}


def _plant(loaded, targets, reference, effects, rows, trials, seed, mde, res, decide, differing, counted):
    """Each trial: `rows` benchmarks of a target (drawn from those its reference target
    `reference(t)` has too, and that do not already differ from it beyond noise:
    `differing` {target: names}) scaled by the effect in a copy of the run; decide(copy, t)
    gives the table the report would, and _count counts what it found in the rows whose
    unit counted(unit) accepts.

    Why not the rows that already differ: a row of a container 30 % faster than metal
    (its smaller fence buffer, say) with +20 % planted is still faster, and not finding
    it "worse" says nothing of the rule's power. Their number is in res.excluded."""
    files = {rf.target: rf for rf in loaded.files}
    with tempfile.TemporaryDirectory(prefix="vmparity-power-") as tmp:
        copy = Path(tmp) / loaded.path.name
        _copy_run(loaded.path, copy)
        for t in targets:
            rf = files[t]
            text = Path(rf.path).read_text(encoding="utf-8")
            higher = [u for u, h in rf.declared_units.items() if h]
            skip = differing.get(t, set())
            candidates = sorted({name for name, _ in plant.plantable(rf.benchmarks)
                                 if name in files[reference(t)].benchmarks and name not in skip})
            res.excluded[t] = len(skip)
            for effect in effects:
                er = EffectResult(t, effect)
                for k in range(trials):
                    rng = random.Random(f"{seed}:{t}:{effect}:{k}")
                    names = set(rng.sample(candidates, min(rows, len(candidates))))
                    try:
                        planted = plant.scale_lines(text, names, effect, higher)
                    except plant.Overflow as e:
                        raise InputError("--effects", f"{effect:g} % would scale the value {e} of {rf.path} beyond a "
                                                      "finite number: expected a smaller effect") from None
                    (copy / Path(rf.path).name).write_text(planted, encoding="utf-8")
                    _count(decide(copy, t), t, names, effect, mde, er, counted)
                res.effects.append(er)
            (copy / Path(rf.path).name).write_text(text, encoding="utf-8")  # the next target's trials see it unplanted


def _count(t, target, names, effect, mde, er, counted):
    want = "worse" if effect > 0 else "better"
    for r in t.rows:
        d = r.deltas.get(target)
        if d is None or not counted(r.unit):
            continue
        beyond = judgement.beyond(d)
        if r.name in names:
            if (target, r.name, r.unit) not in mde:
                continue
            found = beyond and d.verdict == want
            er.planted += 1
            er.found += found
            if mde[(target, r.name, r.unit)] <= abs(effect):
                er.detectable += 1
                er.detectable_found += found
        else:
            er.unplanted += 1
            er.unplanted_beyond += beyond


def _run_ab_trials(loaded, targets, effects, rows, trials, seed, alpha, counted):
    """run_trials for an A/B run: each trial plants into a copy of HEAD's file of one target
    and decides it against that target's BASE side, as the report and pr-comment --ab do."""
    ab = ab_compare.analyse(loaded, alpha)
    if not ab.aa:
        raise InputError(loaded.path, "the run has no A/A control (metal and metal-aa): there is no noise rule to test")
    pairs = {p.target: p for p in ab.pairs}
    kinds = {p.target: p.kind for p in ab.pairs}
    eligible = default_targets(["", *pairs], kinds)
    targets = list(targets or eligible)
    for t in targets:
        if t not in pairs:
            raise InputError("--target", f"{t!r} is not a target with a BASE side in {loaded.path}; expected one of "
                                         f"{', '.join(eligible) or '(none)'}")
    if not targets:
        raise InputError(loaded.path, "no target to plant into (only metal, its A/A pass and TCG guests)")
    pm = ab.aa_paired.get(ab.aa[0].metal)
    if pm is not None:  # the A/A figure of the rule that decides: metal-aa against metal round by round
        res = PowerResult(str(loaded.path), seed, rows, trials, "each target's BASE side", pm.rows,
                          len(pm.beyond_rows), paired=True)
    else:  # rounds.json does not say which rounds the files hold: the unpaired rule decides
        res = PowerResult(str(loaded.path), seed, rows, trials, "each target's BASE side", ab.aa[0].rows,
                          ab.aa[0].significant)
    mde = {}
    for t in targets:
        p = pairs[t]
        ds = [(r, r.deltas[t]) for r in p.table.rows if t in r.deltas]
        for r, d in ds:
            # the pair's own figure: the paired rule's where the rounds pair (ab_compare, decide/paired.py)
            mde[(t, r.name, r.unit)] = p.row_mde.get((r.name, r.unit), float("inf"))
        res.run_beyond[t] = (sum(judgement.beyond(d) for _, d in ds), len(ds))
    differing = {t: _differing(pairs[t].table, [t])[t] for t in targets}
    _plant(loaded, targets, base_side, effects, rows, trials, seed, mde, res,
           lambda copy, t: ab_compare.analyse(inputs.load(copy), alpha, only={t}, aa_from=ab).pairs[0].table, differing,
           counted)
    return res
