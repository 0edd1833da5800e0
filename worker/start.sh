#!/usr/bin/env bash
# `npm --prefix worker start`: build what is missing (the sift CLI, the wasm runtime, a bundle
# of the sample docs) and run the worker in Cloudflare's real runtime (workerd, via wrangler
# dev --local) on 127.0.0.1:${PORT:-8787}. SIFT_BUNDLE=<bundle dir> serves another bundle;
# SIFT_WORKER=worker|model picks the entry (default: worker — semantic search by the bundle's
# own query encoder; model adds the full query model, which the bundle must carry in model/).
# No network beyond loopback: wrangler's telemetry, update checks and cf fetches are off.
set -euo pipefail
source "$(dirname "$0")/../scripts/env.sh"
cd "$SIFT_ROOT"
scripts/setup-web.sh >/dev/null
[ -f www/dist/sift_wasm_bg.wasm ] || bash scripts/build-wasm.sh
cargo build --quiet -p sift
SIFT="$CARGO_TARGET_DIR/debug/sift"
BUNDLE="${SIFT_BUNDLE:-}"
if [ -z "$BUNDLE" ]; then
  BUNDLE="$CARGO_TARGET_DIR/worker-dev/sample-bundle"
  "$SIFT" build docs tests/corpus --out "$BUNDLE" --base-url / -q
fi
# A bundle, or (for SIFT_BUNDLES) a folder of bundles.
[ -f "$BUNDLE/manifest.json" ] || compgen -G "$BUNDLE/*/manifest.json" >/dev/null ||
  { echo "error: SIFT_BUNDLE=$BUNDLE is not a Sift bundle (no manifest.json), nor a folder of them" >&2; exit 2; }
BUNDLE="$(cd "$BUNDLE" && pwd)"
ENTRY="${SIFT_WORKER:-worker}"
case "$ENTRY" in
  worker) ;;
  model) [ -f www/dist/sift_embed_wasm_bg.wasm ] || { echo "error: SIFT_WORKER=model needs the query embedder (bash scripts/build-wasm.sh)" >&2; exit 2; } ;;
  *) echo "error: SIFT_WORKER must be worker or model; got $ENTRY" >&2; exit 2 ;;
esac
# One config (and wrangler state) directory per port: two workers may run side by side.
CFG_DIR="$CARGO_TARGET_DIR/worker-dev/$ENTRY-${PORT:-8787}-$(printf %s "$BUNDLE" | cksum | cut -d' ' -f1)"
mkdir -p "$CFG_DIR"
sed -e "s|^main = .*|main = \"$SIFT_ROOT/worker/src/$ENTRY.js\"|" -e "s|^directory = .*|directory = \"$BUNDLE\"|" \
  worker/wrangler.toml > "$CFG_DIR/wrangler.toml"
echo "sift worker ($ENTRY) over $BUNDLE on http://127.0.0.1:${PORT:-8787}/"
cd "$CFG_DIR"
exec "$SIFT_ROOT/worker/node_modules/.bin/wrangler" dev --config "$CFG_DIR/wrangler.toml" --local --ip 127.0.0.1 \
  --port "${PORT:-8787}" --inspector-port 0 --show-interactive-dev-session=false --log-level "${WRANGLER_LOG:-warn}" "$@"
