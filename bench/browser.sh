#!/usr/bin/env bash
# The browser benchmark: Sift (keyword-only, hybrid with the bundle's static encoder, hybrid
# with the full model) and Pagefind built on the Python docs in the same run, measured in the
# same headless Chromium (bench/browser.mjs).
# Installs what it needs (idempotent). The hybrid bundle embeds every section of the site and
# its training texts (about 13 minutes on 2 cores the first time; the embedding cache makes
# later builds take seconds); --rebuild builds it again.
set -euo pipefail
source "$(dirname "$0")/../scripts/env.sh"
cd "$SIFT_ROOT"
scripts/setup-web.sh >/dev/null
source bench/site.sh
cargo build --quiet --release -p sift
SIFT="$CARGO_TARGET_DIR/release/sift"
"$SIFT" model fetch >/dev/null
bash scripts/build-wasm.sh
WORK="$CARGO_TARGET_DIR/bench/browser"
mkdir -p "$WORK"
echo "bench: building the keyword-only Sift bundle and Pagefind's index of $SITE"
/usr/bin/time -f "sift build (keyword-only): %e s, %M KB peak" "$SIFT" build "$SITE" --out "$WORK/sift-lex" --no-embedder -q
rm -rf "$WORK/pagefind"
/usr/bin/time -f "pagefind build: %e s, %M KB peak" "$PAGEFIND" --site "$SITE" --output-path "$WORK/pagefind" >/dev/null
if [ ! -f "$WORK/sift-hybrid/model/model.onnx" ] || [ "${1:-}" = "--rebuild" ]; then
  echo "bench: building the hybrid Sift bundle (embeds every section and the encoder's training texts)"
  # --copy-model: the sift_model row loads the full model from the bundle.
  /usr/bin/time -f "sift build (with vectors): %e s, %M KB peak" "$SIFT" build "$SITE" --out "$WORK/sift-hybrid" --copy-model
fi
# The hybrid bundle is kept between runs (embedding the site takes many minutes): say so when
# it is of an older format than this build writes, so its rows are read as that format's.
format_of() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["format_version"])' "$1/manifest.json"; }
if [ "$(format_of "$WORK/sift-hybrid")" != "$(format_of "$WORK/sift-lex")" ]; then
  echo "bench: note: the kept hybrid bundle is format $(format_of "$WORK/sift-hybrid"), this build writes $(format_of "$WORK/sift-lex"): its rows measure the older format (bash bench/browser.sh --rebuild rebuilds it)"
fi
# tinysearch (a peer: its CLI generates a crate with the index inside and compiles it to wasm).
PEERS="$CARGO_TARGET_DIR/peers"
TS_ARGS=()
if [ -x "$PEERS/bin/tinysearch" ] || cargo install --quiet tinysearch --features bin --root "$PEERS"; then
  python3 bench/tinysearch_index.py "$SITE" "$WORK/tinysearch-posts.json"
  rm -rf "$WORK/tinysearch" "$WORK/tinysearch-crate"
  # Its generated crate must build in its own target dir (it looks for the wasm there).
  if (export PATH="$HOME/.cargo/bin:$PATH"; unset CARGO_TARGET_DIR; /usr/bin/time -f "tinysearch build: %e s, %M KB peak" \
      "$PEERS/bin/tinysearch" -m wasm -p "$WORK/tinysearch" --crate-path "$WORK/tinysearch-crate" "$WORK/tinysearch-posts.json" >/dev/null); then
    TS_ARGS=(--tinysearch "$WORK/tinysearch")
  else
    echo "bench: tinysearch did not build here; it is left out"
  fi
else
  echo "bench: tinysearch could not be installed (offline?); it is left out"
fi
node bench/browser.mjs --model --lex "$WORK/sift-lex" --hybrid "$WORK/sift-hybrid" --pagefind "$WORK/pagefind" "${TS_ARGS[@]}" --json "$WORK/report.json"
echo "report: $WORK/report.json"
