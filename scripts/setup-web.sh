#!/usr/bin/env bash
# Idempotent setup of the web toolchain: wasm-bindgen-cli (the exact version in Cargo.lock),
# Debian's Chromium for the browser tests, and the npm packages of www/ and worker/. Each
# step checks before it installs; nothing downloads binaries from GitHub.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$SIFT_ROOT"
"$SIFT_ROOT/scripts/setup.sh"

lock_version() { # the version of a crate pinned in Cargo.lock
  awk -v n="$1" '$0 == "name = \"" n "\"" { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock
}

want_bindgen="$(lock_version wasm-bindgen)"
have_bindgen="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)"
if [ "$have_bindgen" != "$want_bindgen" ]; then
  echo "setup-web: installing wasm-bindgen-cli $want_bindgen (about a minute, once per machine)"
  # Without --locked: the registry index here can lag the lockfile upstream ships.
  # --debug: compiles in about 1 minute instead of about 10 on 2 cores, and writes the same
  # bytes (checked on both runtimes); it only runs a few seconds slower per wasm build.
  cargo install wasm-bindgen-cli --version "$want_bindgen" --force --debug
fi

# SIFT_SETUP_DEMO=1: only what scripts/demo.sh needs (no Chromium or worker packages: the
# demo's runtime is the engine wasm, built with cargo and wasm-bindgen).
DEMO="${SIFT_SETUP_DEMO:-}"

if [ "$DEMO" != 1 ] && [ "${SIFT_SKIP_CHROMIUM:-}" != 1 ] && ! [ -x /usr/bin/chromium ]; then
  echo "setup-web: installing Debian's chromium"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null \
    || { $SUDO apt-get update -q >/dev/null && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null; } \
    || $SUDO apt-get install -f -y -q >/dev/null
fi

# (bench/ installs its peers itself: bench/run.sh, bench/browser.sh)
dirs=(www worker); [ "$DEMO" = 1 ] && dirs=(www)
for dir in "${dirs[@]}"; do
  if [ -f "$dir/package.json" ]; then
    # npm ci when the lockfile matches, skipped entirely when node_modules is current.
    if ! [ -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
      echo "setup-web: npm packages of $dir/"
      (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
    fi
  fi
done
echo "setup-web: ok"
