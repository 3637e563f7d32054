"""`vmparity lab repro-plan`: which benchmarks `make repro` runs on which target.

The scenarios (vmparity/repro/scenarios.yaml) say which targets each seed
needs and which benchrun jobs (`only`) it reads. A target covered by several
scenarios runs the union of their jobs; a target no scenario covers does not
run at all. That keeps the slow TCG guests from running benchmarks no verdict
reads.

The lab's targets come from the same variant files the lab is built from
(vmparity.lab.variants), named by vmparity.results.targets. The output is JSON
extra-vars for ansible/playbooks/bench.yml (`bench_only_by_target`,
`bench_targets_only`, and `bench_count` when a scenario needs more rounds than
the profile gives: `min-rounds`); with --write DIR, also lab-up.yml's settings
that start only the guests and containers the plan needs.
"""

import json
from pathlib import Path

from ..errors import InputError
from ..results.targets import container_target, container_variant, guest_target, guest_variant, metal_target
from ..repro.scenarios import covered_targets, load_scenarios
from . import rounds, variants


def lab_targets(guests_file, containers_file):
    """Every target name the local lab can have, metal first, in file order."""
    return ([metal_target()] + [guest_target(v) for v in variants.load_guests(guests_file)]
            + [container_target(v) for v in variants.load_containers(containers_file)])


def plan(scenarios, targets, wanted=None):
    """{target: benchrun --only regex} for every target a scenario covers, in lab order.

    `wanted` restricts the plan to those targets; naming one the lab does not
    have is an error (a typo would otherwise silently run nothing there).
    """
    if wanted:
        unknown = [w for w in wanted if w not in targets]
        if unknown:
            raise InputError("REPRO_TARGETS", f"unknown target(s) {', '.join(unknown)}; "
                                              f"the lab has {', '.join(targets)}")
        targets = [t for t in targets if t in wanted]
    only = {}
    for sc in scenarios:
        for name, present in covered_targets(sc, targets):
            if present:
                only.setdefault(name, []).append(sc["only"])
    # benchrun anchors nothing itself: each scenario's regex keeps its own anchors.
    return {t: "|".join(f"(?:{r})" for r in only[t]) for t in targets if t in only}


def provision_vars(by_target):
    """lab-up.yml settings that start only the guests and containers the plan uses,
    and the roles to skip when it uses none of one kind."""
    chosen = {"guests": [guest_variant(t) for t in by_target if guest_variant(t)],
              "containers": [container_variant(t) for t in by_target if container_variant(t)]}
    skip = [role for role, chosen_variants in chosen.items() if not chosen_variants]
    return {"guests_variants_only": chosen["guests"], "containers_variants_only": chosen["containers"]}, skip


def extra_rounds(scenarios, by_target, profile):
    """bench_count for the plan: the largest `min-rounds` of a scenario that runs on a planned target (a
    verdict whose interval needs more samples to be decided) where it exceeds the profile's rounds, else 0."""
    want = max((sc.get("min-rounds", 1) for sc in scenarios
                if any(present for _, present in covered_targets(sc, list(by_target)))), default=1)
    return want if want > rounds.rounds_for(profile) else 0


def bench_vars(by_target, count=0):
    """bench.yml's settings for the plan; count: rounds instead of the profile's (0: the profile's)."""
    out = {"bench_only_by_target": by_target, "bench_targets_only": list(by_target)}
    if count:
        out["bench_count"] = count
    return out


def write_plan(by_target, directory, count=0):
    """bench-vars.json and provision-vars.json in directory; returns the
    ansible-playbook arguments for lab-up.yml."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    prov, skip = provision_vars(by_target)
    for name, data in (("bench-vars.json", bench_vars(by_target, count)), ("provision-vars.json", prov)):
        (directory / name).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    args = ["-e", f"@{directory.resolve() / 'provision-vars.json'}"]
    return args + (["--skip-tags", ",".join(skip)] if skip else [])


def run(out, guests_file, containers_file, targets="", scenarios=None, write=None, profile="quick"):
    """The command: print bench.yml's settings, or with `write` write both files and
    print lab-up.yml's arguments. InputError when the plan would run nothing."""
    if profile not in rounds.PROFILE_ROUNDS:
        raise InputError("--profile", f"{profile!r}: expected one of {', '.join(rounds.PROFILE_ROUNDS)}")
    wanted = [t for t in targets.replace(",", " ").split() if t]
    loaded = load_scenarios(scenarios)
    by_target = plan(loaded, lab_targets(guests_file, containers_file), wanted)
    if not by_target:
        raise InputError("REPRO_TARGETS", "no scenario covers any of the chosen targets")
    count = extra_rounds(loaded, by_target, profile)
    if write:
        out.write(" ".join(write_plan(by_target, write, count)) + "\n")
    else:
        json.dump(bench_vars(by_target, count), out, indent=2)
        out.write("\n")
    return 0
