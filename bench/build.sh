#!/usr/bin/env bash
# Build cost (numbers, not pass/fail).
#
#   bash bench/build.sh [--keyword-only] [--no-split]
#
# Keyword builds: the Python docs built by Sift and Pagefind (hyperfine: wall and CPU, into
# fresh output in memory and over the previous output on disk; peak memory), and a
# synthetic docs-like corpus (../shared/scale/gen_corpus.py) of $SIFT_BENCH_PAGES pages
# (default 20000; try 100000, 250000, 1000000): time, peak memory and files written.
# Hybrid builds (unless --keyword-only): a clean hybrid build of the Python docs with an
# empty embedding cache, split in the two steps a fresh CI runner pays — the model's
# vocabulary, embedded once per model by `sift model fetch`, then the site — with texts per
# second, wall time and peak memory; then the same embedding split over 3 "machines"
# (`sift embed --part i/3`), checked byte-identical to the one-machine bundle (unless
# --no-split). Takes long: every text of the site is embedded (twice with the split).
set -euo pipefail
source "$(dirname "$0")/../scripts/env.sh"
cd "$SIFT_ROOT"
scripts/setup.sh
source bench/site.sh
KEYWORD_ONLY=0
SPLIT=1
for a in "$@"; do
  case "$a" in
    --keyword-only) KEYWORD_ONLY=1 ;;
    --no-split) SPLIT=0 ;;
    *) echo "bench/build.sh: unknown option $a" >&2; exit 2 ;;
  esac
done
cargo build --quiet --release -p sift
SIFT="$CARGO_TARGET_DIR/release/sift"
WORK="$CARGO_TARGET_DIR/bench/build"
rm -rf "$WORK"
mkdir -p "$WORK"
echo "== cores: $(nproc); site: $SITE"

echo "== keyword build of the Python docs, Sift and Pagefind (hyperfine, 5 runs each)"
# Twice: into a fresh folder in memory (/dev/shm: the build's own work, without this
# machine's disk, whose inode allocation right after a folder of thousands of files was
# deleted costs seconds of system time), and over the previous output on disk (a rebuild).
SIFT_KW=("$SIFT" build "$SITE" --no-embedder -q)
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
  MEM="/dev/shm/sift-bench-$$"
  "$HYPERFINE" -N --runs 5 --warmup 1 --prepare "rm -rf $MEM" --style basic \
    -n "sift, fresh output in memory" "${SIFT_KW[*]} --out $MEM/sift" \
    -n "pagefind, fresh output in memory" "$PAGEFIND --site $SITE --output-path $MEM/pagefind" 2>&1 | grep -v "^ *$"
  rm -rf "$MEM"
fi
"$HYPERFINE" -N --runs 5 --warmup 1 --style basic \
  -n "sift, over its output on disk" "${SIFT_KW[*]} --out $WORK/keyword" \
  -n "pagefind, over its output on disk" "$PAGEFIND --site $SITE --output-path $WORK/pagefind" 2>&1 | grep -v "^ *$"
/usr/bin/time -f "sift:     %M KB peak" "${SIFT_KW[@]}" --out "$WORK/keyword" 2>&1 | grep -v "^warning"
/usr/bin/time -f "pagefind: %M KB peak" "$PAGEFIND" --site "$SITE" --output-path "$WORK/pagefind" 2>&1 >/dev/null | tail -1
"$SIFT" build "$SITE" --out "$WORK/keyword" --no-embedder 2>&1 | grep "time by step"

PAGES="${SIFT_BENCH_PAGES:-20000}"
SHARED="$SIFT_ROOT/../shared/scale"
if [ -f "$SHARED/gen_corpus.py" ]; then
  echo "== keyword build of a synthetic docs-like corpus of $PAGES pages"
  CORPUS="$CARGO_TARGET_DIR/bench/synthetic-$PAGES.jsonl"
  [ -f "$CORPUS" ] || python3 "$SHARED/gen_corpus.py" "$SHARED/vocab.tsv" "$PAGES" "$CORPUS" >/dev/null
  /usr/bin/time -f "synthetic $PAGES: %e s wall, %U s user, %M KB peak" "$SIFT" build "$CORPUS" --out "$WORK/synthetic" --no-embedder 2>&1 | grep -v "^warning" | tail -3
  echo "files written: $(find "$WORK/synthetic" -type f | wc -l)"
  rm -rf "$WORK/synthetic"
else
  echo "== no ../shared/scale: the synthetic corpus is left out"
fi
[ "$KEYWORD_ONLY" = 1 ] && exit 0

"$SIFT" model fetch

echo "== 1. the model's vocabulary, alone (once per model: sift model fetch)"
/usr/bin/time -f "vocabulary: %e s wall, %U s user, %M KB peak" \
  env SIFT_CACHE_DIR="$WORK/cache" "$SIFT" model fetch 2>&1 | grep -v "already installed"

cp -r "$WORK/cache" "$WORK/vocabulary-only"

echo "== 2. the site, clean (nothing of it in the cache)"
/usr/bin/time -f "site: %e s wall, %U s user, %M KB peak" \
  env SIFT_CACHE_DIR="$WORK/cache" "$SIFT" build "$SITE" --out "$WORK/one-machine" 2>&1 | grep -v "^warning"

if [ "$SPLIT" = 1 ]; then
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
