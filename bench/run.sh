#!/usr/bin/env bash
# Benchmarks (numbers, not pass/fail): Sift vs Pagefind on the Python documentation, Sift's
# query latency, and relevance on Cranfield and CACM next to a standard BM25 computed with bm25s.
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
