#!/usr/bin/env bash
# Benchmarks (numbers, not pass/fail): Sift vs Pagefind on the Python documentation, Sift's
# query latency, and relevance on Cranfield next to a standard BM25 computed with bm25s.
# Installs what it needs (idempotent): python3.11-doc, Pagefind from npm, bm25s from PyPI.
set -euo pipefail
source "$(dirname "$0")/../scripts/env.sh"
cd "$SIFT_ROOT"
scripts/setup.sh
SITE="${SIFT_BENCH_SITE:-/usr/share/doc/python3.11/html}"
if [ ! -d "$SITE" ]; then
  echo "bench: installing python3.11-doc (the Python docs as a static site)"
  (apt-get install -y python3.11-doc || (apt-get update && apt-get install -y python3.11-doc)) > /dev/null
fi
if [ ! -x bench/node_modules/.bin/pagefind ]; then
  echo "bench: installing pagefind from npm"
  (cd bench && npm install --no-audit --no-fund --loglevel=error)
fi
python3 -c "import bm25s, Stemmer" 2>/dev/null || pip install --quiet bm25s PyStemmer
cargo build --quiet --release -p sift-cli
SIFT="$CARGO_TARGET_DIR/release/sift"
WORK="$CARGO_TARGET_DIR/bench"

echo "== build and query benchmark"
# The hybrid bundle of bench/browser.sh, when it has been built: hybrid `sift search` timed too.
HYB=()
[ -f "$WORK/browser/sift-hybrid/manifest.json" ] && HYB=(--hybrid "$WORK/browser/sift-hybrid")
"$SIFT" bench --site "$SITE" --pagefind bench/node_modules/.bin/pagefind --work "$WORK" "${HYB[@]}" "$@"

CRAN="$SIFT_ROOT/../shared/data/cranfield"
if [ -d "$CRAN" ]; then
  echo
  echo "== relevance on Cranfield"
  "$SIFT" build "$CRAN/corpus.jsonl" --out "$WORK/cranfield" -q
  echo "sift lexical: $("$SIFT" eval "$WORK/cranfield" --queries "$CRAN/queries.jsonl" --qrels "$CRAN/qrels/test.tsv" --mode lexical --json)"
  if [ -f "$("$SIFT" model path)/model-f32.onnx" ]; then
    echo "sift, every mode, both query encoders:"
    "$SIFT" eval "$WORK/cranfield" --queries "$CRAN/queries.jsonl" --qrels "$CRAN/qrels/test.tsv" --embedder both
  fi
  echo "bm25 (bm25s): $(python3 bench/bm25_baseline.py "$CRAN" 1.2 0.75)"
  echo "bm25 (bm25s): $(python3 bench/bm25_baseline.py "$CRAN" 1.5 0.75)"
else
  echo "(../shared/data/cranfield not found: relevance skipped)"
fi
