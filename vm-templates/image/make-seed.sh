#!/bin/bash
# Make the small per-lab "seed" disk that gives guests the lab's SSH key without
# touching the cached base image: an ext4 filesystem labelled vmparity-seed,
# built with `mke2fs -d` (no loop mount), holding authorized_keys and, when
# given, hostname. vmparity-seed.service in the guest installs it at boot.
# Usage: make-seed.sh OUT.img PUBKEY_FILE [HOSTNAME]
set -euo pipefail
out=${1:?usage: make-seed.sh OUT.img PUBKEY_FILE [HOSTNAME]}
pubkey=${2:?usage: make-seed.sh OUT.img PUBKEY_FILE [HOSTNAME]}
name=${3:-}

grep -qE '^(ssh-ed25519|ssh-rsa|ecdsa-sha2-[a-z0-9]+) [A-Za-z0-9+/=]+' "$pubkey" \
  || { echo "make-seed: $pubkey: expected an OpenSSH public key line (ssh-ed25519 AAAA...)" >&2; exit 1; }

dir=$(mktemp -d)
trap 'rm -rf "$dir" "$out.tmp"' EXIT
install -m 0600 "$pubkey" "$dir/authorized_keys"
[ -z "$name" ] || echo "$name" > "$dir/hostname"
truncate -s 4M "$out.tmp"
mke2fs -q -F -t ext4 -L vmparity-seed -d "$dir" "$out.tmp"
mv "$out.tmp" "$out"            # atomic: a guest never sees half a seed
