#!/usr/bin/env bash
# Linux arm64: cross-build the npm platform package (Debian's gcc-aarch64-linux-gnu, rustup's
# aarch64 target), install it as npm would on an arm64 machine (`--cpu=arm64`), and run it
# under qemu-user (`--force`: npm refuses an explicit package for another cpu otherwise):
# build the sample docs and search them. Installs what it needs (idempotent).
set -euo pipefail
source "$(dirname "$0")/../scripts/env.sh"
cd "$SIFT_ROOT"
if ! command -v aarch64-linux-gnu-gcc >/dev/null || ! command -v qemu-aarch64 >/dev/null; then
  echo "bench: installing the arm64 cross compiler and qemu-user from Debian"
  (apt-get install -y -q gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user || (apt-get update -q && apt-get install -y -q gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user)) >/dev/null
fi
t0=$SECONDS
SIFT_PACKAGE_TARGETS="$(rustc -vV | awk '/^host:/ { print $2 }') aarch64-unknown-linux-gnu" bash scripts/package.sh | grep "package.sh:"
echo "cross-build and packages: $((SECONDS - t0)) s"
PKG="$CARGO_TARGET_DIR/packages"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
npm install --offline --no-save --cpu=arm64 --os=linux --force --loglevel=error "$PKG"/sift-search-[0-9]*.tgz "$PKG"/sift-search-cli-linux-arm64-*.tgz >/dev/null
bin=node_modules/@sift-search/cli-linux-arm64/bin/sift
file -b "$bin" | cut -d, -f1-2
run() { qemu-aarch64 -L /usr/aarch64-linux-gnu "$bin" "$@"; }
run --version
t1=$SECONDS
HOME="$WORK" run build "$SIFT_ROOT/tests/corpus" "$SIFT_ROOT/docs" --out _sift -q --no-embedder
run search _sift "token refresh" --limit 2
echo "under qemu: build and search in $((SECONDS - t1)) s"
