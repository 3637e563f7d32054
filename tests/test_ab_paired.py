"""HEAD against BASE paired by round (vmparity/decide/paired.py, docs/noise.md "A/B in one run"):
shared slow spells cancel in the per-round ratios, a real change stands out, and only rounds
both sides measured are paired."""

import math

import numpy as np

import resultgen as g
from vmparity.decide import paired
from vmparity.lab import ab_compare
from vmparity.results import inputs
from vmparity.stats import sensitivity


def _pair(run, target="container-nolimit"):
    ab = ab_compare.analyse(inputs.load(run))
    return ab, next(p for p in ab.pairs if p.target == target)


def _beyond(p):
    return {(r.name, r.unit): d for r in p.table.rows for c, d in r.deltas.items()
            if c == p.target and d.comparison.significant and not d.within_noise}


def _unpaired_beyond(run, target="container-nolimit"):
    """What the U test on medians with the rebased band (the rule before pairing) calls beyond."""
    loaded = inputs.load(run)
    heads, bases = ab_compare.split(loaded)
    from vmparity import table
    from vmparity.decide import noise

    pair = inputs.Input(loaded.label, loaded.path, [bases[target], next(f for f in heads.files if f.target == target)],
                        True)
    t = table.build([pair], by="target", baseline=bases[target].target)
    model = table.build([heads], by="target").noise[0]
    noise.apply(t, [noise.rebased(model, t, bases[target].target)])
    return {(r.name, r.unit) for r in t.rows for c, d in r.deltas.items()
            if c == target and d.comparison.significant and not d.within_noise}


# rounds that drift together by up to ±8 % (a shared host's slow spells), each value ±0.5 % of its own
SPELLS = dict(count=8, noise=0.005, drift=0.08)


def test_a_real_5_percent_is_found_through_shared_slow_spells(tmp_path):
    run = g.ab_run(tmp_path / "r-ab-quick", seed=3, effect=("container-nolimit", "Snowflake", 1.05), **SPELLS)
    ab, p = _pair(run)
    assert p.paired == len(p.table.rows) and p.unpaired == 0 and p.rounds == 8
    found = _beyond(p)
    snowflake = {k for k in found if "Snowflake" in k[0]}
    assert len(snowflake) == 8 and all(found[k].verdict == "worse" and 4 < found[k].pct < 6 for k in snowflake)
    assert set(found) == snowflake  # nothing else moved
    # the spells hide it from the unpaired rule: each side's medians spread by the rounds' drift
    assert len({k for k in _unpaired_beyond(run) if "Snowflake" in k[0]}) < 4
    assert p.mde < 5


def test_the_same_code_through_shared_slow_spells_is_quiet(tmp_path):
    for seed in (3, 5, 7):
        run = g.ab_run(tmp_path / f"r{seed}-ab-quick", seed=seed, **SPELLS)
        ab, p = _pair(run)
        assert p.paired == len(p.table.rows)
        assert _beyond(p) == {}, seed
        assert ab.aa_paired["metal"].beyond_rows == []


def test_a_missing_round_on_one_side_pairs_the_rest(tmp_path):
    run = g.ab_run(tmp_path / "r-ab-quick", seed=3, effect=("container-nolimit", "Snowflake", 1.05),
                   missing={"container-nolimit~base": [3]}, **SPELLS)
    _, p = _pair(run)
    assert p.unpaired == 0 and p.rounds == 7
    assert {d.comparison.n1 for r in p.table.rows for c, d in r.deltas.items()} == {7}
    found = _beyond(p)
    assert {k for k in found if "Snowflake" in k[0]} == {k for k in found} and len(found) == 8
    # pairing by position instead of by round would compare round 4's HEAD with round 3's BASE and so on
    _, whole = _pair(g.ab_run(tmp_path / "w-ab-quick", seed=3, effect=("container-nolimit", "Snowflake", 1.05),
                              **SPELLS))
    r = next(r for r in p.table.rows if r.name.startswith("BenchmarkSnowflake"))
    w = next(x for x in whole.table.rows if x.name == r.name and x.unit == r.unit)
    assert abs(r.deltas[p.target].pct - w.deltas[p.target].pct) < 0.6


def test_too_few_common_rounds_keep_the_unpaired_rule(tmp_path):
    run = g.ab_run(tmp_path / "r-ab-quick", seed=3, count=6, noise=0.005, drift=0.08,
                   missing={"container-nolimit~base": [2]})
    _, p = _pair(run)
    assert p.paired == 0 and p.unpaired == len(p.table.rows)  # five pairs can never reach α = 0.05


def test_differences_pair_only_the_rounds_both_sides_have():
    d = paired.differences({1: 10.0, 2: 20.0, 4: 40.0}, {1: 11.0, 3: 33.0, 4: 44.0})
    assert np.allclose(d, [math.log(1.1), math.log(1.1)])
    ev = paired.evidence([0.01, 0.02, 0.03, 0.04, 0.05, 0.06])
    assert ev.n == 6 and math.isclose(ev.p, 2 / 64) and math.isclose(ev.pct, math.expm1(0.035) * 100)
    assert paired.evidence([0.0] * 6).p == 1.0


def test_signed_rank_power_matches_its_exact_p_values():
    rng = np.random.default_rng(0)
    d = rng.normal(1.0, 1.0, (300, 7))
    from scipy import stats as st

    assert np.allclose(sensitivity.signed_rank_pvalues(d), [st.wilcoxon(x, method="exact").pvalue for x in d])
    assert np.allclose([sensitivity.signed_rank_p(x) for x in d[:50]], [st.wilcoxon(x, method="exact").pvalue
                                                                          for x in d[:50]])
    tied = np.array([0.01, 0.01, 0.02, -0.02, 0.03, 0.0, 0.04, 0.05])  # ties and a zero: all 2**7 patterns counted
    signs = (np.arange(2 ** 7)[:, None] >> np.arange(7)) & 1
    r = np.array([1.5, 1.5, 3.5, 3.5, 5, 6, 7])
    assert math.isclose(sensitivity.signed_rank_p(tied), np.mean(np.abs(signs @ r - 14) >= abs(r.sum() - 3.5 - 14)))
    # sixteen rounds (ten planned, six added): counted by sum, as exact as listing the 65536 patterns
    sixteen = rng.normal(0.5, 1.0, (20, 16))
    assert np.allclose([sensitivity.signed_rank_p(x) for x in sixteen],
                       [st.wilcoxon(x, method="exact").pvalue for x in sixteen])
    big = rng.normal(0.3, 1.0, 40)
    assert abs(sensitivity.signed_rank_p(big) - st.wilcoxon(big, method="approx", correction=True).pvalue) < 0.01
    assert sensitivity.w_power_at(5, 0.05, 10.0) == 0.0  # 2 / 2**5 > 0.05
    assert sensitivity.w_power_at(6, 0.05, 0.0) < 0.05 < sensitivity.w_power_at(6, 0.05, 2.0)
