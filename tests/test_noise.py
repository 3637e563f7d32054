"""The A/A control rule (vmparity.decide.noise): drift within noise is not flagged, a real effect is."""

import math

import numpy as np
import pytest
import resultgen
from vmparity.results import inputs
from vmparity.decide import noise
from vmparity import stats, table
from vmparity.results.targets import aa_control_of, is_aa_control, is_lab_metal


def _run(tmp_path, effect=None, drift=0.0, seed=0, count=5, noise_sd=0.02, metal_spell=None):
    """The table of a generated lab run (resultgen.lab_run), every target side by side."""
    run = resultgen.lab_run(tmp_path / "run", seed, count, noise_sd, drift, effect, metal_spell)
    return table.build([inputs.load(run)], by="target")


def test_names_keep_the_control_apart_from_the_reference():
    assert is_aa_control("metal-aa") and is_aa_control("metal-aa-rack01")
    assert not is_lab_metal("metal-aa") and not is_lab_metal("metal-aa-rack01")
    assert is_lab_metal("metal-rack01") and aa_control_of("metal-rack01") == "metal-aa-rack01"


def test_the_control_is_the_second_column_and_gives_a_model(tmp_path):
    t = _run(tmp_path)
    assert t.columns[:2] == ["metal", "metal-aa"]
    assert len(t.noise) == 1 and t.noise[0].rows == len([r for r in t.rows if "metal-aa" in r.deltas])


def test_drift_and_noise_alone_are_within_noise(tmp_path):
    flagged = total = 0
    for seed in range(6):
        (tmp_path / str(seed)).mkdir()
        t = _run(tmp_path / str(seed), drift=0.15, seed=seed)
        for r in t.rows:
            d = r.deltas.get("container-nolimit")
            if d is not None:
                total += 1
                flagged += d.comparison.significant and not d.within_noise
    assert flagged / total <= 0.02, (flagged, total)


def test_a_real_2x_effect_is_beyond_noise(tmp_path):
    t = _run(tmp_path, effect=("BenchmarkClock/clock=monotonic", 2.0), drift=0.15, seed=1)
    hit = [r for r in t.rows if r.name.startswith("BenchmarkClock/clock=monotonic")]
    assert hit and all(r.deltas["container-nolimit"].comparison.significant for r in hit)
    assert all(not r.deltas["container-nolimit"].within_noise for r in hit)


def test_a_slow_spell_of_metal_alone_is_within_noise(tmp_path):
    # Like the committed lab run's memcpy 10240 row: metal's median landed in slow spells of the host,
    # metal-aa's and the container's did not; the container differs from metal by more than the
    # band, from metal-aa by little. Against metal alone it was "beyond noise, unexplained".
    row = "BenchmarkMemcpy/link=static/tunable=default/size=4096"
    t = _run(tmp_path, effect=(row, 0.93), metal_spell=(row, 1.5), seed=3)
    hit = [r for r in t.rows if r.name == row]
    assert {r.unit for r in hit} == {"ns/op", "B/s"}
    for r in hit:
        d = r.deltas["container-nolimit"]
        m = t.noise[0]
        band = m.band(r.name, r.unit, r.spreads.get("container-nolimit"), d.comparison.n2)
        assert d.comparison.significant and abs(d.pct) > band, (r.unit, d.pct, band)
        assert d.within_noise, (r.unit, d.pct, m.change_from_aa(r.name, r.unit, d.pct))


def _model(spread=0.01, n=6, aa=None, scale=1.0):
    """A noise model of one row, BenchmarkX/a=1 ns/op, with both passes' spread `spread` (log units)."""
    row = ("BenchmarkX/a=1", "ns/op")
    return noise.NoiseModel("metal", "metal-aa", 1, 0, {row: abs(aa or 0.0)}, {("BenchmarkX", "ns/op"): scale},
                            row_aa_change={row: aa} if aa is not None else {}, base_spread={row: (spread, n)})


def _delta(pct, n=6):
    return table.Delta(stats.Comparison(p=0.008, n1=n, n2=n, alpha=0.05), pct, "worse" if pct > 0 else "better")


def test_a_difference_must_clear_the_band_against_both_passes():
    row = ("BenchmarkX/a=1", "ns/op")
    m = _model(spread=0.10, aa=-50.0)  # metal-aa twice as fast as metal on this row
    assert not m.beyond(*row, _delta(-55.0))  # like metal-aa: -10 % against it
    assert m.beyond(*row, _delta(-80.0))  # -60 % against metal-aa too
    assert m.beyond(*row, _delta(+60.0))  # slower than both passes
    assert m.change_from_aa("BenchmarkX/a=1", "ns/op", -55.0) == pytest.approx(-10.0)
    # A row the A/A pass lacks has metal as its only baseline, and no evidence of its spread: the floor.
    assert m.beyond("BenchmarkX/a=2", "ns/op", _delta(-55.0))
    assert m.band("BenchmarkX/a=2", "ns/op") == noise.FLOOR_PCT


def test_band_comes_from_the_rows_own_repetitions_and_the_family_scale():
    row = ("BenchmarkX/a=1", "ns/op")
    quiet, noisy = _model(spread=0.001), _model(spread=0.05)
    assert quiet.band(*row) == noise.FLOOR_PCT  # repetitions that agree to 0.1 %: the floor
    se = noise.MEDIAN_SE * (2 * 0.05 ** 2 / 6) ** 0.5
    assert noisy.band(*row) == pytest.approx(100 * (math.exp(noise.K_SE * se) - 1))
    # a noisy target widens its own band; the A/A control's family scale widens every band of the family
    assert noisy.band(*row, target_spread=0.2, n_target=6) > noisy.band(*row)
    assert _model(spread=0.05, scale=2.0).band(*row) == pytest.approx(100 * (math.exp(2 * noise.K_SE * se) - 1))


def test_family_scale_is_robust_to_a_few_spells_and_never_below_one():
    assert noise._scale([0.5, 0.7, 0.6, 0.8]) == 1.0  # quieter than the repetitions promise: λ stays 1
    calm = [0.67] * 20
    assert noise._scale(calm + [40.0, 50.0]) == pytest.approx(noise._scale(calm), rel=0.05)  # two spells barely move it
    assert noise._scale([2.0] * 10) == pytest.approx(2 * 1.4826)


def test_minimum_detectable_effect_holds_against_a_simulation():
    """A run claims an MDE for a row; targets that differ by that much are found about 80 % of the
    time (a little more: the claim errs on the safe side), by half of it far less often.
    Simulated runs of lognormal noise: both passes and the target, 6 rounds each."""
    rng = np.random.default_rng(7)
    sigma, n = 0.01, 6
    row = ("BenchmarkX/a=1", "ns/op")
    rates = {1.0: [], 0.5: []}
    for _ in range(30):
        base, aa = np.exp(rng.normal(0, sigma, n)), np.exp(rng.normal(0, sigma, n))
        s = stats.log_spread_block(np.vstack([base, aa]))
        aa_pct = stats.pct_change(np.median(base), np.median(aa))
        m = _model(spread=math.sqrt((s[0] ** 2 + s[1] ** 2) / 2), n=n, aa=aa_pct)
        mde = m.mde(*row)
        assert 0.5 < mde < 6.0
        for share in rates:
            found = 0
            for _ in range(40):
                target = np.exp(rng.normal(math.log1p(share * mde / 100), sigma, n))
                d = table.Delta(stats.compare_many([(base, target)])[0],
                                stats.pct_change(np.median(base), np.median(target)), "worse")
                found += m.beyond(*row, d, float(stats.log_spread_block(target[None, :])[0]))
            rates[share].append(found / 40)
    assert 0.75 <= np.mean(rates[1.0]) <= 0.97, np.mean(rates[1.0])
    assert np.mean(rates[0.5]) <= 0.4, np.mean(rates[0.5])


def test_explain_lists_within_noise_rows_not_as_unexplained(tmp_path, cli):
    _run(tmp_path, drift=0.3, seed=2, noise_sd=0.05)
    r = cli("explain", tmp_path / "run" / "metal.txt", tmp_path / "run" / "container-nolimit.txt")
    assert r.code == 0, r.err
    first, second = r.out.splitlines()[:2]
    assert first.startswith("policy: in-run (") and second.startswith("noise: A/A control metal-aa vs metal:")
    r = cli("noise", tmp_path / "run")
    assert r.code == 0 and r.out.startswith("A/A noise (metal-aa vs metal):")
    assert "container-nolimit (container) vs metal:" in r.out


def test_noise_speaks_the_format_vocabulary(tmp_path, cli):
    import json

    _run(tmp_path, drift=0.3, seed=2, noise_sd=0.05)
    text = cli("noise", tmp_path / "run").out.splitlines()
    md = cli("noise", tmp_path / "run", "--format", "markdown")
    assert md.code == 0 and md.out.startswith("- A/A noise (metal-aa vs metal):")
    assert len(md.out.splitlines()) == len(text)
    doc = json.loads(cli("noise", tmp_path / "run", "--format", "json").out)
    assert doc["lines"] == text and doc["aa"][0]["aa"] == "metal-aa" and doc["baseline"] == "metal"
    row = next(t for t in doc["targets"] if t["target"] == "container-nolimit")
    assert f"container-nolimit (container) vs metal: {row['beyond']} of {row['rows']} rows" in "\n".join(text)
    assert cli("noise", tmp_path / "run", "--format", "csv").code == 2  # no table to write as CSV
