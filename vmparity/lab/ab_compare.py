"""A/B in one run (`make lab-ab BASE=<ref>`): HEAD against BASE per target.

The run holds both sides of every target, `<target>.txt` (HEAD, the working
tree's build) and `<target>~base.txt` (BASE's build), measured in the same
rounds right next to each other, and the A/A pair `metal`/`metal-aa` (HEAD
both). Each target's BASE side is its baseline, with the same explanations
as a target against metal; what no environment difference explains is the
code's doing. docs/noise.md, "A/B in one run". The report,
the PR comment (`pr-comment --ab`) and the planted-effect trials all use it.

Each row is decided **paired by round** (decide/paired.py): the per-round
ratios HEAD/BASE of the rounds both sides measured, the signed-rank test and
a band from their spread, λ from the A/A pair's own per-round differences.
A merged file holds a target's repetitions in round order (lab/rounds.py
merge: one repetition per round, a re-measured job in its round's place,
missing rounds left out), so its i-th value of a row is the i-th round
rounds.json planned for the target and does not list as missing. A row
whose values do not match those rounds (a fill-in, a hand-made file), or
with fewer common rounds than the signed-rank test needs to reach α, keeps
the unpaired rule (the U test on medians, noise.rebased); Pair.unpaired
counts them.
"""

import math
from dataclasses import dataclass, field, fields, replace

import numpy as np

from .. import table
from ..decide import explain, noise, paired
from . import rounds
from ..results import inputs
from ..results.spec import speed_units
from ..results.targets import aa_control_of, base_side, is_base_side, metal_of
from ..table import Delta, Row, verdict
from .. import stats
from ..stats import sensitivity


@dataclass
class Pair:
    target: str  # HEAD's name; its BASE side is base_side(target)
    kind: str
    table: object  # columns [BASE side, HEAD]
    result: object  # explain.Result of HEAD against BASE
    mde: float = math.inf  # the smallest change (%) its median speed row would show beyond noise
    row_mde: dict = field(default_factory=dict)  # (name, unit) -> that row's smallest change beyond noise (%)
    paired: int = 0  # rows decided paired by round
    unpaired: int = 0  # rows left to the unpaired rule (their rounds do not pair, or too few do)
    rounds: int = 0  # rounds both sides have (the most over the rows)


@dataclass
class AB:
    run_id: str
    base_ref: str
    base_commit: str
    aa: list  # the run's A/A noise models (one per metal host)
    aa_paired: dict = field(default_factory=dict)  # metal -> paired.PairedModel from its A/A pair's rounds
    pairs: list = field(default_factory=list)
    head_only: list = field(default_factory=list)  # targets without a BASE side (the A/A pass, or one that failed)
    base_only: list = field(default_factory=list)  # BASE sides whose HEAD is missing

    @property
    def tables(self):
        return [p.table for p in self.pairs]


def split(loaded):
    """(the run without its BASE sides, {head target: BASE side's file}) of a loaded run."""
    bases = {rf.target[:-len(base_side(""))]: rf for rf in loaded.files if is_base_side(rf.target)}
    return replace(loaded, files=[rf for rf in loaded.files if not is_base_side(rf.target)]), bases


def is_ab(loaded):
    return any(is_base_side(rf.target) for rf in loaded.files)


def analyse(loaded, alpha=0.05, rules=None, only=None, aa_from=None):
    """The AB of a loaded run directory; None when it holds no BASE side.
    only: compare these targets alone (the planted-effect trials redo one at a time).
    aa_from: an AB whose A/A evidence (paired models) to use instead of this run's (the
    trials' copies: an effect planted into metal would otherwise be planted into its A/A pair too)."""
    if not is_ab(loaded):
        return None
    heads, bases = split(loaded)
    run_table = table.build([heads], by="target", alpha=alpha)
    models = {m.metal: m for m in run_table.noise}
    rules = rules if rules is not None else explain.load_rules()
    full_record = rounds.load_record(loaded.path) or {}
    record = full_record.get("ab", {})
    first = next(iter(bases.values()))
    ab = AB(loaded.label, record.get("base-ref") or first.config.get("ab-base-ref", "?"),
            record.get("base-commit") or first.config.get("commit", "?"), list(models.values()))
    by_target = {rf.target: rf for rf in heads.files}
    for metal in models:
        aa_rf = by_target.get(aa_control_of(metal))
        if aa_from is not None:
            if metal in aa_from.aa_paired:
                ab.aa_paired[metal] = aa_from.aa_paired[metal]
        elif metal in by_target and aa_rf is not None:
            ab.aa_paired[metal] = paired.calibrate(_paired_rows(by_target[metal], aa_rf, full_record), alpha)
    for target, base_rf in bases.items():
        head_rf = by_target.get(target)
        if only is not None and target not in only:
            continue
        if head_rf is None:
            ab.base_only.append(base_rf.target)
            continue
        # one input holding both sides, as a run's targets side by side (two inputs would be two runs)
        pair = inputs.Input(loaded.label, loaded.path, [base_rf, head_rf], True)
        t = table.build([pair], by="target", alpha=alpha, baseline=base_rf.target)
        metal = metal_of(target, list(models))
        model = models.get(metal)
        if model is not None:
            model = noise.rebased(model, t, base_rf.target)
            noise.apply(t, [model])
        pm = ab.aa_paired.get(metal)
        row_mde, counts = _decide_paired(t, target, model, pm, _paired_rows(base_rf, head_rf, full_record), alpha)
        if model is not None:  # what explain reports as a row's smallest change seen: the rule's that decided it
            t.noise = [_DecidedNoise(**{f.name: getattr(model, f.name) for f in fields(model)}, row_mde=row_mde)]
        result = explain.explain(t, t.configs, rules)
        result.within_label = ("no larger than the run's A/A control shows, round by round "
                               "(docs/noise.md, A/B in one run)")
        ab.pairs.append(Pair(target, head_rf.config.get("target-kind", "?"), t, result,
                             _median_mde(t, target, row_mde), row_mde, *counts))
    ab.head_only = sorted(set(by_target) - set(bases))
    ab.pairs.sort(key=lambda p: table.baseline_rank(p.target, p.kind))
    return ab


@dataclass
class _DecidedNoise(noise.NoiseModel):
    """The pair's rebased A/A model whose mde is that of the rule that decided each row
    (the paired rule's where the rounds pair)."""

    row_mde: dict = field(default_factory=dict)

    def mde(self, name, unit, target_spread=None, n_target=None):
        return self.row_mde.get((name, unit), math.inf)


def _rounds_of(record, target):
    """The rounds whose values target's merged file holds, in file order (None when rounds.json
    says nothing of the target)."""
    planned = {rec["round"] for recs in record.get("hosts", {}).values() for rec in recs
               if target in rec.get("order", ())}
    if not planned:
        return None
    return sorted(planned - set(record.get("missing-rounds", {}).get(target, ())))


def _per_round(rf, record):
    """{(name, unit): {round: value}} of a target's file, only rows with one value per round it holds."""
    ks = _rounds_of(record, rf.target)
    if ks is None:
        return {}
    out = {}
    for name, b in rf.benchmarks.items():
        for unit, values in zip(b.units, b.values):
            if len(values) == len(ks):
                out[(name, unit)] = dict(zip(ks, (float(v) for v in values)))
    return out


def _paired_rows(base_rf, head_rf, record):
    """{(name, unit): per-round log ratios head/base} over the rounds both sides measured."""
    base, head = _per_round(base_rf, record), _per_round(head_rf, record)
    return {key: paired.differences(base[key], head[key]) for key in base.keys() & head.keys()}


def _decide_paired(t, head, model, pm, diffs, alpha):
    """Replace the pair table's deltas of HEAD by the paired rule's where the rounds pair
    (paired.py); the rest keep the unpaired rule's. Returns ({(name, unit): mde %}, (paired, unpaired, rounds))."""
    rows, row_mde = [], {}
    n_paired = n_unpaired = most = 0
    for r in t.rows:
        deltas = dict(r.deltas)
        d = deltas.get(head)
        key = (r.name, r.unit)
        if d is not None:
            ev = paired.evidence(diffs[key]) if key in diffs and pm is not None else None
            if ev is not None and sensitivity.signed_rank_reachable(ev.n, alpha):
                cmp = stats.Comparison(ev.p, ev.n, ev.n, alpha)
                beyond = pm.beyond(r.name, r.unit, ev)
                deltas[head] = Delta(cmp, ev.pct, verdict(cmp, ev.pct, r.higher_better),
                                     cmp.significant and not beyond)
                row_mde[key] = pm.mde(r.name, r.unit, ev)
                n_paired += 1
                most = max(most, ev.n)
            else:
                if model is not None:
                    row_mde[key] = model.mde(r.name, r.unit, r.spreads.get(head), d.comparison.n2)
                n_unpaired += 1
        rows.append(Row(r.group, r.name, r.unit, r.higher_better, r.cells, deltas, r.spreads))
    t.rows = rows
    return row_mde, (n_paired, n_unpaired, most)


def _median_mde(t, head, row_mde):
    """The median over the pair's speed rows of the smallest change beyond noise (inf when most have none)."""
    speed = speed_units()
    v = [row_mde.get((r.name, r.unit), math.inf) for r in t.rows if r.unit in speed and head in r.deltas]
    finite = [x for x in v if math.isfinite(x)]
    return float(np.median(v)) if v and len(finite) * 2 > len(v) else math.inf
