"""Loading scenarios.yaml, and which of a run's targets a scenario covers."""

from importlib import resources

import yaml

from ..errors import InputError
from ..results import jsonfile, yamlfile
from ..results.targets import matches

REQUIRED = ("seed", "file", "title", "point", "programs", "only", "targets", "seed-figures", "expect")
_TEXT = {"type": "string", "minLength": 1}
# The fields every reader of a scenario takes as they are (the plan iterates targets and joins `only`);
# seed-figures and expect are each judge's own, read from the package's file only.
SCHEMA = {"type": "object", "required": ["scenarios"], "properties": {"scenarios": {"type": "array", "items": {
    "type": "object", "required": list(REQUIRED),
    "properties": {"seed": {"type": ["string", "integer"]}, "file": _TEXT, "title": _TEXT, "point": _TEXT,
                   "programs": {"type": "array", "items": _TEXT},
                   "only": {**_TEXT, "description": "benchrun's --only regular expression (a string)"},
                   "targets": {"type": "array", "items": _TEXT,
                               "description": "a list of target names or glob patterns"},
                   "seed-figures": {"type": "object"}, "expect": {"type": "object"}}}}}}  # min-rounds: checked below


def load_scenarios(path=None):
    """The scenarios in file order; InputError naming the file and entry on a bad one."""
    if path is None:
        ref = resources.files("vmparity.repro").joinpath("scenarios.yaml")
        text, where = ref.read_text(encoding="utf-8"), "vmparity/repro/scenarios.yaml"
    else:  # bounded: a FIFO, /dev/zero or an alias bomb given as --scenarios is exit 2, not a hang
        text, where = yamlfile.read_text(path, "a YAML file of scenarios"), str(path)
    try:
        data = yamlfile.safe_load(text, where)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise InputError(where, f"not YAML ({getattr(e, 'problem', None) or e}): expected a mapping with a "
                                "`scenarios:` list", mark.line + 1 if mark else None) from None
    if not isinstance(data, dict) or not isinstance(data.get("scenarios"), list):
        raise InputError(where, "expected a mapping with a `scenarios:` list")
    for i, sc in enumerate(data["scenarios"]):
        missing = [k for k in REQUIRED if not isinstance(sc, dict) or k not in sc]
        if missing:
            raise InputError(where, f"scenario #{i + 1} lacks {', '.join(missing)}")
    if path is not None:  # the shape before anything hashes a seed or walks the targets
        jsonfile.check_shape(where, data, SCHEMA)
    seen = set()
    for i, sc in enumerate(data["scenarios"]):
        if sc["seed"] in seen:
            raise InputError(where, f"scenario #{i + 1}: seed {sc['seed']} listed twice")
        rounds = sc.get("min-rounds", 1)
        if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
            raise InputError(where, f"scenario #{i + 1} (seed {sc['seed']}): min-rounds {rounds!r}: "
                                    "expected a whole number of rounds, 1 or more")
        seen.add(sc["seed"])
    return data["scenarios"]


def covered_targets(scenario, run_targets):
    """(target, present) pairs: every run target a pattern matches, in run order,
    and every plain name or pattern that matched nothing (so it is not left out).
    A pattern names targets without their rack suffix (vmparity.results.targets.matches)."""
    out, seen = [], set()
    for pattern in scenario["targets"]:
        matched = [t for t in run_targets if matches(t, pattern)]
        for t in matched:
            if t not in seen:
                seen.add(t)
                out.append((t, True))
        if not matched:
            out.append((pattern, False))
    return out
