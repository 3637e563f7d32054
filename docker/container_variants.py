#!/usr/bin/env python3
"""Check docker/variants.yml and resolve each container variant for this host.

    container_variants.py [FILE] [--host-cpus N] [--json]

Prints, per variant, the `docker run` settings (network, cpus as a decimal or
null, memory_mib); exits 1 with "FILE: variant 'X', field 'Y': expected ..."
on a bad file, including a quota that is not below the visible CPUs.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

import yaml

DEFAULT_FILE = Path(__file__).with_name("variants.yml")
FIELDS = ("network", "cpus", "cpus_fraction_of_host", "memory_mib")
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,40}$")


class ContainerVariantError(ValueError):
    pass


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x > 0


def resolve(path: Path | str = DEFAULT_FILE, host_cpus: int | None = None) -> dict[str, dict]:
    path, host_cpus = Path(path), host_cpus or os.cpu_count()
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ContainerVariantError(f"{path}: cannot read it as YAML: {exc}") from exc
    if not isinstance(data, dict) or set(data) != {"defaults", "variants"}:
        raise ContainerVariantError(f"{path}: expected exactly the top-level keys 'defaults' and 'variants'")
    defaults = data["defaults"] or {}
    if set(defaults) != set(FIELDS):
        raise ContainerVariantError(f"{path}: 'defaults' must set exactly {', '.join(FIELDS)}; "
                                    f"got {', '.join(sorted(defaults))}")
    out = {}
    for name, fields in (data["variants"] or {}).items():
        def fail(field, expected, got):
            raise ContainerVariantError(f"{path}: variant '{name}', field '{field}': "
                                        f"expected {expected}, got {got!r}")
        if not isinstance(name, str) or not NAME_RE.match(name):
            fail("(name)", "lower-case letters, digits and '-'", name)
        fields = fields or {}
        for field in fields:
            if field not in FIELDS:
                fail(field, f"one of the known fields ({', '.join(FIELDS)})", "unknown field")
        v = {**defaults, **fields}
        if v["network"] != "none":
            fail("network", "'none' (the lab never networks a container)", v["network"])
        if not _number(v["memory_mib"]):
            fail("memory_mib", "a positive number of MiB", v["memory_mib"])
        if v["cpus"] is not None and v["cpus_fraction_of_host"] is not None:
            fail("cpus", "either cpus or cpus_fraction_of_host, not both", v["cpus"])
        cpus = v["cpus"]
        if v["cpus_fraction_of_host"] is not None:
            frac = v["cpus_fraction_of_host"]
            if not _number(frac) or frac >= 1:
                fail("cpus_fraction_of_host", "a number between 0 and 1", frac)
            cpus = round(host_cpus * frac, 2)
        if cpus is not None and (not _number(cpus) or cpus >= host_cpus):
            fail("cpus", f"a quota below the {host_cpus} visible CPUs (or null for no limit)", cpus)
        out[name] = {"network": "none", "cpus": cpus, "memory_mib": v["memory_mib"]}
    if not out:
        raise ContainerVariantError(f"{path}: 'variants' is empty")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("file", nargs="?", default=str(DEFAULT_FILE))
    p.add_argument("--host-cpus", type=int)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    try:
        variants = resolve(args.file, args.host_cpus)
    except ContainerVariantError as exc:
        print(f"container_variants: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(variants, indent=2, sort_keys=True))
    else:
        for name, v in variants.items():
            print(f"{name}: --network none --cpus {v['cpus'] or 'unlimited'} --memory {v['memory_mib']}m")
    return 0


if __name__ == "__main__":
    sys.exit(main())
