"""The simulated rack: rack hosts as containers of the lab's own image, each
with sshd on its own 127.0.0.1 port and its own dockerd and libvirtd (started
by host_prep, as on a host without a service manager), driven from "the
laptop" (this machine) over SSH only, with an ordinary rack inventory.
A third kind of host is a nested KVM host (kvm_host.py): a TCG VM of the same
image whose emulated CPU has AMD-V, so its guests are real KVM guests.

    python tests/rack/bed.py up   [--dir build/rack-bed] [--hosts rack01,rack02,kvm01]
    python tests/rack/bed.py down [--dir build/rack-bed]   # remove it, and nothing else
    build/rack-bed/laptop <command>                        # run a command as the laptop

What `up` makes under --dir (nothing outside it, and nothing in git):
  laptop-home/   the laptop's HOME: .ssh/ with its own key pair (0600), a config
                 naming every rack host, and a known_hosts built from the hosts'
                 own keys (StrictHostKeyChecking yes, no password login); ssh,
                 ansible, `docker --host ssh://` and fab all read them, as on a
                 real laptop. .cache/vmparity points at this machine's image cache.
  inventory/     an ordinary rack inventory: rack-example's group_vars plus the
                 bed's hosts (rack01, rack02: guest port ranges, guest matrix).
  laptop         runs a command with that HOME and the repository's ansible.cfg.
  state.json     the hosts, their ports and containers, and whether the bed
                 started dockerd (then `down` stops it).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import docker
import yaml

try:
    from . import kvm_host
except ImportError:  # run as a script: tests/rack is sys.path[0]
    import kvm_host

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
EXAMPLE = REPO / "ansible" / "inventories" / "rack-example"
HOST_PREP_DEFAULTS = REPO / "ansible" / "roles" / "host_prep" / "defaults" / "main.yml"
CACHE_DIR = Path(os.environ.get("CACHE_DIR", Path.home() / ".cache" / "vmparity"))
LABEL = "vmparity.rack-bed"
IMAGE_REPO = "vmparity-rack-host"
DOCKER_PIDFILE = "/var/run/docker.pid"


@dataclass
class RackHost:
    """One simulated rack host: its SSH port and the loopback ports its guests may forward."""
    name: str
    ssh_port: int
    guest_ports: tuple[int, int]
    guest_variants: list[str] = field(default_factory=list)  # [] = this host runs no guest
    kind: str = "container"  # container: docker in docker; kvm: a nested KVM host (a TCG VM)

    @property
    def container(self) -> str:
        return f"vmparity-rack-bed-{self.name}"


# Two hosts, as the smallest rack that can show "one run, several hosts": each
# measures its metal and a container; rack01 also runs one TCG guest.
HOSTS = [
    RackHost("rack01", 2201, (22300, 22319), ["nosmt"]),
    RackHost("rack02", 2202, (22320, 22339), []),
]
# The nested KVM hosts: their guests are KVM guests. smt-topoext is left out: their
# CPU (QEMU's TCG max model) has no topoext, and the lab refuses a variant that
# requires a feature the host's CPU lacks (vm-templates/variants.yml, kvm).
# Two hosts of one vCPU each, a guest each, rather than one host with both: a
# nested host's kernel crashed with two vCPUs (docs/kvm.md), so one host uses one
# core of this machine and its guests boot and measure one after another; two
# hosts use two cores, and their guests boot and measure side by side.
KVM_HOSTS = [
    RackHost("kvm01", 2203, (22340, 22359), ["nosmt"], kind="kvm"),
    RackHost("kvm02", 2204, (22360, 22379), ["hpet-clock"], kind="kvm"),
]
ALL_HOSTS = {h.name: h for h in HOSTS + KVM_HOSTS}


def log(msg: str) -> None:
    print(f"rack-bed: {msg}", flush=True)


def die(msg: str) -> None:
    print(f"rack-bed: {msg}", file=sys.stderr)
    raise SystemExit(2)


# --- the laptop's docker daemon ------------------------------------------------

def docker_client(bed: Path) -> docker.DockerClient:
    """The local dockerd; started (`--bridge=none --iptables=false`, as host_prep
    starts it) when none answers, and noted so that `down` stops it again."""
    try:
        client = docker.from_env()  # from_env asks the daemon's version: it fails too when none runs
        client.ping()
        return client
    except docker.errors.DockerException:
        pass
    log("starting dockerd --bridge=none --iptables=false")
    subprocess.run(["start-stop-daemon", "--start", "--oknodo", "--background", "--pidfile", DOCKER_PIDFILE,
                    "--exec", "/usr/sbin/dockerd", "--output", str(bed / "dockerd.log"), "--",
                    "--bridge=none", "--iptables=false"], check=True)
    (bed / "started-dockerd").write_text(DOCKER_PIDFILE + "\n")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            client = docker.from_env()
            client.ping()
            return client
        except docker.errors.DockerException:
            time.sleep(1)
    die(f"dockerd did not answer within 60 s; see {bed / 'dockerd.log'}")


# --- the rack-host image -------------------------------------------------------

def image_hash() -> str:
    current = CACHE_DIR / "image" / "current"
    if not (current / "recipe.sha256").is_file():
        die(f"no lab image at {current}; build it first with `make image`")
    return current.resolve().name


def base_image(client: docker.DockerClient, hash_: str) -> str:
    """The lab's root filesystem as a docker image (as the containers role imports it)."""
    tag = f"vmparity-base:{hash_}"
    try:
        client.images.get(tag)
    except docker.errors.ImageNotFound:
        log(f"importing {CACHE_DIR / 'image' / hash_ / 'rootfs.tar'} as {tag}")
        subprocess.run(["docker", "import", "--change", f"LABEL vmparity.image-hash={hash_}",
                        str(CACHE_DIR / "image" / hash_ / "rootfs.tar"), tag], check=True, stdout=subprocess.DEVNULL)
    return tag


def rack_host_image(client: docker.DockerClient) -> str:
    """Build (or find) the rack-host image: the lab's base plus host_prep's packages.
    Named by a hash of everything that goes into it, so a change rebuilds it."""
    hash_ = image_hash()
    base = base_image(client, hash_)
    packages = " ".join(yaml.safe_load(HOST_PREP_DEFAULTS.read_text())["host_prep_packages"])
    recipe = hashlib.sha256()
    for part in (hash_, packages, (HERE / "rack-host.Dockerfile").read_text(),
                 (HERE / "rack-host-entrypoint.sh").read_text()):
        recipe.update(part.encode())
    tag = f"{IMAGE_REPO}:{recipe.hexdigest()[:16]}"
    try:
        client.images.get(tag)
        log(f"image {tag} (cached)")
        return tag
    except docker.errors.ImageNotFound:
        pass
    log(f"building {tag} on {base} with: {packages} (apt, a few minutes when cold)")
    t0 = time.monotonic()
    # the build's apt needs the network (dockerd runs without a bridge); the
    # rack hosts themselves never reach beyond loopback
    cmd = ["docker", "build", "--network", "host", "-f", str(HERE / "rack-host.Dockerfile"),
           "--build-arg", f"BASE_IMAGE={base}", "--build-arg", f"PACKAGES={packages}",
           "--label", f"{LABEL}=1", "--label", f"vmparity.image-hash={hash_}", "-t", tag, str(HERE)]
    build = subprocess.run(cmd, capture_output=True, text=True)
    if build.returncode != 0:
        die(f"building {tag} failed:\n{build.stdout[-3000:]}{build.stderr[-3000:]}")
    log(f"built {tag} in {time.monotonic() - t0:.0f} s")
    return tag


# --- the laptop: key, ssh config, known_hosts, inventory -----------------------

def laptop_home(bed: Path) -> Path:
    home = bed / "laptop-home"
    ssh = home / ".ssh"
    ssh.mkdir(parents=True, exist_ok=True)
    ssh.chmod(0o700)
    key = ssh / "id_ed25519"
    if not key.exists():
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "vmparity-rack-bed", "-f", str(key)],
                       check=True)
    key.chmod(0o600)
    cache = home / ".cache" / "vmparity"
    if not cache.is_symlink():
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.symlink_to(CACHE_DIR)
    return home


def control_dir(bed: Path) -> Path:
    """Where the laptop's SSH master sockets live: short, since a socket path
    has 108 bytes and a bed under a deep temporary directory would overflow it."""
    return Path("/tmp") / f"vmparity-rack-{hashlib.sha256(str(bed).encode()).hexdigest()[:8]}"


def ssh_config(hosts: list[RackHost], home: Path, sockets: Path) -> str:
    """What an ops laptop's ~/.ssh/config says about its rack: how to reach each
    host, with which key, and that an unknown or changed host key is refused."""
    blocks = [f"""Host {h.name}
  HostName 127.0.0.1
  Port {h.ssh_port}
""" for h in hosts]
    return "".join(blocks) + f"""
Host *
  User root
  IdentityFile {home}/.ssh/id_ed25519
  IdentitiesOnly yes
  StrictHostKeyChecking yes
  UserKnownHostsFile {home}/.ssh/known_hosts
  PasswordAuthentication no
  KbdInteractiveAuthentication no
  BatchMode yes
  # docker --host ssh:// opens one SSH connection per command: share one
  ControlMaster auto
  ControlPath {sockets}/%C
  ControlPersist 10m
"""


# A nested KVM host runs guests only, and is itself emulated: its timings are the
# emulator's, so the rounds that buy timing sensitivity (added, confirming)
# would buy nothing there.
KVM_HOST_JOBS = "^(clock|snowflake|storefwd|memcpy-static/tunable=default)$"
KVM_HOST_VARS = {
    # its one vCPU emulates every guest's instructions: guests booting together
    # starve each other (two at once took about 5 min to reach SSH)
    "guests_boot_at_once": 1,
    # every byte on a KVM guest's serial console is an exit, emulated twice over here: the
    # 38 kB of a full boot log cost 13 s a boot (199 s for two guests, 172 s quiet, 2026-12-06);
    # warnings and panics still reach the console log shown when a guest does not come up
    "guests_base_cmdline": "root=/dev/vda rw console=ttyS0 quiet",
    # a KVM guest of it reaches SSH in 60-160 s, but its kernel has stopped for good at
    # its HPET's setup (twice in a row, in CI) or waited minutes on udev: five minutes a
    # boot, three boots, before the run gives up on a guest
    "guests_boot_timeout": 300,
    "guests_boot_attempts": 3,
    "containers_enabled": False,
    "host_prep_skip_daemons": ["dockerd"],
    "bench_added_rounds_max": 0,
    "bench_confirm_rounds_max": 0,
    # What an emulated host can decide (docs/kvm.md): the clock's path (clock, and snowflake for seed 004),
    # the copy threshold glibc computes (memcpy at its default tunable) and, to say so with the numbers,
    # one timing seed (storefwd: "cannot tell here"); fence, align and the other memcpy tunables are timing
    # only, which its KVM guests cannot tell. Half of a round's time (kvm-lab: 16 min with every job).
    "bench_only": KVM_HOST_JOBS,
}


def write_inventory(bed: Path, hosts: list[RackHost]) -> Path:
    """An ordinary rack inventory: rack-example's group_vars as they are, and
    the bed's hosts, each with its own guest port range (they share one loopback)."""
    inv = bed / "inventory"
    if inv.exists():
        shutil.rmtree(inv)
    shutil.copytree(EXAMPLE / "group_vars", inv / "group_vars")
    metal_hosts = {}
    for h in hosts:
        metal_hosts[h.name] = {
            "guests_ssh_port_first": h.guest_ports[0],
            "guests_ssh_port_last": h.guest_ports[1],
            "guests_enabled": bool(h.guest_variants),
            "guests_variants_only": h.guest_variants,
        }
        metal_hosts[h.name].update(KVM_HOST_VARS if h.kind == "kvm" else {"containers_variants_only": ["nolimit"]})
    doc = {"all": {"children": {"metal": {"hosts": metal_hosts}}}}
    header = ("# The rack test bed's inventory (tests/rack/bed.py made it from\n"
              "# ansible/inventories/rack-example; the laptop's ~/.ssh/config says how\n"
              "# to reach each host).\n")
    (inv / "hosts.yml").write_text(header + yaml.safe_dump(doc, sort_keys=False))
    # what differs from a real rack: the rack-host image already has host_prep's
    # packages (the bed built it with that list), so nothing needs apt and no
    # traffic leaves loopback
    (inv / "group_vars" / "all.yml").write_text(
        "# The rack test bed: the rack hosts' image has host_prep's packages already.\n"
        "host_prep_install_packages: false\n")
    return inv


def write_laptop_wrapper(bed: Path, home: Path) -> Path:
    # OpenSSH reads ~/.ssh/config from the passwd entry's home, not $HOME: an
    # `ssh` first in the laptop's PATH hands it the laptop's config, and
    # ansible and `docker --host ssh://` both run whichever `ssh` PATH finds
    # (paramiko, under fab, reads $HOME/.ssh/config itself).
    bin_dir = home / "bin"
    bin_dir.mkdir(exist_ok=True)
    ssh = bin_dir / "ssh"
    ssh.write_text(f'#!/bin/sh\nexec /usr/bin/ssh -F {home}/.ssh/config "$@"\n')
    ssh.chmod(0o755)
    wrapper = bed / "laptop"
    wrapper.write_text(f"""#!/bin/sh
# Run a command as from the rack test bed's laptop: its HOME and ssh (key,
# config, known_hosts) and the repository's ansible.cfg and venv.
export HOME={home}
export ANSIBLE_CONFIG={REPO}/ansible/ansible.cfg
export PATH={bin_dir}:{REPO}/.venv/bin:$PATH
exec "$@"
""")
    wrapper.chmod(0o755)
    return wrapper


# --- the rack hosts --------------------------------------------------------------

def start_host(client: docker.DockerClient, image: str, host: RackHost, pubkey: str) -> None:
    """One rack host: the host's network (sshd on its own loopback port), docker
    in docker (every capability but the one this machine lacks, no seccomp or
    AppArmor filter, the cgroup tree, /var/lib/docker on a tmpfs overlayfs can
    use), and a /run that a restart empties, as a reboot does."""
    try:
        old = client.containers.get(host.container)
        same = (old.status == "running" and image in old.image.tags
                and f"AUTHORIZED_KEY={pubkey}" in old.attrs["Config"]["Env"])
        if same:
            return  # the rack this bed made: up again changes nothing
        old.remove(force=True)  # another bed's host (another key) or a stopped one
    except docker.errors.NotFound:
        pass
    client.containers.run(
        image, name=host.container, hostname=host.name, detach=True, init=True,
        network_mode="host",
        cap_add=["ALL"], cap_drop=["SYS_RESOURCE"],
        security_opt=["seccomp=unconfined", "apparmor=unconfined"],
        volumes={"/sys/fs/cgroup": {"bind": "/sys/fs/cgroup", "mode": "rw"}},
        # /run is a tmpfs on a real host: a restart must not leave the daemons'
        # PID files and sockets behind (a stale docker.pid stops dockerd)
        tmpfs={"/var/lib/docker": "exec", "/run": "exec"},
        environment={"SSH_PORT": str(host.ssh_port), "AUTHORIZED_KEY": pubkey},
        labels={LABEL: "1", "vmparity.rack-host": host.name},
    )


def wait_for_ssh(host: RackHost, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", host.ssh_port), timeout=2) as s:
                if s.recv(64).startswith(b"SSH-"):
                    return
        except OSError:
            time.sleep(0.5)
    die(f"{host.name}: no SSH banner on 127.0.0.1:{host.ssh_port} within {timeout:.0f} s "
        f"(docker logs {host.container})")


def host_keys(client: docker.DockerClient, host: RackHost) -> list[str]:
    """The host's public keys, read through docker (a channel the laptop trusts),
    as known_hosts lines: what an admin would put in known_hosts from the host's console."""
    out = client.containers.get(host.container).exec_run(
        ["sh", "-c", "cat /etc/ssh/ssh_host_*_key.pub"]).output.decode()
    keys = [line.split()[:2] for line in out.splitlines() if line.strip()]
    if not keys:
        die(f"{host.name}: no SSH host keys in /etc/ssh")
    return [f"[127.0.0.1]:{host.ssh_port} {kind} {blob}" for kind, blob in keys]


def up(bed: Path, hosts: list[RackHost]) -> dict:
    bed.mkdir(parents=True, exist_ok=True)
    client = docker_client(bed)
    image = rack_host_image(client)
    home = laptop_home(bed)
    pubkey = (home / ".ssh" / "id_ed25519.pub").read_text().strip()
    kvm_hosts = [h for h in hosts if h.kind == "kvm"]
    try:
        if kvm_hosts:  # booted first: a TCG boot is the longest wait
            lab_image = CACHE_DIR / "image" / image_hash()
            disk = kvm_host.build_disk(CACHE_DIR, image, lab_image)
            conn = kvm_host.libvirt_conn(bed)
            for i, h in enumerate(kvm_hosts):
                # each on a CPU of its own (vCPU pinning), the way the guests role pins a host's guests
                kvm_host.start(conn, bed, h.name, h.ssh_port, disk, lab_image, home / ".ssh" / "id_ed25519.pub",
                               first_cpu=i)
            conn.close()
        for h in hosts:
            if h.kind != "kvm":
                start_host(client, image, h, pubkey)
        known = []
        for h in hosts:
            if h.kind == "kvm":
                kvm_host.wait_for_ssh(bed, h.name, h.ssh_port)
                known += kvm_host.known_hosts_lines(bed, h.name, h.ssh_port)
            else:
                wait_for_ssh(h)
                known += host_keys(client, h)
    except kvm_host.BedError as e:
        die(str(e))
    (home / ".ssh" / "known_hosts").write_text("\n".join(known) + "\n")
    sockets = control_dir(bed)
    sockets.mkdir(mode=0o700, exist_ok=True)
    (home / ".ssh" / "config").write_text(ssh_config(hosts, home, sockets))
    (home / ".ssh" / "config").chmod(0o600)
    inventory = write_inventory(bed, hosts)
    wrapper = write_laptop_wrapper(bed, home)
    state = {"image": image, "hosts": [asdict(h) for h in hosts], "inventory": str(inventory),
             "laptop": str(wrapper), "home": str(home)}
    (bed / "state.json").write_text(json.dumps(state, indent=2) + "\n")
    for h in hosts:
        check = subprocess.run([str(wrapper), "ssh", h.name, "hostname"], capture_output=True, text=True)
        if check.returncode != 0 or check.stdout.strip() != h.name:
            die(f"{h.name}: ssh from the laptop failed: {check.stderr.strip() or check.stdout.strip()}")
    log(f"up: {', '.join(f'{h.name} (ssh 127.0.0.1:{h.ssh_port})' for h in hosts)}; inventory {inventory}")
    return state


def down(bed: Path, purge: bool = False) -> None:
    """Remove the rack hosts (their dockerd, libvirtd and guests go with them)
    and the bed's directory; stop dockerd (and libvirtd) if the bed started it.
    The rack-host image and the KVM host's disk are caches and stay unless purge."""
    try:
        client = docker.from_env()
        client.ping()
    except docker.errors.DockerException:
        client = None
    if client is not None:
        for c in client.containers.list(all=True, filters={"label": LABEL}):
            log(f"removing {c.name}")
            c.remove(force=True)
        if purge:
            for img in client.images.list(filters={"label": LABEL}):
                for tag in img.tags or [img.id]:
                    log(f"removing image {tag}")
                    client.images.remove(tag, force=True)
            shutil.rmtree(CACHE_DIR / "kvm-host", ignore_errors=True)
        else:
            kept = [t for img in client.images.list(filters={"label": LABEL}) for t in img.tags]
            if kept:
                log(f"kept: image {', '.join(kept)} (a cache, like the lab's image; --purge removes it)")
    kvm_host.remove_all(bed)
    kvm_host.stop_started_daemons(bed)
    kvm_host.restore_kvm_device(bed)
    marker = bed / "started-dockerd"
    if marker.exists():
        log("stopping the dockerd the bed started")
        subprocess.run(["start-stop-daemon", "--stop", "--oknodo", "--retry", "30", "--pidfile",
                        marker.read_text().strip(), "--exec", "/usr/sbin/dockerd"], check=False)
    if bed.exists():
        shutil.rmtree(bed)
    shutil.rmtree(control_dir(bed), ignore_errors=True)
    log("down")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("action", choices=["up", "down"])
    ap.add_argument("--purge", action="store_true", help="down: remove the rack-host image too")
    ap.add_argument("--dir", default=str(REPO / "build" / "rack-bed"), help="where the bed keeps its files")
    ap.add_argument("--hosts", default=",".join(h.name for h in HOSTS),
                    help=f"up: which hosts, comma-separated, of {', '.join(ALL_HOSTS)} (default: the container hosts; "
                         "kvm01 and kvm02 are the nested KVM hosts)")
    a = ap.parse_args(argv)
    bed = Path(a.dir).resolve()
    if a.action == "up":
        names = [n for n in a.hosts.split(",") if n]
        unknown = [n for n in names if n not in ALL_HOSTS]
        if unknown or not names:
            die(f"--hosts {a.hosts!r}: expected a comma-separated list of {', '.join(ALL_HOSTS)}")
        up(bed, [ALL_HOSTS[n] for n in names])
    else:
        down(bed, a.purge)
    return 0


if __name__ == "__main__":
    sys.exit(main())
