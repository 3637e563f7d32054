"""The shape of rounds.json and of the staging records it is merged from (lab/rounds.py): one
JSON Schema, checked by every reader before it looks inside (round_record.load, the merge,
ingest --rounds). A record of another shape is refused naming the field, instead of ending a
command in a traceback where a reader first meets it (`"hosts": []`, a string among a host's
rounds, `"shift-pct": "46.7"`, `"ab": "main"`).

Only what readers rely on is fixed: the types of the fields they read, and names that become
file names (a host, a target: results/targets.py). Fields a later lab adds are let through.
"""

from .targets import PLAIN_NAME_SCHEMA, TARGET_NAME_SCHEMA

SCHEMA = "vmparity-rounds/1"

_NUMBER = {"type": "number"}
_COUNT = {"type": "integer", "minimum": 0}
_OPTIONAL_NUMBER = {"type": ["number", "null"]}
_TARGET = TARGET_NAME_SCHEMA
# When a target ran, on the controller's clock as Ansible's command module gives it: without a UTC
# offset, so that any two can be subtracted (an aware time and a naive one cannot).
_TIME = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?$",
         "description": "a time as `2026-11-28 08:48:46.217997` (the controller's clock, no UTC offset)"}
_TIMING = {"type": ["object", "null"], "properties": {"start": _TIME, "end": _TIME}}

# One round of one host: rounds/<k>/host-<host>.json in a staging run, an entry of `hosts` in rounds.json.
ROUND = {
    "type": "object",
    "required": ["round", "order"],
    "properties": {
        "host": PLAIN_NAME_SCHEMA,
        "round": _COUNT,
        "seed": {"type": ["integer", "null"]},
        "order": {"type": "array", "items": _TARGET},
        "hygiene": {"type": "object"},
        "timings": {"type": ["object", "null"], "additionalProperties": _TIMING},
        "added": {"type": ["object", "null"], "properties": {
            "benchmarks": {"type": "array", "items": {"type": "string"}},
            "jobs": {"type": "array", "items": {"type": "string"}},
            "goal-pct": _OPTIONAL_NUMBER,
            "reason": {"type": "string"},
        }},
    },
}

# A staging run's round record names its host: the merge files its rounds under it.
STAGING_ROUND = dict(ROUND, required=["host", "round", "order"])

# A repetition a slow spell disturbed and the lab measured again: read from the runs before
# 2026-12-06, when that layer was removed (docs/method.md); no longer written.
_REMEASURE = {
    "type": "object",
    "required": ["target", "round", "job"],
    "properties": {
        "target": _TARGET, "round": _COUNT, "job": {"type": "string"}, "host": {"type": "string"},
        "status": {"type": "string"}, "pass": _COUNT, "kept": {"type": "boolean"}, "rows": _COUNT,
        "shift-pct": _OPTIONAL_NUMBER, "after-shift-pct": _OPTIONAL_NUMBER, "threshold-pct": _OPTIONAL_NUMBER,
        "slower-rows": {"type": "object", "additionalProperties": _OPTIONAL_NUMBER},
    },
}

_PER_TARGET = {"type": "object", "propertyNames": _TARGET}

ROUNDS = {
    "type": "object",
    "required": ["schema", "hosts"],
    "properties": {
        "schema": {"const": SCHEMA},
        "hosts": {"type": "object", "propertyNames": PLAIN_NAME_SCHEMA,
                  "additionalProperties": {"type": "array", "items": ROUND}},
        "missing-rounds": dict(_PER_TARGET, additionalProperties={"type": "array", "items": _COUNT}),
        "fingerprint-changed": dict(_PER_TARGET, additionalProperties={"type": "object"}),
        "failed": dict(_PER_TARGET, additionalProperties={"type": "object"}),
        "failed-hosts": {"type": "object"},
        "partial": {"type": "boolean"},
        "remeasured": {"type": "array", "items": _REMEASURE},
        "isolation": {"type": "object", "additionalProperties": {"type": ["object", "null"]}},
        "added-stop": {"type": "object", "additionalProperties": {"type": "object"}},
        # a run in a time budget (lab/budget.py): its plan, and what each host's rounds did with it
        "budget": {"type": "object", "properties": {
            "plan": {"type": "object", "properties": {"minutes": _NUMBER, "planned-rounds": _COUNT}},
            "hosts": {"type": "object", "additionalProperties": {"type": "object", "properties": {
                "measured-seconds": _NUMBER, "planned-rounds-measured": _COUNT,
                "skipped-rounds": {"type": "array", "items": _COUNT}}}},
        }},
        "ab": {"type": "object", "properties": {
            "base-ref": {"type": "string"}, "base-commit": {"type": "string"},
            # a target the A/B run left out: its kind, the rounds that kind takes and the rounds a side needs
            "not-measured": dict(_PER_TARGET, additionalProperties={"type": "object", "properties": {
                "kind": {"type": "string"}, "rounds": {"type": "integer"}, "need": {"type": "integer"}}}),
            "without-base": dict(_PER_TARGET, additionalProperties={"type": "object"}),
        }},
    },
}

# The other staging records the merge reads (lab/rounds.py's layout): every one a mapping of the
# fields it uses, so that the merge meets no list or string where it looks up a field.
FAILED = {  # rounds/failed-<host>.json: the targets that failed on a host, or the host itself
    "type": "object",
    "properties": {"host": PLAIN_NAME_SCHEMA, "failed": dict(_PER_TARGET, additionalProperties={"type": "object"}),
                   "host-failed": {"type": ["object", "null"]}},
}
ISOLATION = {"type": "object", "properties": {"host": PLAIN_NAME_SCHEMA}}  # rounds/isolation-<host>.json
ADDED_STOP = {  # rounds/added-stop-<host>.json
    "type": "object",
    "properties": {"host": PLAIN_NAME_SCHEMA, "goal-pct": _OPTIONAL_NUMBER, "why": {"type": ["string", "null"]}},
}
BUDGET_PLAN = ROUNDS["properties"]["budget"]["properties"]["plan"]  # rounds/budget.json
BUDGET_HOST = dict(ROUNDS["properties"]["budget"]["properties"]["hosts"]["additionalProperties"],  # budget-<host>.json
                   properties=dict(ROUNDS["properties"]["budget"]["properties"]["hosts"]["additionalProperties"]["properties"],
                                   host=PLAIN_NAME_SCHEMA))
AB = ROUNDS["properties"]["ab"]  # ab.json of an A/B staging run, kept in rounds.json as `ab`
