#!/usr/bin/env bash
# usage: go-toolchain.sh VERSION DEST
# Makes a Go of at least VERSION available: the `go` on PATH when it is new
# enough, else the toolchain module golang.org/toolchain@v0.0.1-goVERSION.<os>-<arch>
# (what Go's own GOTOOLCHAIN switching downloads) from the Go module proxy,
# checked against the hash the Go checksum database records for it, unpacked
# into DEST (the Makefile puts DEST/bin first on PATH).
set -euo pipefail

version=${1:?usage: $0 VERSION DEST}
dest=${2:?usage: $0 VERSION DEST}
proxy=${GO_TOOLCHAIN_PROXY:-https://proxy.golang.org}
# The checksum database through the proxy, as the go command reaches it.
sumdb=${GO_TOOLCHAIN_SUMDB:-$proxy/sumdb/sum.golang.org}

# GOTOOLCHAIN=local: the version of this very binary, not one it would switch to.
have=$(GOTOOLCHAIN=local go env GOVERSION 2>/dev/null || true)
have=${have#go}
if [[ -n $have && $(printf '%s\n%s\n' "$version" "$have" | sort -V | head -1) == "$version" ]]; then
	echo "go-toolchain: go $have on PATH is new enough (go.mod needs $version)"
	exit 0
fi

case $(uname -m) in
x86_64) arch=amd64 ;;
aarch64) arch=arm64 ;;
*) echo "go-toolchain: no Go toolchain module for $(uname -m); install Go >= $version by hand" >&2; exit 2 ;;
esac
command -v curl >/dev/null || { echo "go-toolchain: curl not found: install it, or Go >= $version by hand" >&2; exit 2; }
module=golang.org/toolchain
modver=v0.0.1-go$version.linux-$arch
echo "go-toolchain: ${have:+go $have is older than $version; }fetching $module@$modver from $proxy"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
curl -fsSL --retry 3 -o "$tmp/go.zip" "$proxy/$module/@v/$modver.zip"
want=$(curl -fsSL --retry 3 "$sumdb/lookup/$module@$modver" | awk -v m="$module" -v v="$modver" '$1 == m && $2 == v {print $3}')
[[ $want == h1:* ]] || { echo "go-toolchain: $sumdb has no hash for $module@$modver" >&2; exit 1; }

# The module hash (golang.org/x/mod/sumdb/dirhash Hash1): sha256 over the
# sorted "sha256-of-file  path" lines of every file in the zip.
got=$(python3 - "$tmp/go.zip" <<'PY'
import base64, hashlib, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    names = sorted(n for n in z.namelist() if not n.endswith("/"))
    summary = "".join(f"{hashlib.sha256(z.read(n)).hexdigest()}  {n}\n" for n in names)
print("h1:" + base64.b64encode(hashlib.sha256(summary.encode()).digest()).decode())
PY
)
[[ $got == "$want" ]] || { echo "go-toolchain: $modver.zip hashes to $got, the checksum database says $want" >&2; exit 1; }

# Unpacked by python3 (which hashed it above), so that no unzip package is needed.
python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$tmp/go.zip" "$tmp/x"
# Module zips keep no file modes: make the commands executable, as Go does.
chmod +x "$tmp/x/$module@$modver/bin/"* "$tmp/x/$module@$modver/pkg/tool/"*/*
rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
mv "$tmp/x/$module@$modver" "$dest"
echo "go-toolchain: $("$dest/bin/go" version) in $dest"
