"""A/B in one run (`make lab-ab BASE=<ref>`): HEAD against BASE per target.

The run holds both sides of every target, `<target>.txt` (HEAD, the working
tree's build) and `<target>~base.txt` (BASE's build), measured in the same
rounds right next to each other, and the A/A pair `metal`/`metal-aa` (HEAD
both). Each target's BASE side is its baseline: the same U test, the same
noise rule with the run's A/A evidence (noise.rebased) and the same
explanations as a target against metal; what no environment difference
explains is the code's doing. docs/noise.md, "A/B in one run". The report,
the PR comment (`pr-comment --ab`) and the planted-effect trials all use it.
"""

import math
from dataclasses import dataclass, field, replace

import numpy as np

from .. import table
from ..decide import explain, noise
from . import rounds
from ..results import inputs
from ..results.spec import speed_units
from ..results.targets import base_side, is_base_side, metal_of


@dataclass
class Pair:
    target: str  # HEAD's name; its BASE side is base_side(target)
    kind: str
    table: object  # columns [BASE side, HEAD]
    result: object  # explain.Result of HEAD against BASE
    mde: float = math.inf  # the smallest change (%) its median speed row would show beyond noise (noise.mde)


@dataclass
class AB:
    run_id: str
    base_ref: str
    base_commit: str
    aa: list  # the run's A/A noise models (one per metal host)
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


def analyse(loaded, alpha=0.05, rules=None, only=None):
    """The AB of a loaded run directory; None when it holds no BASE side.
    only: compare these targets alone (the planted-effect trials redo one at a time)."""
    if not is_ab(loaded):
        return None
    heads, bases = split(loaded)
    run_table = table.build([heads], by="target", alpha=alpha)
    models = {m.metal: m for m in run_table.noise}
    rules = rules if rules is not None else explain.load_rules()
    record = (rounds.load_record(loaded.path) or {}).get("ab", {})
    first = next(iter(bases.values()))
    ab = AB(loaded.label, record.get("base-ref") or first.config.get("ab-base-ref", "?"),
            record.get("base-commit") or first.config.get("commit", "?"), list(models.values()))
    by_target = {rf.target: rf for rf in heads.files}
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
        model = models.get(metal_of(target, list(models)))
        if model is not None:
            model = noise.rebased(model, t, base_rf.target)
            noise.apply(t, [model])
        result = explain.explain(t, t.configs, rules)
        result.within_label = "no larger than the run's A/A control shows (docs/noise.md, A/B in one run)"
        ab.pairs.append(Pair(target, head_rf.config.get("target-kind", "?"), t, result,
                             _median_mde(t, target, model) if model is not None else math.inf))
    ab.head_only = sorted(set(by_target) - set(bases))
    ab.pairs.sort(key=lambda p: table.baseline_rank(p.target, p.kind))
    return ab


def _median_mde(t, head, model):
    """The median over the pair's speed rows of the smallest change beyond noise (inf when most have none)."""
    speed = speed_units()
    v = [model.mde(r.name, r.unit, r.spreads.get(head), r.deltas[head].comparison.n2)
         for r in t.rows if r.unit in speed and head in r.deltas]
    finite = [x for x in v if math.isfinite(x)]
    return float(np.median(v)) if v and len(finite) * 2 > len(v) else math.inf
