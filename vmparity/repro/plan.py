"""`python -m vmparity.repro.plan`: which benchmarks `make repro` runs on which target.

The scenarios say which targets each seed needs and which benchrun jobs
(`only`) it reads. A target covered by several scenarios runs the union of
their jobs; a target no scenario covers does not run at all. That keeps the
slow TCG guests from running benchmarks no verdict reads.

The lab's targets are read from the same data the lab is built from:
`metal`, `guest-<variant>` for vm-templates/variants.yml and
`container-<variant>` for docker/variants.yml. The output is JSON extra-vars
for ansible/playbooks/bench.yml (`bench_only_by_target`, `bench_targets_only`);
with --write DIR, also lab-up.yml's settings that start only the guests and
containers the plan needs.
"""

import argparse
import json
import sys
from pathlib import Path

import yaml

from ..errors import InputError
from .scenarios import covered_targets, load_scenarios


def lab_targets(variants_file, containers_file):
    """Every target name the local lab can have, metal first, in file order."""
    names = ["metal"]
    for prefix, path in (("guest-", variants_file), ("container-", containers_file)):
        try:
            data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        except OSError as e:
            raise InputError(path, f"cannot read the variants file: {e.strerror}") from e
        except yaml.YAMLError as e:
            raise InputError(path, f"not valid YAML: {e}") from e
        variants = data.get("variants") if isinstance(data, dict) else None
        if not isinstance(variants, dict) or not variants:
            raise InputError(path, "expected a mapping with a non-empty `variants:` mapping")
        names += [prefix + str(v) for v in variants]
    return names


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
    chosen = {"guests": [], "containers": []}
    for t in by_target:
        for role, prefix in (("guests", "guest-"), ("containers", "container-")):
            if t.startswith(prefix):
                chosen[role].append(t[len(prefix):])
    skip = [role for role, variants in chosen.items() if not variants]
    return {"guests_variants_only": chosen["guests"], "containers_variants_only": chosen["containers"]}, skip


def bench_vars(by_target):
    """bench.yml's settings for the plan."""
    return {"bench_only_by_target": by_target, "bench_targets_only": list(by_target)}


def write_plan(by_target, directory):
    """bench-vars.json and provision-vars.json in directory; returns the
    ansible-playbook arguments for lab-up.yml."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    prov, skip = provision_vars(by_target)
    for name, data in (("bench-vars.json", bench_vars(by_target)), ("provision-vars.json", prov)):
        (directory / name).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    args = ["-e", f"@{directory.resolve() / 'provision-vars.json'}"]
    return args + (["--skip-tags", ",".join(skip)] if skip else [])


def main(argv, out=sys.stdout, err=sys.stderr):
    ap = argparse.ArgumentParser(prog="python -m vmparity.repro.plan", description=__doc__.splitlines()[0])
    ap.add_argument("--variants", required=True, help="vm-templates/variants.yml")
    ap.add_argument("--containers", required=True, help="docker/variants.yml")
    ap.add_argument("--targets", default="", help="space- or comma-separated targets to keep (default: all)")
    ap.add_argument("--scenarios", help="scenario file (default: the package's scenarios.yaml)")
    ap.add_argument("--write", metavar="DIR",
                    help="write DIR/bench-vars.json and DIR/provision-vars.json, and print lab-up.yml's arguments")
    args = ap.parse_args(argv)
    wanted = [t for t in args.targets.replace(",", " ").split() if t]
    try:
        by_target = plan(load_scenarios(args.scenarios), lab_targets(args.variants, args.containers), wanted)
    except InputError as e:
        err.write(f"vmparity.repro.plan: {e}\n")
        return 2
    if not by_target:
        err.write("vmparity.repro.plan: no scenario covers any of the chosen targets\n")
        return 2
    if args.write:
        out.write(" ".join(write_plan(by_target, args.write)) + "\n")
    else:
        json.dump(bench_vars(by_target), out, indent=2)
        out.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
