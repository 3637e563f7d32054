"""A/B in one run (`make lab-ab BASE=<ref>`): HEAD against BASE per target.

The run holds both sides of every target, `<target>.txt` (HEAD, the working
tree's build) and `<target>~base.txt` (BASE's build), measured in the same
rounds right next to each other, and the A/A pair `metal`/`metal-aa` (HEAD
both). Each target's BASE side is its baseline, with the same explanations
as a target against metal; what no environment difference explains is the
code's doing, except where BASE and HEAD ran the same bytes: a row whose
program (and the runner) both manifests list with one sha256 can move only by
the run's noise, so it is marked `same_binary`, kept out of the code's rows
and of the regression gate, and its rows beyond noise are counted as the
run's own false alarms (a same-code control inside the run; the C and Go
builds give the same bytes in any checkout). docs/noise.md, "A/B in one
run". The report, the PR comment (`pr-comment --ab`) and the planted-effect
trials all use it.

Each row is decided **paired by round** (decide/paired.py): the per-round
ratios HEAD/BASE of the rounds both sides measured, the signed-rank test and
a band from their spread, λ from the A/A pair's own per-round differences.
A merged file holds a target's repetitions in round order (lab/rounds.py
merge: one repetition per round, missing rounds left out), so its i-th value of a row is the i-th round
rounds.json planned for the target and does not list as missing. A row
whose values do not match those rounds (a fill-in, a hand-made file), or
with fewer common rounds than the signed-rank test needs to reach α, keeps
the unpaired rule (the U test on medians, noise.rebased); Pair.unpaired
counts them.
"""

import math
from dataclasses import dataclass, field, replace

import numpy as np

from .. import table
from ..decide import explain, judgement, noise, paired, policy
from ..query.names import job_of
from ..results import inputs, manifest, round_record
from ..results.spec import core_clock_units, time_units as spec_time_units
from ..results.targets import aa_control_of, base_side, is_base_side, metal_of
from ..table import paired_rounds


@dataclass
class Pair:
    target: str  # HEAD's name; its BASE side is base_side(target)
    kind: str
    table: object  # columns [BASE side, HEAD]
    result: object  # explain.Result of HEAD against BASE
    mde: float = math.inf  # the smallest change (%) its median time row (ns/op, B/s, …) would show beyond noise
    row_mde: dict = field(default_factory=dict)  # (name, unit) -> that row's smallest change beyond noise (%)
    paired: int = 0  # rows decided paired by round
    unpaired: int = 0  # rows left to the unpaired rule (their rounds do not pair, or too few do)
    rounds: int = 0  # rounds both sides have (the most over the rows)
    mde_clocks: float | None = None  # the same over its core-clock rows (clocks/op, …; None: it has none)
    # rows (benchmark and unit) that both sides measured, and that one side alone did: an A/B run's two sides
    # run one suite, so the one-sided rows are a benchmark the change added or removed, or a side that came
    # from another suite or run; either way they are not compared, and not the code's changes
    common_rows: int = 0
    base_only_rows: int = 0
    head_only_rows: int = 0

    @property
    def no_common_rows(self):
        """Whether the two sides share no row at all: nothing of this target was compared."""
        return not self.common_rows and bool(self.base_only_rows or self.head_only_rows)


@dataclass
class AB:
    run_id: str
    base_ref: str
    base_commit: str
    aa: list  # the run's A/A noise models (one per metal host)
    aa_paired: dict = field(default_factory=dict)  # metal -> paired.PairedModel from its A/A pair's rounds
    pairs: list = field(default_factory=list)
    head_only: list = field(default_factory=list)  # targets without a BASE side (the A/A pass, or one that failed)
    # targets the A/B run left out, both sides: too few rounds to reach α (rounds.json ab.not-measured, lab/ab.sides)
    not_measured: dict = field(default_factory=dict)  # target -> {kind, rounds, need}
    base_only: list = field(default_factory=list)  # BASE sides whose HEAD is missing
    # programs BASE and HEAD ran byte-identical, the runner included (results/manifest.py): their rows
    # can move only by the run's noise, so those beyond it are the run's own false alarms
    same_programs: frozenset = frozenset()
    # the manifests that are not the build their side ran (manifest.disagreeing): then no program is the same
    manifests_disagree: list = field(default_factory=list)

    def same_binary_rows(self):
        """(rows beyond noise, rows) over the pairs' rows whose program both sides ran byte-identical."""
        deltas = [d for p in self.pairs for r in p.table.rows for c, d in r.deltas.items()
                  if c == p.target and d.same_binary]
        return sum(judgement.beyond(d) for d in deltas), len(deltas)

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
    full_record = round_record.load(loaded.path) or {}
    record = full_record.get("ab", {})
    first = next(iter(bases.values()))
    ab = AB(loaded.label, record.get("base-ref") or first.config.get("ab-base-ref", "?"),
            record.get("base-commit") or first.config.get("commit", "?"), list(models.values()),
            manifests_disagree=manifest.disagreeing(loaded.path, heads.files, list(bases.values())))
    if not ab.manifests_disagree:  # a manifest of another build says nothing of which bytes this run ran
        ab.same_programs = manifest.same_programs(loaded.path)
    by_target = {rf.target: rf for rf in heads.files}
    for metal in models:
        aa_rf = by_target.get(aa_control_of(metal))
        if aa_from is not None:
            if metal in aa_from.aa_paired:
                ab.aa_paired[metal] = aa_from.aa_paired[metal]
        elif metal in by_target and aa_rf is not None:
            ab.aa_paired[metal] = paired.calibrate(_paired_rows(by_target[metal], aa_rf, full_record), alpha)
    clock_units = core_clock_units()
    time_units = spec_time_units()
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
            t.noise = [paired.decided(model, pm, {(target, *k): v for k, v in row_mde.items()}, {target: counts[0]})]
        _mark_same_binary(t, target, ab.same_programs)
        t.policy = policy.AB_IN_RUN  # HEAD against its BASE side, whatever the table's own inputs would say
        result = explain.explain(t, t.configs, rules)
        result.policy = t.policy
        # a row one side alone measured is no change of the code's: Pair counts them apart
        result.unexplained = [f for f in result.unexplained if f.verdict != ONE_SIDED]
        result.same_binary, result.unexplained = _split_same_binary(result.unexplained, ab.same_programs)
        result.within_label = ("no larger than the run's A/A control shows, round by round "
                               "(docs/noise.md, A/B in one run)")
        ab.pairs.append(Pair(target, head_rf.config.get("target-kind", "?"), t, result,
                             _median_mde(t, target, row_mde, time_units), row_mde, *counts,
                             mde_clocks=_median_mde_if_any(t, target, row_mde, clock_units),
                             **_sides(t, base_rf.target, target)))
    ab.head_only = sorted(set(by_target) - set(bases))
    left_out = record.get("not-measured")
    ab.not_measured = {t: v for t, v in (left_out if isinstance(left_out, dict) else {}).items()
                       if isinstance(v, dict) and t not in by_target and t not in bases}
    ab.pairs.sort(key=lambda p: table.baseline_rank(p.target, p.kind))
    return ab


ONE_SIDED = "one-sided"  # explain's verdict of a row that one side alone has


def _sides(t, base, head):
    """{common_rows, base_only_rows, head_only_rows} of a pair's table."""
    on = [(base in r.cells, head in r.cells) for r in t.rows]
    return {"common_rows": sum(b and h for b, h in on), "base_only_rows": sum(b and not h for b, h in on),
            "head_only_rows": sum(h and not b for b, h in on)}


def _program(name):
    """The binary that measures a benchmark: its job's program (`memcpy-static`, `clock`)."""
    return job_of(name).split("/", 1)[0]


def _mark_same_binary(t, head, programs):
    """Flag HEAD's deltas of the rows whose program both sides ran byte-identical."""
    if not programs:
        return
    for r in t.rows:
        d = r.deltas.get(head)
        if d is not None and _program(r.name) in programs:
            r.deltas[head] = replace(d, same_binary=True)


def _split_same_binary(findings, programs):
    """(findings of rows whose program both sides ran byte-identical, the rest)."""
    same = [_program(f.name) in programs for f in findings]
    return [f for f, s in zip(findings, same) if s], [f for f, s in zip(findings, same) if not s]


def _paired_rows(base_rf, head_rf, record):
    """{(name, unit): per-round log ratios head/base} over the rounds both sides measured."""
    base, head = round_record.per_round(base_rf, record), round_record.per_round(head_rf, record)
    return {key: paired.differences(base[key], head[key]) for key in base.keys() & head.keys()}


def _decide_paired(t, head, model, pm, diffs, alpha):
    """The pair table's HEAD decided by the paired rule where the rounds pair, the unpaired
    rule's figure for the rest. Returns ({(name, unit): mde %}, (paired, unpaired, rounds))."""
    fallback = None
    if model is not None:
        def fallback(r, d):
            return model.mde(r.name, r.unit, r.spreads.get(head), d.comparison.n2)
    return paired_rounds.decide(t, head, pm, diffs, alpha, fallback)


def _median_mde(t, head, row_mde, units):
    """The median over the pair's rows of those units of the smallest change beyond noise (inf when most have
    none). Time rows and core-clock rows apart: a pair has both for the same benchmarks, and one median over
    the two would be a figure of neither."""
    v = [row_mde.get((r.name, r.unit), math.inf) for r in t.rows if r.unit in units and head in r.deltas]
    finite = [x for x in v if math.isfinite(x)]
    return float(np.median(v)) if v and len(finite) * 2 > len(v) else math.inf


def _median_mde_if_any(t, head, row_mde, units):
    """_median_mde, or None when the pair has no row of those units."""
    return _median_mde(t, head, row_mde, units) if any(r.unit in units and head in r.deltas for r in t.rows) else None
