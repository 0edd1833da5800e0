#!/usr/bin/env bash
# Idempotent setup of everything the build and tests need. Safe to run again: each step
# checks before it installs.
set -euo pipefail
source "$(dirname "$0")/env.sh"

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  echo "setup: adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi
echo "setup: ok (CARGO_TARGET_DIR=$CARGO_TARGET_DIR)"
