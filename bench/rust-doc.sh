#!/usr/bin/env bash
# Hybrid search on a 32,101-page site: Debian's rust-doc (the Rust standard library, the
# book, the reference and more), Sift beside Pagefind 1.6. Prints the builds' time and peak
# memory (the keyword bundle, the hybrid one with vectors and a static encoder, Pagefind's
# index), MRR@10 of Rust keyword queries and paraphrases (bench/known-item/rust-doc-*,
# bench/known-items.mjs), then in Chromium the bytes until the first result and the cold
# first answer, keyword and hybrid (bench/browser.mjs on bench/rust-doc-queries.txt).
# The hybrid build embeds every page (tens of minutes on 2 cores): it is kept in the
# work dir and built again only with --rebuild (the embedding cache makes that quicker).
# Installs what it needs (idempotent).
set -euo pipefail
source "$(dirname "$0")/../scripts/env.sh"
cd "$SIFT_ROOT"
scripts/setup-web.sh >/dev/null
source bench/site.sh
source bench/rust-doc-site.sh
SITE="$RUST_DOC"
cargo build --quiet --release -p sift
SIFT="$CARGO_TARGET_DIR/release/sift"
[ -f www/dist/sift_wasm_bg.wasm.lzma ] || bash scripts/build-wasm.sh
"$SIFT" model fetch >/dev/null
WORK="$CARGO_TARGET_DIR/bench/rust-doc"
mkdir -p "$WORK"
echo "bench: rust-doc: building Sift's keyword bundle"
/usr/bin/time -f "  sift build (keyword): %e s wall, %U s CPU, %M KB peak" "$SIFT" build "$SITE" --out "$WORK/sift-lex" --no-embedder -q
if [ ! -f "$WORK/sift-hybrid/manifest.json" ] || [ "${1:-}" = "--rebuild" ]; then
  echo "bench: rust-doc: building Sift's hybrid bundle (embeds every page)"
  /usr/bin/time -f "  sift build (hybrid): %e s wall, %U s CPU, %M KB peak" "$SIFT" build "$SITE" --out "$WORK/sift-hybrid" -q
fi
if [ ! -f "$WORK/pagefind/pagefind.js" ] || [ "${1:-}" = "--rebuild" ]; then
  rm -rf "$WORK/pagefind"
  /usr/bin/time -f "  pagefind build: %e s wall, %U s CPU, %M KB peak" "$PAGEFIND" --site "$SITE" --output-path "$WORK/pagefind" >/dev/null
fi
echo
echo "== known items on rust-doc"
SIFT_BIN="$SIFT" node bench/known-items.mjs --sift "$WORK/sift-hybrid" --pagefind "$WORK/pagefind" \
  --qrels bench/known-item/rust-doc-qrels.tsv bench/known-item/rust-doc-keyword.jsonl bench/known-item/rust-doc-paraphrase.jsonl
node bench/browser.mjs --lex "$WORK/sift-lex" --hybrid "$WORK/sift-hybrid" --pagefind "$WORK/pagefind" \
  --queries bench/rust-doc-queries.txt --cold-runs 7 --rounds 1 --slow-runs 1 --json "$WORK/browser.json"
