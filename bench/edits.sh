#!/usr/bin/env bash
# Issue 79's measurements in one command: `sift watch` from an edit to the answer and from a
# deletion to the page gone, on 9 Markdown pages with vectors, the Python docs and 20,000
# synthetic Markdown pages (bench/watch.py); `sift mcp --watch` the same on the Python docs
# with vectors (bench/mcp.sh); `sift build --incremental` on rust-doc (bench/incremental.sh).
# Installs what it needs (idempotent). Needs ../shared (the synthetic corpus's vocabulary).
set -euo pipefail
source "$(dirname "$0")/../scripts/env.sh"
cd "$SIFT_ROOT"
source bench/site.sh
cargo build --quiet --release -p sift
SIFT="$CARGO_TARGET_DIR/release/sift"
"$SIFT" model fetch >/dev/null
WORK="$CARGO_TARGET_DIR/bench/edits"
MD="$WORK/md20k"
if [ ! -d "$MD" ]; then
  mkdir -p "$WORK"
  SHARED="$SIFT_ROOT/../shared"
  python3 "$SHARED/scale/gen_corpus.py" "$SHARED/scale/vocab.tsv" 20000 "$WORK/c20k.jsonl" --seed 1 >/dev/null
  # One Markdown file a page, where its URL says, its type in the front matter.
  python3 - "$WORK/c20k.jsonl" "$MD" <<'PY'
import json, os, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    p = os.path.join(sys.argv[2], d["url"].strip("/").replace(".html", ".md"))
    os.makedirs(os.path.dirname(p), exist_ok=True)
    open(p, "w").write(f"---\ntype: {d['type']}\n---\n# {d['title']}\n\n{d['text']}\n")
PY
fi
python3 bench/watch.py "$SIFT" md9=tests/corpus "python=$SITE" "md20k=$MD" --vectors md9 --work "$WORK/watch"
bash bench/mcp.sh
bash bench/incremental.sh
