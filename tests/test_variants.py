"""vmparity.lab.variants: the repository's variant files are valid; a bad file
is refused against its JSON Schema or across fields with `file:line: variant
'X', field 'Y': expected …`; `vmparity lab variants` prints them and exits 2
on bad input."""

import json
import os
import textwrap

import pytest

from vmparity.errors import InputError
from vmparity.lab import checkout, domain_xml, variants

REQUIRED = {"smt-topoext", "nosmt", "hpet-clock"}


def test_repo_guest_variants_are_valid_and_complete():
    guests = variants.load_guests()
    assert REQUIRED <= set(guests)
    smt, nosmt, hpet = (guests[n] for n in ("smt-topoext", "nosmt", "hpet-clock"))
    assert smt["topology"]["threads"] == 2
    assert {"name": "topoext", "policy": "require"} in smt["features"]
    assert nosmt["topology"]["threads"] == 1
    assert all(f["policy"] in ("disable", "forbid") for f in nosmt["features"] if f["name"] == "topoext")
    assert "clocksource=hpet" in hpet["kernel_cmdline_extra"].split() and hpet["hpet"] is True
    for v in guests.values():
        t = v["topology"]
        assert v["vcpus"] == t["sockets"] * t["cores"] * t["threads"]
    # YAML reads an unquoted yes as true; envprobe prints yes
    assert smt["expect"]["topoext"] == "yes"


def test_the_files_name_their_schema_for_editors():
    for data, schema in ((checkout.GUEST_VARIANTS, checkout.GUEST_SCHEMA),
                         (checkout.CONTAINER_VARIANTS, checkout.CONTAINER_SCHEMA)):
        assert data.read_text().splitlines()[0] == f"# yaml-language-server: $schema=./{schema.name}"
        assert schema.parent == data.parent


def test_tcg_downgrades_only_under_tcg_and_says_so():
    smt = variants.load_guests()["smt-topoext"]
    kvm = variants.effective(smt, "kvm")
    assert kvm["cpu_mode"] == "host-passthrough" and kvm["tcg_adjustments"] == []
    assert {"name": "topoext", "policy": "require"} in kvm["features"]
    tcg = variants.effective(smt, "qemu")
    assert tcg["cpu_mode"] == "maximum"
    assert {"name": "topoext", "policy": "optional"} in tcg["features"]
    assert any("topoext" in note for note in tcg["tcg_adjustments"])
    assert tcg["expect_dropped"] == {"topoext": "yes", "threads_per_core": 2}


GUESTS = textwrap.dedent("""\
    defaults:
      vcpus: 2
      memory_mib: 1024
      cpu_mode: host-passthrough
      topology: {sockets: 1, cores: 2, threads: 1}
      features: []
      pinning: true
      disk_cache: none
      kernel_cmdline_extra: ""
      hpet: false
      expect: {}
      tcg: {cpu_mode: maximum, unsupported_features: {topoext: [topoext]}}
    variants:
      good: {}
    """)


@pytest.mark.parametrize("variant_yaml, line, context, expected", [
    # across fields (the schema cannot say these)
    ("  bad:\n    vcpus: 4\n", 16, "variant 'bad', field 'vcpus'", "sockets*cores*threads = 1*2*1 = 2, got 4"),
    ("  bad:\n    topology: {threads: 2}\n", 16, "variant 'bad', field 'vcpus'", "= 1*2*2 = 4, got 2"),
    ("  bad:\n    features:\n      - {name: topoext, policy: require}\n      - {name: topoext, policy: disable}\n",
     18, "variant 'bad', field 'features'", "each feature at most once"),
    # the schema
    ("  bad:\n    colour: blue\n", 16, "variant 'bad', field 'colour'", "unknown field: expected one of vcpus,"),
    ("  bad:\n    features:\n      - {name: topoext, policy: demand}\n", 17,
     "variant 'bad', field 'features[0].policy'", "one of force, require"),
    ("  bad:\n    topology: {sockets: 1, cores: 0, threads: 2}\n", 16,
     "variant 'bad', field 'topology.cores'", "an integer >= 1, got 0"),
    ("  bad:\n    cpu_mode: passthrough\n", 16, "variant 'bad', field 'cpu_mode'", "one of host-passthrough"),
    ("  bad:\n    expect: {colour: red}\n", 16, "variant 'bad', field 'expect.colour'", "not a valid name"),
    ("  bad:\n    tcg: {cpu_mode: host-passthrough}\n", 16, "variant 'bad', field 'tcg.cpu_mode'",
     "one of host-model, maximum"),
    ("  bad:\n    memory_mib: 12\n", 16, "variant 'bad', field 'memory_mib'", "an integer >= 256"),
    ("  Bad_Name: {}\n", 15, "variant 'Bad_Name'", "lower-case letters, digits and '-'"),
    ("  bad: [1]\n", 15, "variant 'bad'", "a mapping or null, got [1]"),
])
def test_bad_guest_variant_names_file_line_variant_and_field(tmp_path, variant_yaml, line, context, expected):
    path = tmp_path / "variants.yml"
    path.write_text(GUESTS + variant_yaml)
    with pytest.raises(InputError) as err:
        variants.load_guests(path)
    assert str(err.value).startswith(f"{path}:{line}: {context}: ")
    assert expected in str(err.value)


def test_missing_default_odd_key_and_broken_yaml_are_named(tmp_path):
    path = tmp_path / "variants.yml"
    path.write_text(GUESTS.replace("  hpet: false\n", ""))
    with pytest.raises(InputError, match=rf"^{path}:1: defaults: missing field 'hpet'"):
        variants.load_guests(path)
    path.write_text(GUESTS + "  1: {}\n")
    with pytest.raises(InputError, match=rf"^{path}:15: key '1' is not read as a string"):
        variants.load_guests(path)
    path.write_text(GUESTS + "  bad: {vcpus: [\n")
    with pytest.raises(InputError, match=rf"^{path}:\d+: not valid YAML"):
        variants.load_guests(path)
    with pytest.raises(InputError, match="expected a regular file"):
        variants.load_guests(tmp_path)


def test_container_variants_resolve_for_the_host(tmp_path):
    resolved = variants.containers_for_host(host_cpus=2)
    assert resolved["nolimit"]["cpus"] is None
    assert 0 < resolved["quota"]["cpus"] < 2
    assert all(v["network"] == "none" for v in resolved.values())
    assert set(variants.load_containers()) == set(resolved)
    bad = tmp_path / "variants.yml"
    bad.write_text(checkout.CONTAINER_VARIANTS.read_text().replace("cpus_fraction_of_host: 0.5", "cpus: 4"))
    variants.load_containers(bad)  # no host yet: nothing to be below
    with pytest.raises(InputError, match=r":\d+: variant 'quota', field 'cpus': expected a quota below the 2 visible CPUs"):
        variants.containers_for_host(bad, host_cpus=2)


@pytest.mark.parametrize("fields, context, expected", [
    ("{cpus: 1, cpus_fraction_of_host: 0.5}", "field 'cpus'", "either cpus or cpus_fraction_of_host, not both"),
    ("{network: host}", "field 'network'", "expected 'none', got 'host'"),
    ("{cpus_fraction_of_host: 1.5}", "field 'cpus_fraction_of_host'", "a number < 1"),
    ("{memory_mib: 1.5}", "field 'memory_mib'", "an integer, got 1.5"),
])
def test_bad_container_variant_is_named(tmp_path, fields, context, expected):
    path = tmp_path / "variants.yml"
    path.write_text(checkout.CONTAINER_VARIANTS.read_text() + f"  bad: {fields}\n")
    line = len(path.read_text().splitlines())
    with pytest.raises(InputError) as err:
        variants.load_containers(path)
    assert str(err.value).startswith(f"{path}:{line}: variant 'bad', {context}: ")
    assert expected in str(err.value)


def test_container_names_follow_the_guests_rule(tmp_path):
    """One variant-name rule: the container schema refers to the guests' one."""
    path = tmp_path / "variants.yml"
    path.write_text(checkout.CONTAINER_VARIANTS.read_text() + "  Not_Ok: {}\n")
    with pytest.raises(InputError, match="variant 'Not_Ok': not a valid name: expected lower-case letters"):
        variants.load_containers(path)
    schema = json.loads(checkout.CONTAINER_SCHEMA.read_text())
    assert schema["properties"]["variants"]["propertyNames"] == {
        "$ref": "../vm-templates/variants.schema.json#/$defs/variant-name"}


def test_command_prints_the_variants_and_exits_2_on_a_bad_file(cli, tmp_path):
    r = cli("lab", "variants", "guests")
    assert r.code == 0, r.err
    assert r.out.endswith(f"{checkout.GUEST_VARIANTS}: 3 guest variants ok\n")
    r = cli("lab", "variants", "guests", "--json", "--accel", "qemu")
    assert r.code == 0, r.err
    assert json.loads(r.out)["smt-topoext"]["tcg_adjustments"]
    r = cli("lab", "variants", "containers", "--host-cpus", "4", "--json")
    assert r.code == 0 and json.loads(r.out)["quota"]["cpus"] == 2.0
    path = tmp_path / "variants.yml"
    path.write_text(GUESTS + "  bad:\n    vcpus: 3\n")
    r = cli("lab", "variants", "guests", path)
    assert r.code == 2 and r.out == ""
    assert r.err == f"vmparity: error: {path}:16: variant 'bad', field 'vcpus': expected sockets*cores*threads = 1*2*1 = 2, got 3\n"
    r = cli("lab", "variants", "containers", "--host-cpus", "0")
    assert r.code == 2 and "--host-cpus" in r.err


def _cpuinfo(tmp_path, vendor, flags):
    """A /proc/cpuinfo of two processors, as a host would show it."""
    path = tmp_path / f"cpuinfo-{vendor}"
    cpu = f"processor\t: {{n}}\nvendor_id\t: {vendor}\nmodel name\t: a CPU\nflags\t\t: {' '.join(flags)}\n\n"
    path.write_text(cpu.format(n=0) + cpu.format(n=1))
    return path


HOST_FLAGS = ["fpu", "tsc", "ht", "svm", "npt"]


def test_under_kvm_a_required_feature_the_host_cpu_lacks_is_refused_by_name(tmp_path):
    smt = variants.load_guests()["smt-topoext"]
    amd = variants.read_host_cpu(_cpuinfo(tmp_path, "AuthenticAMD", HOST_FLAGS), "kvm01")
    with pytest.raises(InputError) as e:
        variants.effective(smt, "kvm", "smt-topoext", checkout.GUEST_VARIANTS, amd)
    msg = str(e.value)
    assert msg.startswith(f"{checkout.GUEST_VARIANTS}: variant 'smt-topoext' requires CPU feature 'topoext'")
    assert "host kvm01 (AuthenticAMD) does not have" in msg and "guests_variants_only" in msg
    # the host has it: passed through as written
    amd_topoext = variants.read_host_cpu(_cpuinfo(tmp_path, "AuthenticAMD", HOST_FLAGS + ["topoext"]), "rack07")
    v = variants.effective(smt, "kvm", "smt-topoext", checkout.GUEST_VARIANTS, amd_topoext)
    assert {"name": "topoext", "policy": "require"} in v["features"] and v["kvm_adjustments"] == []
    # a disabled feature the host lacks is no problem; the host's CPU is not asked under TCG
    assert variants.effective(variants.load_guests()["nosmt"], "kvm", "nosmt", "f", amd)["kvm_adjustments"] == []
    assert variants.effective(smt, "qemu", host_cpu=amd)["features"][0]["policy"] == "optional"


def test_on_an_intel_host_the_vendor_rule_drops_topoext_and_keeps_the_smt_expectation(tmp_path):
    smt = variants.load_guests()["smt-topoext"]
    intel = variants.read_host_cpu(_cpuinfo(tmp_path, "GenuineIntel", ["fpu", "ht", "vmx"]), "intel1")
    v = variants.effective(smt, "kvm", "smt-topoext", checkout.GUEST_VARIANTS, intel)
    assert all(f["name"] != "topoext" for f in v["features"])
    assert v["kvm_adjustments"] == ["feature topoext policy require dropped: GenuineIntel CPUs have no topoext; "
                                    "instead SMT siblings through CPUID leaves 4 and 0xB, from the topology alone"]
    assert v["expect"]["threads_per_core"] == 2 and v["topology"]["threads"] == 2
    xml = domain_xml.render("smt-topoext", v, accel="kvm", ssh_port=2222, image_dir=tmp_path, overlay="o",
                            console_log="c", seed_disk="s")
    assert "name='topoext'" not in xml and "<vmparity:kvm-adjustment>feature topoext policy require dropped" in xml


def test_command_checks_the_variants_against_a_host_cpu(cli, tmp_path):
    amd = _cpuinfo(tmp_path, "AuthenticAMD", HOST_FLAGS)
    r = cli("lab", "variants", "guests", "--accel", "kvm", "--host-cpu", amd, "--host", "kvm01")
    assert r.code == 2 and "variant 'smt-topoext' requires CPU feature 'topoext'" in r.err
    # the variants this host does not start are not asked
    r = cli("lab", "variants", "guests", "--accel", "kvm", "--host-cpu", amd, "--only", "nosmt,hpet-clock", "--json")
    assert r.code == 0, r.err
    assert sorted(json.loads(r.out)) == ["hpet-clock", "nosmt"]
    r = cli("lab", "variants", "guests", "--only", "nosmt,nope")
    assert r.code == 2 and "--only names nope, which the file does not define" in r.err
    r = cli("lab", "variants", "guests", "--accel", "qemu", "--host-cpu", amd)
    assert r.code == 2 and "only under KVM" in r.err
    empty = tmp_path / "empty"
    empty.write_text("processor\t: 0\n")
    r = cli("lab", "variants", "guests", "--accel", "kvm", "--host-cpu", empty)
    assert r.code == 2 and f"{empty}: expected /proc/cpuinfo's vendor_id and flags lines" in r.err
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    r = cli("lab", "variants", "guests", "--accel", "kvm", "--host-cpu", fifo)
    assert r.code == 2 and "expected a regular file" in r.err
