#!/usr/bin/env python3
"""Load and check vm-templates/variants.yml; print the merged variants.

    variants_check.py [FILE] [--accel kvm|qemu] [--json]

Exit 0 and a summary (or, with --json, every variant merged with the defaults
and, for --accel qemu, the TCG substitutions applied) when the file is valid;
exit 1 with "FILE:LINE: variant 'X', field 'Y': expected ..." when it is not.
The lab (Ansible) uses --json so the merge rules live in one place.
"""
from __future__ import annotations

import argparse
import copy
import json
import re
import sys
from pathlib import Path

import yaml

DEFAULT_FILE = Path(__file__).with_name("variants.yml")
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,40}$")      # becomes a domain name vmparity-<name>
FEATURE_RE = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
CPU_MODES = ("host-passthrough", "host-model", "maximum")
POLICIES = ("force", "require", "optional", "disable", "forbid")
DISK_CACHES = ("none", "writeback", "writethrough", "directsync", "unsafe", "default")
TOPOLOGY_KEYS = ("sockets", "cores", "threads")
# expect keys are envprobe keys with '_' for '-'; values compare as envprobe's strings
EXPECT_KEYS = ("threads_per_core", "cores_per_socket", "sockets", "cpus_online",
               "topoext", "ht", "clocksource", "vdso", "hypervisor")
FIELDS = ("vcpus", "memory_mib", "cpu_mode", "topology", "features", "pinning",
          "disk_cache", "kernel_cmdline_extra", "hpet", "expect", "tcg")


class VariantError(ValueError):
    """A bad variants file; the message names file, line, variant and field."""


class _Lines:
    """Line numbers of the YAML nodes, looked up by key path."""

    def __init__(self, node: yaml.Node | None):
        self.lines: dict[tuple, int] = {}
        if node is not None:
            self._walk(node, ())

    def _walk(self, node: yaml.Node, path: tuple) -> None:
        self.lines[path] = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                self.lines[path + (key.value,)] = key.start_mark.line + 1
                self._walk(value, path + (key.value,))
                self.lines[path + (key.value,)] = key.start_mark.line + 1
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                self._walk(item, path + (i,))

    def of(self, path: tuple) -> int:
        while path and path not in self.lines:
            path = path[:-1]
        return self.lines.get(path, 1)


def _yes_no(value):
    """YAML 1.1 reads an unquoted yes/no as a bool; envprobe prints yes/no."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value


class _Checker:
    def __init__(self, path: Path, lines: _Lines):
        self.path, self.lines = path, lines

    def fail(self, where: tuple, variant: str, field: str, expected: str, got=None) -> None:
        got_text = "" if got is None else f", got {got!r}"
        raise VariantError(f"{self.path}:{self.lines.of(where)}: variant '{variant}', "
                           f"field '{field}': expected {expected}{got_text}")

    def check(self, name: str, v: dict, where: tuple) -> None:
        def need(cond, field, expected, got=None, sub=()):
            if not cond:
                self.fail(where + (field,) + sub, name, field, expected, got)

        def positive_int(x):
            return isinstance(x, int) and not isinstance(x, bool) and x > 0

        need(positive_int(v["vcpus"]), "vcpus", "a positive integer", v["vcpus"])
        need(positive_int(v["memory_mib"]) and v["memory_mib"] >= 256, "memory_mib",
             "an integer >= 256 (MiB)", v["memory_mib"])
        need(v["cpu_mode"] in CPU_MODES, "cpu_mode", f"one of {', '.join(CPU_MODES)}", v["cpu_mode"])
        topo = v["topology"]
        need(isinstance(topo, dict) and set(topo) == set(TOPOLOGY_KEYS), "topology",
             "a mapping with exactly sockets, cores, threads", topo)
        for key in TOPOLOGY_KEYS:
            need(positive_int(topo[key]), "topology", f"{key} a positive integer", topo[key], (key,))
        product = topo["sockets"] * topo["cores"] * topo["threads"]
        need(v["vcpus"] == product, "vcpus",
             f"sockets*cores*threads = {topo['sockets']}*{topo['cores']}*{topo['threads']} = {product}",
             v["vcpus"])
        need(isinstance(v["features"], list), "features", "a list of {name, policy}", v["features"])
        seen = set()
        for i, feat in enumerate(v["features"]):
            need(isinstance(feat, dict) and set(feat) == {"name", "policy"}, "features",
                 "an entry with exactly 'name' and 'policy'", feat, (i,))
            need(isinstance(feat["name"], str) and FEATURE_RE.match(feat["name"]), "features",
                 "a CPU feature name such as topoext", feat["name"], (i,))
            need(feat["policy"] in POLICIES, "features",
                 f"policy one of {', '.join(POLICIES)}", feat["policy"], (i,))
            need(feat["name"] not in seen, "features", "each feature at most once", feat["name"], (i,))
            seen.add(feat["name"])
        need(isinstance(v["pinning"], bool), "pinning", "true or false", v["pinning"])
        need(v["disk_cache"] in DISK_CACHES, "disk_cache", f"one of {', '.join(DISK_CACHES)}",
             v["disk_cache"])
        extra = v["kernel_cmdline_extra"]
        need(isinstance(extra, str) and "\n" not in extra and "'" not in extra,
             "kernel_cmdline_extra", "one line of kernel parameters (no quotes)", extra)
        need(isinstance(v["hpet"], bool), "hpet", "true or false", v["hpet"])
        need(isinstance(v["expect"], dict), "expect", "a mapping", v["expect"])
        for key in v["expect"]:
            need(key in EXPECT_KEYS, "expect", f"keys among {', '.join(EXPECT_KEYS)}", key, (key,))
        tcg = v["tcg"]
        need(isinstance(tcg, dict) and set(tcg) == {"cpu_mode", "unsupported_features"}, "tcg",
             "a mapping with exactly cpu_mode and unsupported_features", tcg)
        need(tcg["cpu_mode"] in CPU_MODES and tcg["cpu_mode"] != "host-passthrough", "tcg",
             "cpu_mode one TCG can run: host-model or maximum", tcg["cpu_mode"], ("cpu_mode",))
        unsupported = tcg["unsupported_features"]
        need(isinstance(unsupported, dict), "tcg",
             "unsupported_features a mapping of feature name -> [expect keys it carries]",
             unsupported, ("unsupported_features",))
        for feature, keys in unsupported.items():
            need(isinstance(keys, list) and all(k in EXPECT_KEYS for k in keys), "tcg",
                 f"a list of expect keys among {', '.join(EXPECT_KEYS)}", keys,
                 ("unsupported_features", feature))


def _merge(defaults: dict, override: dict) -> dict:
    """Defaults with the variant's fields on top; mappings merge one level deep."""
    merged = copy.deepcopy(defaults)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict) and key != "expect":
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def load(path: Path | str = DEFAULT_FILE) -> dict[str, dict]:
    """Every variant merged with the defaults and checked; raises VariantError."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise VariantError(f"{path}: cannot read the variants file: {exc.strerror}") from exc
    try:
        lines = _Lines(yaml.compose(text))
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        raise VariantError(f"{path}{line}: not valid YAML: {exc}") from exc
    checker = _Checker(path, lines)
    if not isinstance(data, dict) or set(data) != {"defaults", "variants"}:
        got = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise VariantError(f"{path}:1: expected exactly the top-level keys 'defaults' and "
                           f"'variants', got {got}")
    defaults, variants = data["defaults"], data["variants"]
    if not isinstance(defaults, dict) or set(defaults) != set(FIELDS):
        missing = sorted(set(FIELDS) - set(defaults or {}))
        unknown = sorted(set(defaults or {}) - set(FIELDS))
        raise VariantError(f"{path}:{lines.of(('defaults',))}: 'defaults' must set every field "
                           f"exactly once; missing {missing}, unknown {unknown}")
    if not isinstance(variants, dict) or not variants:
        raise VariantError(f"{path}:{lines.of(('variants',))}: 'variants' must be a non-empty "
                           "mapping of name -> fields")
    merged = {}
    for name, fields in variants.items():
        where = ("variants", name)
        if not isinstance(name, str) or not NAME_RE.match(name):
            raise VariantError(f"{path}:{lines.of(where)}: variant '{name}': expected a name of "
                               "lower-case letters, digits and '-' (it becomes vmparity-<name>)")
        fields = fields or {}
        if not isinstance(fields, dict):
            raise VariantError(f"{path}:{lines.of(where)}: variant '{name}': expected a mapping "
                               f"of fields, got {fields!r}")
        for field in fields:
            if field not in FIELDS:
                checker.fail(where + (field,), name, field,
                             f"one of the known fields ({', '.join(FIELDS)})", "unknown field")
        variant = _merge(defaults, fields)
        variant["expect"] = {k: _yes_no(v) for k, v in variant["expect"].items()}
        checker.check(name, variant, where)
        merged[name] = variant
    return merged


def effective(variant: dict, accel: str) -> dict:
    """The variant as the domain will really get it under `accel`.

    kvm: unchanged. qemu (TCG): the CPU mode becomes tcg.cpu_mode and a
    require/force of a feature TCG cannot present becomes optional, so the
    guest still boots; each change is listed in `tcg_adjustments`, and the
    expectations it makes unreachable (tcg.unsupported_features[feature])
    move to `expect_dropped`. The template
    (domain.xml.j2) applies the same rules from the same `tcg` data.
    """
    if accel not in ("kvm", "qemu"):
        raise VariantError(f"accel: expected 'kvm' or 'qemu', got {accel!r}")
    v = copy.deepcopy(variant)
    v["tcg_adjustments"], v["expect_dropped"] = [], {}
    if accel == "kvm":
        return v
    if v["cpu_mode"] in ("host-passthrough", "host-model"):
        v["tcg_adjustments"].append(f"cpu_mode {v['cpu_mode']} -> {v['tcg']['cpu_mode']} (TCG has no host CPU)")
        v["cpu_mode"] = v["tcg"]["cpu_mode"]
    for feat in v["features"]:
        if feat["name"] in v["tcg"]["unsupported_features"] and feat["policy"] in ("require", "force"):
            v["tcg_adjustments"].append(
                f"feature {feat['name']} policy {feat['policy']} -> optional (TCG cannot present it)")
            feat["policy"] = "optional"
            for key in v["tcg"]["unsupported_features"][feat["name"]]:
                if key in v["expect"]:
                    v["expect_dropped"][key] = v["expect"].pop(key)
    return v


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", default=str(DEFAULT_FILE))
    parser.add_argument("--accel", choices=("kvm", "qemu"), help="apply this acceleration's substitutions")
    parser.add_argument("--json", action="store_true", help="print the merged variants as JSON")
    args = parser.parse_args(argv)
    try:
        variants = load(args.file)
        if args.accel:
            variants = {n: effective(v, args.accel) for n, v in variants.items()}
    except VariantError as exc:
        print(f"variants_check: {exc}", file=sys.stderr)
        return 1
    if args.json:
        json.dump(variants, sys.stdout, indent=2, sort_keys=True)
        print()
    else:
        for name, v in variants.items():
            t = v["topology"]
            notes = "; ".join(v.get("tcg_adjustments", []))
            print(f"{name}: {v['vcpus']} vCPUs ({t['sockets']}s/{t['cores']}c/{t['threads']}t), "
                  f"{v['memory_mib']} MiB, cpu {v['cpu_mode']}" + (f" [{notes}]" if notes else ""))
        print(f"{args.file}: {len(variants)} variants ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
