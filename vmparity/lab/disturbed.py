"""Disturbed repetitions: a job's rows all slower together in one round.

On a shared host the speed comes and goes in spells that can last a whole
benchmark program (a neighbour's burst, the lab's own controller, a CFS
quota period that throttled): every row that program printed in that round
is slower by about the same factor, and with five or six rounds one such
repetition moves a row's median and decides its U test. So after a host's
rounds, each (target, round, job) is held against the same target's other
rounds: per row, the log ratio of this round's value to the row's median
over the rounds (oriented so that slower is positive); the repetition is
*disturbed* when the median of those ratios over the job's rows is at least

    max(MIN_SHIFT_PCT, K_SCATTER · the job's usual scatter)

(the usual scatter: 1.4826 · MAD of that median over every target and round
of the host) and at least AGREE of its rows are slower than their median.
A job is held so twice, in its time rows and in its core-clock rows apart
(MEASURES): a repetition in a lower turbo bin is slower in time only, and a
spell that takes the core's cycles (a neighbour on the physical core) slows
both; but in a noisy hour the host's clock moves every repetition's time by
±5–10 %, so the time rows' usual scatter puts their threshold at 20–50 % and
hides a 15 % spell that the core-clock rows, the rows a container is decided
in at an equal clock, show against a scatter of under 1 %.
A real difference of a target is in all of its rounds, so it moves the
median, not one round: it is never flagged. Only slowdowns are flagged:
interference slows, it does not speed up.

A spell can also slow only some rows of a repetition (the small copies of
one memcpy program, by up to 54 % for its whole life, its large copies not), and
one such value in metal or metal-aa caps the signed-rank p of a row's ten
rounds at 0.084: a real +5 % of a container there goes unseen. So a
repetition is also disturbed when one of its rows is slower than that row's
median by at least

    max(ROW_MIN_SHIFT_PCT, K_ROW_SCATTER · the row's own scatter over the rounds)

and the record names those rows (`slower-rows`). The TCG guests are left out
of this rule: their rows differ from metal far beyond any spell, and a
re-measure there costs ten times as much.

The lab measures each flagged repetition again (`benchrun --only '^job$'`,
at most bench_remeasure_max per host, shared out so that every target keeps
as few disturbed repetitions as the others (`_within_limit`; metal and
metal-aa first on a tie; within a target whole jobs before single rows, then
the most slower rows, the largest shifts; TCG guests last) after the planned rounds and the rounds added for the wide rows (a spell
reaches those as often), and a second
time those whose re-measure is still disturbed (`plan(..., again=True)`);
merge-rounds puts the new lines in place of the old in that round, and
rounds.json keeps every figure under `remeasured`. Nothing is dropped
silently.
"""

import math
import re
from pathlib import Path

import numpy as np

from ..results import bounded, jsonfile, round_record
from ..results.file import max_file_bytes
from ..results.spec import core_clock_units, known_units, time_units
from ..results.targets import PLAIN_NAME_SCHEMA, TCG_GUEST, check_plain_name, is_aa_control, is_lab_metal
from ..query.names import job_of
from ..stats import MAD_NORMAL

MIN_SHIFT_PCT = 3.0
K_SCATTER = 4.0
AGREE = 3 / 4
MIN_ROUNDS = 3  # fewer rounds have no median to be disturbed against
# One row alone: a larger shift, and well outside the row's own scatter, so that a
# bimodal row (a 1 KiB copy at 12.07 or 13.03 ns) or a wall-clock one is not re-measured
# for what it always does.
ROW_MIN_SHIFT_PCT = 10.0
K_ROW_SCATTER = 5.0
# The measures a job's shift is taken in, each over its own rows: mixing them would
# halve the median shift of a spell that shows in one of them only.
TIME, CLOCKS = "time", "core clocks"
MEASURES = (TIME, CLOCKS)


def measured_units(measure):
    """The units a job's shift in `measure` is taken over: time and throughput (the speed
    units but core clocks and a reference's ratios, which a spell leaves alone), or the
    core-clock units."""
    return time_units() if measure == TIME else core_clock_units()


def deviations(rounds, measure=TIME):
    """{(benchmark, unit): {round: log ratio of that round's value to the row's median over
    the rounds}} of one target's rows in `measure` (slower positive), for rows measured in
    at least MIN_ROUNDS rounds; rounds: {round: {(benchmark, unit): value}}."""
    higher = {u for u, h in known_units().items() if h}
    speed = measured_units(measure)
    rows = {}
    for k, values in rounds.items():
        for (name, unit), v in values.items():
            if unit in speed and v > 0:
                rows.setdefault((name, unit), {})[k] = math.log(v) * (-1 if unit in higher else 1)
    out = {}
    for key, by_round in rows.items():
        if len(by_round) >= MIN_ROUNDS:
            centre = float(np.median(list(by_round.values())))
            out[key] = {k: lv - centre for k, lv in by_round.items()}
    return out


def shifts(rounds, measure=TIME):
    """{(round, job): (median slowdown in log units, share of rows slower than their median, rows)}
    for one target's rows in `measure`; rounds: {round: {(benchmark, unit): value}}."""
    per = {}
    for (name, _), devs in deviations(rounds, measure).items():
        for k, dev in devs.items():
            per.setdefault((k, job_of(name)), []).append(dev)
    out = {}
    for key, devs in per.items():
        med = float(np.median(devs))
        out[key] = (med, float(np.mean(np.asarray(devs) > 0)), len(devs))
    return out


def slower_rows(rounds):
    """{(round, job): {benchmark: slowdown in log units}} of one target: the rows of a
    repetition slower than the row's median by at least max(ROW_MIN_SHIFT_PCT,
    K_ROW_SCATTER · the row's scatter over the rounds, 1.4826 · MAD); a benchmark's
    largest slowdown over its units."""
    out = {}
    floor = math.log1p(ROW_MIN_SHIFT_PCT / 100)
    for (name, _), devs in deviations(rounds).items():
        scatter = MAD_NORMAL * float(np.median(np.abs(list(devs.values()))))
        need = max(floor, K_ROW_SCATTER * scatter)
        for k, dev in devs.items():
            if dev >= need:
                slower = out.setdefault((k, job_of(name)), {})
                slower[name] = max(dev, slower.get(name, dev))
    return out


def find(by_target, limit, emulated=()):
    """Disturbed repetitions of one host's targets, at most `limit`, shared out among the
    targets (_within_limit), emulated targets (TCG guests, which differ from metal ten times
    beyond any spell) last.
    by_target: {target: {round: {(benchmark, unit): value}}}. Returns (flagged, thresholds)
    with flagged = [{"target", "round", "job", "shift-pct", "rows"}] plus, for a whole job,
    "measure" (TIME or CLOCKS, the one it was slower in by more) and its "threshold-pct",
    or "slower-rows" {benchmark: shift %} where only those rows were slower; thresholds:
    {measure: {job: threshold %}}."""
    measured = [t for t, rs in by_target.items() if len(rs) >= MIN_ROUNDS]
    all_shifts = {m: {t: shifts(by_target[t], m) for t in measured} for m in MEASURES}
    threshold = {m: _thresholds(all_shifts[m]) for m in MEASURES}
    flagged = []
    for t in measured:
        rows_slower = slower_rows(by_target[t]) if t not in emulated else {}
        for k, job in sorted({key for m in MEASURES for key in all_shifts[m][t]}):
            slow = [(med, m, n) for m in MEASURES if (k, job) in all_shifts[m][t]
                    for med, agree, n in (all_shifts[m][t][(k, job)],)
                    if med >= threshold[m][job] and agree >= AGREE]
            if slow:
                med, m, n = max(slow)
                flagged.append({"target": t, "round": k, "job": job, "shift-pct": round(math.expm1(med) * 100, 2),
                                "rows": n, "measure": m,
                                "threshold-pct": round(math.expm1(threshold[m][job]) * 100, 2)})
            elif (k, job) in rows_slower:
                slower = rows_slower[(k, job)]
                n = all_shifts[TIME][t].get((k, job), (0, 0, 0))[2]
                flagged.append({"target": t, "round": k, "job": job,
                                "shift-pct": round(math.expm1(max(slower.values())) * 100, 2), "rows": n,
                                "slower-rows": {name: round(math.expm1(v) * 100, 2) for name, v in sorted(slower.items())}})
    pct = {m: {j: round(math.expm1(v) * 100, 2) for j, v in threshold[m].items()} for m in MEASURES}
    return _within_limit(flagged, limit, emulated), pct


def _within_limit(flagged, limit, emulated):
    """The flagged repetitions to measure again, at most `limit`, shared out so that the targets
    keep as even a number of disturbed repetitions as the limit allows: one at a time, from the
    target with the most left (on a tie metal and its A/A pass first, since every target is held
    against them, then a whole job before single rows), within a target whole jobs first, then the most slower rows, the largest shift; emulated
    targets only after the others. Measuring again the references' repetitions and not the
    targets' would leave the targets alone slowed by the host's spells and call them worse than
    metal: on run 2026-11-28T13-16-45Z all 96 re-measures went to metal and metal-aa (ordered
    first), and container-nolimit came out slower than metal in 27 rows no rule explains."""
    queues = {}
    for f in sorted(flagged, key=lambda f: ("slower-rows" in f, -len(f.get("slower-rows", ())), -f["shift-pct"],
                                            f["round"], f["job"])):
        queues.setdefault(f["target"], []).append(f)
    chosen = []
    for group in ([t for t in queues if t not in emulated], [t for t in queues if t in emulated]):
        while any(queues[t] for t in group) and (limit is None or len(chosen) < limit):
            t = min((t for t in group if queues[t]), key=lambda t: (-len(queues[t]), not _reference(t),
                                                                     "slower-rows" in queues[t][0],
                                                                     -queues[t][0]["shift-pct"], t))
            chosen.append(queues[t].pop(0))
    return chosen


def _thresholds(shifts_by_target):
    """{job: max(MIN_SHIFT_PCT, K_SCATTER · the job's usual scatter)} in log units, the usual
    scatter 1.4826 · MAD of the job's median shift over every target and round."""
    by_job = {}
    for per in shifts_by_target.values():
        for (_, job), (med, _, _) in per.items():
            by_job.setdefault(job, []).append(med)
    return {job: max(math.log1p(MIN_SHIFT_PCT / 100),
                     K_SCATTER * MAD_NORMAL * float(np.median(np.abs(np.asarray(meds) - np.median(meds)))))
            for job, meds in by_job.items()}


def _reference(target):
    return is_lab_metal(target) or is_aa_control(target)


def only_regex(job):
    """benchrun's --only for exactly this job."""
    return f"^{re.escape(job)}$"


# -- the lab's steps: plan the re-measures of one host, put them in place at the merge --

PLAN_DIR = "remeasured"
# remeasured/<host>/plan.json, as plan() writes it: what the merge and the second pass read back.
# A re-measure's file is a path in the staging run, so it must be the one plan() names.
_PERCENT_BY_JOB = {"type": "object", "additionalProperties": {"type": ["number", "null"]}}
PLAN_SCHEMA = {
    "type": "object",
    "required": ["host", "threshold-pct", "remeasure"],
    "properties": {
        "host": PLAIN_NAME_SCHEMA,
        "threshold-pct": _PERCENT_BY_JOB,
        "clocks-threshold-pct": _PERCENT_BY_JOB,
        "remeasure": {"type": "array", "items": {
            "type": "object",
            "required": ["target", "round", "job", "file"],
            "properties": {
                "target": {"type": "string"}, "round": {"type": "integer", "minimum": 0}, "job": {"type": "string"},
                "file": {"type": "string", "pattern": rf"^{PLAN_DIR}/[A-Za-z0-9][A-Za-z0-9._-]*/[0-9]+\.txt$",
                         "description": f"the re-measure's file as the plan names it, {PLAN_DIR}/<host>/<n>.txt"},
                "shift-pct": {"type": ["number", "null"]}, "after-shift-pct": {"type": ["number", "null"]},
                "threshold-pct": {"type": ["number", "null"]}, "pass": {"type": "integer"},
            }}},
    },
}


def plan(staging_run, host, limit, again=False, skip_kinds=()):
    """Find the disturbed repetitions of `host`'s targets in a staging run and write
    remeasured/<host>/plan.json: each with the file its re-measure goes to and
    benchrun's --only for it. Returns the plan.

    again: a second pass after the first plan's re-measures. A spell can outlast the
    rounds (metal's memcpy re-measured right after them came back 29 % slow, as in its
    round): each repetition whose re-measure is still disturbed, with the re-measures in
    place, is planned once more, at most `limit` of them. The plan keeps both passes
    (`pass`: 2 on the second) and returns only the new entries.

    skip_kinds: target kinds planned for no re-measure (the lab's TCG guests: an
    emulator's rows differ from metal's ten times beyond any spell, so a re-measure
    moves no verdict and costs a TCG guest's start-up again)."""
    staging_run = Path(staging_run)
    check_plain_name(host, "--host", "host")  # it names a directory of the staging run: never a path
    bounded.no_link_out(staging_run)  # every file read and written below stays inside the run
    out_dir = staging_run / PLAN_DIR / host
    before = _read_plan(out_dir / "plan.json")["remeasure"] if again else []
    finished = [f for f in before if _measured(staging_run / f["file"])]
    done = replacements(staging_run)[0] if again else {}  # the re-measures in place, as the merge puts them
    by_target, emulated = {}, set()
    for d in round_record.round_dirs(staging_run):
        rec = d / f"host-{host}.json"
        if not rec.exists():
            continue
        for target in _order(rec):
            f = d / f"{target}.txt"
            if not f.is_file():
                continue
            text = _text(f)
            kind = _target_kind(text)
            if kind in skip_kinds:
                continue
            for job, new in done.get((target, int(d.name)), []):
                text = replace_job(text, job, new)
            by_target.setdefault(target, {})[int(d.name)] = _values_of_text(text)
            if kind == TCG_GUEST:
                emulated.add(target)
    flagged, thresholds = find(by_target, None if again else limit, emulated)
    if again:
        # the first pass's figure after its re-measure, before a second one replaces it
        _after_shifts(finished, by_target)
        measured = {(f["target"], f["round"], f["job"]) for f in finished}
        flagged = [dict(f, **{"pass": 2}) for f in flagged if (f["target"], f["round"], f["job"]) in measured]
        flagged = flagged[:limit] if limit is not None else flagged
    out_dir.mkdir(parents=True, exist_ok=True)
    for n, f in enumerate(flagged, len(before) + 1):
        f.update(n=n, only=only_regex(f["job"]), file=f"{PLAN_DIR}/{host}/{n}.txt")
    record = {"host": host, "limit": limit, "threshold-pct": thresholds[TIME],
              "clocks-threshold-pct": thresholds[CLOCKS], "remeasure": before + flagged}
    jsonfile.write(out_dir / "plan.json", record, run=staging_run)
    return dict(record, remeasure=flagged)


def _read_plan(path):
    return jsonfile.read(path, "expected the plan of a first pass (vmparity lab disturbed): {error}", PLAN_SCHEMA)


def _measured(path):
    """Whether a re-measure's file holds result lines (it finished)."""
    return path.exists() and any(line.startswith("Benchmark") for line in _text(path).split("\n"))


def _text(path):
    """A round's or a re-measure's result file, bounded as every result file is."""
    return bounded.read_text(path, max_file_bytes(), "a result file of the bench role")


def _target_kind(text):
    """The target-kind header of a result file's text (None without one)."""
    for line in text.split("\n"):
        if line.startswith("target-kind:"):
            return line.partition(":")[2].strip()
        if line.startswith("Benchmark"):
            return None
    return None


def _order(host_record):
    return round_record.read_round(host_record)["order"]


def replacements(staging_run):
    """{(target, round): [(job, re-measured text)]} and the records for rounds.json, from
    every host's plan; a planned re-measure whose file is missing is recorded, not applied."""
    staging_run = Path(staging_run)
    out, records = {}, []
    for plan_file in sorted((staging_run / PLAN_DIR).glob("*/plan.json")):
        rec = _read_plan(plan_file)
        for f in rec.get("remeasure", []):
            path = staging_run / f["file"]
            entry = {k: f[k] for k in ("target", "round", "job", "shift-pct", "rows", "measure", "slower-rows",
                                       "pass", "after-shift-pct") if k in f}
            entry.update(host=rec["host"], **{"threshold-pct": f.get("threshold-pct",
                                                                    rec["threshold-pct"].get(f["job"]))})
            if _measured(path):
                out.setdefault((f["target"], f["round"]), []).append((f["job"], _text(path)))
                entry["status"] = "measured again"
            else:
                entry["status"] = "not measured again (the re-measure did not finish): the first measurement is kept"
            records.append(entry)
    return out, records


def replace_job(text, job, new_text):
    """A round file's text with the result lines of `job` replaced by those of `new_text`
    (at the place of the first line replaced); configuration and other jobs stay. Where the
    round measured some of the job's benchmarks only (a round added for the wide rows runs
    memcpy from its smallest wide size on, round_record.in_round), the re-measure's other
    benchmarks are left out: the round's record says which benchmarks it holds."""
    def name(line):
        return line.split(maxsplit=1)[0] if line.startswith("Benchmark") else None

    old = {name(line) for line in text.split("\n") if name(line) and job_of(name(line)) == job}
    new = [line for line in new_text.split("\n") if name(line) and (not old or name(line) in old)]
    out, placed = [], False
    for line in text.split("\n"):
        if name(line) and job_of(name(line)) == job:
            if not placed:
                out.extend(new)
                placed = True
            continue
        out.append(line)
    if not placed:
        out.extend(new)
    return "\n".join(out)


def after_shifts(records, texts_by_target):
    """Add each applied record's shift after the re-measure (`after-shift-pct`), from the
    target's round texts with the replacements in place: {target: {round: text}}. A record
    a second pass measured again keeps the figure its own re-measure had (set by plan)."""
    todo = [r for r in records if r["status"] == "measured again" and "after-shift-pct" not in r]
    by_target = {t: {k: _values_of_text(text) for k, text in texts_by_target.get(t, {}).items()}
                 for t in {r["target"] for r in todo}}
    _after_shifts(todo, by_target)
    return records


def second_kept_or_not(records):
    """Of a repetition measured again twice, the re-measure less disturbed stays: a spell can
    outlast the pause between the passes (run 2026-11-27T03-51-00Z: metal-aa's round 3
    memcpy-static/tunable=default came back +4.8 % from its first re-measure and +21.3 % from
    its second). Both are judged on the rows that sent the second pass: the first re-measure's
    shift there is the second pass's `shift-pct`, the second's its `after-shift-pct`. (The first
    pass's `after-shift-pct` is taken on the rows the first pass flagged, and a re-measure can be
    clean there and slow elsewhere: run 2026-11-27T06-09-46Z kept a re-measure of metal's align
    57 % slow in its other rows.) Marks each second pass's record `kept` (True, or False where
    its shift is the larger) and returns those not kept; the merge puts their first re-measure
    back."""
    first = {(r["target"], r["round"], r["job"]) for r in records
             if r.get("pass", 1) == 1 and r["status"] == "measured again"}
    not_kept = []
    for r in records:
        if r.get("pass") != 2 or r["status"] != "measured again" or (r["target"], r["round"], r["job"]) not in first:
            continue
        worse = r.get("after-shift-pct") is not None and r["after-shift-pct"] > r["shift-pct"]
        r["kept"] = not worse
        if worse:
            not_kept.append(r)
    return not_kept


def _after_shifts(records, by_target):
    """Set `after-shift-pct` of each record from {target: {round: {(benchmark, unit): value}}}
    with its re-measure in place: the job's median shift in the measure it was flagged in,
    or the largest shift of the rows that were slower."""
    cache = {}
    for r in records:
        t, m = r["target"], r.get("measure", TIME)
        if (t, m) not in cache:
            cache[(t, m)] = deviations(by_target.get(t, {})), shifts(by_target.get(t, {}), m)
        devs, per_job = cache[(t, m)]
        if "slower-rows" in r:
            after = [d[r["round"]] for (name, _), d in devs.items() if name in r["slower-rows"] and r["round"] in d]
            r["after-shift-pct"] = round(math.expm1(max(after)) * 100, 2) if after else None
        else:
            med = per_job.get((r["round"], r["job"]))
            r["after-shift-pct"] = None if med is None else round(math.expm1(med[0]) * 100, 2)


def _values_of_text(text):
    out = {}
    for line in text.split("\n"):
        fields = line.split()
        if len(fields) >= 4 and fields[0].startswith("Benchmark"):
            for v, u in zip(fields[2::2], fields[3::2]):
                try:
                    out[(fields[0], u)] = float(v)
                except ValueError:
                    continue
    return out
