#!/usr/bin/env bash
# The README's test command timed, step by step, cold and warm:
#   cold  a fresh clone of this repository with an empty cargo target directory (every
#         crate, wasm engine, stemmer module and fuzz target built from nothing);
#   warm  the same clone again after an edit to the engine (a change to its code, so the
#         wasm engines are rebuilt too), with the target directory the cold run left.
# Each run's steps come from scripts/test.sh's $CARGO_TARGET_DIR/test-times.txt.
#
#   bash bench/test-time.sh            cold, then warm
#   bash bench/test-time.sh --cold     cold only
#   bash bench/test-time.sh --warm     warm only, in this clone and its usual target dir
#
# The cold run sets CI=true (as .ci/run does): a test that cannot find its data fails.
# What a cold run still finds on the machine, as a contributor's would: the package
# registries' caches (cargo, npm, pip), the rustup toolchain, the installed model and the
# embedding cache (`sift model fetch` fills both on a first run).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="${SIFT_TEST_TIME_DIR:-${TMPDIR:-/tmp}/sift-test-time}"
# The clone sits beside this one, so it finds ../shared (the test collections) as CI does.
CLONE="$(dirname "$ROOT")/$(basename "$ROOT")-test-time"

# A change to the engine's code, not a comment: an error message gets a word, so the engine
# and everything built from it (the CLI, the test binaries, every wasm engine) is rebuilt,
# and nothing a test checks changes.
edit_engine() {
  local f="$1/crates/sift-engine/src/resolve.rs"
  grep -q '"a shard the engine holds could not be read"' "$f" ||
    { echo "bench/test-time.sh: the message to edit is not in $f" >&2; exit 1; }
  sed -i 's/"a shard the engine holds could not be read"/"a shard the engine holds could not be read back"/' "$f"
}

run() { # label, clone, target dir
  local label="$1" clone="$2" target="$3" t0=$SECONDS
  echo "== $label: bash scripts/test.sh in $clone (CARGO_TARGET_DIR=$target)"
  (cd "$clone" && CI=true CARGO_TARGET_DIR="$target" bash scripts/test.sh >"$WORK/$label.log" 2>&1) || {
    echo "$label run failed after $((SECONDS - t0)) s; its log: $WORK/$label.log"
    tail -20 "$WORK/$label.log"
    exit 1
  }
  echo "-- $label ($((SECONDS - t0)) s; log $WORK/$label.log)"
  cat "$target/test-times.txt"
  tail -1 "$WORK/$label.log"
}

mkdir -p "$WORK"
if [ "${1:-}" = "--warm" ]; then
  source "$ROOT/scripts/env.sh"
  edit_engine "$ROOT"
  trap 'git -C "$ROOT" checkout -- crates/sift-engine/src/resolve.rs' EXIT
  run warm "$ROOT" "$CARGO_TARGET_DIR"
  exit 0
fi

rm -rf "$CLONE" "$WORK/target"
git clone -q "$ROOT" "$CLONE"
run cold "$CLONE" "$WORK/target"
[ "${1:-}" = "--cold" ] && exit 0
edit_engine "$CLONE"
run warm "$CLONE" "$WORK/target"
