#!/usr/bin/env bash
# Soak test (issue "Trust"): the worker on local workerd over the Python docs for
# SIFT_SOAK_MINUTES (default 10) under a mix of valid, invalid and oversized requests — the
# keyword bundle, then the bundle with vectors (searched in auto mode: hybrid by the bundle's
# static query encoder) when bench/browser.sh or worker/load.sh has built it.
set -euo pipefail
source "$(dirname "$0")/../scripts/env.sh"
cd "$SIFT_ROOT"
scripts/setup-web.sh >/dev/null
[ -f www/dist/sift_wasm_bg.wasm ] || SIFT_SKIP_EMBED_WASM=1 bash scripts/build-wasm.sh
cargo build --quiet --release -p sift
SITE="${SIFT_BENCH_SITE:-/usr/share/doc/python3.11/html}"
[ -d "$SITE" ] || (apt-get install -y python3.11-doc || (apt-get update && apt-get install -y python3.11-doc)) >/dev/null
WORK="$CARGO_TARGET_DIR/bench/browser"
[ -f "$WORK/sift-lex/manifest.json" ] || "$CARGO_TARGET_DIR/release/sift" build "$SITE" --out "$WORK/sift-lex" --no-embedder -q
echo "== soak: keyword bundle"
node worker/soak.mjs --bundle "$WORK/sift-lex" --minutes "${SIFT_SOAK_MINUTES:-10}" --json "$WORK/worker-soak.json"
if [ -f "$WORK/sift-hybrid/manifest.json" ]; then
  echo "== soak: bundle with vectors (hybrid)"
  node worker/soak.mjs --bundle "$WORK/sift-hybrid" --minutes "${SIFT_SOAK_MINUTES:-10}" --json "$WORK/worker-soak-hybrid.json"
else
  echo "(no hybrid bundle at $WORK/sift-hybrid: run bash worker/load.sh first; hybrid soak skipped)"
fi
