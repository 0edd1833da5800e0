#!/usr/bin/env bash
# Benchmarks (numbers, not pass/fail): Sift vs Pagefind on the Python documentation, Sift's
# query latency, and relevance on Cranfield and CACM next to a standard BM25 computed with bm25s.
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

# Relevance: a table per test collection and mode, bm25s beside it (bench/relevance.py).
COLLECTIONS=()
for c in cranfield cacm; do
  if [ -d "$SIFT_ROOT/../shared/data/$c" ]; then COLLECTIONS+=("$SIFT_ROOT/../shared/data/$c"); else echo "(../shared/data/$c not found: skipped)"; fi
done
if [ "${#COLLECTIONS[@]}" -gt 0 ]; then
  echo
  echo "== relevance on test collections (nDCG@10 etc.; the goals: docs/architecture.md, the relevance section)"
  python3 bench/relevance.py "$SIFT" "$WORK/relevance" "${COLLECTIONS[@]}"
fi
