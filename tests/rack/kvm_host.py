"""The rack test bed's third kind of host: a nested KVM host.

This machine has no usable KVM, but QEMU's TCG `max` CPU emulates AMD-V (svm,
npt), so KVM runs inside a TCG guest. A TCG guest of the lab's own root
filesystem with host_prep's packages installed (the rack-host image the
container hosts are made of, so the two package lists cannot drift) is a rack
host whose guests are real KVM guests: `<domain type='kvm'>`, host-passthrough,
kvm-clock. Their speed is the emulator's; their configuration is KVM's.

What a KVM host is made of, all under the bed's directory but the disk cache:
  <cache>/kvm-host/<recipe>/disk.qcow2   the host's root disk, built once per recipe
                                         (rack-host image + the lab image it carries)
  <bed>/<host>/overlay.qcow2             its copy-on-write overlay
  <bed>/<host>/seed.img                  the laptop's key, the host name and the host's
                                         SSH key (so known_hosts is exact before it boots)
  <bed>/<host>/console.log               its serial console
  libvirt domain vmparity-rack-bed-<host> on this machine's qemu:///system, type qemu

The disk carries the lab image at the rack's vmparity_cache_dir, so site.yml
finds it there and copies nothing: the host stays offline at run time.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
VARIANT_FILE = HERE / "kvm-host.yml"
IMAGE_FILES = REPO / "vm-templates" / "image" / "files"
MAKE_SEED = REPO / "vm-templates" / "image" / "make-seed.sh"
DOMAIN_PREFIX = "vmparity-rack-bed-"
LIBVIRT_URI = "qemu:///system"
# The root disk: its rack-host root (~1.5 GiB), the lab image it carries and the
# guests' overlays. Sparse: qcow2 stores what is written.
DISK_SIZE = os.environ.get("KVM_HOST_DISK_SIZE", "16G")
# Where the rack inventory keeps the lab's image on a host (rack-example's group_vars).
HOST_CACHE_DIR = "var/cache/vmparity"
# Services the KVM host does not need: it runs no containers, and a dockerd with
# its default bridge would take a private-range network for nothing.
MASKED_UNITS = ("docker.service", "docker.socket", "containerd.service")
# A TCG boot of a host with libvirtd: ~75 s alone, more on a loaded machine.
BOOT_TIMEOUT = float(os.environ.get("KVM_HOST_BOOT_TIMEOUT", "600"))


def _log(msg: str) -> None:
    print(f"rack-bed: {msg}", flush=True)


class BedError(Exception):
    """What the bed's caller shows the user (bed.die)."""


def domain_name(host: str) -> str:
    return DOMAIN_PREFIX + host


# --- the disk ----------------------------------------------------------------------

def disk_recipe(rack_image: str, lab_image: Path) -> str:
    """Everything that goes into the disk: the rack-host image, the lab image, this builder."""
    h = hashlib.sha256()
    for part in (rack_image, lab_image.name, Path(__file__).read_text()):
        h.update(part.encode())
    return h.hexdigest()[:16]


def build_disk(cache_dir: Path, rack_image: str, lab_image: Path) -> Path:
    """The KVM host's root disk for this recipe, built once (cached) and published whole."""
    recipe = disk_recipe(rack_image, lab_image)
    final = cache_dir / "kvm-host" / recipe
    if (final / "disk.qcow2").is_file():
        _log(f"kvm host disk {final / 'disk.qcow2'} (cached)")
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    _log(f"building the kvm host disk from {rack_image} and the lab image {lab_image.name}")
    with tempfile.TemporaryDirectory(dir=final.parent, prefix=f".build-{recipe}.") as work:
        work = Path(work)
        root = work / "root"
        root.mkdir()
        _export(rack_image, root)
        _make_it_a_host(root, lab_image)
        raw = work / "disk.raw"
        subprocess.run(["truncate", "-s", DISK_SIZE, str(raw)], check=True)
        # mke2fs -d copies the tree with owners and modes: no loop device, no mount
        subprocess.run(["mke2fs", "-q", "-F", "-t", "ext4", "-L", "vmparity-root", "-d", str(root), str(raw)],
                       check=True)
        shutil.rmtree(root)
        subprocess.run(["qemu-img", "convert", "-O", "qcow2", str(raw), str(work / "disk.qcow2")], check=True)
        raw.unlink()
        (work / "recipe").write_text(f"{rack_image}\n{lab_image.name}\n")
        work.chmod(0o755)
        if final.exists():
            shutil.rmtree(final)  # incomplete: disk.qcow2 is what marks a whole build
        work.rename(final)
        # TemporaryDirectory's cleanup finds nothing left: the build moved
        work.mkdir()
    _log(f"built the kvm host disk in {time.monotonic() - t0:.0f} s")
    return final


def _export(rack_image: str, root: Path) -> None:
    """The rack-host image's files, as a container of it would see them."""
    cid = subprocess.run(["docker", "create", rack_image, "true"], check=True, capture_output=True,
                         text=True).stdout.strip()
    try:
        export = subprocess.Popen(["docker", "export", cid], stdout=subprocess.PIPE)
        subprocess.run(["tar", "--numeric-owner", "--same-owner", "-xpf", "-", "-C", str(root)],
                       stdin=export.stdout, check=True)
        export.stdout.close()
        if export.wait() != 0:
            raise BedError(f"docker export of {rack_image} failed")
    finally:
        subprocess.run(["docker", "rm", "-f", cid], capture_output=True)


def _make_it_a_host(root: Path, lab_image: Path) -> None:
    """Turn a container's tree into a booting host: no container marker, the lab
    image's own identity files, no NAT network or dockerd, and the lab image at
    the place a rack host keeps it."""
    # envprobe (rightly) calls a tree with /.dockerenv a container
    (root / ".dockerenv").unlink(missing_ok=True)
    # docker export leaves the files it bind-mounts empty
    for name in ("hosts", "hostname"):
        shutil.copyfile(IMAGE_FILES / "etc" / name, root / "etc" / name)
    # libvirt's default network is a NAT on a private range: never started by the lab
    (root / "etc/libvirt/qemu/networks/autostart/default.xml").unlink(missing_ok=True)
    subprocess.run(["systemctl", f"--root={root}", "mask", *MASKED_UNITS], check=True, capture_output=True)
    images = root / HOST_CACHE_DIR / "image"
    (images / lab_image.name).mkdir(parents=True)
    for f in sorted(lab_image.iterdir()):
        if f.is_file():
            shutil.copyfile(f, images / lab_image.name / f.name)
    (images / "current").symlink_to(lab_image.name)


# --- libvirtd on this machine ---------------------------------------------------------

def kvm_device_access(bed: Path) -> None:
    """Without udev /dev/kvm can stay root:root 0600; libvirtd then finds KVM
    "not available now" for the qemu user and probes QEMU again on every call
    (70 s per define, measured; host_prep's kvm_device.yml says the same). Give
    the kvm group the access udev would, and remember what was there for `down`."""
    import grp
    import stat as stat_

    dev = Path("/dev/kvm")
    try:
        st, gid = dev.stat(), grp.getgrnam("kvm").gr_gid
    except (OSError, KeyError):
        return
    mode = stat_.S_IMODE(st.st_mode)
    if not stat_.S_ISCHR(st.st_mode) or (st.st_gid == gid and mode & 0o060 == 0o060):
        return
    was = bed / "kvm-device-was"
    if not was.exists():
        was.write_text(f"{st.st_uid} {st.st_gid} {mode:o}\n")
    _log("giving group kvm access to /dev/kvm, as udev would (down puts it back)")
    os.chown(dev, -1, gid)
    dev.chmod(0o660)


def restore_kvm_device(bed: Path) -> None:
    was = bed / "kvm-device-was"
    if was.exists():
        uid, gid, mode = was.read_text().split()
        os.chown("/dev/kvm", int(uid), int(gid))
        os.chmod("/dev/kvm", int(mode, 8))


def libvirt_conn(bed: Path):
    """The system libvirtd; started (virtlogd, libvirtd -d) when none answers, and
    noted so that `down` stops what the bed started and nothing else."""
    import libvirt

    kvm_device_access(bed)
    libvirt.registerErrorHandler(lambda *_: None, None)

    def try_open():
        try:
            return libvirt.open(LIBVIRT_URI)
        except libvirt.libvirtError:
            return None

    conn = try_open()
    if conn is not None:
        return conn
    for daemon in ("virtlogd", "libvirtd"):
        pidfile = Path(f"/run/{daemon}.pid")
        if not (pidfile.exists() and _alive(pidfile)):
            _log(f"starting {daemon} -d")
            subprocess.run([f"/usr/sbin/{daemon}", "-d"], check=True)
            wait_for(lambda: pidfile.exists(), 30, f"{daemon}'s pid file {pidfile}")
            (bed / f"started-{daemon}").write_text(pidfile.read_text().split()[0] + "\n")
    wait_for(lambda: try_open() is not None, 60, f"libvirtd on {LIBVIRT_URI}")
    return try_open()


def _alive(pidfile: Path) -> bool:
    try:
        os.kill(int(pidfile.read_text().split()[0]), 0)
        return True
    except (ValueError, IndexError, ProcessLookupError, PermissionError):
        return False


def wait_for(predicate, timeout: float, what: str) -> None:
    """Poll `predicate` twice a second until it holds; BedError naming `what` after `timeout` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.5)
    raise BedError(f"no {what} within {timeout:.0f} s")


def stop_started_daemons(bed: Path) -> None:
    for daemon in ("libvirtd", "virtlogd"):
        marker = bed / f"started-{daemon}"
        if marker.exists():
            _log(f"stopping the {daemon} the bed started")
            try:
                os.kill(int(marker.read_text().split()[0]), signal.SIGTERM)
            except (ValueError, IndexError, ProcessLookupError):
                pass


# --- one KVM host --------------------------------------------------------------------

def host_dir(bed: Path, host: str) -> Path:
    return bed / host


def host_key(bed: Path, host: str) -> Path:
    """The host's SSH key, made by the bed: it goes in on the seed disk, its public
    half into the laptop's known_hosts, so the first login is already checked."""
    key = host_dir(bed, host) / "ssh_host_ed25519_key"
    if not key.exists():
        key.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", f"{host}-host", "-f", str(key)],
                       check=True)
    return key


def known_hosts_lines(bed: Path, host: str, ssh_port: int) -> list[str]:
    kind, blob = (host_key(bed, host).with_suffix(".pub")).read_text().split()[:2]
    return [f"[127.0.0.1]:{ssh_port} {kind} {blob}"]


def _variant(accel: str = "qemu") -> dict:
    from vmparity.lab import variants

    return variants.effective(variants.load_guests(VARIANT_FILE)["kvm-host"], accel)


def start(conn, bed: Path, host: str, ssh_port: int, disk_dir: Path, lab_image: Path, pubkey_file: Path,
          first_cpu: int = 0) -> None:
    """Define and boot the host unless the bed's own domain of this disk already runs."""
    import libvirt
    from vmparity.lab import domain_xml

    d = host_dir(bed, host)
    d.mkdir(parents=True, exist_ok=True)
    overlay, seed, console = d / "overlay.qcow2", d / "seed.img", d / "console.log"
    made_of = f"{disk_dir.name} {pubkey_file.read_text().strip()} {ssh_port} {first_cpu} {VARIANT_FILE.read_text()}\n"
    name = domain_name(host)
    try:
        dom = conn.lookupByName(name)
    except libvirt.libvirtError:
        dom = None
    if dom is not None and dom.isActive() and (d / "made-of").is_file() and (d / "made-of").read_text() == made_of:
        _log(f"{host}: kvm host {name} runs already")
        return
    if dom is not None:
        _remove_domain(dom)
    for f in (overlay, seed, console):
        f.unlink(missing_ok=True)
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-F", "qcow2", "-b", str(disk_dir / "disk.qcow2"),
                    str(overlay)], check=True)
    subprocess.run([str(MAKE_SEED), str(seed), str(pubkey_file), host, str(host_key(bed, host))], check=True)
    xml = domain_xml.render("kvm-host", _variant(), accel="qemu", ssh_port=ssh_port, image_dir=lab_image,
                            overlay=overlay, console_log=console, seed_disk=seed, name=name, first_cpu=first_cpu)
    (d / "domain.xml").write_text(xml)
    _log(f"{host}: booting kvm host {name} (TCG, ssh 127.0.0.1:{ssh_port})")
    conn.defineXML(xml).create()
    (d / "made-of").write_text(made_of)


def wait_for_ssh(bed: Path, host: str, ssh_port: int) -> None:
    import socket

    deadline = time.monotonic() + BOOT_TIMEOUT
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", ssh_port), timeout=2) as s:
                s.settimeout(5)
                if s.recv(64).startswith(b"SSH-"):
                    return
        except OSError:
            pass
        time.sleep(1)
    console = host_dir(bed, host) / "console.log"
    tail = console.read_text(errors="replace").splitlines()[-15:] if console.exists() else []
    raise BedError(f"{host}: the kvm host gave no SSH banner on 127.0.0.1:{ssh_port} within {BOOT_TIMEOUT:.0f} s "
                   f"(KVM_HOST_BOOT_TIMEOUT); its console, {console}, ends:\n  " + "\n  ".join(tail))


def _remove_domain(dom) -> None:
    import libvirt

    try:
        if dom.isActive():
            dom.destroy()
        dom.undefine()
    except libvirt.libvirtError as e:
        if e.get_error_code() != libvirt.VIR_ERR_NO_DOMAIN:
            raise


def remove_all(bed: Path) -> list[str]:
    """Every domain of the bed (by name) on this machine: powered off and undefined.
    Their files go with the bed's directory. Nothing to do twice."""
    import libvirt

    libvirt.registerErrorHandler(lambda *_: None, None)
    try:
        conn = libvirt.open(LIBVIRT_URI)
    except libvirt.libvirtError:
        return []  # no libvirtd: no domain of ours can run
    try:
        gone = []
        for dom in conn.listAllDomains():
            if dom.name().startswith(DOMAIN_PREFIX):
                _log(f"removing kvm host {dom.name()}")
                _remove_domain(dom)
                gone.append(dom.name())
        return gone
    finally:
        conn.close()
