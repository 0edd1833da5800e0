#!/usr/bin/env bash
# Benchmarks (numbers, not pass/fail): Sift vs Pagefind on the Python documentation, Sift's
# query latency, relevance on Cranfield and CACM next to a standard BM25 computed with bm25s,
# and what meaning costs and buys on every collection in ../shared/data and the Python docs'
# known items: lexical, the model path and the budgeted path in one table (bench/meaning.py;
# SIFT_BENCH_CLEAN=1 times each build from an empty embedding cache).
# Installs what it needs (idempotent): python3.11-doc, Pagefind from npm, bm25s from PyPI.
set -euo pipefail
source "$(dirname "$0")/../scripts/env.sh"
cd "$SIFT_ROOT"
scripts/setup.sh
source bench/site.sh
python3 -c "import bm25s, Stemmer" 2>/dev/null || pip install --quiet bm25s PyStemmer
cargo build --quiet --release -p sift
SIFT="$CARGO_TARGET_DIR/release/sift"
WORK="$CARGO_TARGET_DIR/bench"

echo "== build and query benchmark"
# The hybrid bundle of bench/browser.sh, when it has been built: hybrid `sift search` timed too.
HYB=()
[ -f "$WORK/browser/sift-hybrid/manifest.json" ] && HYB=(--hybrid "$WORK/browser/sift-hybrid")
"$SIFT" bench --site "$SITE" --pagefind "$PAGEFIND" --work "$WORK" "${HYB[@]}" "$@"

# Relevance: a table per test collection and mode, bm25s, MiniLM and their rank fusion beside
# it (bench/relevance.py).
python3 -c "import onnxruntime, tokenizers" 2>/dev/null || pip install --quiet onnxruntime tokenizers
COLLECTIONS=()
for c in adi cacm cranfield lisa med npl time; do
  if [ -d "$SIFT_ROOT/../shared/data/$c" ]; then COLLECTIONS+=("$SIFT_ROOT/../shared/data/$c"); else echo "(../shared/data/$c not found: skipped)"; fi
done
if [ "${#COLLECTIONS[@]}" -gt 0 ]; then
  echo
  echo "== relevance on test collections (nDCG@10 etc.; the goals: docs/architecture.md, the relevance section)"
  python3 bench/relevance.py "$SIFT" "$WORK/relevance" "${COLLECTIONS[@]}"
fi

ALL=()
for c in adi cacm cranfield lisa med npl time; do
  [ -d "$SIFT_ROOT/../shared/data/$c" ] && ALL+=("$SIFT_ROOT/../shared/data/$c")
done
# Lexical parameters chosen on every collection at once and leave-one-collection-out, side
# by side, against each collection's best BM25 row (bench/loo.py).
if [ "${#ALL[@]}" -gt 1 ]; then
  echo
  echo "== lexical ranking parameters: in sample and leave one collection out"
  python3 bench/loo.py "$SIFT" "$WORK/loo" "${ALL[@]}"
fi

# Meaning: lexical, the model path (--full-model) and the budgeted default, every collection.
if [ "${#ALL[@]}" -gt 0 ] && [ -f "${SIFT_MODEL_DIR:-$HOME/.cache/sift/models/all-minilm-l6-v2}/model-f32.onnx" ]; then
  echo
  CLEAN=()
  [ "${SIFT_BENCH_CLEAN:-}" = 1 ] && CLEAN=(--clean)
  python3 bench/meaning.py "$SIFT" "$WORK/meaning" "${CLEAN[@]}" --site "$SITE" --known bench/known-item/python-docs "${ALL[@]}"
  # Vector recall against an exact search, on the bundles as `sift build` makes them.
  echo
  echo "== vector recall: what the vectors a query reads find of what every vector finds"
  PAIRS=()
  for c in "${ALL[@]}"; do PAIRS+=("$WORK/meaning/$(basename "$c")-budgeted:$c"); done
  for q in bench/known-item/python-docs-*.jsonl; do
    PAIRS+=("$WORK/meaning/$(basename "$SITE")-budgeted:$q:bench/known-item/python-docs-qrels.tsv")
  done
  python3 bench/recall.py "$SIFT" "$WORK/recall" "${PAIRS[@]}"
else
  echo "(no collections in ../shared/data or no model installed: the meaning table skipped)"
fi
