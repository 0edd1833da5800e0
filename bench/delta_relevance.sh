#!/usr/bin/env bash
# What a delta costs the answers: the Python docs built in full (with vectors when the model
# is installed), then the 60 pages the known-item sets answer with most often touched (an
# HTML comment added: the same text) and built again with --incremental, so those pages
# answer from a delta (their vectors made by the bundle's encoder) and their base versions
# are removed. MRR@10 and nDCG@10 of the three known-item sets on both bundles, auto mode.
set -euo pipefail
source "$(dirname "$0")/../scripts/env.sh"
cd "$SIFT_ROOT"
source bench/site.sh
cargo build --quiet --release -p sift
SIFT="$CARGO_TARGET_DIR/release/sift"
"$SIFT" model fetch >/dev/null || echo "bench: no model; keyword bundles"
WORK="$CARGO_TARGET_DIR/bench/delta-relevance"
rm -rf "$WORK" && mkdir -p "$WORK"
cp -r "$SITE" "$WORK/site"
export SIFT_CACHE_DIR="${SIFT_CACHE_DIR:-$HOME/.cache/sift}"
"$SIFT" build "$WORK/site" --out "$WORK/delta" --incremental -q
cp -r "$WORK/delta" "$WORK/clean"
KI=bench/known-item
cut -f2 "$KI/python-docs-qrels.tsv" | tail -n +2 | sort | uniq -c | sort -rn | head -60 | awk '{print $2}' > "$WORK/pages.txt"
while read -r page; do
  [ -f "$WORK/site/$page" ] && echo "<!-- touched -->" >> "$WORK/site/$page"
done < "$WORK/pages.txt"
"$SIFT" build "$WORK/site" --out "$WORK/delta" --incremental
printf "| set | bundle | MRR@10 | nDCG@10 |\n|---|---|---|---|\n"
for set in keyword paraphrase paraphrase-heldout; do
  for b in clean delta; do
    "$SIFT" eval "$WORK/$b" --queries "$KI/python-docs-$set.jsonl" --qrels "$KI/python-docs-qrels.tsv" --json |
      python3 -c "import json,sys; r=json.load(sys.stdin); print(f'| $set | $b | {r[\"mrr@10\"]:.4f} | {r[\"ndcg@10\"]:.4f} |')"
  done
done
