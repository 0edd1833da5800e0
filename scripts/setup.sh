#!/usr/bin/env bash
# Idempotent setup of everything the build and tests need. Safe to run again: each step
# checks before it installs.
set -euo pipefail
source "$(dirname "$0")/env.sh"

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  echo "setup: adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi
# The browser engine's size build (scripts/build-wasm.sh): a nightly toolchain with the
# standard library's source, so std itself is rebuilt for size with panics as plain traps
# (gzip 242.7 -> 201.0 kB). Without it the engine is built on stable, larger but the same.
if [ "${SIFT_WASM_STABLE:-}" != 1 ] && ! sift_has_size_toolchain; then
  echo "setup: adding a nightly toolchain with rust-src and wasm32 (the size build of the browser engine)"
  rustup toolchain install nightly --profile minimal --component rust-src --target wasm32-unknown-unknown ||
    echo "setup: warning: no nightly toolchain; the browser engine is built on stable (about 40 kB gzip larger)"
fi
echo "setup: ok (CARGO_TARGET_DIR=$CARGO_TARGET_DIR)"
