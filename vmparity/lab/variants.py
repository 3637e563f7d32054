"""The lab's variant files, loaded and checked in one place.

vm-templates/variants.yml (the guests) and docker/variants.yml (the
containers) are each checked against the JSON Schema beside them, then across
fields, and every problem is reported as
`file:line: variant 'nosmt', field 'vcpus': expected …`. Each variant is
returned merged with the file's `defaults`. `make variants-check` and the
guests and containers roles call this as `vmparity lab variants`; the repro
plan and the domain renderer import it.
"""

import copy
import os

from ..errors import InputError
from . import checkout, schema_file

# Guest fields that are mappings a variant may set in part (topology: {threads: 2}).
MERGED_ONE_LEVEL = ("topology", "tcg")


def _field(parts):
    """A path inside a variant as a reader writes it: topology.cores, features[0].policy."""
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _context(where):
    """The variant and field a path in the file names, for the message."""
    if where[:1] == ("variants",) and len(where) >= 2:
        field = _field(where[2:])
        return f"variant '{where[1]}'" + (f", field '{field}'" if field else "")
    if where[:1] == ("defaults",):
        field = _field(where[1:])
        return "defaults" + (f", field '{field}'" if field else "")
    return "top level"


class _File:
    """One checked variants file: its document and each variant merged with the defaults."""

    def __init__(self, path, schema, merged_one_level=()):
        self.doc = schema_file.read(path)
        schema_file.validate(self.doc, schema, _context)
        self.defaults = self.doc.data["defaults"]
        self.own = {name: fields or {} for name, fields in self.doc.data["variants"].items()}
        self.merged_one_level = merged_one_level

    def merged(self, name):
        """Defaults with the variant's fields on top; the mappings named in merged_one_level merge one level deep."""
        out = copy.deepcopy(self.defaults)
        for key, value in self.own[name].items():
            out[key] = {**out[key], **value} if key in self.merged_one_level else copy.deepcopy(value)
        return out

    def where_variant_sets(self, name, *fields):
        """The path of the first of `fields` the variant sets itself, else of the variant."""
        for field in fields:
            if field in self.own[name]:
                return ("variants", name, field)
        return ("variants", name)

    def origin(self, name, field):
        """Where the merged value of `field` comes from: the variant, else the defaults."""
        return ("variants", name, field) if field in self.own[name] else ("defaults", field)

    def error(self, name, field, at, expected):
        """The InputError for a check across fields of variant `name`, at the line of path `at`."""
        return self.doc.error(at, f"{_context(('variants', name, field))}: expected {expected}")


def _yes_no(value):
    """YAML 1.1 reads an unquoted yes/no as a bool; envprobe prints yes/no."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value


def load_guests(path=checkout.GUEST_VARIANTS):
    """Every guest variant merged with the defaults and checked; InputError names file and line."""
    f = _File(path, checkout.GUEST_SCHEMA, MERGED_ONE_LEVEL)
    out = {}
    for name in f.own:
        v = f.merged(name)
        v["expect"] = {k: _yes_no(x) for k, x in v["expect"].items()}
        t = v["topology"]
        product = t["sockets"] * t["cores"] * t["threads"]
        if v["vcpus"] != product:
            raise f.error(name, "vcpus", f.where_variant_sets(name, "vcpus", "topology"),
                         f"sockets*cores*threads = {t['sockets']}*{t['cores']}*{t['threads']} = {product}, "
                         f"got {v['vcpus']}")
        seen = set()
        for i, feature in enumerate(v["features"]):
            if feature["name"] in seen:
                raise f.error(name, "features", f.origin(name, "features") + (i,),
                             f"each feature at most once, got {feature['name']!r} again")
            seen.add(feature["name"])
        out[name] = v
    return out


def effective(variant, accel):
    """The guest variant as the domain will really get it under `accel`.

    kvm: unchanged. qemu (TCG): the CPU mode becomes tcg.cpu_mode and a
    require/force of a feature TCG cannot present becomes optional, so the
    guest still boots; each change is listed in `tcg_adjustments`, and the
    expectations it makes unreachable (tcg.unsupported_features[feature])
    move to `expect_dropped`. The template (vm-templates/domain.xml.j2)
    applies the same rules from the same `tcg` data.
    """
    if accel not in ("kvm", "qemu"):
        raise InputError("accel", f"expected kvm or qemu, got {accel!r}")
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


def _containers(path):
    f = _File(path, checkout.CONTAINER_SCHEMA)
    merged = {}
    for name in f.own:
        v = f.merged(name)
        if v["cpus"] is not None and v["cpus_fraction_of_host"] is not None:
            raise f.error(name, "cpus", f.where_variant_sets(name, "cpus", "cpus_fraction_of_host"),
                         "either cpus or cpus_fraction_of_host, not both")
        merged[name] = v
    return f, merged


def load_containers(path=checkout.CONTAINER_VARIANTS):
    """Every container variant merged with the defaults and checked, before any host's CPU count applies."""
    return _containers(path)[1]


def containers_for_host(path=checkout.CONTAINER_VARIANTS, host_cpus=None):
    """Each container variant's `docker run` settings on a host with `host_cpus`
    CPUs (default: this one's): network, cpus (null = no quota), memory_mib,
    seccomp (default | unconfined), cpuset (null = every CPU).
    A quota must stay below the visible CPUs: that gap is seed 004's pitfall."""
    f, merged = _containers(path)
    host_cpus = host_cpus or os.cpu_count()
    out = {}
    for name, v in merged.items():
        cpus = v["cpus"]
        if v["cpus_fraction_of_host"] is not None:
            cpus = round(host_cpus * v["cpus_fraction_of_host"], 2)
        if cpus is not None and cpus >= host_cpus:
            raise f.error(name, "cpus", f.where_variant_sets(name, "cpus", "cpus_fraction_of_host"),
                         f"a quota below the {host_cpus} visible CPUs (or null for no limit), got {cpus}")
        out[name] = {"network": v["network"], "cpus": cpus, "memory_mib": v["memory_mib"],
                     "seccomp": v.get("seccomp", "default"), "cpuset": v.get("cpuset")}
    return out
