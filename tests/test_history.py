"""vmparity history: change points at the injected runs and nowhere else, series split on
fingerprint changes, the output formats, plots and bad input."""

import json

import historygen as hg
import pytest

from vmparity.history import changepoints, index, tracks


def quiet(plan, cv=0.02):
    """Every row as steady as the lab's quieter rows, so a 10 % shift is resolvable."""
    hg.plan_cvs(plan)
    plan.row_cv = {k: cv for k in plan.row_cv}
    return plan


def load(runs_dir, **kw):
    ix = index.Index(runs_dir)
    ix.refresh()
    try:
        return tracks.load(ix, **kw)
    finally:
        ix.close()


def found(runs_dir, **kw):
    h = load(runs_dir, **kw)
    cps, tests = changepoints.detect(h.tracks)
    return {(c.track.target, c.track.name, c.run_id) for c in cps}, cps, tests


def test_change_points_are_the_injected_shifts(tmp_path):
    plan = quiet(hg.Plan(runs=70, targets=["metal", "guest-nosmt"], rows=6, seed=11))
    plan.shifts = [hg.Shift("metal", 1, 20, 2.0), hg.Shift("metal", 2, 40, 1.10), hg.Shift("guest-nosmt", 4, 50, 0.9)]
    hg.write(plan, tmp_path / "runs")
    got, cps, tests = found(tmp_path / "runs")
    want = {(s.target, plan.name(s.row), plan.run_id(s.run)) for s in plan.shifts}
    assert got == want
    assert tests == 2 * 6 * 69  # every run but the first of every track is a candidate
    size = {c.track.name: c for c in cps}
    assert size[plan.name(1)].pct == pytest.approx(100, abs=10) and size[plan.name(1)].verdict == "worse"
    assert size[plan.name(4)].verdict == "better"
    assert size[plan.name(1)].previous_run_id == plan.run_id(19)


def test_pure_noise_has_no_change_point(tmp_path):
    plan = hg.Plan(runs=120, targets=["metal"], rows=12, seed=5)  # the lab's spread, spikes and run levels
    hg.write(plan, tmp_path / "runs")
    got, _, tests = found(tmp_path / "runs")
    assert got == set() and tests == 12 * 119


def test_a_fingerprint_change_starts_a_new_series_and_is_named_at_the_change(tmp_path, cli):
    plan = quiet(hg.Plan(runs=30, targets=["guest-hpet"], rows=2, seed=3))
    plan.fingerprint_changes = {12: {"clocksource": "hpet", "vdso": "no"}}
    plan.shifts = [hg.Shift("guest-hpet", 0, 12, 5.1)]
    hg.write(plan, tmp_path / "runs")
    h = load(tmp_path / "runs")
    for t in h.tracks:
        assert [(s.start, s.stop) for s in t.series] == [(0, 12), (12, 30)]
        assert t.series[1].changed == {"clocksource": ("tsc", "hpet"), "vdso": ("yes", "no")}
    _, cps, _ = found(tmp_path / "runs")
    assert [(c.track.name, c.at, c.changed) for c in cps] == [
        (plan.name(0), 12, {"clocksource": ("tsc", "hpet"), "vdso": ("yes", "no")})]
    r = cli("--results-dir", tmp_path, "history", "--tracks")
    assert r.code == 0, r.err
    assert f"-- new series from run {plan.run_id(12)}: clocksource tsc → hpet, vdso yes → no" in r.out
    assert "the fingerprint changed clocksource, vdso at the same run" in r.out
    assert f"commit {plan.commit(12)[:12]}" in r.out


def test_a_key_outside_the_series_keys_keeps_the_series(tmp_path):
    plan = quiet(hg.Plan(runs=6, targets=["metal"], rows=1))
    plan.fingerprint_changes = {3: {"governor": "powersave"}}
    hg.write(plan, tmp_path / "runs")
    assert len(load(tmp_path / "runs").tracks[0].series) == 1


def test_filter_and_json_and_markdown(tmp_path, cli):
    plan = quiet(hg.Plan(runs=4, targets=["metal", "guest-nosmt"], rows=3))
    hg.write(plan, tmp_path / "runs")
    r = cli("history", "--results-dir", tmp_path, "--filter", "/row:001 target:metal", "--format", "json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert [(t["target"], t["benchmark"]) for t in doc["tracks"]] == [("metal", plan.name(1))]
    runs = doc["tracks"][0]["series"][0]["runs"]
    assert [x["run_id"] for x in runs] == [plan.run_id(i) for i in range(4)]
    assert runs[0]["commit"] == plan.commit(0) and runs[0]["branch"] == "main" and runs[0]["dirty"] == "no"
    assert runs[0]["lo"] is None and runs[0]["n"] == 5  # 5 samples bound no 95 % interval below
    r = cli("history", "--results-dir", tmp_path, "--filter", ".name:Synth", "--format", "markdown", "--tracks")
    assert r.code == 0 and r.out.count("| run | commit |") == 6


def test_markdown_escapes_header_values(tmp_path, cli):
    plan = quiet(hg.Plan(runs=2, targets=["metal"], rows=1))
    plan.fingerprint_changes = {0: {"branch": "feat|`x`"}}
    hg.write(plan, tmp_path / "runs")
    r = cli("history", "--results-dir", tmp_path, "--format", "markdown", "--tracks")
    assert "`` feat\\|`x` ``" in r.out and "feat|`" not in r.out  # render.escape.md_code, as every writer


def test_plots_are_pngs_one_per_row(tmp_path, cli):
    plan = quiet(hg.Plan(runs=5, targets=["metal"], rows=2))
    hg.write(plan, tmp_path / "runs")
    r = cli("history", "--results-dir", tmp_path, "--plot", tmp_path / "plots")
    assert r.code == 0, r.err
    pngs = sorted((tmp_path / "plots").glob("*.png"))
    assert len(pngs) == 2 and all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)


@pytest.mark.parametrize("args, says", [
    (["--filter", "/row:("], "--filter"),
    (["--window", "0"], "--window"),
    (["--alpha", "1.5"], "--alpha"),
    (["--filter", "target:nowhere"], "no stored results match"),
])
def test_bad_options_exit_2_naming_the_option(tmp_path, cli, args, says):
    hg.write(quiet(hg.Plan(runs=2, targets=["metal"], rows=1)), tmp_path / "runs")
    r = cli("history", "--results-dir", tmp_path, *args)
    assert r.code == 2 and says in r.err and "Traceback" not in r.err


def test_missing_runs_directory_exits_2(tmp_path, cli):
    r = cli("history", "--results-dir", tmp_path / "nowhere")
    assert r.code == 2 and "runs" in r.err


def test_an_unreadable_run_is_skipped_with_a_warning(tmp_path, cli):
    hg.write(quiet(hg.Plan(runs=3, targets=["metal"], rows=1)), tmp_path / "runs")
    bad = tmp_path / "runs" / "2026-01-01T00-00-00Z-00001" / "metal.txt"
    bad.write_text("BenchmarkX 10 notanumber ns/op\n")
    r = cli("history", "--results-dir", tmp_path, "--format", "json")
    assert r.code == 0 and "skipped run 2026-01-01T00-00-00Z-00001" in r.err and "metal.txt:1" in r.err
    assert len(json.loads(r.out)["tracks"][0]["series"][0]["runs"]) == 2


def test_the_summary_comes_first_and_the_change_points_are_bounded(tmp_path, cli):
    plan = quiet(hg.Plan(runs=40, targets=["metal", "guest-nosmt"], rows=4, seed=5))
    plan.shifts = [hg.Shift("metal", 0, 20, 1.5), hg.Shift("metal", 1, 20, 1.3), hg.Shift("guest-nosmt", 2, 25, 0.8)]
    hg.write(plan, tmp_path / "runs")
    r = cli("--results-dir", tmp_path, "history")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0] == "8 track(s), 3 change point(s) of at least 5 % (2 worse, 1 better)."
    assert lines[-1].startswith("Change points: candidates") and lines[-1].endswith("size at least 5 %.")
    changes = [ln for ln in lines if ln.startswith("    change: ")]
    assert [round(float(c.split()[1]) / 10) for c in changes] == [5, 3, -2]  # largest first
    assert "| run | commit |" not in r.out and plan.run_id(3) not in r.out  # no track's runs by default
    top = cli("--results-dir", tmp_path, "history", "--top", "1").out
    assert top.count("    change: ") == 1 and "2 more change point(s) not shown: --top N shows more, --all" in top
    assert cli("--results-dir", tmp_path, "history", "--top", "1", "--all").out.count("    change: ") == 3
    every = cli("--results-dir", tmp_path, "history", "--tracks").out
    assert every.splitlines()[0] == lines[0] and every.count(plan.run_id(3)) == 8
    md = cli("--results-dir", tmp_path, "history", "--format", "markdown", "--top", "2").out
    assert md.startswith("# History\n\n8 track(s), 3 change point(s)") and "1 more change point(s) not shown" in md


def test_no_change_point_below_the_floor_and_no_minus_zero(cli, tmp_path):
    import changegen as cg
    from vmparity.history import render

    for seed in range(4):
        h = cg.history(seed, rows=30, runs=60, kinds=("multi", "single"), cv=(0.01, 0.08))
        for floor in (5.0, 10.0):
            cps, _ = changepoints.detect(h.tracks, changepoints.Method(min_change=floor))
            assert all(c.pct is None or abs(c.pct) >= floor for c in cps), (seed, floor)
    assert render.pct(-0.04) == render.pct(0.04) == "0.0 %" and render.pct(-5.06) == "-5.1 %"


def test_a_run_too_small_for_an_interval_says_so(tmp_path, cli):
    hg.write(quiet(hg.Plan(runs=4, targets=["metal"], rows=1)), tmp_path / "runs")  # 5 samples a run
    for fmt in ("text", "markdown"):
        out = cli("--results-dir", tmp_path, "history", "--tracks", "--format", fmt).out
        assert "∞" not in out and out.count("n too small") == 4, fmt


def test_the_default_view_wraps_at_the_width_and_never_breaks_a_run_id(tmp_path, cli, monkeypatch):
    plan = quiet(hg.Plan(runs=40, targets=["metal"], rows=2, seed=5))
    plan.shifts = [hg.Shift("metal", 0, 20, 1.5)]
    hg.write(plan, tmp_path / "runs")
    wide = cli("--results-dir", tmp_path, "history").out
    monkeypatch.setenv("COLUMNS", "80")
    r = cli("--results-dir", tmp_path, "history")
    assert max(map(len, r.out.splitlines())) <= 80
    assert plan.run_id(20) in r.out and plan.run_id(19) in r.out
    assert r.out.split() == wide.split()  # the same words, only the line breaks differ
