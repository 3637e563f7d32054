"""Which round each value of a stored run came from: the run's rounds.json.

The lab measures one repetition per target per round (lab/rounds.py) and
merges a target's rounds into one file in round order: missing rounds left
out, and the rounds added after them for
the rows whose minimum detectable effect was still wide (lab/added_rounds.py)
holding only those rows' jobs (their `added` record lists the benchmarks). So
the i-th value of a row is the i-th round rounds.json planned for the target,
holds the row, and does not list as missing.
Readers that decide round by round (the paired rule, decide/paired.py) use
this; a row whose values do not match those rounds (a fill-in, a hand-made
file) is not paired.
"""

import os
from pathlib import Path

from ..errors import InputError
from . import jsonfile, round_schema

SCHEMA = round_schema.SCHEMA
FILE = "rounds.json"
# rounds/ of a staging run: why a host's rounds for the wide rows stopped, and the goal
# (lab/added_rounds.py); rounds.json keeps them under `added-stop`, per host.
ADDED_STOP_FILE = "added-stop-{host}.json"
RECORD_EXPECTED = "expected a JSON record of the bench role: {error}"


def load(run_dir):
    """rounds.json of a stored run, or None for a run measured before rounds; InputError naming
    the field when it is not of the shape round_schema.ROUNDS describes."""
    p = Path(run_dir) / FILE
    if not os.path.lexists(p):  # a FIFO, a device or a link out of the run there is refused by the reader
        return None
    return check(p, jsonfile.read(p, RECORD_EXPECTED, run=run_dir))


def check(path, rec):
    """rec, the parsed rounds.json at path, when it has the shape of one; else InputError."""
    if not isinstance(rec, dict) or rec.get("schema") != SCHEMA:
        got = rec.get("schema") if isinstance(rec, dict) else type(rec).__name__
        raise InputError(path, f"expected schema {SCHEMA!r}, got {got!r}")
    jsonfile.check_shape(path, rec, round_schema.ROUNDS)
    return rec


def read_round(path, run=None):
    """One host's record of one round in a staging run (rounds/<k>/host-<host>.json), checked;
    run: the staging run, out of which a link there may not lead."""
    return jsonfile.read(path, RECORD_EXPECTED, round_schema.STAGING_ROUND, run=run)


def rounds_of(record, target, name=None):
    """The rounds whose values target's merged file holds, in file order (None when the
    record says nothing of the target); with a benchmark's name, those that measured it
    (every planned round did; an added round, the benchmarks it lists)."""
    planned = {rec["round"] for recs in record.get("hosts", {}).values() for rec in recs
               if target in rec.get("order", ()) and (name is None or in_round(rec, name))}
    if not planned:
        return None
    return sorted(planned - set(record.get("missing-rounds", {}).get(target, ())))


def per_round(rf, record):
    """{(name, unit): {round: value}} of a target's file: only rows with one value per round it holds."""
    if rounds_of(record, rf.target) is None:
        return {}
    out = {}
    for name, b in rf.benchmarks.items():
        ks = rounds_of(record, rf.target, name) or ()
        for unit, values in zip(b.units, b.values):
            if len(values) == len(ks):
                out[(name, unit)] = dict(zip(ks, (float(v) for v in values)))
    return out


def in_round(round_rec, name):
    """Whether a round of rounds.json measured this benchmark: every round the lab
    planned did; a round added after them (for the wide rows, or to measure rows beyond
    noise again) only the benchmarks it lists."""
    added = round_rec.get("added")
    return not added or name in added.get("benchmarks", ())


def round_dirs(staging_run):
    """The rounds/<k>/ directories of a lab's staging run (lab/rounds.py), in round order."""
    d = Path(staging_run) / "rounds"
    return sorted((p for p in d.iterdir() if p.is_dir() and p.name.isdigit()), key=lambda p: int(p.name)) \
        if d.is_dir() else []


def mde_goals(record):
    """{target: {"goal-pct", "why"}}: the lab's goal for the minimum detectable effect of a
    family's median (bench_mde_goal), for every target of a host that had one, and why its
    rounds for the wide rows stopped (None when the run did not say: a run stored before
    `added-stop`, whose added rounds name their goal). {} for a run without either; a goal
    that is not a number is no goal (the record came from elsewhere)."""
    out = {}
    stops = (record or {}).get("added-stop")
    for host, recs in (record or {}).get("hosts", {}).items():
        stop = stops.get(host) if isinstance(stops, dict) else None
        stop = stop if isinstance(stop, dict) else {}
        added = [r["added"] for r in recs if isinstance(r.get("added"), dict)]
        goal = _percent(stop.get("goal-pct"))
        why = stop.get("why") if goal is not None and isinstance(stop.get("why"), str) else None
        if goal is None:
            goal = next((g for g in map(_percent, (a.get("goal-pct") for a in added)) if g is not None), None)
        if goal is None:
            continue
        for r in recs:
            for target in r.get("order", ()):
                out.setdefault(target, {"goal-pct": goal, "why": why})
    return out


def _percent(v):
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v < float("inf") else None
