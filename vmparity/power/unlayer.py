"""A copy of a stored run put back as it was without the lab's measurement layers
(decide/layers.py: MEASUREMENT), so that their error rates can be measured on stored runs.

- added rounds (`added` with `rows-above-goal`) and confirming rounds (`added` with
  `rows-beyond-noise`): their values are dropped from every target's file and the
  rounds from rounds.json, as if the lab had stopped after its planned rounds;
- re-measured disturbed repetitions (rounds.json `remeasured`): the value of the
  repetition is put back as disturbed, from what the record says of it. A whole
  job's rows are made slower by its shift against the re-measure's
  ((1 + shift) / (1 + after-shift)), a single slow row's (`slower-rows`) by its own
  shift; in the units the shift was measured in (time and throughput, or core clocks).
  The lab keeps no disturbed value, so this is a reconstruction: every row of a
  job moved alike, where the spell moved them about alike (lab/disturbed.py's rule).

The i-th line of a benchmark in a target's file is the i-th round
round_record.rounds_of lists for it; a benchmark whose lines do not match its rounds
is left as it is (it is not paired either).
"""

import json
from pathlib import Path

from ..decide import layers
from ..lab import disturbed
from ..query.names import job_of
from ..results import round_record
from ..results.spec import known_units
from . import plant


def strip(run_dir, files, without):
    """Rewrite the copy run_dir (its target files `files`, results.inputs' RunFiles) without
    the measurement layers in `without`; nothing to do for a run without rounds.json."""
    off = set(without) & set(layers.MEASUREMENT)
    record = round_record.load(run_dir) if off else None
    if not record:
        return
    dropped = _dropped_rounds(record, off)
    slower = _disturbed(record) if layers.REMEASURED in off else {}
    for rf in files:
        path = Path(run_dir) / Path(rf.path).name
        higher = {u for u, h in known_units().items() if h} | {u for u, h in rf.declared_units.items() if h}
        path.write_text(_rewritten(path.read_text(encoding="utf-8"), rf, record, dropped, slower, higher),
                        encoding="utf-8")
    for recs in record.get("hosts", {}).values():
        recs[:] = [r for r in recs if r["round"] not in dropped]
    if layers.REMEASURED in off:
        record["remeasured"] = []
    (Path(run_dir) / round_record.FILE).write_text(json.dumps(record, indent=1), encoding="utf-8")


def _dropped_rounds(record, off):
    keys = {layers.ADDED_ROUNDS: "rows-above-goal", layers.CONFIRM_ROUNDS: "rows-beyond-noise"}
    want = [keys[k] for k in off if k in keys]
    return {r["round"] for recs in record.get("hosts", {}).values() for r in recs
            if isinstance(r.get("added"), dict) and any(k in r["added"] for k in want)}


def _disturbed(record):
    """{(target, round): [(predicate on a benchmark's name, its units, time factor)]}."""
    out = {}
    for f in record.get("remeasured") or ():
        if f.get("status") != "measured again" or f.get("shift-pct") is None:
            continue
        units = disturbed.measured_units(f.get("measure") or disturbed.TIME)
        rows = f.get("slower-rows")
        if rows:
            for name, shift in rows.items():
                out.setdefault((f["target"], f["round"]), []).append(
                    (lambda n, name=name: n == name, units, 1 + shift / 100))
        else:
            factor = (1 + f["shift-pct"] / 100) / (1 + (f.get("after-shift-pct") or 0.0) / 100)
            out.setdefault((f["target"], f["round"]), []).append(
                (lambda n, job=f["job"]: job_of(n) == job, units, factor))
    return out


def _rewritten(text, rf, record, dropped, slower, higher):
    seen, out = {}, []
    rounds = {}
    for line in text.split("\n"):
        fields = line.split()
        name = fields[0] if len(fields) >= 4 and fields[0] in rf.benchmarks else None
        if name is None:
            out.append(line)
            continue
        if name not in rounds:
            ks = round_record.rounds_of(record, rf.target, name) or []
            rounds[name] = ks if len(ks) == len(rf.benchmarks[name].values[0]) else None
        i = seen[name] = seen.get(name, -1) + 1
        k = rounds[name][i] if rounds[name] is not None else None
        if k in dropped:
            continue
        moved = False
        for match, units, factor in slower.get((rf.target, k), ()):
            if match(name):
                fields, moved = plant.scale_fields(fields, factor, units, higher), True
        out.append(plant.line_of(fields) if moved else line)
    return "\n".join(out)
