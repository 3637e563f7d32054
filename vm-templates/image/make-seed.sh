#!/bin/bash
# Make the small per-lab "seed" disk that gives guests the lab's SSH key without
# touching the cached base image: an ext4 filesystem labelled vmparity-seed,
# built with `mke2fs -d` (no loop mount), holding authorized_keys and, when
# given, hostname and an SSH host key (so that whoever made the seed knows the
# guest's host key before it boots: the nested KVM host of tests/rack is pinned
# in the laptop's known_hosts that way). vmparity-seed.service in the guest
# installs them at boot.
# Usage: make-seed.sh OUT.img PUBKEY_FILE [HOSTNAME] [HOST_KEY_FILE]
set -euo pipefail
usage="usage: make-seed.sh OUT.img PUBKEY_FILE [HOSTNAME] [HOST_KEY_FILE]"
out=${1:?$usage}
pubkey=${2:?$usage}
name=${3:-}
host_key=${4:-}

grep -qE '^(ssh-ed25519|ssh-rsa|ecdsa-sha2-[a-z0-9]+) [A-Za-z0-9+/=]+' "$pubkey" \
  || { echo "make-seed: $pubkey: expected an OpenSSH public key line (ssh-ed25519 AAAA...)" >&2; exit 1; }

dir=$(mktemp -d)
trap 'rm -rf "$dir" "$out.tmp"' EXIT
install -m 0600 "$pubkey" "$dir/authorized_keys"
[ -z "$name" ] || echo "$name" > "$dir/hostname"
if [ -n "$host_key" ]; then
  grep -q 'BEGIN OPENSSH PRIVATE KEY' "$host_key" && [ -s "$host_key.pub" ] \
    || { echo "make-seed: $host_key: expected an OpenSSH private key with its .pub beside it" >&2; exit 1; }
  install -m 0600 "$host_key" "$dir/ssh_host_ed25519_key"
  install -m 0644 "$host_key.pub" "$dir/ssh_host_ed25519_key.pub"
fi
truncate -s 4M "$out.tmp"
mke2fs -q -F -t ext4 -L vmparity-seed -d "$dir" "$out.tmp"
mv "$out.tmp" "$out"            # atomic: a guest never sees half a seed
