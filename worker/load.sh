#!/usr/bin/env bash
# Load test of the worker on the Python docs (keyword and hybrid bundles of bench/browser.sh,
# built here when missing), bounded in time: SIFT_LOAD_SECONDS per run (default 10).
set -euo pipefail
source "$(dirname "$0")/../scripts/env.sh"
cd "$SIFT_ROOT"
scripts/setup-web.sh >/dev/null
[ -f www/dist/sift_embed_wasm_bg.wasm ] || bash scripts/build-wasm.sh
cargo build --quiet --release -p sift
SIFT="$CARGO_TARGET_DIR/release/sift"
SITE="${SIFT_BENCH_SITE:-/usr/share/doc/python3.11/html}"
[ -d "$SITE" ] || (apt-get install -y python3.11-doc || (apt-get update && apt-get install -y python3.11-doc)) >/dev/null
WORK="$CARGO_TARGET_DIR/bench/browser"
[ -f "$WORK/sift-lex/manifest.json" ] || "$SIFT" build "$SITE" --out "$WORK/sift-lex" --no-embedder -q
if [ ! -f "$WORK/sift-hybrid/manifest.json" ]; then
  "$SIFT" model fetch >/dev/null
  "$SIFT" build "$SITE" --out "$WORK/sift-hybrid"
fi
node worker/load.mjs --lex "$WORK/sift-lex" --hybrid "$WORK/sift-hybrid" --duration "${SIFT_LOAD_SECONDS:-10}" --json "$WORK/worker-load.json"
