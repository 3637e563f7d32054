"""domain.xml.j2 renders for every variant under both accelerations into XML
that libvirt's schema accepts and that carries what the variant asked for."""
from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ET

import pytest

from vmparity.lab import variants
from vmparity.lab.domain_xml import render

pytestmark = pytest.mark.lab

NS = {"qemu": "http://libvirt.org/schemas/domain/qemu/1.0",
      "vmparity": "https://vmparity.example.net/xmlns/lab/1"}
VARIANTS = variants.load_guests()


def _render(tmp_path, name, accel, port=22022):
    xml = render(name, VARIANTS[name], accel=accel, ssh_port=port,
                               image_dir=tmp_path / "image", overlay=tmp_path / f"{name}.qcow2",
                               console_log=tmp_path / f"{name}.log", seed_disk=tmp_path / "seed.img",
                               host_cpus=2)
    path = tmp_path / f"{name}-{accel}.xml"
    path.write_text(xml)
    return path, ET.fromstring(xml)


@pytest.mark.parametrize("accel", ["kvm", "qemu"])
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_renders_valid_domain_xml(tmp_path, name, accel):
    path, dom = _render(tmp_path, name, accel)
    check = subprocess.run(["virt-xml-validate", str(path), "domain"], capture_output=True, text=True)
    assert check.returncode == 0, f"{path}: {check.stdout}{check.stderr}"
    variant = VARIANTS[name]

    assert dom.get("type") == accel and dom.findtext("name") == f"vmparity-{name}"
    topo = dom.find("cpu/topology")
    assert {k: int(topo.get(k)) for k in ("sockets", "cores", "threads")} == variant["topology"]
    assert int(dom.findtext("vcpu")) == variant["vcpus"]
    assert [int(p.get("cpuset")) for p in dom.findall("cputune/vcpupin")] == \
        [i % 2 for i in range(variant["vcpus"])]
    cmdline = dom.findtext("os/cmdline").split()
    assert "console=ttyS0" in cmdline and "root=/dev/vda" in cmdline
    assert set(variant["kernel_cmdline_extra"].split()) <= set(cmdline)
    assert dom.find("os/kernel").text.endswith("vmlinuz") and dom.find("os/initrd").text.endswith("initrd.img")
    hpet = dom.find("clock/timer[@name='hpet']").get("present")
    assert hpet == ("yes" if variant["hpet"] else "no")
    assert dom.find("devices/disk/driver").get("cache") == variant["disk_cache"]
    assert dom.find("devices/serial").get("type") == "file"

    # networking: user-mode, SSH forwarded to loopback only, never a libvirt network
    assert dom.find("devices/interface") is None
    args = [a.get("value") for a in dom.findall("qemu:commandline/qemu:arg", NS)]
    assert "user,id=vmpnet0,hostfwd=tcp:127.0.0.1:22022-:22" in args
    assert dom.find("metadata/vmparity:lab/vmparity:ssh", NS).get("port") == "22022"
    # qemu reads files under root's home: per-domain static DAC label, no relabelling
    seclabel = dom.find("seclabel")
    assert (seclabel.get("model"), seclabel.get("relabel"), seclabel.findtext("label")) == ("dac", "no", "+0:+0")

    effective = variants.effective(variant, accel)
    features = {f.get("name"): f.get("policy") for f in dom.findall("cpu/feature")}
    assert features == {f["name"]: f["policy"] for f in effective["features"]}
    assert dom.find("cpu").get("mode") == effective["cpu_mode"]
    notes = [n.text for n in dom.findall("metadata/vmparity:lab/vmparity:tcg-adjustment", NS)]
    assert sorted(notes) == sorted(effective["tcg_adjustments"])
    if accel == "kvm":
        assert notes == []


def test_prechecked_variant_keeps_its_tcg_notes(tmp_path):
    """The lab may pass the output of `vmparity lab variants guests --accel qemu`: same XML, same notes."""
    effective = variants.effective(VARIANTS["smt-topoext"], "qemu")
    xml = render("smt-topoext", effective, accel="qemu", ssh_port=22022,
                               image_dir=tmp_path, overlay=tmp_path / "o.qcow2",
                               console_log=tmp_path / "c.log", seed_disk=None, host_cpus=2)
    dom = ET.fromstring(xml)
    notes = [n.text for n in dom.findall("metadata/vmparity:lab/vmparity:tcg-adjustment", NS)]
    assert sorted(notes) == sorted(effective["tcg_adjustments"]) and len(notes) == 2
    assert dom.find("cpu").get("mode") == "maximum"
    assert dom.find("cpu/feature[@name='topoext']").get("policy") == "optional"


def test_tcg_keeps_topoext_off_the_require_list(tmp_path):
    _, dom = _render(tmp_path, "smt-topoext", "qemu")
    assert dom.find("cpu").get("mode") == "maximum"
    assert dom.find("cpu/feature[@name='topoext']").get("policy") == "optional"
    _, dom = _render(tmp_path, "smt-topoext", "kvm")
    assert dom.find("cpu").get("mode") == "host-passthrough"
    assert dom.find("cpu/feature[@name='topoext']").get("policy") == "require"


def test_first_cpu_moves_the_pinning_along(tmp_path):
    # two one-vCPU domains of one machine (the rack bed's nested KVM hosts) each get a CPU of their own
    def pins(first_cpu, host_cpus):
        xml = render("nosmt", VARIANTS["nosmt"], accel="qemu", ssh_port=22022, image_dir=tmp_path,
                     overlay=tmp_path / "o.qcow2", console_log=tmp_path / "c.log", seed_disk=None,
                     host_cpus=host_cpus, first_cpu=first_cpu)
        return [int(p.get("cpuset")) for p in ET.fromstring(xml).findall("cputune/vcpupin")]
    assert pins(0, 4) == [0, 1]
    assert pins(1, 4) == [1, 2]
    assert pins(3, 4) == [3, 0]  # wraps around the host's CPUs
