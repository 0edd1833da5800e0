#!/usr/bin/env bash
# `sift mcp` over stdio, timed with the official MCP SDK client (bench/mcp.mjs): process start
# to the first tools/call answered on the Python docs (530 pages, with vectors when the
# model is installed), and a running `sift mcp --watch` from an edit to the edited page
# being searchable, on a Markdown site (tests/corpus) and on the Python docs.
set -euo pipefail
source "$(dirname "$0")/../scripts/env.sh"
cd "$SIFT_ROOT"
scripts/setup-web.sh >/dev/null
source bench/site.sh
cargo build --quiet --release -p sift
SIFT="$CARGO_TARGET_DIR/release/sift"
WORK="$CARGO_TARGET_DIR/bench/mcp"
mkdir -p "$WORK"
"$SIFT" model fetch >/dev/null || echo "bench: no model; the bundles are keyword-only"
/usr/bin/time -f "  sift build (python-docs): %e s, %M KB peak" "$SIFT" build "$SITE" --out "$WORK/python-docs" -q
node bench/mcp.mjs --sift "$SIFT" --bundle "$WORK/python-docs" --work "$WORK/watch" \
  --watch markdown=tests/corpus --watch "python-docs=$SITE"
