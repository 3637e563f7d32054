# Read the lab's libvirt domains with libvirt-python: what Ansible's
# community.libvirt modules do not expose (state, forwarded SSH port, disks,
# the lab metadata written by vm-templates/domain.xml.j2).
from __future__ import annotations

import os
import xml.etree.ElementTree as ET

LAB_NS = "https://vmparity.example.net/xmlns/lab/1"
QEMU_NS = "http://libvirt.org/schemas/domain/qemu/1.0"

try:
    import libvirt
    HAS_LIBVIRT = True
    LIBVIRT_IMPORT_ERROR = None
except ImportError as exc:  # reported by the module with the interpreter's name
    HAS_LIBVIRT = False
    LIBVIRT_IMPORT_ERROR = str(exc)

STATE_NAMES = {
    0: "nostate", 1: "running", 2: "blocked", 3: "paused",
    4: "shutdown", 5: "shutoff", 6: "crashed", 7: "pmsuspended",
}


def _ssh_port(root):
    """The forwarded SSH port: the lab metadata, else QEMU's hostfwd argument."""
    ssh = root.find(f"./metadata/{{{LAB_NS}}}lab/{{{LAB_NS}}}ssh")
    if ssh is not None and ssh.get("port", "").isdigit():
        return int(ssh.get("port"))
    for arg in root.findall(f"./{{{QEMU_NS}}}commandline/{{{QEMU_NS}}}arg"):
        for part in arg.get("value", "").split(","):
            if part.startswith("hostfwd=tcp:") and part.endswith("-:22"):
                return int(part[len("hostfwd=tcp:"):-len("-:22")].rsplit(":", 1)[-1])
    return None


def describe(dom):
    """One domain as a plain dict."""
    root = ET.fromstring(dom.XMLDesc(0))
    lab = root.find(f"./metadata/{{{LAB_NS}}}lab")

    def lab_text(tag):
        node = lab.find(f"{{{LAB_NS}}}{tag}") if lab is not None else None
        return node.text if node is not None else None

    state, _reason = dom.state()
    return {
        "name": dom.name(),
        "state": STATE_NAMES.get(state, str(state)),
        "active": bool(dom.isActive()),
        "type": root.get("type"),
        "variant": lab_text("variant"),
        "accel": lab_text("accel"),
        "console_log": lab_text("console-log"),
        "tcg_adjustments": [n.text for n in lab.findall(f"{{{LAB_NS}}}tcg-adjustment")] if lab is not None else [],
        "ssh_port": _ssh_port(root),
        "disks": [d.get("file") for d in root.findall("./devices/disk/source") if d.get("file")],
    }


def under(path, directory):
    """True when path lies inside directory (both made absolute, symlinks resolved)."""
    path = os.path.realpath(path)
    directory = os.path.realpath(directory)
    return os.path.commonpath([path, directory]) == directory


def lab_domains(uri, prefix, state_dir=None):
    """Every domain named <prefix>… and, when state_dir is given, with a disk in it."""
    conn = libvirt.open(uri)
    try:
        found = []
        for dom in conn.listAllDomains(0):
            if not dom.name().startswith(prefix):
                continue
            info = describe(dom)
            if state_dir and not any(under(d, state_dir) for d in info["disks"]):
                continue
            found.append(info)
        return sorted(found, key=lambda d: d["name"])
    finally:
        conn.close()


def all_forwarded_ports(uri):
    """SSH ports forwarded by any domain on this host (ours or anyone's)."""
    conn = libvirt.open(uri)
    try:
        ports = {}
        for dom in conn.listAllDomains(0):
            port = _ssh_port(ET.fromstring(dom.XMLDesc(0)))
            if port is not None:
                ports[port] = dom.name()
        return ports
    finally:
        conn.close()
