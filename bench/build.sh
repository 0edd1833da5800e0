#!/usr/bin/env bash
# Hybrid build cost (numbers, not pass/fail): a clean hybrid build of the Python docs with an
# empty embedding cache, split in the two steps a fresh CI runner pays — the model's
# vocabulary, embedded once per model by `sift model fetch`, then the site — with texts per
# second, wall time and peak memory; then the same build split over 3 "machines"
# (`sift embed --part i/3`), checked byte-identical to the one-machine bundle.
#
#   bash bench/build.sh [--no-split]
#
# Takes long: every text of the site is embedded (twice with the split check).
set -euo pipefail
source "$(dirname "$0")/../scripts/env.sh"
cd "$SIFT_ROOT"
scripts/setup.sh
SITE="${SIFT_BENCH_SITE:-/usr/share/doc/python3.11/html}"
if [ ! -d "$SITE" ]; then
  echo "bench: installing python3.11-doc (the Python docs as a static site)"
  (apt-get install -y python3.11-doc || (apt-get update && apt-get install -y python3.11-doc)) > /dev/null
fi
cargo build --quiet --release -p sift-cli
SIFT="$CARGO_TARGET_DIR/release/sift"
"$SIFT" model fetch
WORK="$CARGO_TARGET_DIR/bench/build"
rm -rf "$WORK"
mkdir -p "$WORK"
echo "== cores: $(nproc); site: $SITE"

echo "== 1. the model's vocabulary, alone (once per model: sift model fetch)"
/usr/bin/time -f "vocabulary: %e s wall, %U s user, %M KB peak" \
  env SIFT_CACHE_DIR="$WORK/cache" "$SIFT" model fetch 2>&1 | grep -v "already installed"

cp -r "$WORK/cache" "$WORK/vocabulary-only"

echo "== 2. the site, clean (nothing of it in the cache)"
/usr/bin/time -f "site: %e s wall, %U s user, %M KB peak" \
  env SIFT_CACHE_DIR="$WORK/cache" "$SIFT" build "$SITE" --out "$WORK/one-machine" 2>&1 | grep -v "^warning"

if [ "${1:-}" != "--no-split" ]; then
  echo "== 3. the same embedding split over 3 machines, then one build"
  for i in 1 2 3; do
    # Each machine starts as a CI job would: the model's vocabulary cached, nothing of the site.
    cp -r "$WORK/vocabulary-only" "$WORK/machine-$i"
    /usr/bin/time -f "part $i/3: %e s wall, %M KB peak" env SIFT_CACHE_DIR="$WORK/machine-$i" "$SIFT" embed "$SITE" --part "$i/3" 2>&1
  done
  mkdir -p "$WORK/merged/embeddings"
  cp "$WORK/machine-1/embeddings/"*.bin "$WORK/merged/embeddings/"
  cp "$WORK"/machine-{2,3}/embeddings/*.part-*.bin "$WORK/merged/embeddings/"
  /usr/bin/time -f "build after the split: %e s wall, %M KB peak" \
    env SIFT_CACHE_DIR="$WORK/merged" "$SIFT" build "$SITE" --out "$WORK/from-parts" 2>&1 | grep -v "^warning"
  if diff -r -q "$WORK/one-machine" "$WORK/from-parts" > /dev/null; then
    echo "split check: the bundle built from 3 parts is byte-identical to the one-machine bundle"
  else
    echo "split check: FAILED, the bundles differ"
    exit 1
  fi
fi
