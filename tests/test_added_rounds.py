"""Rounds added for the wide rows (vmparity.lab.added_rounds): after the planned rounds, a
row whose minimum detectable effect is above the goal gets rounds of its job alone, within
the most rounds and the time budget; the merge and the paired rule read them."""

import json
import random
from types import SimpleNamespace

import pytest

import resultgen
from vmparity import table
from vmparity.decide import figures
from vmparity.render import run_figures
from vmparity.decide.figures import row_mdes
from vmparity.lab import added_rounds, rounds
from vmparity.power import plant
from vmparity.report import run_quality
from vmparity.query.names import job_of
from vmparity.results import inputs, round_record
from vmparity.results.file import parse_file

TARGETS = ("metal", "metal-aa", "container-nolimit")
MEMCPY = "memcpy-static/tunable=default"
LARGE = 1 << 20  # resultgen's copies from 1 MiB up are the wide rows here


def _large(name):
    return job_of(name) == MEMCPY and int(name.rsplit("=", 1)[1]) >= LARGE


def _write_round(staging, k, order, seed=5, added=None, spread=0.15, kinds=None, only=None, seconds=0.0,
                 min_size=0, headers=None):
    """Round k of `order`: quiet rows (0.2 %), the large copies moved by the host's memory
    bandwidth (sd `spread` per target and round, independently), only's jobs if given, and
    memcpy's sizes from min_size on."""
    d = staging / "rounds" / str(k)
    d.mkdir(parents=True)
    rng = random.Random(f"{seed}:{k}")
    rec = {"host": "localhost", "round": k, "seed": seed, "order": order, "hygiene": {},
           "timings": {t: {"start": "2026-11-27 09:00:00", "end": f"2026-11-27 09:00:{seconds:09.6f}"} for t in order}}
    if seconds:  # the targets one after the other, `seconds` in all
        step = seconds / len(order)
        rec["timings"] = {t: {"start": f"2026-11-27 09:00:{i * step:09.6f}", "end": f"2026-11-27 09:00:{(i + 1) * step:09.6f}"}
                          for i, t in enumerate(order)}
    if added is not None:
        rec["added"] = added
    (d / "host-localhost.json").write_text(json.dumps(rec))
    for t in order:
        cfg = dict(resultgen.METAL, target=t, count="1", **{"target-kind": (kinds or {}).get(t, "metal")})
        cfg.update((headers or {}).get(t, {}))
        path = resultgen.target_file(d, cfg, seed=100 * k + len(t), count=1, noise=0.002)
        text = path.read_text()
        names = {line.split()[0] for line in text.split("\n") if line.startswith("Benchmark")}
        text = plant.scale_lines(text, {n for n in names if _large(n)}, rng.gauss(0, spread) * 100)
        if only is not None:
            text = "\n".join(line for line in text.split("\n")
                             if not line.startswith("Benchmark") or (job_of(line.split()[0]) in only
                                                                     and added_rounds.memcpy_min_size(
                                                                         [line.split()[0]]) >= min_size))
        path.write_text(text)


def _stage(tmp_path, n_rounds=10, targets=TARGETS, **kw):
    staging = tmp_path / "run"
    for k, order in enumerate(rounds.schedule(list(targets), n_rounds, seed=5), 1):
        _write_round(staging, k, order, **kw)
    return staging


def _add(staging, plan, seconds=0.0):
    """Run a planned added round the way the bench role does: its order, its jobs only."""
    _write_round(staging, plan["round"], plan["order"], added=plan["added"], only=set(plan["added"]["jobs"]),
                 seconds=seconds, min_size=plan.get("memcpy-min-size", 0))


def test_the_jobs_of_the_rows_above_the_goal_get_a_round_on_the_passes_and_their_targets(tmp_path):
    staging = _stage(tmp_path)
    plan = added_rounds.plan_next(staging, "localhost", goal_pct=3, most=6, seconds=120)
    assert plan["round"] == 11
    assert sorted(plan["order"]) == sorted(TARGETS)
    assert plan["added"]["jobs"] == [MEMCPY]
    assert plan["only"] == "^(memcpy\\-static/tunable=default)$"
    assert plan["added"]["rows-above-goal"]["container-nolimit"] > 0


def test_memcpy_measures_only_its_sizes_from_the_smallest_wide_one():
    copy = "BenchmarkMemcpy/link=static/tunable=min/size={}"
    assert added_rounds.memcpy_min_size([copy.format(16777216), "BenchmarkFence/work=tlb/barrier=none",
                                         copy.format(4194304)]) == 4194304
    assert added_rounds.memcpy_min_size(["BenchmarkFence/work=tlb/barrier=none"]) == 0
    # a memcpy row without a size it can read: every size
    assert added_rounds.memcpy_min_size([copy.format(4194304), "BenchmarkMemcpy/link=static/tunable=min"]) == 0


def test_a_round_for_the_large_copies_alone_skips_the_small_ones(tmp_path):
    staging = _stage(tmp_path, spread=0.0)
    for k in range(1, 11):  # only the 16 MiB copy of the container is noisy
        f = staging / "rounds" / str(k) / "container-nolimit.txt"
        big = {line.split()[0] for line in f.read_text().split("\n") if "size=16777216" in line}
        f.write_text(plant.scale_lines(f.read_text(), big, random.Random(k).gauss(0, 0.15) * 100))
    plan = added_rounds.plan_next(staging, "localhost", goal_pct=3, most=6, seconds=120)
    assert plan["memcpy-min-size"] == plan["added"]["memcpy-min-size"] == 16777216
    assert plan["added"]["rows-above-goal"] == {"container-nolimit": 2}  # its ns/op and B/s
    _add(staging, plan)
    rounds.merge(staging)
    rec = json.loads((staging / "rounds.json").read_text())
    # the sizes from 16 MiB on: the 32 MiB copy too, not the smaller ones
    assert rec["hosts"]["localhost"][-1]["added"]["benchmarks"] == [
        "BenchmarkMemcpy/link=static/tunable=default/size=16777216",
        "BenchmarkMemcpy/link=static/tunable=default/size=33554432"]


def test_no_round_is_added_when_every_row_is_within_the_goal(tmp_path):
    staging = _stage(tmp_path, spread=0.0)
    plan = added_rounds.plan_next(staging, "localhost", goal_pct=3, most=6, seconds=120)
    assert plan["round"] is None and "at most 3 %" in plan["why"]


def test_too_few_rounds_to_decide_add_nothing(tmp_path):
    # smoke's rounds: no row has a finite figure, and added rounds do not make up for that
    staging = _stage(tmp_path, n_rounds=2)
    plan = added_rounds.plan_next(staging, "localhost", goal_pct=3, most=6, seconds=120)
    assert plan["round"] is None and "finite" in plan["why"]


def test_the_added_rounds_stop_at_the_most_and_at_the_time_budget(tmp_path):
    staging = _stage(tmp_path)
    for _ in range(2):
        _add(staging, added_rounds.plan_next(staging, "localhost", goal_pct=3, most=2, seconds=120), seconds=20.0)
    plan = added_rounds.plan_next(staging, "localhost", goal_pct=3, most=2, seconds=120)
    assert plan["round"] is None and "the most allowed (2)" in plan["why"] and plan["added-rounds"] == 2
    # two rounds of 20 s each (from the first target's start to the last one's end): 40 s, and a third
    # would take 20 s more: it is added only if the budget holds all three
    plan = added_rounds.plan_next(staging, "localhost", goal_pct=3, most=6, seconds=59)
    assert plan["round"] is None and "took 40 s and the next would take about 20 s" in plan["why"]
    assert added_rounds.plan_next(staging, "localhost", goal_pct=3, most=6, seconds=60)["round"] == 13


def test_the_first_added_round_is_taken_to_last_as_long_as_the_caller_says(tmp_path):
    staging = _stage(tmp_path)
    plan = added_rounds.plan_next(staging, "localhost", goal_pct=3, most=6, seconds=30, round_seconds=31)
    assert plan["round"] is None and "the budget is 30 s" in plan["why"]
    assert added_rounds.plan_next(staging, "localhost", goal_pct=3, most=6, seconds=31, round_seconds=31)["round"] == 11
    assert added_rounds.plan_next(staging, "localhost", goal_pct=3, most=6, seconds=0)["round"] is None


def test_tcg_guests_and_quiet_targets_are_left_out(tmp_path):
    targets = (*TARGETS, "guest-nosmt")
    staging = _stage(tmp_path, targets=targets, kinds={"guest-nosmt": "tcg-guest"})
    plan = added_rounds.plan_next(staging, "localhost", goal_pct=3, most=6, seconds=120)
    assert "guest-nosmt" not in plan["order"] and "guest-nosmt" not in plan["added"]["rows-above-goal"]


def test_an_ab_run_gets_no_added_round(tmp_path):
    staging = _stage(tmp_path)
    (staging / rounds.AB_FILE).write_text(json.dumps({"base-ref": "main", "base-commit": "abc1234"}))
    plan = added_rounds.plan_next(staging, "localhost", goal_pct=3, most=6, seconds=120)
    assert plan["round"] is None and "A/B" in plan["why"]


def test_the_merge_puts_an_added_round_in_the_rows_it_measured_only(tmp_path):
    staging = _stage(tmp_path)
    plan = added_rounds.plan_next(staging, "localhost", goal_pct=3, most=6, seconds=120)
    _add(staging, plan)
    # benchrun --only writes a header of its own; an added round's is not a fingerprint change
    f = staging / "rounds" / "11" / "container-nolimit.txt"
    f.write_text(f.read_text().replace("kernel: ", "kernel: 6.99-other-", 1))
    rounds.merge(staging)
    rec = json.loads((staging / "rounds.json").read_text())
    last = rec["hosts"]["localhost"][-1]
    assert last["round"] == 11 and last["added"]["jobs"] == [MEMCPY]
    assert last["added"]["benchmarks"] and all(job_of(n) == MEMCPY for n in last["added"]["benchmarks"])
    assert rec["fingerprint-changed"] == {} and not rec["partial"]
    rf = parse_file(staging / "container-nolimit.txt")
    assert rf.config["count"] == "10" and "1 added" in rf.config["rounds"]
    per = round_record.per_round(rf, rec)
    copy = next(n for n in last["added"]["benchmarks"])
    clock = next(n for n in rf.benchmarks if n.startswith("BenchmarkClock"))
    assert sorted(per[(copy, "ns/op")]) == list(range(1, 12))
    assert sorted(per[(clock, "ns/op")]) == list(range(1, 11))
    added_value = float(next(line.split()[2] for line in f.read_text().split("\n")
                             if line.startswith("Benchmark") and line.split()[0] == copy))
    assert per[(copy, "ns/op")][11] == pytest.approx(added_value)


def test_added_rounds_narrow_the_wide_rows(tmp_path):
    staging = _stage(tmp_path)
    before = _mdes(staging)
    for _ in range(6):
        _add(staging, added_rounds.plan_next(staging, "localhost", goal_pct=3, most=6, seconds=600))
    after = _mdes(staging)
    # the wide rows are memcpy's (the quieter copies too: no row is taken to be quieter than its
    # family's median A/A spread, decide/paired.py), the clock and snowflake rows are not
    wide = [key for key, v in before.items() if v > 3]
    assert wide and {job_of(name) for _, name, _ in wide} == {MEMCPY}
    assert any(_large(name) for _, name, _ in wide)
    # 10 -> 16 rounds: the interval of the median narrows as 1 / sqrt(n), give or take the draw
    assert sorted(after[k] for k in wide)[len(wide) // 2] < 0.9 * sorted(before[k] for k in wide)[len(wide) // 2]
    others = [k for k in before if job_of(k[1]) != MEMCPY]
    assert others and all(after[k] == before[k] for k in others)


def _mdes(staging):
    rounds.merge(staging)
    t = table.build([inputs.load(staging)], by="target", alpha=0.05)
    return {(col, name, unit): mde for col, name, unit, mde in row_mdes(t)}


# Rows beyond noise, measured again (plan_confirm).
CLOCK = "BenchmarkClock/clock=monotonic/path=syscall"


def _shift(staging, ks, target, names, pct):
    """Move these benchmarks of target by pct in rounds ks, as a real (or a chance) difference would."""
    for k in ks:
        f = staging / "rounds" / str(k) / f"{target}.txt"
        f.write_text(plant.scale_lines(f.read_text(), set(names), pct))


def _confirm(staging, most=6, seconds=90):
    return added_rounds.plan_confirm(staging, "localhost", most=most, seconds=seconds)


def _beyond(staging):
    rounds.merge(staging)
    return figures.beyond_rows(table.build([inputs.load(staging)], by="target", alpha=0.05))


def test_the_rows_beyond_noise_get_rounds_of_their_jobs_the_same_in_each(tmp_path):
    staging = _stage(tmp_path, spread=0.0)
    _shift(staging, range(1, 11), "container-nolimit", [CLOCK], 15)  # a seccomp filter's price
    plan = _confirm(staging)
    assert plan["round"] == 11 and sorted(plan["order"]) == sorted(TARGETS)
    assert plan["added"]["reason"] == added_rounds.CONFIRM and plan["added"]["jobs"] == ["clock"]
    assert plan["added"]["rows-beyond-noise"] == {"container-nolimit": [[CLOCK, "ns/op"]]}
    _add(staging, plan)
    _shift(staging, [11], "container-nolimit", [CLOCK], 15)
    # the next measures the same jobs on the same targets, whatever the rows say now
    again = _confirm(staging)
    assert again["round"] == 12 and again["only"] == plan["only"] and sorted(again["order"]) == sorted(plan["order"])
    assert again["added"] == {"reason": added_rounds.CONFIRM, "as-round": 11, "seconds-before": 0.0, "jobs": ["clock"]}
    # rounds added for the wide rows do not count against these, nor these against them
    assert added_rounds.plan_next(staging, "localhost", goal_pct=3, most=1, seconds=120)["round"] is None  # none wide
    rec_11 = json.loads((staging / "rounds" / "11" / "host-localhost.json").read_text())
    assert added_rounds.reason(rec_11) == added_rounds.CONFIRM


def test_a_real_difference_stays_beyond_noise_and_a_chance_one_does_not(tmp_path):
    staging = _stage(tmp_path, spread=0.0)
    real, chance = CLOCK, "BenchmarkClock/clock=realtime/path=syscall"
    _shift(staging, range(1, 11), "container-nolimit", [real], 15)
    _shift(staging, range(1, 8), "container-nolimit", [chance], 2)  # seven of ten rounds drew high
    assert _beyond(staging)["container-nolimit"] == {(real, "ns/op"), (chance, "ns/op")}
    for k in range(11, 17):
        plan = _confirm(staging)
        assert plan["round"] == k
        _add(staging, plan)
        _shift(staging, [k], "container-nolimit", [real], 15)
        # measured again, it does not draw high: its row at the 16 rounds is within noise
    assert _beyond(staging)["container-nolimit"] == {(real, "ns/op")}
    t = table.build([inputs.load(staging)], by="target", alpha=0.05)
    bullet = run_quality.hygiene(SimpleNamespace(run_dir=staging, table=t))
    assert "6 round(s) added to measure again the rows beyond noise that no rule explains" in bullet
    assert "still beyond noise: 1 of 2 of `container-nolimit`" in bullet
    plan = _confirm(staging)
    assert plan["round"] is None and "the most allowed (6)" in plan["why"] and plan["added-rounds"] == 6


def test_a_row_a_rule_explains_is_left_to_its_verification(tmp_path):
    # the container's syscall rows are slower under its seccomp filter: explained, not measured again
    headers = {"metal": {"seccomp": "disabled"}, "metal-aa": {"seccomp": "disabled"},
               "container-nolimit": {"seccomp": "filter (1 filters)", "target-kind": "container"}}
    staging = _stage(tmp_path, spread=0.0, headers=headers)
    _shift(staging, range(1, 11), "container-nolimit", [CLOCK], 15)
    assert (CLOCK, "ns/op") in _beyond(staging)["container-nolimit"]
    plan = _confirm(staging)
    assert plan["round"] is None and "no row" in plan["why"]


def test_no_round_measures_again_where_no_row_is_beyond_noise(tmp_path):
    staging = _stage(tmp_path, spread=0.0)
    plan = _confirm(staging)
    assert plan["round"] is None and "no row" in plan["why"]


def test_the_rounds_measuring_again_stop_at_their_time_budget(tmp_path):
    staging = _stage(tmp_path, spread=0.0)
    _shift(staging, range(1, 11), "container-nolimit", [CLOCK], 15)
    for k in (11, 12):
        plan = _confirm(staging)
        _write_round(staging, plan["round"], plan["order"], added=plan["added"], only=set(plan["added"]["jobs"]),
                     seconds=30.0)
    plan = _confirm(staging, seconds=89)
    assert plan["round"] is None and "took 60 s and the next would take about 30 s" in plan["why"]
    assert _confirm(staging, seconds=90)["round"] == 13


def test_tcg_guests_are_not_measured_again_and_the_aa_pass_is(tmp_path):
    targets = (*TARGETS, "guest-nosmt")
    staging = _stage(tmp_path, targets=targets, kinds={"guest-nosmt": "tcg-guest"})
    _shift(staging, range(1, 11), "guest-nosmt", [CLOCK], 900)
    _shift(staging, range(1, 11), "metal-aa", [CLOCK], 5)  # the A/A pass beyond noise: a chance draw
    plan = _confirm(staging)
    assert "guest-nosmt" not in plan["order"] and "guest-nosmt" not in plan["added"]["rows-beyond-noise"]
    assert [CLOCK, "ns/op"] in plan["added"]["rows-beyond-noise"]["metal-aa"]
    # the container has no such row, and is measured too: rounds of metal alone would move its
    # rows of the same jobs (the fast level, the A/A pair's calibration) on rounds it did not take
    assert "container-nolimit" not in plan["added"]["rows-beyond-noise"]
    assert sorted(plan["order"]) == ["container-nolimit", "metal", "metal-aa"]


def test_an_ab_run_is_not_measured_again(tmp_path):
    staging = _stage(tmp_path)
    (staging / rounds.AB_FILE).write_text(json.dumps({"base-ref": "main", "base-commit": "abc1234"}))
    plan = _confirm(staging)
    assert plan["round"] is None and "A/B" in plan["why"]


# Why the rounds for the wide rows stopped, and the goal: kept for the report.
def _stop_record(staging):
    rounds.merge(staging)
    return json.loads((staging / "rounds.json").read_text()).get("added-stop")


def test_the_goal_and_why_the_rounds_stopped_reach_rounds_json(tmp_path):
    staging = _stage(tmp_path, spread=0.0)
    added_rounds.plan_next(staging, "localhost", goal_pct=3, most=6, seconds=120)
    stop = _stop_record(staging)["localhost"]
    assert stop["goal-pct"] == 3 and "at most 3 %" in stop["why"]
    # the role asks for no round after the most allowed: planning the last one says why already
    staging = _stage(tmp_path / "most")
    _add(staging, added_rounds.plan_next(staging, "localhost", goal_pct=3, most=2, seconds=120))
    assert _stop_record(staging) is None
    _add(staging, added_rounds.plan_next(staging, "localhost", goal_pct=3, most=2, seconds=120))
    assert _stop_record(staging)["localhost"]["why"] == "2 rounds added, the most allowed (2)"


def test_the_report_marks_the_families_still_above_the_goal_and_says_why(tmp_path):
    # the large copies move 15 % with the host's memory: one added round leaves memcpy's
    # median above 3 % for metal's targets; the TCG guest is held to no goal
    targets = (*TARGETS, "guest-nosmt")
    staging = _stage(tmp_path, targets=targets, kinds={"guest-nosmt": "tcg-guest"})
    _add(staging, added_rounds.plan_next(staging, "localhost", goal_pct=3, most=1, seconds=120))
    rounds.merge(staging)
    rec = round_record.load(staging)
    goals = round_record.mde_goals(rec)
    assert goals["container-nolimit"] == {"goal-pct": 3.0, "why": "1 rounds added, the most allowed (1)"}
    t = table.build([inputs.load(staging)], by="target", alpha=0.05)
    fams = {(f.target, f.family, f.unit): f for f in figures.sensitivity(t, goals)}
    copies = fams[("container-nolimit", "BenchmarkMemcpy", "ns/op")]
    assert copies.median > 3 and copies.above_goal
    assert not fams[("container-nolimit", "BenchmarkClock", "ns/op")].above_goal
    guest = fams[("guest-nosmt", "BenchmarkMemcpy", "ns/op")]
    assert guest.goal is None and not guest.above_goal
    md = run_quality.sensitivity_table(t, goals)
    row = next(line for line in md.split("\n") if line.startswith("| `BenchmarkMemcpy` | `ns/op`"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2].startswith("⚠ ") and not cells[3].startswith("⚠")  # container-nolimit, guest-nosmt
    assert "goal of 3 % (`bench_mde_goal`" in md and "stopped: 1 rounds added, the most allowed (1)." in md
    text = "\n".join(run_figures.sensitivity_lines(t, goals))
    assert "(above the 3 % goal)" in text and "stopped: 1 rounds added, the most allowed (1)" in text
    # without a goal (added rounds turned off, or a run before them) nothing is marked
    assert "⚠" not in run_quality.sensitivity_table(t) and "goal" not in "\n".join(run_figures.sensitivity_lines(t))


def test_a_goal_that_is_not_a_number_is_no_goal():
    hosts = {"h": [{"round": 1, "order": ["metal", "container-nolimit"]}]}
    assert round_record.mde_goals({"hosts": hosts, "added-stop": {"h": {"goal-pct": "3; rm -rf", "why": "x"}}}) == {}
    assert round_record.mde_goals({"hosts": hosts, "added-stop": ["h"]}) == {}
    assert round_record.mde_goals({"hosts": hosts, "added-stop": {"h": {"goal-pct": 2.5, "why": 7}}}) == {
        "metal": {"goal-pct": 2.5, "why": None}, "container-nolimit": {"goal-pct": 2.5, "why": None}}
    # a run stored before added-stop: the goal its added rounds name, and no why
    hosts["h"].append({"round": 2, "order": ["metal"], "added": {"reason": "wide", "goal-pct": 3}})
    assert round_record.mde_goals({"hosts": hosts})["container-nolimit"] == {"goal-pct": 3.0, "why": None}
