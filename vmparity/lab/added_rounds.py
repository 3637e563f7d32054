"""Rounds added for the rows whose minimum detectable effect is still wide.

The planned rounds give every row the same number of repetitions, but not the
same noise: on a shared host a 1 KiB copy agrees with itself within 0.2 % from
round to round, while a 10 MiB copy moves 15-30 % with the host's memory
bandwidth (docs/noise.md). After the planned rounds (and before the re-measures of
the disturbed repetitions, which look at the added rounds too, disturbed.py), the
bench role asks `plan_next` for one more round at a time, as Phoronix's dynamic
run count does: each added round runs, on metal, its A/A pass and the targets
whose rows are still wide, only the benchrun jobs of the rows whose minimum
detectable effect (decide/figures.row_mdes, the report's own figure) is above
the goal (memcpy only its sizes from the smallest wide one), in an order
shuffled like any round's. It stops when no row is above
the goal, after `most` added rounds, or once the added rounds have taken their
time budget (checked before each round, so the last may overrun it by one
round's time). rounds.json records each added round with its jobs and why.

Only rows with a finite figure count: an added round narrows an interval, it
does not make up for a profile with too few planned rounds to decide paired
(smoke's one). TCG guests get none: emulation is slow and their differences
are 10x. An A/B run gets none: its rows are decided HEAD against BASE.
"""

import datetime
import math
import random
import re
import shutil
import tempfile
from pathlib import Path

from .. import table
from ..decide.figures import row_mdes
from ..errors import InputError
from ..query.names import job_of, param_number, split_name
from ..results import inputs, jsonfile, round_record
from ..results.targets import TCG_GUEST, is_aa_control, is_lab_metal
from . import disturbed, rounds


def plan_next(staging_run, host, goal_pct, most, seconds, alpha=0.05):
    """The next added round of `host` in a staging run, as the bench role runs a round:
    {"round": k, "order": [...], "only": benchrun's --only, "added": {...}}, or
    {"round": None, "why": ...} when no round is to be added."""
    staging_run = Path(staging_run)
    if (staging_run / rounds.AB_FILE).is_file():
        return _stop("an A/B run: its rows are decided HEAD against BASE, which added rounds do not narrow")
    records = _host_records(staging_run, host)
    if not records:
        raise InputError(staging_run / "rounds", f"no round of host {host}: expected rounds/<k>/host-{host}.json")
    added = [r for r in records if r.get("added")]
    used = sum(_seconds(r) for r in added)
    if len(added) >= most:
        return _stop(f"{len(added)} rounds added, the most allowed ({most})", added, used)
    if used >= seconds:
        return _stop(f"the added rounds took {used:.0f} s, the budget is {seconds:.0f} s", added, used)
    wide, finite = _wide_rows(staging_run, host, records, goal_pct, alpha)
    if not finite:
        return _stop("no row has a finite minimum detectable effect: too few rounds to decide it", added, used)
    if not wide:
        return _stop(f"every row's minimum detectable effect is at most {goal_pct:g} %", added, used)
    k = max(r["round"] for r in records) + 1
    planned = records[0]["order"]
    passes = [t for t in planned if is_lab_metal(t) or is_aa_control(t)]
    targets = [t for t in planned if t in passes or t in wide]
    order = list(targets)
    random.Random(f"{records[0].get('seed')}:{k}").shuffle(order)
    jobs = sorted({job_of(name) for rows in wide.values() for name, _ in rows})
    min_size = memcpy_min_size(name for rows in wide.values() for name, _ in rows)
    return {
        "round": k,
        "order": order,
        "only": "^(" + "|".join(re.escape(j) for j in jobs) + ")$",
        **({"memcpy-min-size": min_size} if min_size else {}),
        "added": {
            "goal-pct": goal_pct,
            "jobs": jobs,
            **({"memcpy-min-size": min_size} if min_size else {}),
            "rows-above-goal": {t: len(rows) for t, rows in sorted(wide.items())},
            "seconds-before": round(used, 1),
        },
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


def _stop(why, added=(), used=0.0):
    return {"round": None, "why": why, "added-rounds": len(added), "seconds": round(used, 1)}


def _host_records(staging_run, host):
    return [jsonfile.read(d / f"host-{host}.json", round_record.RECORD_EXPECTED)
            for d in round_record.round_dirs(staging_run) if (d / f"host-{host}.json").is_file()]


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


def _wide_rows(staging_run, host, records, goal_pct, alpha):
    """{target: [(name, unit)]} of the host's targets (not TCG guests) whose rows' minimum
    detectable effect is finite and above the goal, from this host's rounds merged as
    the run will be (re-measures in place, rounds added so far included), and how many
    of their rows have a finite one. The merge goes to a scratch copy: the staging run
    is the role's."""
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
        plans = staging_run / disturbed.PLAN_DIR / host
        if plans.is_dir():
            shutil.copytree(plans, scratch / disturbed.PLAN_DIR / host)
        rounds.merge(scratch)
        loaded = inputs.load(scratch)
        kinds = {rf.target: rf.config.get("target-kind") for rf in loaded.files}
        t = table.build([loaded], by="target", alpha=alpha)
        wide, finite = {}, 0
        for col, name, unit, mde in row_mdes(t):
            if kinds.get(col) == TCG_GUEST or not math.isfinite(mde):
                continue
            finite += 1
            if mde > goal_pct:
                wide.setdefault(col, []).append((name, unit))
        return wide, finite
