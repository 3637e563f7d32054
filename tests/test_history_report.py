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


def test_earlier_change_points_are_the_latest_newest_first_with_the_runs_where_most_stepped(tmp_path, cli):
    """Listed by run, not by track: the row of the later step comes first whatever its target's
    or name's order, and the runs where rows stepped are named by how many did."""
    plan = hg.Plan(runs=24, targets=["metal", "metal-aa"], rows=4, seed=4,
                   names=["BenchmarkA/x=1", "BenchmarkA/x=2", "BenchmarkZ/x=1", "BenchmarkZ/x=2"])
    hg.plan_cvs(plan)
    plan.row_cv = {k: 0.01 for k in plan.row_cv}
    # at run 8 three rows of metal step; at run 16 one row of metal-aa, last in name and target order
    plan.shifts = [hg.Shift("metal", row, 8, 1.5) for row in (0, 1, 2)] + [hg.Shift("metal-aa", 3, 16, 1.5)]
    hg.write(plan, tmp_path / "results" / "runs")
    r = cli("--results-dir", tmp_path / "results", "report", plan.run_id(23))
    assert r.code == 0, r.err
    md = (tmp_path / "results" / "runs" / plan.run_id(23) / "report.md").read_text()
    section = md[md.index("## History"):].split("\n## ")[0]
    listed = [line for line in section.split("**Earlier change points")[1].splitlines() if line.startswith("- ")]
    assert len(listed) == 4, section
    assert listed[0].startswith("- `BenchmarkZ/x=2` on `metal-aa`") and f"at run `{plan.run_id(16)}`" in listed[0]
    assert all(f"at run `{plan.run_id(8)}`" in line for line in listed[1:])
    assert "(newest first)" in section
    assert (f"lie at 2 runs; most rows stepped at `{plan.run_id(8)}` (3 rows of 1 target(s)), "
            f"`{plan.run_id(16)}` (1 row of 1 target(s))") in section
