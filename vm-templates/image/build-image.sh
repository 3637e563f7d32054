#!/bin/bash
# Build the one root filesystem shared by every guest and container of the lab:
#   debootstrap (packages.txt) -> configure-rootfs.sh -> rootfs.tar   (docker import)
#                                                      -> base.qcow2   (mke2fs -d, no loop mount)
#                                                      -> vmlinuz, initrd.img (direct kernel boot)
# into $CACHE_DIR/image/<recipe-hash>/ with `current` pointing at it.
# The recipe hash covers packages.txt, these scripts and files/, so the slow
# debootstrap runs again only when one of them changes.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
CACHE_DIR=${CACHE_DIR:-$HOME/.cache/vmparity}
SUITE=${IMAGE_SUITE:-bookworm}
MIRROR=${IMAGE_MIRROR:-http://deb.debian.org/debian}
DISK_SIZE=${IMAGE_DISK_SIZE:-3G}
images=$CACHE_DIR/image

die() { echo "build-image: $*" >&2; exit 1; }

# --- recipe hash: every input file, by relative path, plus the suite -----------
recipe_sums() {
  (cd "$here" && find . -type f ! -name '*.pyc' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
  echo "suite $SUITE"
}
hash=$(recipe_sums | sha256sum | cut -c1-16)
final=$images/$hash

publish_current() { ln -sfn "$hash" "$images/.current.tmp" && mv -T "$images/.current.tmp" "$images/current"; }

mkdir -p "$images"
exec 9>"$images/.lock"          # one builder at a time (the lab and a test may race)
flock 9
if [ -s "$final/recipe.sha256" ]; then
  publish_current
  echo "build-image: cached $final"
  exit 0
fi
# Only a build needs root and these tools: a cached image (one copied from the
# machine that built it, as a laptop without root gets it) is found above.
for tool in debootstrap chroot mke2fs qemu-img tar sha256sum systemctl; do
  command -v "$tool" >/dev/null || die "'$tool' not found; install it (make apt-deps)"
done
[ "$(id -u)" = 0 ] || die "debootstrap needs root (uid 0); run as root, or copy $images/$hash/ (and the link current) from a machine that built it"

# --- build in a temporary directory; rename only when everything is there ---
work=$(mktemp -d "$images/.build-$hash.XXXXXX")
trap 'rm -rf "$work"' EXIT
t0=$(date +%s)
phase_start=$t0
phase() {  # phase NAME: report the time of the phase just finished
  local now; now=$(date +%s)
  printf 'build-image: %-12s %4ss\n' "$1" "$((now - phase_start))"
  phase_start=$now
}

packages=$(grep -v '^\s*#' "$here/packages.txt" | grep -v '^\s*$' | paste -sd, -)
mkdir -p "$images/debs"         # downloaded .debs survive recipe changes
echo "build-image: debootstrap $SUITE from $MIRROR (a few minutes when cold)"
debootstrap --variant=minbase --include="$packages" --cache-dir="$images/debs" \
  "$SUITE" "$work/root" "$MIRROR" > "$work/debootstrap.log" 2>&1 \
  || { tail -n 30 "$work/debootstrap.log" >&2; die "debootstrap failed (log above)"; }
phase debootstrap

"$here/configure-rootfs.sh" "$work/root" > "$work/configure.log" 2>&1 \
  || { cat "$work/configure.log" >&2; die "configuring the root filesystem failed (log above)"; }
phase configure

# The kernel package installs exactly one kernel; refuse to guess among several.
kernels=("$work"/root/boot/vmlinuz-*)
[ "${#kernels[@]}" = 1 ] && [ -e "${kernels[0]}" ] || die "expected one kernel in /boot, found: ${kernels[*]}"
version=${kernels[0]##*/vmlinuz-}
# The kernel package made its initramfs during debootstrap, with Debian's
# MODULES=most; files/ (copied in by configure) sets MODULES=list, so make it
# again: the virtio modules only (files/etc/initramfs-tools/conf.d/vmparity.conf)
chroot "$work/root" update-initramfs -u -k "$version" > "$work/initramfs.log" 2>&1 \
  || { cat "$work/initramfs.log" >&2; die "making the initramfs failed (log above)"; }
cp "${kernels[0]}" "$work/vmlinuz"
cp "$work/root/boot/initrd.img-$version" "$work/initrd.img"
echo "$version" > "$work/kernel-version"
phase kernel

tar --numeric-owner --xattrs -C "$work/root" -cf "$work/rootfs.tar" .
phase rootfs.tar

# mke2fs -d copies the tree with owners and modes into the filesystem image:
# no loop device, no mount. The root fs is the whole disk (root=/dev/vda).
truncate -s "$DISK_SIZE" "$work/base.raw"
mke2fs -q -F -t ext4 -L vmparity-root -d "$work/root" "$work/base.raw"
qemu-img convert -O qcow2 "$work/base.raw" "$work/base.qcow2"
rm -f "$work/base.raw"
phase base.qcow2

rm -rf "$work/root"
recipe_sums > "$work/recipe.sha256"   # written last: its presence marks a complete build
chmod 0755 "$work"                     # mktemp made it 0700; containers and qemu read it
rm -rf "$final"                        # a leftover without recipe.sha256 is incomplete
mv -T "$work" "$final"
trap - EXIT
publish_current
echo "build-image: built $final in $(( $(date +%s) - t0 ))s (kernel $version)"
