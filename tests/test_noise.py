"""The A/A control rule (vmparity.noise): drift within noise is not flagged, a real effect is."""

import random

import pytest
import resultgen
from vmparity import inputs, noise, stats, table
from vmparity.names import aa_control_of, is_aa_control, is_lab_metal


def _run(tmp_path, effect=None, drift=0.0, seed=0, count=5, noise_sd=0.02, metal_spell=None):
    """A run dir with metal, metal-aa and container-nolimit measured in interleaved rounds:
    every round has a shared drift factor (the machine's speed that moment) that hits all three.
    metal_spell=(name prefix, factor) slows those rows of metal alone (its pass ran in slow spells)."""
    rng = random.Random(seed)
    run = tmp_path / "run"
    run.mkdir()
    drifts = [1 + drift * rng.uniform(-1, 1) for _ in range(count)]
    for target in ("metal", "metal-aa", "container-nolimit"):
        cfg = dict(resultgen.METAL, target=target, count=str(count))
        if target == "container-nolimit":
            cfg["target-kind"] = "container"
        benches = resultgen.suite(cfg, random.Random(rng.random()), count=count, noise=noise_sd)
        for name, units in benches.items():
            for unit, vals in units.items():
                scale = [d for d in drifts]
                if effect and target == "container-nolimit" and effect[0] in name:
                    scale = [s * (effect[1] if unit != "B/s" else 1 / effect[1]) for s in scale]
                if metal_spell and target == "metal" and metal_spell[0] in name:
                    scale = [s * (metal_spell[1] if unit != "B/s" else 1 / metal_spell[1]) for s in scale]
                units[unit] = [v * (s if unit != "B/s" else 1 / s) for v, s in zip(vals, scale)]
        resultgen.write(run / f"{target}.txt", cfg, benches)
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
        assert d.comparison.significant and abs(d.pct) > m.band(r.name, r.unit), (r.unit, d.pct, m.band(r.name, r.unit))
        assert d.within_noise, (r.unit, d.pct, m.change_from_aa(r.name, r.unit, d.pct))


def test_a_difference_must_clear_the_band_against_both_passes():
    def delta(pct):
        return table.Delta(stats.Comparison(p=0.008, n1=5, n2=5, alpha=0.05), pct, "worse" if pct > 0 else "better")

    row = ("BenchmarkX/a=1", "ns/op")
    m = noise.NoiseModel("metal", "metal-aa", 1, 0, {row: 50.0}, {("BenchmarkX", "ns/op"): 5.0},
                         row_aa_change={row: -50.0})  # metal-aa twice as fast as metal on this row
    assert m.band(*row) == 50.0
    assert not m.beyond(*row, delta(-55.0))  # like metal-aa: -10 % against it
    assert m.beyond(*row, delta(-80.0))  # -60 % against metal-aa too
    assert m.beyond(*row, delta(+60.0))  # slower than both passes
    assert m.change_from_aa("BenchmarkX/a=1", "ns/op", -55.0) == pytest.approx(-10.0)
    # A row the A/A pass lacks has metal as its only baseline.
    assert m.beyond("BenchmarkX/a=2", "ns/op", delta(-55.0))


def test_band_has_a_floor_and_follows_the_family():
    m = noise.NoiseModel("metal", "metal-aa", 3, 0, {("BenchmarkX/a=1", "ns/op"): 1.0, ("BenchmarkX/a=2", "ns/op"): 9.0,
                                                     ("BenchmarkY", "ns/op"): 0.1},
                         {("BenchmarkX", "ns/op"): 8.6, ("BenchmarkY", "ns/op"): 0.1})
    assert m.band("BenchmarkY", "ns/op") == noise.FLOOR_PCT
    assert m.band("BenchmarkX/a=1", "ns/op") == 8.6  # the family's spread, above the row's own 1 %
    assert m.band("BenchmarkX/a=2", "ns/op") == 9.0  # the row's own A/A change, above the family's


def test_explain_lists_within_noise_rows_not_as_unexplained(tmp_path, cli):
    _run(tmp_path, drift=0.3, seed=2, noise_sd=0.05)
    r = cli("explain", tmp_path / "run" / "metal.txt", tmp_path / "run" / "container-nolimit.txt")
    assert r.code == 0, r.err
    assert r.out.startswith("noise: A/A control metal-aa vs metal:")
    r = cli("noise", tmp_path / "run")
    assert r.code == 0 and r.out.startswith("A/A noise (metal-aa vs metal):")
    assert "container-nolimit (container) vs metal:" in r.out
