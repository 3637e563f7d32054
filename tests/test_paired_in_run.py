"""A lab run's targets against metal, paired by round (vmparity/table/paired_rounds.py,
docs/noise.md "Paired by round"): the slow spells a round shares cancel in the per-round
ratio against both passes of metal, a real change stands out, and rows whose rounds do not
pair keep the unpaired rule."""

import json
import math
import re

import resultgen as g
from vmparity import table
from vmparity.decide import figures, paired
from vmparity.results import inputs

# rounds that drift together by up to ±8 % (a shared host's slow spells), each value ±0.5 % of its own
SPELLS = dict(count=10, noise=0.005, drift=0.08)
TARGET = "container-nolimit"


def _table(run):
    return table.build([inputs.load(run)], by="target")


def _beyond(t, col=TARGET):
    return {(r.name, r.unit): r.deltas[col] for r in t.rows
            if col in r.deltas and r.deltas[col].comparison.significant and not r.deltas[col].within_noise}


def test_a_real_5_percent_is_found_through_shared_slow_spells(tmp_path):
    run = g.lab_run(tmp_path / "r-lab-quick", seed=3, effect=("Snowflake", 1.05), rounds_record=True, **SPELLS)
    t = _table(run)
    model = t.noise[0]
    assert isinstance(model, paired.DecidedNoise) and model.paired_rows[TARGET] == len(t.rows)
    found = _beyond(t)
    snowflake = {k for k in found if "Snowflake" in k[0]}
    assert len(snowflake) == 8 and all(found[k].verdict == "worse" and 4 < found[k].pct < 6 for k in snowflake)
    assert set(found) == snowflake  # nothing else moved
    assert all(found[k].comparison.n1 == 10 for k in found)
    # the same run without rounds.json is decided unpaired: the spells hide the change there
    (run / "rounds.json").unlink()
    assert len({k for k in _beyond(_table(run)) if "Snowflake" in k[0]}) < 4


def test_the_same_code_through_shared_slow_spells_is_quiet(tmp_path):
    for seed in (3, 5, 7):
        t = _table(g.lab_run(tmp_path / f"r{seed}-lab-quick", seed=seed, rounds_record=True, **SPELLS))
        assert _beyond(t) == {}, seed
        assert t.noise[0].paired.beyond_rows == [], seed


def test_the_sensitivity_figures_are_the_paired_rules(tmp_path):
    run = g.lab_run(tmp_path / "r-lab-quick", seed=3, rounds_record=True, **SPELLS)
    paired_mde = {f.family: f.median for f in figures.sensitivity(_table(run)) if f.target == TARGET}
    (run / "rounds.json").unlink()
    unpaired_mde = {f.family: f.median for f in figures.sensitivity(_table(run)) if f.target == TARGET}
    assert paired_mde.keys() == unpaired_mde.keys()
    assert all(math.isfinite(v) and v < 5 for v in paired_mde.values())
    assert all(paired_mde[k] < unpaired_mde[k] / 2 for k in paired_mde)


def test_rows_whose_values_do_not_match_the_rounds_keep_the_unpaired_rule(tmp_path):
    run = g.lab_run(tmp_path / "r-lab-quick", seed=3, effect=("Snowflake", 1.05), rounds_record=True, **SPELLS)
    rec = json.loads((run / "rounds.json").read_text())
    for r in rec["hosts"]["localhost"][3:]:  # the container took part in three rounds only, its file says ten
        r["order"] = [x for x in r["order"] if x != TARGET]
    (run / "rounds.json").write_text(json.dumps(rec))
    t = _table(run)
    assert t.noise[0].paired_rows.get(TARGET, 0) == 0
    assert all(r.deltas[TARGET].comparison.n1 == 10 for r in t.rows if TARGET in r.deltas)  # the U test's n


def test_against_passes_uses_the_passes_each_round_has():
    d = paired.against_passes({1: 10.0, 2: 10.0}, {1: 40.0, 3: 10.0}, {1: 22.0, 2: 11.0, 3: 9.0, 4: 5.0})
    assert [round(x, 6) for x in d] == [round(math.log(22 / 20), 6), round(math.log(1.1), 6), round(math.log(0.9), 6)]


def test_the_sensitivity_figures_keep_a_familys_units_together(tmp_path):
    # memcpy's B/s rows come after every ns/op row in the table; its figures sit beside its ns/op
    fams = [(f.family, f.unit) for f in figures.sensitivity(_table(g.lab_run(tmp_path / "r-lab-quick", seed=3,
                                                                                 rounds_record=True, **SPELLS)))
            if f.target == TARGET]
    order = [fam for fam, _ in fams]
    assert ("BenchmarkMemcpy", "B/s") in fams
    assert order == sorted(order, key=order.index)  # each family one block


def test_the_report_names_the_test_that_decided_its_rows(cli, tmp_path):
    run = g.lab_run(tmp_path / "r-lab-quick", seed=3, rounds_record=True, **SPELLS)
    rows = len(_table(run).rows)

    def baseline_line():
        r = cli("report", run, "--out", tmp_path / "out")
        assert r.code == 0, r.err
        return next(x for x in (tmp_path / "out" / "report.md").read_text().splitlines() if x.startswith("Baseline:"))

    assert f"round by round (the signed-rank test on each row's ratios to both passes; *Method and noise*, below), in all {rows} rows" \
        in baseline_line()
    (run / "rounds.json").unlink()
    line = baseline_line()
    assert "by the Mann–Whitney U test on the repetitions" in line and "round by round" not in line


def test_an_unexplained_row_says_how_large_a_change_its_row_could_see(cli, tmp_path):
    run = g.lab_run(tmp_path / "r-lab-quick", seed=3, effect=("Snowflake", 1.05), rounds_record=True, **SPELLS)
    assert cli("report", run, "--out", tmp_path / "out").code == 0
    md = (tmp_path / "out" / "report.md").read_text()
    listed = md[md.index("**Unexplained**"):].split("\n\n")[1].splitlines()
    assert len(listed) == 8 and all("Snowflake" in x and re.search(r"\(worse, p=0\.\d+; could see ±\d", x)
                                    for x in listed), listed


def test_the_noise_headline_is_the_rules_false_alarms_not_the_u_tests_count(cli, tmp_path):
    # a noisy hour's report led with the U test's 43 of 444 (9.7 %) A/A rows where the rule every
    # row was judged by called 12 (2.7 %) beyond noise: the figure a reader takes first must be the rule's
    # metal's snowflake rows 0.6 % slower in every round: significant to the U test, below every band
    run = g.lab_run(tmp_path / "r-lab-quick", seed=3, count=10, noise=0.002, metal_spell=("Snowflake", 1.006),
                    rounds_record=True)
    m = _table(run).noise[0]
    rule, significant = len(m.paired.beyond_rows), m.significant
    assert rule == 0 and significant >= 4, (rule, significant)
    assert cli("report", run, "--out", tmp_path / "out").code == 0
    # the first screen's line, then the method's paragraph, which says the U test's count last
    first, method = [x.split("\n")[0] for x in (tmp_path / "out" / "report.md").read_text().split("**Noise:**")[1:3]]
    for line in (first, method):
        assert re.search(r"^ the A/A control .*? is beyond noise in \*\*(\d+) of \d+ rows", line).group(1) == str(rule)
    assert "differ in" not in first  # the U test's bare count is the method's, not the first screen's
    assert method.endswith(f"the two passes differ in {significant} of {m.rows} rows ({100 * m.share:.1f} %).")
    r = cli("noise", run)
    assert r.code == 0 and r.out.startswith(f"A/A noise (metal-aa vs metal): {rule} of {m.paired.rows} rows"), r.out
    # a run whose rounds do not pair has only the U test's figure, and leads with it
    (run / "rounds.json").unlink()
    assert cli("noise", run).out.startswith(f"A/A noise (metal-aa vs metal): {_table(run).noise[0].significant} of ")


def test_the_a_a_column_is_beyond_noise_in_the_rows_of_the_run_figure_and_nowhere_else(cli, tmp_path):
    """compare RUN --by target shows the A/A pass's column: its rows beyond noise must be the ones `noise`
    and the report count as the run's false alarms (on a fresh run of 2026-12-06 the column showed 29 rows
    the U test alone called significant where the rule's figure was 7)."""
    # metal's snowflake rows 0.6 % slower in every round (the U test's significant rows, below every band)
    # and, in a second run, one clock row 5 % slower in every round (beyond the rule's band as well: the
    # rest of its family keeps λ near 1)
    run = g.lab_run(tmp_path / "r-lab-quick", seed=3, count=10, noise=0.002, metal_spell=("Snowflake", 1.006),
                    rounds_record=True)
    t = _table(run)
    m = t.noise[0]
    assert m.significant >= 4 and len(m.paired.beyond_rows) == 0
    assert _beyond(t, "metal-aa") == {}
    within = [r for r in t.rows if (d := r.deltas.get("metal-aa")) and d.comparison.significant]
    assert within and all(r.deltas["metal-aa"].within_noise for r in within)
    run2 = g.lab_run(tmp_path / "r2-lab-quick", seed=3, count=10, noise=0.002,
                     metal_spell=("BenchmarkClock/clock=realtime/path=vdso", 1.05), rounds_record=True)
    t2 = _table(run2)
    figure = {(n, u) for n, u, _, _ in t2.noise[0].paired.beyond_rows}
    beyond = _beyond(t2, "metal-aa")
    assert figure and set(beyond) == figure
    assert {d.test for d in beyond.values()} <= {"signed-rank by round", "fast level"}
    doc = json.loads(cli("compare", run2, "--by", "target", "--format", "json").out)
    shown = {(r["benchmark"], r["unit"]) for r in doc["rows"] for c, d in r["deltas"].items()
             if c == "metal-aa" and d["significant"] and not d.get("within-noise", False)}
    assert shown == figure
    assert cli("noise", run2).out.startswith(f"A/A noise (metal-aa vs metal): {len(figure)} of ")
