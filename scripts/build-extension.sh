#!/usr/bin/env bash
# Build the browser extension (Manifest V3) from www/extension and the same wasm runtime as
# www/ (www/dist): the unpacked folder and a zip for the store, with a bundle of the sample
# docs (docs/ and tests/corpus) packaged inside (with vectors and the query encoder when the
# embedding model is installed).
#   out: ${SIFT_EXT_OUT:-www/extension-dist}/unpacked and …/sift-docs-search.zip
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$SIFT_ROOT"
[ -f www/dist/sift_wasm_bg.wasm.lzma ] || SIFT_SKIP_EMBED_WASM=1 bash scripts/build-wasm.sh
SIFT="${SIFT_BIN:-$CARGO_TARGET_DIR/debug/sift}"
[ -x "$SIFT" ] || cargo build --quiet -p sift
OUT="${SIFT_EXT_OUT:-$SIFT_ROOT/www/extension-dist}"
DIR="$OUT/unpacked"
rm -rf "$DIR"
mkdir -p "$DIR"
cp www/extension/*.json www/extension/*.js www/extension/*.html www/extension/*.css "$DIR/"
# The runtime: the engine core only, no model. The popup's box has semantic search off (the
# keyword engine); the address bar and the bundle check use the lean one (the bundle's
# static encoder answers by meaning, offline); the page viewer (getDocument) and queries of
# 8 or more terms, the full one.
# The engines as sift.js fetches them by default: packed as LZMA (build-wasm.sh).
cp www/dist/sift.js www/dist/sift-search.js www/dist/sift-search-i18n.js www/dist/sift-group.js www/dist/sift_wasm_bg.wasm.lzma www/dist/sift_wasm_keyword_bg.wasm.lzma \
  www/dist/sift_wasm_full.js www/dist/sift_wasm_full_bg.wasm.lzma www/dist/sift-stem.js "$DIR/"
cp -r www/dist/stem "$DIR/"
# With the embedding model installed, the sample bundle carries vectors and its static query
# encoder: semantic search offline, no model in the extension.
EMBED=(--no-embedder)
[ -f "${SIFT_MODEL_DIR:-$HOME/.cache/sift/models/all-minilm-l6-v2}/model-f32.onnx" ] && EMBED=()
"$SIFT" build docs tests/corpus --out "$DIR/bundles/sample" "${EMBED[@]}" -q
python3 - "$DIR" "$OUT/sift-docs-search.zip" <<'PY'
import os, sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(dst + ".tmp", "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    for root, _, files in sorted(os.walk(src)):
        for f in sorted(files):
            p = os.path.join(root, f)
            z.write(p, os.path.relpath(p, src))
os.replace(dst + ".tmp", dst)
PY
printf 'build-extension: %s (unpacked %s kB, zip %s kB)\n' "$DIR" "$(du -sk "$DIR" | cut -f1)" "$(( $(stat -c %s "$OUT/sift-docs-search.zip") / 1024 ))"
