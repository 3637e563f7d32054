"""Interleaved rounds: every round measures each target of a host once, in an
order shuffled per round, so that slow drift of a shared machine hits every
target alike (a randomised block design, Kalibera & Jones, "Rigorous
Benchmarking in Reasonable Time"). The lab runs `benchrun --count 1` per
target per round; `merge` turns the round files back into one result file
per target that benchstat reads as before, plus rounds.json with the seed,
every round's order, its timings and the host's hygiene before it.

Staging layout (written by the bench role, read here):
  rounds/<k>/<target>.txt          benchrun's output of round k on target
  rounds/<k>/host-<host>.json      {"host", "round", "seed", "order": [...], "hygiene": {...},
                                    "timings": {target: {"start", "end"}}}
  rounds/<k>/timings-<host>.json   {target: {"start", "end"}}: each repetition's, written by its own task
                                    and read into host-<host>.json by the round's record (not read here)
  ab.json                          an A/B run's BASE: {"base-ref", "base-commit"} (rounds.json `ab`)
  rounds/failed-<host>.json        {"host", "failed": {target: {"round", "rounds_done", "msg"}},
                                    "host-failed": {"round", "msg"} or null}
  rounds/added-stop-<host>.json    {"host", "goal-pct", "why"}: why the rounds added for the wide rows
                                    stopped (lab/added_rounds.py; rounds.json `added-stop`, per host)
  rounds/isolation-<host>.json     {"host", "isolation": {"cpus", "bench-cpu", "others", "summary",
                                    "guest-summary", "confined": {group: [pids]}, "released", "errors"}}
                                    (rounds.json `isolation`, per host)
  rounds/budget.json               a run in a time budget: its plan (lab/budget.py; rounds.json `budget.plan`)
  rounds/budget-<host>.json        {"host", "measured-seconds", "planned-rounds-measured", "skipped-rounds",
                                    "pace", ...}: what the host's rounds did with it (`budget.hosts`)
A run with failed targets, failed hosts or missing rounds is stored all the
same, marked partial in rounds.json (`partial`, `failed`, `failed-hosts`,
`missing-rounds`). A failed host (it did not answer at the start, or stopped
answering in round k) is filled in as a whole: every target it measures.
"""

import hashlib
import json
import random
from pathlib import Path

from ..errors import InputError
from ..results.targets import head_of
from ..results import bounded, jsonfile, round_record, round_schema, throttled_jobs
from ..results.file import max_file_bytes

SCHEMA = round_record.SCHEMA
BUDGET_FILE = "budget.json"  # rounds/: a run's time budget as planned (lab/budget.py; rounds.json `budget`)
AB_FILE = "ab.json"  # the bench role's record of an A/B run's BASE: {base-ref, base-commit}

# Header keys benchrun measures per invocation: they may differ between
# rounds without meaning the environment changed; their totals are kept.
SUMMED_KEYS = ("cpu-throttled-ms",)
# Header keys that are measurements of one repetition (docs/formats.md: "of
# this repetition"), not fingerprint: round 1's value stays in the header,
# and a change between rounds is not a fingerprint change.
PER_REPETITION = ("align-spread", "core-clock", "fence-overhead-", "fence-llc-buffer-bytes", "fence-tsc-ghz",
                  "memcpy-tsc-ghz")
PERIODS_KEY = "cpu-throttled-periods"  # "<throttled> of <periods>"
COUNT_KEY = "count"
# Units some rounds reported and others did not, left out of the merged file.
UNITS_DROPPED_KEY = "units-not-in-every-round"


def relabel(text, target):
    """benchrun's output with its header's `target:` set to `target`. An A/B run's
    BASE side runs BASE's own benchrun, which may predate the `~base` names (and
    refuse them), under its target's plain name; the lab names it on arrival."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("Benchmark"):
            break
        if line.startswith("target:"):
            lines[i] = f"target: {target}"
            break
    return "\n".join(lines)


def seed_for(run_id):
    """A run's default seed: derived from its id, so a re-run of the same id reshuffles alike."""
    return int(hashlib.sha256(run_id.encode("utf-8")).hexdigest()[:8], 16)


def schedule(targets, rounds, seed, limits=None):
    """[[target, …] per round]: every target once per round, each round shuffled
    with its own generator, so the order of round k depends only on (seed, k).
    limits: {target: n} takes a target part in the first n rounds only (the lab
    gives TCG guests fewer: emulation is slow and its differences are 10x)."""
    targets = list(targets)
    limits = limits or {}
    if len(set(targets)) != len(targets):
        raise InputError("schedule", f"a target is listed twice: {targets}")
    if rounds < 1:
        raise InputError("schedule", f"rounds must be 1 or more, got {rounds}")
    if any(int(n) < 1 for n in limits.values()):
        raise InputError("schedule", f"every target needs at least one round, got {limits}")
    out = []
    for k in range(1, rounds + 1):
        # An A/B run's BASE side (`<target>~base`) runs right before or after its
        # target, so both meet the same moment of the host: the pairs are shuffled
        # as one, then each pair's two sides with a generator of their own. Without
        # BASE sides every pair is one target, and the order is what it always was.
        pairs = {}
        for t in targets:
            if k <= int(limits.get(t, rounds)):
                pairs.setdefault(head_of(t), []).append(t)
        order = list(pairs.values())
        random.Random(f"{seed}:{k}").shuffle(order)
        for pair in order:
            if len(pair) > 1:
                random.Random(f"{seed}:{k}:{head_of(pair[0])}").shuffle(pair)
        out.append([t for pair in order for t in pair])
    return out


def _read(path):
    """A round's result file, bounded as every result file is (a FIFO there is refused, not waited on)."""
    return bounded.read_text(path, max_file_bytes(), "a round file of the bench role")


def _split(path):
    """A round file as (config [(key, value)], extra lines, Benchmark lines)."""
    text = _read(path)
    config, extra, body = [], [], []
    for i, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        if line.startswith("Benchmark"):
            body.append(line)
        elif line.startswith(("#", "Unit ")):
            extra.append(line)
        elif body:
            raise InputError(path, f"configuration line after the first result line: {line[:80]!r}", i)
        else:
            key, sep, value = line.partition(":")
            if not sep:
                raise InputError(path, f"expected `key: value`, a Unit line or a Benchmark line, got {line[:80]!r}", i)
            config.append((key, value.strip()))
    if not body:
        raise InputError(path, "no Benchmark line: the round did not finish")
    return config, extra, body


def merge_target(round_files, added=()):
    """One result file's text from the round files of one target (in round order),
    and {key: [value per round]} for keys that changed between rounds.
    added: the files of rounds added for the wide rows or the rows beyond noise (added_rounds.py), which ran only
    some jobs: their result lines and summed keys count, but their header, which --only
    changes, is not compared, and `count` stays the planned rounds'."""
    parts = [_split(p) for p in round_files]
    planned = [part for p, part in zip(round_files, parts) if p not in added] or parts
    first = dict(planned[0][0])
    order = [k for k, _ in planned[0][0]]
    changed = {}
    for config, _, _ in planned[1:]:
        for k, _ in config:
            if k not in first:
                first[k] = None
                order.append(k)
    for k in order:
        values = [dict(c).get(k) for c, _, _ in planned]
        if (len(set(values)) > 1 and k not in SUMMED_KEYS + (PERIODS_KEY, COUNT_KEY, throttled_jobs.KEY)
                and not k.startswith(PER_REPETITION)):
            changed[k] = values
    merged = dict(first)
    merged[COUNT_KEY] = str(sum(int(dict(c).get(COUNT_KEY, "1")) for c, _, _ in planned))
    merged["rounds"] = f"{len(planned)} (interleaved with the host's other targets; rounds.json)"
    if len(planned) < len(parts):
        merged["rounds"] += (f", and {len(parts) - len(planned)} added for the rows whose minimum detectable"
                             " effect was still wide or that were beyond noise (rounds.json `added`)")
    for k in SUMMED_KEYS:
        nums = [_int(dict(c).get(k)) for c, _, _ in parts]
        if k in merged and None not in nums:
            merged[k] = str(sum(nums))
    periods = [_periods(dict(c).get(PERIODS_KEY)) for c, _, _ in parts]
    if PERIODS_KEY in merged and None not in periods:
        merged[PERIODS_KEY] = f"{sum(p[0] for p in periods)} of {sum(p[1] for p in periods)}"
    if throttled_jobs.KEY in merged:
        values = [dict(c).get(throttled_jobs.KEY) for c, _, _ in parts]
        jobs = throttled_jobs.summed(values)
        if jobs is not None:
            merged[throttled_jobs.KEY] = jobs
        elif len(set(values)) > 1:
            merged[throttled_jobs.KEY] = "unknown (not every round's value could be read)"
    if changed:
        # the environment moved during the run: keep round 1's value and say which keys moved
        merged["fingerprint-changed"] = " ".join(sorted(changed))
        order.append("fingerprint-changed")
    if "rounds" not in order:
        order.insert(order.index(COUNT_KEY) + 1 if COUNT_KEY in order else len(order), "rounds")
    extra = list(dict.fromkeys(line for _, e, _ in parts for line in e))
    body, dropped = common_units([line for _, _, b in parts for line in b])
    if dropped:
        merged[UNITS_DROPPED_KEY] = " ".join(dropped)
        order.append(UNITS_DROPPED_KEY)
    lines = [f"{k}: {merged[k]}" if merged[k] else f"{k}:" for k in order if merged.get(k) is not None]
    return "\n".join(lines + extra + body) + "\n", changed


def common_units(body):
    """The result lines with, per benchmark, only the units every one of its
    lines reports, and the units dropped. A benchmark may report a unit in some
    rounds and not others (cycles/op needs a TSC calibration that a busy round
    can fail); the format wants the same units on every line of a benchmark."""
    split = []
    units = {}
    for line in body:
        fields = line.split()
        pairs = list(zip(fields[2::2], fields[3::2]))
        split.append((fields[:2], pairs))
        seen = [u for _, u in pairs]
        units[fields[0]] = [u for u in units.get(fields[0], seen) if u in seen]
    dropped = set()
    out = []
    for line, (head, pairs) in zip(body, split):
        keep = units[head[0]]
        if len(keep) == len(pairs):
            out.append(line)
            continue
        dropped |= {u for _, u in pairs if u not in keep}
        out.append("\t".join([*head, *(f"{v} {u}" for v, u in pairs if u in keep)]))
    return out, sorted(dropped)


def _int(v):
    try:
        return int(str(v).split()[0])
    except (ValueError, IndexError):
        return None


def _periods(v):
    try:
        a, _, b = str(v).split()
        return int(a), int(b)
    except ValueError:
        return None


def merge(staging_run):
    """Write <target>.txt for every target with round files, and rounds.json.
    Returns (targets merged, {target: [missing rounds]})."""
    staging_run = Path(staging_run)
    rounds_dir = staging_run / "rounds"
    if not rounds_dir.is_dir():
        raise InputError(rounds_dir, "no rounds directory: expected rounds/<k>/<target>.txt from the bench role")
    bounded.no_link_out(staging_run)  # every file the merge reads and writes stays inside the run
    hosts, timings, files = {}, {}, {}
    for d in round_record.round_dirs(staging_run):
        k = int(d.name)
        for h in sorted(d.glob("host-*.json")):
            rec = round_record.read_round(h)
            hosts.setdefault(rec["host"], []).append(rec)
            for target, when in (rec.get("timings") or {}).items():
                timings.setdefault(target, {})[k] = when
        for f in sorted(d.glob("*.txt")):
            files.setdefault(f.stem, []).append((k, f))
    failed, failed_hosts = {}, {}
    for f in sorted(rounds_dir.glob("failed-*.json")):
        rec = _json(f, round_schema.FAILED)
        for target, why in rec.get("failed", {}).items():
            failed[target] = dict(why, host=rec.get("host"))
        if rec.get("host-failed"):
            failed_hosts[rec.get("host")] = rec["host-failed"]
    planned = {}
    for recs in hosts.values():
        for rec in recs:
            for target in rec["order"]:
                planned.setdefault(target, set()).add(rec["round"])
    missing = {t: sorted(ks - {k for k, _ in files.get(t, [])}) for t, ks in planned.items()}
    missing = {t: ks for t, ks in missing.items() if ks}
    # a round added on one host may share its number with another host's planned round
    added = {(t, rec["round"]) for recs in hosts.values() for rec in recs if rec.get("added") for t in rec["order"]}
    added_files = {f for t, rfs in files.items() for k, f in rfs if (t, k) in added}
    changed, merged = {}, {}
    for target, rfs in files.items():
        merged[target], moved = merge_target([f for _, f in sorted(rfs)], added_files)
        if moved:
            changed[target] = moved
    record = {
        "schema": SCHEMA,
        "hosts": {
            host: [{"round": r["round"], "seed": r.get("seed"), "order": r["order"], "hygiene": r.get("hygiene", {}),
                    "timings": {t: timings.get(t, {}).get(r["round"]) for t in r["order"]},
                    **({"added": _added(r, files)} if r.get("added") else {})}
                   for r in sorted(recs, key=lambda r: r["round"])]
            for host, recs in sorted(hosts.items())
        },
        "fingerprint-changed": changed,
        "missing-rounds": missing,
        "failed": failed,
        "failed-hosts": failed_hosts,
        "partial": bool(missing or failed or failed_hosts),
    }
    isolation = {}
    for f in sorted(rounds_dir.glob("isolation-*.json")):  # which CPUs the benchmarks had (docs/noise.md)
        rec = _json(f, round_schema.ISOLATION)
        if isinstance(rec, dict) and rec.get("host"):
            isolation[rec["host"]] = rec.get("isolation")
    if isolation:
        record["isolation"] = isolation
    stops = {}
    for host in hosts:  # why the rounds for the wide rows stopped, and the goal (lab/added_rounds.py)
        f = rounds_dir / round_record.ADDED_STOP_FILE.format(host=host)
        if f.exists():
            rec = _json(f, round_schema.ADDED_STOP)
            stops[host] = {k: rec.get(k) for k in ("goal-pct", "why")}
    if stops:
        record["added-stop"] = stops
    budget = _budget(rounds_dir)
    if budget:
        record["budget"] = budget
    ab = staging_run / AB_FILE
    if ab.exists():  # an A/B run (make lab-ab): which BASE its <target>~base sides ran
        record["ab"] = _json(ab, round_schema.AB)
    # Written only once every record above was read and checked: a merge that stops on one leaves the
    # staging run as it was (an earlier merge's files included), not half merged.
    for target, text in merged.items():
        jsonfile.write_text(staging_run / f"{target}.txt", text, run=staging_run)  # by rename: never through a link
    jsonfile.write(staging_run / "rounds.json", record, ensure_ascii=False, run=staging_run)
    return sorted(files), missing


def _added(rec, files):
    """An added round's record (added_rounds.py's plan) with the benchmarks its files hold,
    which is how readers know the rows it measured (round_record.in_round)."""
    names = set()
    for t in rec["order"]:
        f = dict(files.get(t, [])).get(rec["round"])
        if f is not None:
            names |= {line.split(maxsplit=1)[0] for line in _read(f).split("\n") if line.startswith("Benchmark")}
    return dict(rec["added"], benchmarks=sorted(names))


def _budget(rounds_dir):
    """rounds.json `budget` of a run in a time budget (lab/budget.py): the plan and, per host, what its
    rounds did with it; {} for a run without one."""
    plan = rounds_dir / BUDGET_FILE
    if not plan.exists():
        return {}
    hosts = {}
    for f in sorted(rounds_dir.glob("budget-*.json")):
        rec = _json(f, round_schema.BUDGET_HOST)
        hosts[rec.get("host") or f.stem.removeprefix("budget-")] = {k: v for k, v in rec.items() if k != "host"}
    return {"plan": _json(plan, round_schema.BUDGET_PLAN), "hosts": hosts}


def _json(path, schema):
    return jsonfile.read(path, round_record.RECORD_EXPECTED, schema)


# The lab's rounds per profile, one repetition each. benchrun alone repeats
# quick 6 times (bench-src/go/benchrun/options.go Counts); the lab gives it 10
# rounds because its targets are decided paired by round (decide/paired.py):
# the signed-rank test on six rounds passes only when all six agree, so one
# slow spell hid a 5 % difference; with ten, a spell in one or two rounds does
# not (docs/noise.md "Paired by round"). TCG guests take six, the fewest with a
# finite 95 % interval (bench_rounds_by_kind).
PROFILE_ROUNDS = {"smoke": 1, "quick": 10, "full": 10}


def rounds_for(profile, count=0):
    """Rounds for a profile, or `count` when it is set (> 0)."""
    if int(count) > 0:
        return int(count)
    if profile not in PROFILE_ROUNDS:
        raise InputError("bench_profile", f"{profile!r}: expected one of {', '.join(PROFILE_ROUNDS)}")
    return PROFILE_ROUNDS[profile]


def host_failed(failed, targets, host, round_no, why):
    """`failed` ({target: {round, rounds_done, msg}}) once every target of a host that stopped answering
    before round `round_no` is in it: those already there keep their own record, the others get
    "host <host> <why>" at this round, with the rounds before it done."""
    out = {t: {"round": int(round_no), "rounds_done": int(round_no) - 1, "msg": f"host {host} {why}"}
           for t in targets}
    out.update(failed or {})
    return out


def missing_targets(record):
    """The targets a partial run lacks in full: failed ones and those with missing rounds."""
    return set(record.get("failed", {})) | set(record.get("missing-rounds", {}))


def targets_of_hosts(record, hosts):
    """The targets a rounds record measured on these hosts (from every round's order)."""
    return {t for h in hosts for r in record.get("hosts", {}).get(h, []) for t in r.get("order", [])}


def fill_in_allowed(old, new):
    """What a fill-in may add to the partial run `old`: its missing targets, and
    every target the fill-in (`new`) measured on a host that failed in `old`,
    which may include guests and containers the run never saw (the host was
    down before they were found)."""
    return missing_targets(old) | targets_of_hosts(new, old.get("failed-hosts", {}))


def fill_in(old, new, targets):
    """The record of a partial run after `targets` were measured again in full
    (their own rounds, in `new`): their failures and missing rounds are gone,
    the fill-in's rounds are kept under `filled-in`, and the run is partial
    only while something is still missing."""
    out = json.loads(json.dumps(old))
    for t in targets:
        out.get("failed", {}).pop(t, None)
        out.get("missing-rounds", {}).pop(t, None)
        out.get("fingerprint-changed", {}).pop(t, None)
    for t in targets:
        if t in new.get("fingerprint-changed", {}):
            out.setdefault("fingerprint-changed", {})[t] = new["fingerprint-changed"][t]
    for t, ks in new.get("missing-rounds", {}).items():
        out.setdefault("missing-rounds", {})[t] = ks
    for t, why in new.get("failed", {}).items():
        out.setdefault("failed", {})[t] = why
    for host in new.get("hosts", {}):
        out.get("failed-hosts", {}).pop(host, None)  # it answered and measured this time
    for host, why in new.get("failed-hosts", {}).items():
        out.setdefault("failed-hosts", {})[host] = why
    out.setdefault("filled-in", []).append({
        "targets": sorted(targets),
        "hosts": new.get("hosts", {}),
        **({"isolation": new["isolation"]} if new.get("isolation") else {}),
        "note": "measured after the run, not interleaved with the targets it finished",
    })
    out["partial"] = bool(out.get("failed") or out.get("missing-rounds") or out.get("failed-hosts"))
    return out
