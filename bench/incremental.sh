#!/usr/bin/env bash
# `sift build --incremental` on a large site: a full hybrid build of a copy of Debian's
# rust-doc (32,101 pages) that records what it read, then one page edited and one deleted,
# and the build again (a delta beside the full build), then the answers checked: the new
# word found on the edited page, the deleted page gone. Prints each build's wall time and
# peak memory. Installs what it needs (idempotent); `--rebuild` builds the first one again.
set -euo pipefail
source "$(dirname "$0")/../scripts/env.sh"
cd "$SIFT_ROOT"
source bench/rust-doc-site.sh
SITE="$RUST_DOC"
cargo build --quiet --release -p sift
SIFT="$CARGO_TARGET_DIR/release/sift"
"$SIFT" model fetch >/dev/null
WORK="$CARGO_TARGET_DIR/bench/incremental"
COPY="$WORK/rust-doc" OUT="$WORK/bundle"
if [ ! -f "$OUT/manifest.json" ] || [ "${1:-}" = "--rebuild" ]; then
  rm -rf "$WORK" && mkdir -p "$WORK"
  cp -r "$SITE" "$COPY"
  /usr/bin/time -f "full build (hybrid, --incremental, recorded): %e s wall, %M KB peak" "$SIFT" build "$COPY" --out "$OUT" --incremental -q
fi
EDITED="$COPY/std/vec/struct.Vec.html" GONE="$COPY/std/collections/struct.BTreeSet.html"
WORD="quetzalflux$RANDOM"
sed -i "0,/<\/h1>/s//<\/h1><p>The $WORD setting.<\/p>/" "$EDITED"
rm -f "$GONE"
/usr/bin/time -f "incremental build (one page edited, one deleted): %e s wall, %M KB peak" "$SIFT" build "$COPY" --out "$OUT" --incremental
# (Read whole, then cut: `head` closing the pipe early would fail the script.)
FOUND="$("$SIFT" search "$OUT" "$WORD" --limit 3)"
echo "$FOUND" | sed -n 1,2p
if "$SIFT" search "$OUT" "BTreeSet" --limit 50 | grep "\[std/collections/struct.BTreeSet.html" >/dev/null; then
  echo "bench: the deleted page still answers" >&2
  exit 1
fi
echo "the deleted page is gone"
