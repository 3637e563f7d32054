"""The report answers first (DESIGN.md, Documentation): its first screen is the run's noise in a
sentence, its warnings, one line per target and the main differences with cause and fix; the
method (the A/A paragraph, core clock, sensitivity, rounds) comes after the verdicts, folded."""

import json
import re

import resultgen as g


def _report(cli, run, out):
    r = cli("report", run, "--out", out)
    assert r.code == 0, r.err
    return (out / "report.md").read_text()


def test_verdicts_come_before_the_method(cli, testdata, tmp_path):
    md = _report(cli, testdata / "run-a", tmp_path / "out")
    table, main = md.index("| target | kind |"), md.index("**Main differences**")
    why, method = md.index("## Why they differ"), md.index("## Method and noise")
    assert table < main < why < method < md.index("## All results")
    # a cause and its fix on the first screen, not only inside a fold
    first = md[main:why]
    assert "(`nt-threshold`): `guest-nosmt` (" in first and "**Fix** (for `" in first
    assert "<details>" not in md[:why]
    assert "**Rounds:**" in md[method:] and "**Rounds:**" not in md[:method]


def test_the_rounds_are_folded_under_the_method(cli, tmp_path):
    run = g.lab_run(tmp_path / "r-lab-quick", seed=3, count=10, effect=("Snowflake", 1.2), rounds_record=True)
    rec = json.loads((run / "rounds.json").read_text())
    rec["partial"] = True
    (run / "rounds.json").write_text(json.dumps(rec))
    md = _report(cli, run, tmp_path / "out")
    method = md.index("## Method and noise")
    # the headline is one line of the rule's false alarms; the method's paragraph says how
    assert re.match(r"\*\*Noise:\*\* the A/A control \(`metal` measured twice per round\) is beyond noise in "
                    r"\*\*\d+ of \d+ rows", md.splitlines()[2])
    assert "**Noise:** the A/A control (`metal` measured twice in every round" in md[method:]
    # a warning of the rounds is said on the first screen, before any verdict, and again with the rounds
    partial = "- ⚠ **partial run**"
    assert md.index(partial) < md.index("| target | kind |") and partial in md[method:]
    folds = re.findall(r"<details><summary>([^<]*)</summary>", md[method:])
    assert folds[:2] == ["Core clock, memory bandwidth and sensitivity", "Rounds"]
    assert md.index("**Sensitivity:**") > md.index("<details><summary>Core clock", method)
    assert "No rule explains" in md[:md.index("## Why they differ")]


def test_an_older_runs_remeasures_are_one_line_under_the_rounds(cli, tmp_path):
    # rounds.json of a run before 2026-12-06 lists its re-measured repetitions; the lab writes none now
    run = g.lab_run(tmp_path / "r-lab-quick", seed=3, count=10, effect=("Snowflake", 1.2), rounds_record=True)
    plain = _report(cli, run, tmp_path / "plain")
    assert "measured again, the new values" not in plain
    rec = json.loads((run / "rounds.json").read_text())
    rec["remeasured"] = [{"target": "metal", "round": k, "job": "clock", "host": "localhost",
                          "status": "measured again", "shift-pct": 20.0} for k in (2, 5, 5)]  # round 5 twice
    rec["remeasured"].append({"target": "metal", "round": 7, "job": "clock", "status": "not measured again"})
    (run / "rounds.json").write_text(json.dumps(rec))
    md = _report(cli, run, tmp_path / "out")
    rounds = md[md.index("<details><summary>Rounds</summary>"):]
    assert "- 2 repetition(s) a slow spell disturbed were measured again, the new values in place of the first" in rounds
