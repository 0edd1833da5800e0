#!/usr/bin/env bash
# The README's test command: set up, then run every check and test. Tests that need
# ../shared (the test collections) or the model say they were skipped when either is
# absent; with CI set, that is a failure.
#
# Each step is timed into $CARGO_TARGET_DIR/test-times.txt (bench/test-time.sh prints it).
# Everything heavy is built once per run and only when its inputs changed: one cargo
# target directory for the native work (dev profile: the tests, the CLI they drive and
# the packages they install, built once as one selection), the wasm builds cached by cargo
# and by the hash of what they are made from (scripts/build-wasm.sh), the fuzz targets by
# cargo. No nightly toolchain is needed: the wasm engines are built on stable here (the
# published ones are the size build: scripts/build-wasm.sh where nightly is installed).
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$SIFT_ROOT"
export SIFT_WASM_STABLE=1 SIFT_WASM_PROFILE=wasm-test
TIMES="$CARGO_TARGET_DIR/test-times.txt"
mkdir -p "$CARGO_TARGET_DIR"
: >"$TIMES"
t_all=$SECONDS
step() { # name, command...: run it, timed
  local name="$1" t0=$SECONDS
  shift
  echo "== $name"
  "$@"
  printf '%-28s %5d s\n' "$name" "$((SECONDS - t0))" | tee -a "$TIMES"
}
# The workspace's native crates, as one selection: every cargo build of the native code
# below is this one, so each dependency (tract above all) is compiled once, with one set
# of features. The wasm crates are tested in Node, Chromium and workerd below.
NATIVE=(--workspace --exclude sift-wasm --exclude sift-embed-wasm --exclude sift-stem-wasm)
rust_build() {
  # The tests, the CLI they drive (debug/sift) and the examples (debug/examples/).
  cargo test --quiet "${NATIVE[@]}" --no-run
}
rust_tests() {
  # --show-output: what passing tests print reaches the log too (the relevance tables,
  # recall figures and every "skipped: …" notice).
  cargo test "${NATIVE[@]}" -- --show-output 2>&1 | tee "$CARGO_TARGET_DIR/last-test.log"
  # The engine as the browser builds it: the keyword and lean feature sets.
  cargo test -p sift-engine --no-default-features 2>&1 | tee -a "$CARGO_TARGET_DIR/last-test.log"
  cargo test -p sift-engine --no-default-features --features semantic 2>&1 | tee -a "$CARGO_TARGET_DIR/last-test.log"
}
model() {
  if ! "$CARGO_TARGET_DIR/debug/sift" model fetch; then
    echo "WARNING: the model could not be fetched; the embedder parity tests will say they were skipped"
  fi
}
web() {
  # The wasm engines, stemmers and the full-model embedder, then the differential sample
  # in wasm (written afresh by tests/differential.rs) and the prebuilt packages (npm
  # tarballs, PyPI wheel, of the dev build), which tests/package/ installs on a PATH
  # without cargo, rustc or python3.
  bash scripts/build-wasm.sh
  "$CARGO_TARGET_DIR/debug/examples/wasm_sample"
  SIFT_PACKAGE_PROFILE=dev SIFT_PACKAGE_BIN="$CARGO_TARGET_DIR/debug/sift" bash scripts/package.sh >/dev/null
}
node_tests() {
  # The suites share nothing (each file its own folder, port and browser profile): two at
  # a time, one per core.
  node --test --test-concurrency="$(nproc)" tests/wasm/ tests/browser/ tests/extension/ tests/worker/ tests/mcp/ tests/annotations/ tests/package/ 2>&1 |
    tee "$CARGO_TARGET_DIR/last-node-test.log"
}

step setup scripts/setup-web.sh
step format cargo fmt --all -- --check
step clippy cargo clippy --quiet --workspace --all-targets -- -D warnings
step "build (tests, CLI)" rust_build
step "model (sift model fetch)" model
step "rust tests" rust_tests
# Long runs: bash scripts/fuzz.sh --time 1800 --keep-going
step "fuzz (build, smoke runs)" bash scripts/fuzz.sh --smoke --time "${SIFT_FUZZ_SMOKE_SECONDS:-10}"
step "wasm and packages" web
step "node suites" node_tests
printf '%-28s %5d s\n' "all" "$((SECONDS - t_all))" | tee -a "$TIMES"

# A one-line summary over every test binary and the Node test runs.
awk '/^test result:/ { p += $4; f += $6 } /^# pass / { p += $3 } /^# fail / { f += $3 } END { printf "\n%d passed, %d failed\n", p, f }' \
  "$CARGO_TARGET_DIR/last-test.log" "$CARGO_TARGET_DIR/last-node-test.log"
