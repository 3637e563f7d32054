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
import stat
import sys

from ..errors import InputError
from . import checkout, schema_file

# Guest fields that are mappings a variant may set in part (topology: {threads: 2}).
MERGED_ONE_LEVEL = ("topology", "tcg", "kvm")
# A variant may leave `kvm` out of an older file's defaults: no vendor rules then.
_NO_KVM_RULES = {"vendor_features": {}}
# /proc/cpuinfo of a 512-CPU host is about 800 KB; only the first CPU's lines are read.
_CPUINFO_MAX = 1 << 20


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


def read_host_cpu(path, host=None):
    """The CPU of a host as /proc/cpuinfo (a copy of it at `path`) describes it:
    {"host", "vendor", "flags"}, for effective() under KVM. InputError when the
    file has no vendor_id or flags line."""
    if str(path) == "-":  # the guests role pipes the host's lines in
        return _host_cpu_of(sys.stdin.read(_CPUINFO_MAX), "standard input", host)
    try:
        # O_NONBLOCK: a FIFO in its place is refused below, not waited on
        with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), encoding="utf-8", errors="replace") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise InputError(path, "expected a regular file (a copy of the host's /proc/cpuinfo)")
            text = f.read(_CPUINFO_MAX)  # /proc/cpuinfo's size reads as 0: bounded by reading, not by stat
    except OSError as e:
        raise InputError(path, f"cannot read the host's /proc/cpuinfo copy: {e.strerror}") from None
    return _host_cpu_of(text, path, host)


def _host_cpu_of(text, path, host):
    fields = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() in ("vendor_id", "flags") and key.strip() not in fields:
            fields[key.strip()] = value.strip()
    missing = [k for k in ("vendor_id", "flags") if k not in fields]
    if missing:
        raise InputError(path, f"expected /proc/cpuinfo's vendor_id and flags lines, found no {' or '.join(missing)}")
    return {"host": host or "this host", "vendor": fields["vendor_id"], "flags": sorted(set(fields["flags"].split()))}


def _against_host_cpu(v, name, path, host_cpu):
    """Under KVM: each feature the variant requires or forces is in the host CPU's
    flags, or dropped by the vendor's rule (noted in kvm_adjustments), or refused."""
    if v["cpu_mode"] not in ("host-passthrough", "host-model"):
        return  # a named model: libvirt checks it against the host itself
    rules = v.get("kvm", _NO_KVM_RULES)["vendor_features"].get(host_cpu["vendor"], {})
    kept = []
    for feat in v["features"]:
        if feat["policy"] not in ("require", "force") or feat["name"] in host_cpu["flags"]:
            kept.append(feat)
        elif feat["name"] in rules:
            v["kvm_adjustments"].append(f"feature {feat['name']} policy {feat['policy']} dropped: {host_cpu['vendor']} "
                                        f"CPUs have no {feat['name']}; instead {rules[feat['name']]}")
        else:
            raise InputError(path, f"variant {name!r} {feat['policy']}s CPU feature {feat['name']!r}, which the CPU "
                                   f"of host {host_cpu['host']} ({host_cpu['vendor']}) does not have, and no rule of "
                                   f"kvm.vendor_features.{host_cpu['vendor']} stands in for it: under KVM the guest "
                                   f"would boot without it. Leave the variant out on this host "
                                   f"(guests_variants_only) or run it on a host whose CPU has {feat['name']}")
    v["features"] = kept


def effective(variant, accel, name="variant", path="variants", host_cpu=None):
    """The guest variant as the domain will really get it under `accel`.

    kvm: unchanged, but when the host's CPU is known (read_host_cpu) a feature
    the variant requires or forces and that CPU lacks is refused (InputError
    naming the variant, the feature and the host), or dropped where
    kvm.vendor_features says the host's vendor never has it and what the guest
    gets instead; each drop is listed in `kvm_adjustments`. qemu (TCG): the
    CPU mode becomes tcg.cpu_mode and a require/force of a feature TCG cannot
    present becomes optional, so the guest still boots; each change is listed
    in `tcg_adjustments`, and the expectations it makes unreachable
    (tcg.unsupported_features[feature]) move to `expect_dropped`. The
    template (vm-templates/domain.xml.j2) applies the same TCG rules from the
    same `tcg` data.
    """
    if accel not in ("kvm", "qemu"):
        raise InputError("accel", f"expected kvm or qemu, got {accel!r}")
    v = copy.deepcopy(variant)
    v["tcg_adjustments"], v["kvm_adjustments"], v["expect_dropped"] = [], [], {}
    if accel == "kvm":
        if host_cpu is not None:
            _against_host_cpu(v, name, path, host_cpu)
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
