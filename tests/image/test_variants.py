"""variants_check.py and container_variants.py accept the repo's files and
reject bad ones with a message naming the file, line, variant and field."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

import container_variants
import variants_check
from conftest import DOCKER_DIR, VM_TEMPLATES

pytestmark = pytest.mark.lab

REQUIRED = {"smt-topoext", "nosmt", "hpet-clock"}


def test_repo_variants_are_valid_and_complete():
    variants = variants_check.load(VM_TEMPLATES / "variants.yml")
    assert REQUIRED <= set(variants)
    smt, nosmt, hpet = (variants[n] for n in ("smt-topoext", "nosmt", "hpet-clock"))
    assert smt["topology"]["threads"] == 2
    assert {"name": "topoext", "policy": "require"} in smt["features"]
    assert nosmt["topology"]["threads"] == 1
    assert all(f["policy"] in ("disable", "forbid") for f in nosmt["features"] if f["name"] == "topoext")
    assert "clocksource=hpet" in hpet["kernel_cmdline_extra"].split() and hpet["hpet"] is True
    for v in variants.values():
        t = v["topology"]
        assert v["vcpus"] == t["sockets"] * t["cores"] * t["threads"]


def test_tcg_downgrades_only_under_tcg_and_says_so():
    smt = variants_check.load(VM_TEMPLATES / "variants.yml")["smt-topoext"]
    kvm = variants_check.effective(smt, "kvm")
    assert kvm["cpu_mode"] == "host-passthrough" and kvm["tcg_adjustments"] == []
    assert {"name": "topoext", "policy": "require"} in kvm["features"]
    tcg = variants_check.effective(smt, "qemu")
    assert tcg["cpu_mode"] == "maximum"
    assert {"name": "topoext", "policy": "optional"} in tcg["features"]
    assert any("topoext" in note for note in tcg["tcg_adjustments"])
    assert tcg["expect_dropped"] == {"topoext": "yes", "threads_per_core": 2}


BASE = textwrap.dedent("""\
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


@pytest.mark.parametrize("variant_yaml, line, field, expected", [
    ("  bad:\n    vcpus: 4\n", 16, "vcpus", "sockets*cores*threads = 1*2*1 = 2"),
    ("  bad:\n    colour: blue\n", 16, "colour", "one of the known fields"),
    ("  bad:\n    features:\n      - {name: topoext, policy: demand}\n", 17, "features", "policy one of"),
    ("  bad:\n    topology: {sockets: 1, cores: 0, threads: 2}\n    vcpus: 0\n", 17, "vcpus",
     "a positive integer"),
    ("  bad:\n    cpu_mode: passthrough\n", 16, "cpu_mode", "one of host-passthrough"),
    ("  bad:\n    expect: {colour: red}\n", 16, "expect", "keys among"),
])
def test_bad_variant_is_rejected_with_file_line_variant_field(tmp_path, variant_yaml, line, field, expected):
    path = tmp_path / "variants.yml"
    path.write_text(BASE + variant_yaml)
    with pytest.raises(variants_check.VariantError) as err:
        variants_check.load(path)
    message = str(err.value)
    assert message.startswith(f"{path}:{line}: variant 'bad', field '{field}': expected ")
    assert expected in message


def test_command_exits_nonzero_with_the_message(tmp_path):
    path = tmp_path / "variants.yml"
    path.write_text(BASE + "  bad:\n    vcpus: 3\n")
    run = subprocess.run([sys.executable, str(VM_TEMPLATES / "variants_check.py"), str(path)],
                         capture_output=True, text=True)
    assert run.returncode == 1
    assert f"{path}:16: variant 'bad', field 'vcpus'" in run.stderr
    ok = subprocess.run([sys.executable, str(VM_TEMPLATES / "variants_check.py"), "--json",
                         "--accel", "qemu"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert '"tcg_adjustments"' in ok.stdout


def test_missing_default_and_broken_yaml_are_named(tmp_path):
    path = tmp_path / "variants.yml"
    path.write_text(BASE.replace("  hpet: false\n", ""))
    with pytest.raises(variants_check.VariantError, match=r"missing \['hpet'\]"):
        variants_check.load(path)
    path.write_text(BASE + "  bad: {vcpus: [\n")
    with pytest.raises(variants_check.VariantError, match=rf"^{path}:\d+: not valid YAML"):
        variants_check.load(path)


def test_container_variants(tmp_path):
    resolved = container_variants.resolve(DOCKER_DIR / "variants.yml", host_cpus=2)
    assert resolved["nolimit"]["cpus"] is None
    assert 0 < resolved["quota"]["cpus"] < 2
    assert all(v["network"] == "none" for v in resolved.values())
    bad = tmp_path / "variants.yml"
    bad.write_text((DOCKER_DIR / "variants.yml").read_text().replace(
        "cpus_fraction_of_host: 0.5", "cpus: 4"))
    with pytest.raises(container_variants.ContainerVariantError,
                       match=r"variant 'quota', field 'cpus': expected a quota below the 2 visible CPUs"):
        container_variants.resolve(bad, host_cpus=2)
