"""The report's History section: present once the host has earlier runs, naming the moved rows,
the fingerprint change at the same run and the rule that explains it."""

import historygen as hg


def lab_runs(tmp_path, runs):
    plan = hg.Plan(runs=runs, targets=["metal", "guest-hpet-clock"], rows=2, seed=4,
                   names=["BenchmarkClock/clock=monotonic/path=vdso", "BenchmarkMemcpy/link=static/tunable=default/size=1024"])
    hg.plan_cvs(plan)
    plan.row_cv = {k: 0.01 for k in plan.row_cv}
    return plan


def test_first_run_has_no_history_section(tmp_path, cli):
    plan = lab_runs(tmp_path, 1)
    hg.write(plan, tmp_path / "results" / "runs")
    r = cli("--results-dir", tmp_path / "results", "report", plan.run_id(0))
    assert r.code == 0, r.err
    assert "## History" not in (tmp_path / "results" / "runs" / plan.run_id(0) / "report.md").read_text()


def test_second_run_names_the_move_the_fingerprint_change_and_the_rule(tmp_path, cli):
    plan = lab_runs(tmp_path, 2)
    plan.fingerprint_changes = {1: {"clocksource": "hpet", "vdso": "no", "clock-verdict-monotonic": "fallback"}}
    plan.shifts = [hg.Shift("guest-hpet-clock", 0, 1, 5.1)]
    plan.targets = ["guest-hpet-clock"]  # the change comes with this target only
    hg.write(plan, tmp_path / "results" / "runs")
    r = cli("--results-dir", tmp_path / "results", "report", plan.run_id(1))
    assert r.code == 0, r.err
    md = (tmp_path / "results" / "runs" / plan.run_id(1) / "report.md").read_text()
    section = md[md.index("## History"):].split("\n## ")[0]
    assert f"earlier run(s) of host `{hg.resultgen.METAL['host']}`" in section
    assert "`guest-hpet-clock`: the fingerprint changed clocksource tsc → hpet" in section
    moved = next(line for line in section.splitlines() if line.startswith("- `BenchmarkClock/"))
    assert "moved +4" in moved and f"at run `{plan.run_id(1)}`, commit `{plan.commit(1)}`" in moved
    assert "the fingerprint changed `clocksource`, `vdso`" in moved
    assert "(`vdso-fallback`)" in section and "Fix:" in section
    assert "BenchmarkMemcpy" not in section  # it did not move
