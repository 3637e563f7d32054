"""A copy of a stored run put back as it was without the lab's measurement layers
(decide/layers.py: MEASUREMENT), so that their error rates can be measured on stored runs.

Added rounds (`added` with `rows-above-goal`) and confirming rounds (`added` with
`rows-beyond-noise`): their values are dropped from every target's file and the
rounds from rounds.json, as if the lab had stopped after its planned rounds.

The i-th line of a benchmark in a target's file is the i-th round
round_record.rounds_of lists for it; a benchmark whose lines do not match its rounds
is left as it is (it is not paired either).
"""

import json
from pathlib import Path

from ..decide import layers
from ..results import round_record


def strip(run_dir, files, without):
    """Rewrite the copy run_dir (its target files `files`, results.inputs' RunFiles) without
    the measurement layers in `without`; nothing to do for a run without rounds.json."""
    off = set(without) & set(layers.MEASUREMENT)
    record = round_record.load(run_dir) if off else None
    if not record:
        return
    dropped = _dropped_rounds(record, off)
    for rf in files:
        path = Path(run_dir) / Path(rf.path).name
        path.write_text(_rewritten(path.read_text(encoding="utf-8"), rf, record, dropped), encoding="utf-8")
    for recs in record.get("hosts", {}).values():
        recs[:] = [r for r in recs if r["round"] not in dropped]
    (Path(run_dir) / round_record.FILE).write_text(json.dumps(record, indent=1), encoding="utf-8")


def _dropped_rounds(record, off):
    keys = {layers.ADDED_ROUNDS: "rows-above-goal", layers.CONFIRM_ROUNDS: "rows-beyond-noise"}
    want = [keys[k] for k in off if k in keys]
    return {r["round"] for recs in record.get("hosts", {}).values() for r in recs
            if isinstance(r.get("added"), dict) and any(k in r["added"] for k in want)}


def _rewritten(text, rf, record, dropped):
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
        out.append(line)
    return "\n".join(out)
