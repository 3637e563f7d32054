#!/bin/bash
# Turn a fresh debootstrap tree into a headless guest root (and a clean container
# base): copy the files/ overlay, enable what a guest needs, mask what would
# disturb a benchmark, and strip per-machine identity so every guest makes its own.
# Usage: configure-rootfs.sh ROOTDIR
set -euo pipefail
root=${1:?usage: configure-rootfs.sh ROOTDIR}
here=$(cd "$(dirname "$0")" && pwd)

cp -a --no-preserve=ownership "$here/files/." "$root/"

# systemctl --root edits unit symlinks offline: no chroot, no running systemd.
systemctl --root="$root" enable systemd-networkd.service vmparity-seed.service ssh.service
# Nothing waits for "online": sshd listens on every address as soon as it starts.
systemctl --root="$root" disable systemd-networkd-wait-online.service 2>/dev/null || true
# Periodic jobs would run in the middle of a benchmark; no VGA console either
# (the serial getty on ttyS0 stays, so the console log shows a login prompt).
systemctl --root="$root" mask \
  apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer \
  e2scrub_all.timer e2scrub_reap.service fstrim.timer getty@tty1.service
# A guest boots on every lab run, under emulation, where each unit systemd starts
# costs seconds: what a benchmark guest never uses is masked (module loads for
# device-mapper, loop, fuse, pstore and configfs, the debug, trace, hugetlbfs and
# mqueue mounts, static device nodes, the network generator, static gettys,
# binfmt_misc, the journal's copy to disk: it stays in /run for the guest's life).
# The kernel still loads a module on demand.
systemctl --root="$root" mask \
  modprobe@dm_mod.service modprobe@loop.service modprobe@fuse.service \
  systemd-binfmt.service proc-sys-fs-binfmt_misc.automount systemd-journal-flush.service \
  modprobe@efi_pstore.service modprobe@configfs.service systemd-pstore.service \
  sys-kernel-debug.mount sys-kernel-tracing.mount sys-kernel-config.mount \
  sys-fs-fuse-connections.mount dev-hugepages.mount dev-mqueue.mount \
  kmod-static-nodes.service systemd-network-generator.service getty-static.service \
  systemd-update-utmp-runlevel.service
systemctl --root="$root" set-default multi-user.target
# Generators run as processes before systemd queues a single unit, and a process
# is dear under emulation (0.25-0.5 s in a KVM guest of the nested KVM host):
# ten of the twelve generate nothing for a guest with no encrypted, verity,
# integrity or GPT disks, no swap to resume from, no SysV-only service, no
# rc.local and no systemd.run/debug options; masked, they took 5.0 s to 2.6 s
# of such a guest's boot. fstab (the root) and getty (the serial console) stay.
mkdir -p "$root/etc/systemd/system-generators"
for g in cryptsetup debug gpt-auto hibernate-resume integritysetup rc-local run system-update sysv veritysetup; do
  ln -sfn /dev/null "$root/etc/systemd/system-generators/systemd-$g-generator"
done

# Identity made per guest at boot: an empty machine-id is filled in by systemd,
# the SSH host key by vmparity-seed.service.
: > "$root/etc/machine-id"
rm -f "$root"/var/lib/dbus/machine-id "$root"/etc/ssh/ssh_host_*

# Package caches are not part of the environment under test.
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
