"""A/B in one run (make lab-ab, docs/noise.md "A/B in one run"): the paired
schedule, the BASE checkout, the merge and ingest of both sides, and HEAD
against BASE per target in the report and the PR comment."""

import json
import math
import os
import random
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

import resultgen as g
from test_rounds import _stage
from vmparity.errors import InputError
from vmparity import stats
from vmparity.render import run_figures
from vmparity.lab import ab, ab_compare, rounds
from vmparity.render import ab_md
from vmparity.results import inputs, spec
from vmparity.results.file import parse_file
from vmparity.results.targets import base_side, head_of, is_base_side, metal_of

PLAIN = ["metal", "metal-aa", "guest-nosmt", "guest-hpet-clock", "container-nolimit", "container-quota"]
AB = PLAIN + [base_side(t) for t in PLAIN if t != "metal-aa"]


# --- names and the schedule ---------------------------------------------------------

def test_base_side_names_are_no_rack_suffix():
    assert base_side("guest-nosmt") == "guest-nosmt~base" and head_of("guest-nosmt~base") == "guest-nosmt"
    assert head_of("metal") == "metal" and not is_base_side("~base")
    # a BASE side runs on its target's host, on a rack too
    assert metal_of("guest-nosmt-rack10~base", ["metal-rack1", "metal-rack10"]) == "metal-rack10"
    assert metal_of("metal~base", ["metal"]) == "metal"


def test_plain_rounds_keep_the_order_they_always_had():
    """Without BASE sides the schedule is the one lab-up always drew: the same seed, the same orders."""
    for seed in (1, 42, 9999):
        old = []
        for k in range(1, 7):
            order = list(PLAIN)
            random.Random(f"{seed}:{k}").shuffle(order)
            old.append(order)
        assert rounds.schedule(PLAIN, 6, seed) == old


def test_a_targets_two_sides_run_one_right_after_the_other_in_a_seeded_random_order():
    plan = rounds.schedule(AB, 200, seed=5, limits={"guest-nosmt": 3, "guest-nosmt~base": 3})
    assert plan == rounds.schedule(AB, 200, seed=5, limits={"guest-nosmt": 3, "guest-nosmt~base": 3})
    base_first = 0
    for k, order in enumerate(plan, 1):
        assert sorted(order) == sorted(t for t in AB if k <= 3 or "nosmt" not in t)
        for t in PLAIN:
            if t != "metal-aa" and t in order:
                i, j = order.index(t), order.index(base_side(t))
                assert abs(i - j) == 1, order  # adjacent: both meet the same moment of the host
                base_first += j < i
    # which side goes first is drawn, about half the time each
    pairs = sum(len([t for t in o if is_base_side(t)]) for o in plan)
    assert 0.4 < base_first / pairs < 0.6
    # and the pairs themselves are shuffled: every target leads some round
    assert {head_of(o[0]) for o in plan} == set(PLAIN)


# --- which targets get a BASE side -------------------------------------------------------

LAB = [{"host": "localhost", "target": t, "kind": k} for t, k in (
    ("metal", ""), ("metal-aa", ""), ("guest-nosmt", "tcg-guest"), ("guest-hpet-clock", "tcg-guest"),
    ("container-nolimit", "container"), ("container-quota", "container"))]


def _names(plan):
    return [t["target"] for t in plan["targets"]]


def test_a_kind_whose_rounds_cannot_reach_alpha_is_left_out_of_an_ab_run():
    """Quick: ten rounds, TCG guests three. 3 against 3 values can never be significant (the U test's best
    p is 0.1; the signed-rank test's 0.25): their A/B would say nothing, and their slots are the longest."""
    plan = ab.sides(LAB, 10, {"tcg-guest": 3}, "/var/tmp/vmparity-bench-base")
    assert _names(plan) == ["metal", "metal~base", "metal-aa", "container-nolimit", "container-nolimit~base",
                            "container-quota", "container-quota~base"]
    assert plan["not-measured"] == {t: {"kind": "tcg-guest", "rounds": 3, "need": 4}
                                    for t in ("guest-nosmt", "guest-hpet-clock")}
    base = [t for t in plan["targets"] if is_base_side(t["target"])]
    assert all(t["side"] == "base" and t["dir"] == "/var/tmp/vmparity-bench-base" and t["host"] == "localhost"
               for t in base)
    assert {t["kind"] for t in base} == {"", "container"}  # a BASE side keeps its target's kind
    assert not any("side" in t for t in plan["targets"] if not is_base_side(t["target"]))
    # the smallest test that can reach α decides: four rounds a side can (2/70 < 0.05), so the kind is back
    four = ab.sides(LAB, 10, {"tcg-guest": 4})
    assert four["not-measured"] == {} and {"guest-nosmt", "guest-nosmt~base"} <= set(_names(four))
    assert ab.sides(LAB, 10, {"tcg-guest": 3}, alpha=0.2)["not-measured"] == {}  # at α = 0.2 three a side can


def test_a_run_whose_targets_all_take_the_same_rounds_leaves_nobody_out():
    """Smoke (one round) and a bench_count under the cap cut nobody's rounds: every target but the A/A pass
    keeps its BASE side, as before (the end-to-end smoke A/B checks the path on a TCG guest)."""
    for rounds, caps in ((1, {"tcg-guest": 3}), (3, {"tcg-guest": 3}), (10, {}), (10, None)):
        plan = ab.sides(LAB, rounds, caps)
        assert plan["not-measured"] == {}, (rounds, caps)
        assert _names(plan) == [n for t in LAB for n in (t["target"], base_side(t["target"]))
                                if n != "metal-aa~base"]


REPO = Path(__file__).resolve().parents[1]
ANSIBLE_PLAYBOOK = Path(sys.executable).with_name("ansible-playbook")
PLAN_TASKS = ("Add each target's BASE side (an A/B run)",
              "Record which BASE an A/B run compares with (merge-rounds puts it in rounds.json)")


# The role's own defaults: a plain run's caps and an A/B run's.
ROLE_CAPS = {k: v for k, v in yaml.safe_load((REPO / "ansible/roles/bench/defaults/main.yml").read_text()).items()
             if k in ("bench_rounds_by_kind", "bench_ab_rounds_by_kind")}


def test_the_role_gives_tcg_guests_a_finite_interval_and_keeps_them_out_of_an_ab_run():
    """By default a TCG guest takes as many rounds as a finite 95 % median interval needs (with fewer, every
    row of theirs in compare, the report and the PR comment is "± ∞"), and an A/B run keeps them out."""
    need_ci = stats.samples_for_ci(0.95)[1]
    assert ROLE_CAPS["bench_rounds_by_kind"]["tcg-guest"] >= need_ci == 6
    assert stats.summarize_many([[1.0, 1.1, 0.9, 1.05, 0.95, 1.02]])[0].warnings == []
    assert ab.sides(LAB, 10, ROLE_CAPS["bench_rounds_by_kind"])["not-measured"] == {}
    assert set(ab.sides(LAB, 10, ROLE_CAPS["bench_ab_rounds_by_kind"])["not-measured"]) == {
        t["target"] for t in LAB if t["kind"] == "tcg-guest"}


@pytest.mark.skipif(not ANSIBLE_PLAYBOOK.exists(), reason="ansible-playbook is the lab extra's")
def test_the_bench_role_plans_the_base_sides_and_records_the_others(tmp_path):
    """The bench role's own two tasks (tasks/plan.yml) with its default caps, run by the real ansible-playbook
    on two local hosts of a rack: each host's TCG guest is left out, and ab.json names both hosts' guests."""
    tasks = [t for t in yaml.safe_load((REPO / "ansible/roles/bench/tasks/plan.yml").read_text())
             if t.get("name") in PLAN_TASKS]
    assert len(tasks) == 2
    hosts = {h: [{"host": h, "target": f"{t}-{h}", "kind": k} for t, k in (
        ("metal", ""), ("metal-aa", ""), ("guest-nosmt", "tcg-guest"), ("container-quota", "container"))]
        for h in ("rack01", "rack02")}
    play = [{"name": "plan an A/B run", "hosts": "all", "gather_facts": False,
             "vars": {"bench_ab_base_dir": str(tmp_path / "base"), "bench_ab_base_ref": "main",
                      "bench_ab_base_commit": "ab" * 20, "bench_profile": "quick", "bench_count": 0,
                      **ROLE_CAPS, "bench_ab_remote_dir": "/var/tmp/b",
                      "bench_staging_dir": str(tmp_path / "staging"), "bench_run": "r-ab-quick"},
             "tasks": [{"name": "this host's targets", "ansible.builtin.set_fact": {"bench_targets": "{{ targets }}"}},
                       *tasks,
                       {"name": "print", "ansible.builtin.debug": {"msg": "{{ bench_targets | to_json }}"}}]}]
    (tmp_path / "play.yml").write_text(yaml.safe_dump(play, sort_keys=False))
    (tmp_path / "hosts.yml").write_text(yaml.safe_dump({"all": {"hosts": {
        h: {"ansible_connection": "local", "ansible_python_interpreter": sys.executable, "targets": ts}
        for h, ts in hosts.items()}}}))
    (tmp_path / "staging" / "r-ab-quick").mkdir(parents=True)
    env = dict(os.environ, ANSIBLE_FILTER_PLUGINS=str(REPO / "ansible/roles/bench/filter_plugins"),
               ANSIBLE_STDOUT_CALLBACK="json", ANSIBLE_LOCALHOST_WARNING="false",
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    run = subprocess.run([str(ANSIBLE_PLAYBOOK), "-i", str(tmp_path / "hosts.yml"), str(tmp_path / "play.yml")],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    printed = json.loads(run.stdout)["plays"][0]["tasks"][-1]["hosts"]
    for h in hosts:
        got = json.loads(printed[h]["msg"])
        assert [t["target"] for t in got] == [f"metal-{h}", f"metal-{h}~base", f"metal-aa-{h}",
                                             f"container-quota-{h}", f"container-quota-{h}~base"]
        assert got[1] == {"host": h, "target": f"metal-{h}~base", "kind": "", "side": "base", "dir": "/var/tmp/b"}
    rec = json.loads((tmp_path / "staging" / "r-ab-quick" / rounds.AB_FILE).read_text())
    assert rec == {"base-ref": "main", "base-commit": "ab" * 20, "not-measured": {
        f"guest-nosmt-{h}": {"kind": "tcg-guest", "rounds": 3, "need": 4} for h in hosts}}


# --- the BASE checkout ------------------------------------------------------------------

@pytest.fixture
def repo(tmp_path):
    r = tmp_path / "repo"
    r.mkdir()
    git = ["git", "-C", str(r), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(r)], check=True)
    (r / "a.txt").write_text("one\n")
    subprocess.run(git + ["add", "a.txt"], check=True)
    subprocess.run(git + ["commit", "-qm", "one"], check=True)
    (r / "a.txt").write_text("two\n")
    subprocess.run(git + ["commit", "-qam", "two"], check=True)
    return r


def test_a_ref_that_does_not_resolve_is_named_and_exits_2(repo, tmp_path, cli):
    r = cli("lab", "ab", "--base", "no-such-branch", "--dir", tmp_path / "ab", "--repo", repo)
    assert r.code == 2 and r.out == ""
    assert "BASE: 'no-such-branch' does not name a commit" in r.err and str(repo) in r.err
    assert not (tmp_path / "ab").exists()
    for bad in ("--upload-pack=x", "a b"):
        with pytest.raises(InputError, match="is not a git ref"):
            ab.resolve(bad, repo)


def test_base_is_checked_out_detached_and_reused(repo, tmp_path, cli):
    first = subprocess.run(["git", "-C", str(repo), "rev-parse", "main~1"], capture_output=True, text=True).stdout.strip()
    r = cli("lab", "ab", "--base", "main~1", "--dir", tmp_path / "ab", "--repo", repo)
    assert r.code == 0, r.err
    vals = dict(word.split("=", 1) for word in shlex.split(r.out))  # what the Makefile evals
    assert vals["ab_commit"] == first and vals["ab_ref"] == "main~1"
    src = tmp_path / "ab" / "src"
    assert vals["ab_src"] == str(src) and vals["ab_bench"] == str(src / "build" / "bench")
    assert (src / "a.txt").read_text() == "one\n"  # BASE's tree, not the working tree's
    again = ab.prepare("main", repo, tmp_path / "ab")  # the same worktree moves to the new BASE
    assert (src / "a.txt").read_text() == "two\n" and again["src"] == str(src)
    (tmp_path / "other" / "src").mkdir(parents=True)
    with pytest.raises(InputError, match="not the A/B worktree"):
        ab.prepare("main", repo, tmp_path / "other")


# --- merge and ingest of both sides -------------------------------------------------------

def test_merge_keeps_both_sides_and_records_base_in_rounds_json(tmp_path):
    staging = _stage(tmp_path, 3, targets=("metal", "metal-aa", "metal~base", "container-quota", "container-quota~base"))
    (staging / rounds.AB_FILE).write_text(json.dumps({"base-ref": "main", "base-commit": "ab" * 20}))
    merged, missing = rounds.merge(staging)
    assert missing == {} and set(merged) == {"metal", "metal-aa", "metal~base", "container-quota", "container-quota~base"}
    assert parse_file(staging / "container-quota~base.txt").config["count"] == "3"
    rec = json.loads((staging / "rounds.json").read_text())
    assert rec["ab"] == {"base-ref": "main", "base-commit": "ab" * 20}
    assert all(len(r["order"]) == 5 for r in rec["hosts"]["localhost"])


def test_ingest_checks_each_side_against_its_own_build(tmp_path, cli):
    import hashlib
    import re

    src = g.ab_run(tmp_path / "src", seed=1, rounds_record=False)
    head_m, base_m = tmp_path / "head.sha256", tmp_path / "base.sha256"
    head_m.write_text("a" * 64 + "  benchrun\n")
    base_m.write_text("b" * 64 + "  benchrun\n")
    for f in src.glob("*.txt"):
        m = base_m if is_base_side(f.stem) else head_m
        f.write_text(re.sub(r"binary-sha256: \S+", "binary-sha256: " + hashlib.sha256(m.read_bytes()).hexdigest(),
                            f.read_text()))
    files = sorted(src.glob("*.txt"))
    r = cli("--results-dir", tmp_path / "res", "ingest", "--run-id", "x-ab-quick", "--manifest", head_m, *files)
    assert r.code == 2 and "expected --base-manifest" in r.err
    r = cli("--results-dir", tmp_path / "res", "ingest", "--run-id", "x-ab-quick", "--manifest", base_m,
            "--base-manifest", head_m, *files)
    assert r.code == 2 and "binary-sha256" in r.err  # the sides swapped: refused
    r = cli("--results-dir", tmp_path / "res", "ingest", "--run-id", "x-ab-quick", "--manifest", head_m,
            "--base-manifest", base_m, *files)
    assert r.code == 0, r.err
    run = tmp_path / "res" / "runs" / "x-ab-quick"
    assert (run / "MANIFEST~base.sha256").read_text() == base_m.read_text()
    assert {p.stem for p in run.glob("*.txt")} == {"metal", "metal-aa", "metal~base", "container-nolimit",
                                                     "container-nolimit~base"}


# --- HEAD against BASE per target -----------------------------------------------------------

def _ab(tmp_path, **kw):
    return ab_compare.analyse(inputs.load(g.ab_run(tmp_path / "runs" / "r-ab-quick", **kw)))


def _beyond(pair):
    return [(r.name, r.unit, d) for r in pair.table.rows for c, d in r.deltas.items()
            if c == pair.target and d.comparison.significant and not d.within_noise]


def test_identical_code_is_quiet_on_every_target(tmp_path):
    quiet = []
    for seed in range(6):
        res = _ab(tmp_path / str(seed), seed=seed, drift=0.03)  # a drifting host hits both sides alike
        assert [p.target for p in res.pairs] == ["metal", "container-nolimit"] and res.head_only == ["metal-aa"]
        assert res.base_ref == "main" and res.base_commit.startswith("0123456789ab")
        for p in res.pairs:
            assert p.table.columns == [base_side(p.target), p.target]
            quiet.append((len(_beyond(p)), len(p.table.rows)))
    assert sum(b for b, _ in quiet) / sum(n for _, n in quiet) <= 0.05, quiet


def test_a_change_on_one_target_is_found_there_alone(tmp_path):
    res = _ab(tmp_path, seed=2, drift=0.03, effect=("container-nolimit", "Snowflake", 1.10))
    by = {p.target: p for p in res.pairs}
    found = _beyond(by["container-nolimit"])
    snow = [r for r in by["container-nolimit"].table.rows if "Snowflake" in r.name]
    assert len([x for x in found if "Snowflake" in x[0]]) >= 0.9 * len(snow)
    assert all(d.verdict == "worse" for name, _, d in found if "Snowflake" in name)
    assert not [x for x in _beyond(by["metal"]) if "Snowflake" in x[0]]
    # nothing in the environment differs between the sides: the code did it, unexplained by any rule
    assert by["container-nolimit"].result.explanations == []
    assert len(by["container-nolimit"].result.unexplained) == len(found)


def test_pr_comment_posts_an_ab_run_and_gates_on_it(tmp_path, cli):
    quiet = g.ab_run(tmp_path / "runs" / "same-ab-quick", seed=3)
    r = cli("pr-comment", "--ab", quiet, "--fail-on-regression", "10")
    assert r.code == 0, r.err
    assert r.out.startswith("<!-- vmparity-pr-comment -->\n## vmparity: HEAD against BASE `main` (`0123456789ab`)")
    assert "**Noise:** the A/A control (`metal-aa` against `metal`" in r.out
    assert "| `metal` | metal |" in r.out and "| `container-nolimit` | container |" in r.out
    assert "No BASE side (not compared): `metal-aa`" in r.out
    slower = g.ab_run(tmp_path / "runs" / "slower-ab-quick", seed=3, effect=("container-nolimit", "Snowflake", 1.2))
    r = cli("pr-comment", "--ab", slower, "--fail-on-regression", "10")
    assert r.code == 1 and "container-nolimit vs container-nolimit~base" in r.err
    assert "### Changed beyond noise (largest first)" in r.out and "BenchmarkSnowflake/impl=ticker" in r.out
    # the cross-run form is untouched, and the two forms do not mix
    assert cli("pr-comment", "--ab", slower, quiet).code == 2
    assert "expected BASE HEAD (two runs), or --ab RUN" in cli("pr-comment", quiet).err
    plain = g.lab_run(tmp_path / "runs" / "plain-lab-quick")
    r = cli("pr-comment", "--ab", plain)
    assert r.code == 2 and "holds no BASE side" in r.err


def test_report_of_an_ab_run_compares_head_with_base_first(tmp_path, cli):
    run = g.ab_run(tmp_path / "runs" / "r-ab-quick", seed=4, effect=("container-nolimit", "Snowflake", 1.2))
    r = cli("report", run, "--out", tmp_path / "rep")
    assert r.code == 0, r.err
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "## A/B: HEAD against BASE `main`" in md
    assert md.index("## A/B") < md.index("## Why they differ")
    # the targets against metal are HEAD's alone: no BASE side among them
    summary = md[:md.index("## A/B")]
    assert "~base" not in summary and "`container-nolimit`" in summary
    noise = cli("noise", run)  # what the end of make lab-ab prints
    assert noise.code == 0
    head, _, ab_part = noise.out.partition("A/B: HEAD against BASE main (0123456789ab)")
    assert "~base" not in head and "container-nolimit (container):" in ab_part and " 0 better)" in ab_part


def test_a_target_left_out_of_an_ab_run_is_named_with_why(tmp_path, cli):
    """The TCG guests of a quick A/B run (three rounds of ten) are left out: the comment and the report say
    which and why, instead of leaving them missing without a word."""
    run = g.ab_run(tmp_path / "runs" / "tcg-ab-quick", seed=5, count=10,
                   not_measured={"guest-nosmt": 3, "guest-hpet-clock": 3})
    res = ab_compare.analyse(inputs.load(run))
    assert [p.target for p in res.pairs] == ["metal", "container-nolimit"] and res.head_only == ["metal-aa"]
    assert res.not_measured == {t: {"kind": "tcg-guest", "rounds": 3, "need": 4}
                                for t in ("guest-hpet-clock", "guest-nosmt")}
    r = cli("pr-comment", "--ab", run)
    assert r.code == 0, r.err
    assert "No BASE side (not compared): `metal-aa`.\n" in r.out
    assert ("Not measured in this A/B run: `guest-hpet-clock`, `guest-nosmt` (tcg-guest, which takes 3 rounds: "
            "fewer than the 4 a side any test of HEAD against BASE needs to reach α = 0.05; `make lab-up` compares "
            "them with metal") in r.out
    r = cli("report", run, "--out", tmp_path / "rep")
    assert r.code == 0, r.err
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "Not measured in this A/B run: `guest-hpet-clock`, `guest-nosmt`" in md[md.index("## A/B"):]
    noise = cli("noise", run)  # what the end of make lab-ab prints
    assert noise.code == 0 and ("  guest-nosmt (tcg-guest): not measured, its kind takes 3 round(s), fewer than "
                                "the 4 a side an A/B test needs") in noise.out
    # a target the record names but the run holds after all (a hand-made fill-in) is not called left out
    shutil.copy(run / "container-nolimit.txt", run / "guest-nosmt.txt")
    (run / "guest-nosmt.txt").write_text((run / "guest-nosmt.txt").read_text().replace(
        "target: container-nolimit", "target: guest-nosmt"))
    res = ab_compare.analyse(inputs.load(run))
    assert list(res.not_measured) == ["guest-hpet-clock"] and "guest-nosmt" in res.head_only


def test_planted_effects_in_an_ab_run_are_decided_against_the_base_side(tmp_path, cli):
    run = g.ab_run(tmp_path / "runs" / "r-ab-quick", seed=1, drift=0.03)
    r = cli("power", run, "--effects", "3,20", "--format", "json")
    assert r.code == 0, r.err
    res = json.loads(r.out)
    assert res["baseline"] == "each target's BASE side" and res["aa"]["rows"] == 29
    by = {e["effect-pct"]: e for e in res["effects"]}
    assert {e["target"] for e in res["effects"]} == {"container-nolimit"}  # not metal, not the A/A pass
    assert by[20.0]["found"] / by[20.0]["planted"] >= 0.95
    assert by[3.0]["found"] / by[3.0]["planted"] < 0.5  # below the smallest change it can see (about 5 %)
    assert cli("power", run, "--target", "metal-aa").code == 2


def test_a_base_side_is_named_on_arrival():
    """BASE's own benchrun runs under the target's plain name (it may refuse `~base`)."""
    text = "vmparity-format: 1\ntarget: guest-nosmt\nrun-id: r\nBenchmarkX 1 2 ns/op\ntarget: not-a-header\n"
    out = rounds.relabel(text, "guest-nosmt~base")
    assert out.splitlines()[1] == "target: guest-nosmt~base" and out.splitlines()[4] == "target: not-a-header"
    assert rounds.relabel(text, "guest-nosmt") == text


def test_an_ab_pair_states_its_smallest_change_in_time_and_in_core_clocks_apart(tmp_path):
    """The committed A/B run with core clocks: each pair's figure in time is the median over its time rows alone,
    its core-clock figure over the clocks rows alone, and the table and `vmparity noise` give both; a run
    without clocks rows (the synthetic one) gives the time figure alone."""
    res = ab_compare.analyse(inputs.load(REPO / "results/runs/2026-11-26T04-46-30Z-ab-quick"))
    speed, clocks = spec.speed_units(), spec.core_clock_units()
    assert clocks < speed
    for p in res.pairs:
        time_rows = [p.row_mde.get((r.name, r.unit), math.inf) for r in p.table.rows
                     if r.unit in speed - clocks and p.target in r.deltas]
        assert p.mde == pytest.approx(float(np.median(time_rows)))
        assert p.mde_clocks is not None and math.isfinite(p.mde_clocks) and p.mde_clocks != p.mde
    assert f"(core clocks ±{res.pairs[0].mde_clocks:.1f}%) |" in ab_md.per_target(res)
    assert f"(core clocks {res.pairs[0].mde_clocks:.1f} %)" in run_figures.ab_lines(res)[1]
    plain = _ab(tmp_path, seed=1)
    assert all(p.mde_clocks is None for p in plain.pairs)
    assert "core clocks" not in ab_md.per_target(plain) and "core clocks" not in "\n".join(run_figures.ab_lines(plain))
