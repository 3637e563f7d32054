"""A lab run in the minutes its user gives it (`make lab-up LAB_MINUTES=N`).

Once the lab is provisioned, the bench role asks `plan` how to spend what is
left of the budget (budget.yaml says what each figure is and the measurement
behind it):

- every kind gets its floor of rounds, the fewest at which it decides what it
  is there to decide: six for metal, its A/A pass, containers and KVM guests
  (a row decided round by round), three for TCG guests, whose timing is the
  emulator's and whose verdicts come from their fingerprints (capped there:
  more rounds buy them nothing);
- the planned rounds of metal and the containers then go up to the profile's
  count as far as the time allows, because the host's slow spells, not a
  repetition's length, set most rows' spread here (docs/noise.md, "Shorter
  repetitions"): time buys sensitivity as rounds, the level whose variance
  dominates (Kalibera & Jones, ISMM 2013);
- what is left goes, at run time, to the rounds added for the rows still wide
  and the rows beyond noise measured again, each phase its share of what is
  left when it starts (rounds.yml), and each stops early once it has nothing
  to do: no wide row, nothing beyond noise.

A planned round past the floor is skipped when the time its targets took so far
says it would end after the deadline (round_in_budget.yml), so a slower host
than the estimates gets fewer rounds, not a longer run. The estimates are this
host's own where it has a stored run of the profile (the newest one's medians
per target kind), else budget.yaml's. The plan and what the rounds did are kept
in rounds.json (`budget`), and the report says what the minutes bought
(`reached`) and what twice as many would have bought.
"""

import datetime
import math
import re
import statistics
from importlib import resources
from pathlib import Path

import yaml

from ..errors import InputError
from ..results import round_record
from ..results.targets import METAL_KIND, TCG_GUEST

CONFIG = "budget.yaml"
PLAN_FILE = "budget.json"  # in the staging run's rounds/: the plan, merged into rounds.json `budget`
HOST_FILE = "budget-{host}.json"  # in rounds/: what one host's rounds did with it
# The minimum detectable effect of a median falls as 1/sqrt(rounds); twice the measuring time is
# about twice the rounds of metal and the containers (their floor is well under the budget's rounds).
MORE_TIME = 2.0


def config_name(path=None):
    """How a config is named in messages and the record: a file by its path, one of the package's
    by its place in the package (`verify` is vmparity/lab/budget-verify.yaml, lab-verify's)."""
    if not path:
        return f"vmparity/lab/{CONFIG}"
    return f"vmparity/lab/budget-{path}.yaml" if _packaged(path) else str(path)


def _packaged(path):
    return bool(re.fullmatch(r"[a-z][a-z0-9-]*", str(path)))


def load_config(path=None):
    """budget.yaml (the package's, one of the package's by name, or the file `path`), checked for the
    keys `plan` reads."""
    where = config_name(path)
    try:
        if not path or _packaged(path):
            text = resources.files(__package__).joinpath(Path(where).name).read_text()
        else:
            text = Path(path).read_text()
    except (FileNotFoundError, IsADirectoryError):
        raise InputError(where, "no such budget file: expected a YAML file or the name of one of the "
                                "package's (verify)") from None
    try:
        config = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise InputError(where, f"not YAML: {e}") from None
    need = ("floor-rounds", "cap-rounds", "repetition-seconds", "between-targets-seconds",
            "between-rounds-seconds", "after-seconds", "planned-share", "phase-shares")
    missing = [k for k in need if not isinstance(config, dict) or k not in config]
    if missing:
        raise InputError(where, f"missing {', '.join(missing)}: expected the keys of the package's {CONFIG}")
    made_by = config.setdefault("estimates-from-runs", "lab")
    if made_by not in ("lab", "verify"):
        raise InputError(where, f"estimates-from-runs: {made_by!r}: expected lab or verify")
    return config


def kind_of(target):
    """A target's kind as budget.yaml names it: metal and its A/A pass are `metal`."""
    return target.get("kind") or METAL_KIND


def stored_seconds(runs, profile, kinds, made_by="lab"):
    """({kind: median seconds of one repetition}, run id) from the newest stored run of `profile` made
    by `made_by` (lab: lab-up's, verify: lab-verify's) that timed targets of these kinds ({target name:
    kind}), or ({}, None). A stored run whose rounds.json cannot be read is passed over: an old record
    must not stop a new run."""
    runs = Path(runs)
    if not runs.is_dir():
        return {}, None
    # runs of the same making only (<time>-lab-<profile>): an A/B run doubles every target and a verify
    # run measures some jobs only, so neither times a repetition as lab-up will
    for run in sorted((p for p in runs.iterdir() if p.name.endswith(f"-{made_by}-{profile}")), reverse=True):
        try:
            record = round_record.load(run)
        except (InputError, OSError):
            continue
        seconds = {}
        for rounds in (record or {}).get("hosts", {}).values():
            for r in rounds:
                if r.get("added"):
                    continue  # an added round runs only some jobs: not a repetition's time
                for target, when in (r.get("timings") or {}).items():
                    if target in kinds and when and when.get("start") and when.get("end"):
                        s = _seconds_between(when["start"], when["end"])
                        if s is not None and s > 0:
                            seconds.setdefault(kinds[target], []).append(s)
        if seconds:
            return {k: round(statistics.median(v), 2) for k, v in seconds.items()}, run.name
    return {}, None


def _seconds_between(start, end):
    try:
        return (datetime.datetime.fromisoformat(end) - datetime.datetime.fromisoformat(start)).total_seconds()
    except ValueError:
        return None


def plan(minutes, started, now, hosts, profile, most, config, stored=None, stored_run=None, config_name=None):
    """How to spend `minutes` from `started` (epoch seconds; site.yml's start) when planning at `now`:
    hosts {host: [{target, kind}]} measure side by side, `most` is the profile's rounds.
    Returns the bench role's facts and the record rounds.json keeps."""
    if minutes <= 0:
        raise InputError("LAB_MINUTES", f"{minutes!r}: expected a positive number of minutes")
    defaults = config["repetition-seconds"].get(profile)
    if defaults is None:
        raise InputError(CONFIG, f"no repetition-seconds for profile {profile!r}: expected one of "
                                 f"{', '.join(config['repetition-seconds'])}")
    per_kind = {**defaults, **(stored or {})}
    floors, caps = config["floor-rounds"], config["cap-rounds"]
    deadline = started + 60 * minutes - config["after-seconds"]
    available = deadline - now
    cost = {host: {t["target"]: per_kind.get(kind_of(t), max(per_kind.values())) + config["between-targets-seconds"]
                   for t in targets} for host, targets in hosts.items()}
    kinds = {t["target"]: kind_of(t) for targets in hosts.values() for t in targets}
    floor = max([floors.get(k, 1) for k in kinds.values()] or [1])

    def seconds(host, rounds):  # the planned rounds of one host, each target within its kind's cap
        return (sum(min(rounds, caps.get(kinds[t], rounds)) * s for t, s in cost[host].items())
                + rounds * config["between-rounds-seconds"])

    # a profile with fewer rounds than the floor (smoke's one) keeps its own
    rounds = min(floor, most)
    room = available * config["planned-share"]
    while rounds < most and all(seconds(h, rounds + 1) <= room for h in hosts):
        rounds += 1
    need = max((seconds(h, rounds) for h in hosts), default=0.0)
    by_kind = {k: min(caps.get(k, rounds), rounds) for k in sorted(set(kinds.values())) if k in caps}
    record = {
        "minutes": minutes,
        "started": _iso(started),
        "planned-at": _iso(now),
        "deadline": _iso(deadline),
        "seconds-left-to-measure": round(available, 1),
        "profile": profile,
        "planned-rounds": rounds,
        "rounds-by-kind": by_kind,
        "repetition-seconds": {k: per_kind[k] for k in sorted(set(kinds.values())) if k in per_kind},
        "estimates-from": stored_run or config_name or f"vmparity/lab/{CONFIG}",
        "planned-seconds": round(need, 1),
    }
    if need > available:
        record["short"] = (f"the fewest rounds ({rounds}) take about {need:.0f} s and {max(available, 0):.0f} s "
                           f"were left to measure: the run will take longer than {minutes:g} min")
    return {
        "count": rounds,
        "rounds_by_kind": by_kind,
        "floor": floor,
        "deadline": round(deadline, 1),
        "target_seconds": {h: {t: round(s, 2) for t, s in c.items()} for h, c in cost.items()},
        "round_overhead": config["between-rounds-seconds"],
        "phase_shares": config["phase-shares"],
        "record": record,
    }


def duration(seconds):
    """`3 min 20 s`, `45 s`: a lab-up progress line's time."""
    seconds = max(int(round(float(seconds))), 0)
    return f"{seconds // 60} min {seconds % 60} s" if seconds >= 60 else f"{seconds} s"


def _iso(epoch):
    return datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def reached(record, fams, kinds):
    """What the budget bought, from rounds.json's `budget` and the run's sensitivity
    (decide.figures.sensitivity): {"plan", "hosts", "measured-seconds", "span": (lowest, highest)
    median minimum detectable effect % over metal's and the containers' families, "more": the same
    with MORE_TIME x the measuring time}; kinds {target: kind}. None for a run without a budget."""
    budget = (record or {}).get("budget")
    if not budget or not budget.get("plan"):
        return None
    measured = [h.get("measured-seconds") for h in budget.get("hosts", {}).values()
                if isinstance(h.get("measured-seconds"), (int, float))]
    medians = [f.median for f in fams if kinds.get(f.target) != TCG_GUEST and math.isfinite(f.median)]
    span = (min(medians), max(medians)) if medians else None
    return {"plan": budget["plan"], "hosts": budget.get("hosts", {}),
            "measured-seconds": max(measured) if measured else None, "span": span,
            "more": tuple(x / math.sqrt(MORE_TIME) for x in span) if span else None}
