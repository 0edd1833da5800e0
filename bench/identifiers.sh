#!/usr/bin/env bash
# API reference search: identifiers on the Python docs (Sphinx) and rust-doc (rustdoc), Sift's
# keyword engine beside Pagefind built on the same pages, in the same Chromium
# (bench/identifiers.mjs). Installs what it needs (idempotent): python3.11-doc and rust-doc
# from Debian, Pagefind from npm, Chromium and the wasm runtime (scripts/setup-web.sh).
# Then the known-item and Cranfield/CACM figures, which identifier handling must not lower:
# bash bench/browser.sh and bash bench/run.sh print them.
set -euo pipefail
source "$(dirname "$0")/../scripts/env.sh"
cd "$SIFT_ROOT"
scripts/setup-web.sh >/dev/null
source bench/site.sh
source bench/rust-doc-site.sh
cargo build --quiet --release -p sift
SIFT="$CARGO_TARGET_DIR/release/sift"
[ -f www/dist/sift_wasm_keyword_bg.wasm.lzma ] || bash scripts/build-wasm.sh
WORK="$CARGO_TARGET_DIR/bench/identifiers"
mkdir -p "$WORK"
for site in python-docs:/usr/share/doc/python3.11/html "rust-doc:$RUST_DOC"; do
  name="${site%%:*}"
  dir="${site#*:}"
  echo "bench: $name: building Sift's keyword bundle and Pagefind's index"
  /usr/bin/time -f "  sift build: %e s, %M KB peak" "$SIFT" build "$dir" --out "$WORK/$name-sift" --no-embedder -q
  if [ ! -f "$WORK/$name-pagefind/pagefind.js" ] || [ "${1:-}" = "--rebuild" ]; then
    rm -rf "$WORK/$name-pagefind"
    /usr/bin/time -f "  pagefind build: %e s, %M KB peak" "$PAGEFIND" --site "$dir" --output-path "$WORK/$name-pagefind" >/dev/null
  fi
  node bench/identifiers.mjs --name "$name" --queries "bench/identifiers/$name.jsonl" --sift "$WORK/$name-sift" \
    --pagefind "$WORK/$name-pagefind" --json "$WORK/$name.json"
done
