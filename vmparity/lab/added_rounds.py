"""Rounds added for the rows whose minimum detectable effect is still wide.

The planned rounds give every row the same number of repetitions, but not the
same noise: on a shared host a 1 KiB copy agrees with itself within 0.2 % from
round to round, while a 10 MiB copy moves 15-30 % with the host's memory
bandwidth (docs/noise.md). After the planned rounds the bench role asks
`plan_next` for one more round at a time, as Phoronix's dynamic run count does: each added round runs, on metal, its A/A pass and the targets
whose rows are still wide, only the benchrun jobs of the rows whose minimum
detectable effect (decide/figures.row_mdes, the report's own figure) is above
the goal (memcpy only its sizes from the smallest wide one), in an order
shuffled like any round's. It stops when no row is above
the goal, after `most` added rounds, or when the next would end past their time
budget (the next taken to last as long as the longest added so far, the first
as long as the caller says). rounds.json records each added round with its jobs and why,
and (`added-stop`) the goal and why they stopped, for the report's Sensitivity
table to mark the families still above the goal.

Only rows with a finite figure count: an added round narrows an interval, it
does not make up for a profile with too few planned rounds to decide paired
(smoke's one). TCG guests get none: emulation is slow and their differences
are 10x. An A/B run gets none: its rows are decided HEAD against BASE.

Last, the rows the rule calls beyond noise, the A/A pair's and the targets' that
no rule explains, are measured again before the report calls them (`plan_confirm`):
a row that is beyond noise by chance was drawn at the edge of its noise, and rounds
of its job pull it back; a real difference stays. Which rows is decided once, from
the rounds so far, and every confirming round measures the same jobs, on metal,
its A/A pass and every target but TCG guests; the run decides every row on all
its rounds. The record of the first keeps the rows, so
the report can say how many of them are still beyond noise.
"""

import contextlib
import datetime
import math
import random
import re
import shutil
import tempfile
from pathlib import Path

from .. import table
from ..decide import explain
from ..decide.figures import beyond_rows, row_mdes
from ..errors import InputError
from ..query.names import job_of, param_number, split_name
from ..results import bounded, inputs, jsonfile, round_record
from ..results.targets import TCG_GUEST, check_plain_name, is_aa_control, is_lab_metal
from . import rounds

# Why a round was added (its record's `added.reason`; a record without one is WIDE).
WIDE = "wide"  # rows whose minimum detectable effect is above the goal
CONFIRM = "beyond-noise"  # rows beyond noise, measured again before the report calls them
STOP_FILE = round_record.ADDED_STOP_FILE  # rounds/: why the rounds for the wide rows stopped, and the goal


def reason(rec):
    """Why an added round of rounds.json was added (WIDE or CONFIRM), None for a planned one."""
    added = rec.get("added")
    return None if not added else added.get("reason", WIDE)


def plan_next(staging_run, host, goal_pct, most, seconds, alpha=0.05, round_seconds=0.0):
    """The next added round of `host` in a staging run, as the bench role runs a round:
    {"round": k, "order": [...], "only": benchrun's --only, "added": {...}}, or
    {"round": None, "why": ...} when no round is to be added. A round is added only if it
    would end within `seconds` of added rounds (_so_far); round_seconds is how long the first
    is expected to take."""
    staging_run = Path(staging_run)
    records, added, used, stop = _so_far(staging_run, host, WIDE, most, seconds, "rounds added", round_seconds)
    if stop:
        return _keep_stop(staging_run, host, goal_pct, stop)
    with _merged_table(staging_run, host, records, alpha) as (t, kinds):
        wide, finite = _wide_rows(t, kinds, goal_pct)
    if not finite:
        return _keep_stop(staging_run, host, goal_pct, _stop(
            "no row has a finite minimum detectable effect: too few rounds to decide it", added, used))
    if not wide:
        return _keep_stop(staging_run, host, goal_pct, _stop(
            f"every row's minimum detectable effect is at most {goal_pct:g} %", added, used))
    names = [name for rows in wide.values() for name, _ in rows]
    plan = _plan(records, wide, names, {"reason": WIDE, "goal-pct": goal_pct,
                                        "rows-above-goal": {t: len(rows) for t, rows in sorted(wide.items())},
                                        "seconds-before": round(used, 1)})
    if len(added) + 1 >= most:  # the last one allowed: the bench role asks for no more
        _keep_stop(staging_run, host, goal_pct, _stop(f"{most} rounds added, the most allowed ({most})"))
    return plan


def _keep_stop(staging_run, host, goal_pct, stop):
    """Keep why the rounds for the wide rows stopped, with the goal (rounds.json `added-stop`):
    the report marks the families still above the goal and says why no more rounds ran."""
    path = staging_run / "rounds" / STOP_FILE.format(host=host)
    jsonfile.write(path, {"host": host, "goal-pct": goal_pct, "why": stop["why"]}, indent=None, run=staging_run)
    return stop


def plan_confirm(staging_run, host, most, seconds, alpha=0.05, round_seconds=0.0):
    """The next round added to measure again the rows beyond noise, as plan_next's, or
    {"round": None, "why": ...}. The first decides which rows, from the rounds so far, and
    records them (`rows-beyond-noise`); the others measure the same jobs on the same targets."""
    staging_run = Path(staging_run)
    records, done, used, stop = _so_far(staging_run, host, CONFIRM, most, seconds,
                                        "rounds added to measure the rows beyond noise again", round_seconds)
    if stop:
        return stop
    if done:
        first = done[0]
        return _plan(records, set(first["order"]), [],
                     {"reason": CONFIRM, "as-round": first["round"], "seconds-before": round(used, 1)},
                     jobs=first["added"]["jobs"], min_size=first["added"].get("memcpy-min-size", 0))
    with _merged_table(staging_run, host, records, alpha) as (t, kinds):
        beyond = _beyond_rows(t, kinds)
        # every target but TCG guests, not only those with such rows: a round of metal alone
        # moves the other targets' rows of its jobs too (their fast level, the A/A pair's
        # calibration), and those rows would then be decided on rounds they took no part in
        measured = {col for col in t.columns if kinds.get(col) != TCG_GUEST}
    if not beyond:
        return _stop("no row of metal's A/A pass, nor one that no rule explains of a target, is beyond noise")
    names = [name for rows in beyond.values() for name, _ in rows]
    return _plan(records, measured, names, {
        "reason": CONFIRM,
        "rows-beyond-noise": {t: sorted([name, unit] for name, unit in rows) for t, rows in sorted(beyond.items())},
        "seconds-before": 0.0})


def _beyond_rows(t, kinds):
    """{target: [(name, unit)]} of the rows beyond noise (figures.beyond_rows): the A/A pass's,
    and of every target but TCG guests (whose differences from metal are 10x any noise) those
    no rule explains. An explained row is a cause's hypothesis, which `make lab-verify` tests
    by applying its fix; measuring it again here would repeat what it already showed."""
    rules = explain.load_rules()
    out = {}
    for col, rows in beyond_rows(t).items():
        if kinds.get(col) == TCG_GUEST:
            continue
        if not is_aa_control(col):
            unexplained = {(f.name, f.unit) for f in explain.explain(table.pair_table(t, col), t.configs,
                                                                       rules).unexplained}
            rows = rows & unexplained
        if rows:
            out[col] = sorted(rows)
    return out


def _plan(records, also, names, added, jobs=None, min_size=None):
    """The round after the host's last: on metal, its A/A pass and the targets in `also`, in a
    shuffled order, benchrun --only the jobs of those rows (memcpy from its smallest size)."""
    k = max(r["round"] for r in records) + 1
    planned = records[0]["order"]
    targets = [t for t in planned if is_lab_metal(t) or is_aa_control(t) or t in also]
    order = list(targets)
    random.Random(f"{records[0].get('seed')}:{k}").shuffle(order)
    jobs = jobs if jobs is not None else sorted({job_of(name) for name in names})
    min_size = min_size if min_size is not None else memcpy_min_size(names)
    return {
        "round": k,
        "order": order,
        "only": "^(" + "|".join(re.escape(j) for j in jobs) + ")$",
        **({"memcpy-min-size": min_size} if min_size else {}),
        "added": {**added, "jobs": jobs, **({"memcpy-min-size": min_size} if min_size else {})},
    }


def memcpy_min_size(names):
    """The smallest copy size among these benchmarks' memcpy rows (benchrun
    --memcpy-min-size: memcpy then measures only its sizes from there on, here
    the 4-16 MiB copies at a third of the job's time); 0 for every size, or when
    no memcpy row is among them."""
    sizes = []
    for name in names:
        base, params, _ = split_name(name)
        if base == "BenchmarkMemcpy":
            size = param_number(params.get("size"))
            if size is None or size < 1:
                return 0
            sizes.append(int(size))
    return min(sizes, default=0)


def _so_far(staging_run, host, why, most, seconds, what, round_seconds=0.0):
    """(the host's round records, those added for `why`, the seconds they took, and the stop
    when no more are to be added: an A/B run, the most rounds, the time budget; else None).
    A round is added only if it would end within `seconds`: the next taken to last as long as
    the longest of them so far, the first `round_seconds`. (Checking only the time already
    taken let a budgeted run keep a planned round's time in reserve that its short confirming
    rounds never used, and stop them while rows of its A/A pass were still beyond noise.)"""
    if (staging_run / rounds.AB_FILE).exists():
        return None, (), 0.0, _stop("an A/B run: its rows are decided HEAD against BASE, which added rounds "
                                    "do not narrow")
    records = _host_records(staging_run, host)
    done = [r for r in records if reason(r) == why]
    used = sum(_seconds(r) for r in done)
    upcoming = max((_seconds(r) for r in done), default=round_seconds)
    stop = None
    if len(done) >= most:
        stop = _stop(f"{len(done)} {what}, the most allowed ({most})", done, used)
    elif seconds <= 0 or used + upcoming > seconds:
        stop = _stop(f"the {what} took {used:.0f} s and the next would take about {upcoming:.0f} s, "
                     f"the budget is {seconds:.0f} s", done, used)
    return records, done, used, stop


def _stop(why, added=(), used=0.0):
    return {"round": None, "why": why, "added-rounds": len(added), "seconds": round(used, 1)}


def _host_records(staging_run, host):
    check_plain_name(host, "--host", "host")  # it names files of the staging run: never a path
    bounded.no_link_out(staging_run)  # every file read and written for the plan stays inside the run
    records = [round_record.read_round(d / f"host-{host}.json")
               for d in round_record.round_dirs(staging_run) if (d / f"host-{host}.json").exists()]
    if not records:
        raise InputError(staging_run / "rounds", f"no round of host {host}: expected rounds/<k>/host-{host}.json")
    return records


def _seconds(rec):
    """A round's time: from its first target's start to its last one's end (the
    controller's steps between its targets included)."""
    starts, ends = [], []
    for when in (rec.get("timings") or {}).values():
        try:
            starts.append(datetime.datetime.fromisoformat(when["start"]))
            ends.append(datetime.datetime.fromisoformat(when["end"]))
        except (KeyError, TypeError, ValueError):
            continue
    return (max(ends) - min(starts)).total_seconds() if starts else 0.0


@contextlib.contextmanager
def _merged_table(staging_run, host, records, alpha):
    """(table, {target: target-kind}) of this host's rounds merged as the run will be
    (rounds added so far included), decided as the report decides.
    The merge goes to a scratch copy: the staging run is the role's."""
    with tempfile.TemporaryDirectory(prefix="vmparity-added-") as tmp:
        scratch = Path(tmp)
        for rec in records:
            src = staging_run / "rounds" / str(rec["round"])
            dst = scratch / "rounds" / str(rec["round"])
            dst.mkdir(parents=True)
            shutil.copy2(src / f"host-{host}.json", dst)
            for t in rec["order"]:
                if (src / f"{t}.txt").is_file():
                    shutil.copy2(src / f"{t}.txt", dst)
        rounds.merge(scratch)
        loaded = inputs.load(scratch)
        yield table.build([loaded], by="target", alpha=alpha), {rf.target: rf.config.get("target-kind")
                                                                for rf in loaded.files}


def _wide_rows(t, kinds, goal_pct):
    """{target: [(name, unit)]} of the targets (not TCG guests) whose rows' minimum
    detectable effect is finite and above the goal, and how many of their rows have a
    finite one."""
    wide, finite = {}, 0
    for col, name, unit, mde in row_mdes(t):
        if kinds.get(col) == TCG_GUEST or not math.isfinite(mde):
            continue
        finite += 1
        if mde > goal_pct:
            wide.setdefault(col, []).append((name, unit))
    return wide, finite
