"""vmparity history sees every step: a regression and its fix a few runs later are two change points, each at
its run with its sign, told as one excursion naming both commits; and the JSON output never fails on them."""

import json

import changegen as cg
import pytest

from vmparity.history import changepoints, excursions


def history_json(cli, results):
    r = cli("--results-dir", results, "history", "--format", "json")
    assert r.code == 0 and "Traceback" not in r.err, r.err
    return json.loads(r.out)


@pytest.mark.parametrize("lifetime", [5, 6, 10, 15, 25])
def test_a_regression_fixed_lifetime_runs_later_is_two_changes_and_an_excursion(tmp_path, cli, lifetime):
    # issue 23's rows: 80 runs, 6 samples a run, 1 % noise, +15 % at run 40 and back at 40 + lifetime
    h = cg.lifetime_history(lifetime, rows=2, seed=200 + lifetime)
    cg.write(h, tmp_path / "runs")
    doc = history_json(cli, tmp_path)
    ids = h.tracks[0].run_ids
    for t in doc["tracks"]:
        got = [(ids.index(c["run_id"]), c["verdict"]) for c in t["change_points"]]
        assert got == [(40, "worse"), (40 + lifetime, "better")], t["benchmark"]
        assert t["change_points"][0]["pct"] == pytest.approx(15, abs=3)
        (ex,) = t["excursions"]
        assert (ex["first_run_id"], ex["last_run_id"], ex["back_run_id"], ex["runs"]) == (
            ids[40], ids[39 + lifetime], ids[40 + lifetime], lifetime)
        assert (ex["commit"], ex["back_commit"]) == (cg.commit(40), cg.commit(40 + lifetime))
    r = cli("--results-dir", tmp_path, "history")
    assert f"for runs {ids[40]}..{ids[39 + lifetime]} ({lifetime} runs), then back" in r.out
    assert f"regressed at commit {cg.commit(40)[:12]}" in r.out
    assert f"recovered at commit {cg.commit(40 + lifetime)[:12]}" in r.out


def test_json_writes_every_change_point_of_a_history_whose_numbers_were_numpy_integers(tmp_path, cli):
    # seed 14: a history on which `history --format json` ended in "Object of type int64 is not JSON
    # serializable" (change_points[].runs_before), before the change points were segmented anew
    cg.write(cg.history(14, rows=40, runs=80, kinds=("single",)), tmp_path / "runs")
    doc = history_json(cli, tmp_path)
    cps = [c for t in doc["tracks"] for c in t["change_points"]]
    assert cps and all(type(c["runs_before"]) is int and type(c["runs_after"]) is int for c in cps)


def test_change_points_hold_python_numbers():
    h = cg.history(3, rows=20, runs=60, kinds=("multi",))
    cps, _ = changepoints.detect(h.tracks)
    assert cps
    for c in cps:
        assert all(type(v) is int for v in (c.at, c.n_before, c.n_after, c.start, c.stop))


def test_two_changes_of_one_sign_are_not_an_excursion_nor_is_a_partial_return():
    cps = [type("C", (), {"track": t, "pct": pct})() for t, pct in [(1, 15.0), (1, 10.0), (2, 15.0), (2, -5.0),
                                                                     (3, 20.0), (3, -16.0), (4, None), (4, -10.0)]]
    assert [(e.away.track, e.away.pct, e.back.pct) for e in excursions.find(cps)] == [(3, 20.0, -16.0)]


def test_every_change_of_several_in_a_row_is_found_at_its_run_with_its_sign():
    h = cg.history(21, rows=30, runs=80, cv=(0.005, 0.02))
    cps, _ = changepoints.detect(h.tracks)
    found = [[(c.at, 1 if c.pct > 0 else -1) for c in cps if c.track is t] for t in h.tracks]
    score = cg.Score().add(h.rows, found)
    assert score.recall(10)[0] == score.recall(10)[1] and score.false == 0


def test_the_pr_comment_names_both_commits_of_an_excursion_in_the_stored_history(tmp_path, cli):
    h = cg.lifetime_history(6, rows=1, seed=7)
    cg.write(h, tmp_path / "runs")
    ids = h.tracks[0].run_ids
    r = cli("--results-dir", tmp_path, "pr-comment", ids[-2], ids[-1])
    assert r.code == 0, r.err
    notes = r.out[r.out.index("### Excursions in the stored history"):]
    assert f"`BenchmarkSynth/row=000` (`ns/op`) on `metal`: +" in notes
    assert f"for runs `{ids[40]}`..`{ids[45]}` (6 runs), then back" in notes
    assert f"regressed at commit `{cg.commit(40)[:12]}`" in notes
    assert f"recovered at commit `{cg.commit(46)[:12]}`" in notes


def test_the_pr_comment_leaves_out_the_excursions_of_tcg_guests_and_says_so(tmp_path, cli):
    # under emulation every row is the emulator's speed: the comment's cross-run judgement does not test
    # those rows, and its history notes must not hold them against the code either
    h = cg.lifetime_history(6, rows=1, seed=7)
    cg.write(h, tmp_path / "runs")
    cg.write(h, tmp_path / "runs", target="guest-nosmt", target_kind="tcg-guest")
    ids = h.tracks[0].run_ids
    r = cli("--results-dir", tmp_path, "pr-comment", ids[-2], ids[-1])
    assert r.code == 0, r.err
    notes = r.out[r.out.index("### Excursions in the stored history"):]
    assert "on `metal`: +" in notes and "`guest-nosmt`" not in notes
    assert "1 on emulated (TCG) guests left out: their every row is the emulator's speed" in notes
    r = cli("--results-dir", tmp_path, "history")
    assert r.out.count("excursion:") == 2  # the history itself lists both


def test_the_pr_comment_of_files_outside_a_results_tree_has_no_history_notes(cli, testdata):
    r = cli("pr-comment", testdata / "run-a" / "metal.txt", testdata / "run-b" / "metal.txt")
    assert r.code == 0, r.err
    assert "Excursions" not in r.out


def test_a_higher_is_better_row_is_read_on_its_fast_side_too():
    # the same rows as throughputs (1 / time): interference now lowers samples, and the upper quartile is the
    # level that it does not reach
    h = cg.history(21, rows=30, runs=80, cv=(0.005, 0.02))
    inverted = [cg.track(t.name, 1 / t.values.reshape(len(t.run_ids), -1), t.run_ids, higher_better=True)
                for t in h.tracks]
    cps, _ = changepoints.detect(inverted)
    found = [[(c.at, -1 if c.pct > 0 else 1) for c in cps if c.track is t] for t in inverted]
    score = cg.Score().add(h.rows, found)
    assert score.recall(10)[0] == score.recall(10)[1] and score.false == 0
    assert {c.verdict for c in cps if c.pct > 0} == {"better"}
