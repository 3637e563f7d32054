"""Loading scenarios.yaml, and which of a run's targets a scenario covers."""

from importlib import resources
from pathlib import Path

import yaml

from ..errors import InputError
from ..results.targets import matches

REQUIRED = ("seed", "file", "title", "point", "programs", "only", "targets", "seed-figures", "expect")


def load_scenarios(path=None):
    """The scenarios in file order; InputError naming the file and entry on a bad one."""
    if path is None:
        ref = resources.files("vmparity.repro").joinpath("scenarios.yaml")
        text, where = ref.read_text(encoding="utf-8"), "vmparity/repro/scenarios.yaml"
    else:
        text, where = Path(path).read_text(encoding="utf-8"), str(path)
    data = yaml.safe_load(text)
    if not isinstance(data, dict) or not isinstance(data.get("scenarios"), list):
        raise InputError(where, "expected a mapping with a `scenarios:` list")
    seen = set()
    for i, sc in enumerate(data["scenarios"]):
        missing = [k for k in REQUIRED if not isinstance(sc, dict) or k not in sc]
        if missing:
            raise InputError(where, f"scenario #{i + 1} lacks {', '.join(missing)}")
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
