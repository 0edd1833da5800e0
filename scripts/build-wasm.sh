#!/usr/bin/env bash
# Build the browser/worker runtime into www/dist/:
#   sift_wasm*           the engine core with the static query encoder (cargo + wasm-bindgen,
#                        profile wasm-release, wasm-opt -Oz): what a search box loads
#   sift_wasm_keyword*   the same without the semantic half: what a page with semantic
#                        search off loads (its glue is sift_wasm.js's, checked below)
#   sift_wasm_full*      the same with per-result explain, multiSearch and related: workers, MCP, and
#                        pages the first time they ask for either
#   sift_embed_wasm*     the full-model query embedder (tract, wasm SIMD; cargo + wasm-bindgen),
#                        loaded only for `embedder: "model"`
#   sift.js, sift-search.js (minified; *.js.map beside them), *.d.ts, index.html (the demo page)
# wasm-opt comes from npm binaryen@132 (Debian's binaryen breaks wasm-bindgen output).
# SIFT_SKIP_EMBED_WASM=1 builds the engine alone (keyword and hybrid with the bundle's static
# encoder; only `embedder: "model"` needs the embedder wasm).
#
# What cargo builds it rebuilds only when its sources change; what comes after it
# (wasm-bindgen, wasm-opt in Node, the LZMA packing) is cached by the hash of its input in
# $CARGO_TARGET_DIR/wasm-cache, so a run where nothing changed costs seconds, and the 33
# stemmer modules are built only when what they are built from changes.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$SIFT_ROOT"
scripts/setup-web.sh >/dev/null

DIST="$SIFT_ROOT/www/dist"
WORK="$CARGO_TARGET_DIR/wasm-pkg"
WASM_OPT="$SIFT_ROOT/www/node_modules/.bin/wasm-opt"
mkdir -p "$DIST" "$WORK"

# Rust 1.95's wasm32 target emits these features; binaryen must accept them.
OPT_FEATURES=(--enable-bulk-memory --enable-sign-ext --enable-nontrapping-float-to-int --enable-mutable-globals --enable-reference-types --enable-multivalue)

# cargo + wasm-bindgen directly (what wasm-pack would run, without installing it). Three builds of the
# engine: the lean one a search box loads, the keyword one, and the full one (per-result `explain`,
# `multiSearch`) that workers use and pages load the first time they ask for either. Each
# has a target dir of its own, so neither rebuild undoes the other.
#
# With a nightly toolchain that has rust-src (scripts/setup.sh adds it), std is rebuilt for
# size too: panics become plain traps (`panic=immediate-abort`: no formatting machinery;
# the engine returns errors for bad input and does not panic on it) and std's
# `optimize_for_size` variants: a fifth smaller engine for a little slower std code
# (bench/results/decisions.md).
# Without nightly (or with SIFT_WASM_STABLE=1) it is built on stable: the same engine, larger.
SIZE_BUILD=0
if sift_has_size_toolchain; then SIZE_BUILD=1; fi
# The engines' cargo profile on stable: wasm-release, or what SIFT_WASM_PROFILE names
# (scripts/test.sh: wasm-test, the same code without LTO, for a fast rebuild).
ENGINE_PROFILE="${SIFT_WASM_PROFILE:-wasm-release}"
# wasm-opt's passes for the engines, chosen by gzip size (what is downloaded), not raw size:
# control flow flattened and rebuilt (`--flatten --rereloop`), then -Os twice: the raw file
# is no smaller, but the rebuilt code repeats itself more, which gzip and LZMA like. The
# alternatives measured are in bench/results/decisions.md.
ENGINE_OPT_PASSES=(--flatten --rereloop -Os -Os)
ESBUILD="$SIFT_ROOT/www/node_modules/.bin/esbuild"
CACHE="$CARGO_TARGET_DIR/wasm-cache"
mkdir -p "$CACHE"
# The tools whose output the cache keeps: a new wasm-bindgen or binaryen makes new files.
TOOLS="$(wasm-bindgen --version) binaryen $(node -p 'require(process.argv[1]).version' "$SIFT_ROOT/www/node_modules/binaryen/package.json") $(sha256sum scripts/build-wasm.sh scripts/pack-engine.py | sha256sum | cut -c1-16)"
hash_of() { # files... → a key for what is made from them (with the tools)
  { echo "$TOOLS"; cat "$@"; } | sha256sum | cut -c1-32
}
# cached KEY FILE...: copy FILE... from the cache entry KEY into place (true), or false.
cached() {
  local key="$1"
  shift
  [ -f "$CACHE/$key/ok" ] || return 1
  for f in "$@"; do cp "$CACHE/$key/$(basename "$f")" "$f"; done
}
keep() { # KEY FILE...: store FILE... under KEY
  local key="$1"
  shift
  rm -rf "${CACHE:?}/$key" && mkdir -p "$CACHE/$key"
  cp "$@" "$CACHE/$key/" && touch "$CACHE/$key/ok"
}
engine() { # name, wasm-bindgen out-name, cargo target dir, cargo feature args...
  local name="$1" glue="$2" target="$3" wasm
  shift 3
  if [ "$SIZE_BUILD" = 1 ] && CARGO_TARGET_DIR="$target/size" RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort" \
    cargo +nightly build --quiet --lib -p sift-wasm --target wasm32-unknown-unknown --profile wasm-release \
    -Zbuild-std=std,panic_abort -Zbuild-std-features=optimize_for_size "$@"; then
    wasm="$target/size/wasm32-unknown-unknown/wasm-release/sift_wasm.wasm"
  else
    if [ "$SIZE_BUILD" = 1 ]; then echo "build-wasm: warning: the nightly size build failed; building $name on stable"; fi
    CARGO_TARGET_DIR="$target" cargo build --quiet --lib -p sift-wasm --target wasm32-unknown-unknown --profile "$ENGINE_PROFILE" "$@"
    wasm="$target/wasm32-unknown-unknown/$ENGINE_PROFILE/sift_wasm.wasm"
  fi
  local key
  key="engine-$name-$(hash_of "$wasm")"
  if cached "$key" "$DIST/${name}_bg.wasm" "$DIST/$name.js" "$DIST/$name.d.ts" "$DIST/${name}_bg.wasm.lzma"; then
    return
  fi
  # The out-name names the wasm's import module too, so an engine that shares another's glue
  # is bound under that one's name (in a folder of its own) and only its file is renamed.
  mkdir -p "$WORK/core/$name"
  wasm-bindgen --target web --typescript --out-name "$glue" --out-dir "$WORK/core/$name" "$wasm"
  "$WASM_OPT" "${ENGINE_OPT_PASSES[@]}" "${OPT_FEATURES[@]}" --strip-debug --strip-producers "$WORK/core/$name/${glue}_bg.wasm" -o "$DIST/${name}_bg.wasm"
  # The glue with any JS snippets inside, one file.
  # (Run from the glue's folder: esbuild's path comments must not tell the engines apart.)
  (cd "$WORK/core/$name" && "$ESBUILD" "$glue.js" --bundle --format=esm --log-level=warning --outfile="$DIST/$name.js")
  cp "$WORK/core/$name/$glue.d.ts" "$DIST/$name.d.ts"
  # Packed as LZMA (below: why).
  python3 scripts/pack-engine.py --streams "$STREAMS" "$DIST/${name}_bg.wasm" "$DIST/${name}_bg.wasm.lzma" >/dev/null
  keep "$key" "$DIST/${name}_bg.wasm" "$DIST/$name.js" "$DIST/$name.d.ts" "$DIST/${name}_bg.wasm.lzma"
}
# The packer's code-stream splitter (crates/sift-lzma), native.
cargo build --quiet --release -p sift-lzma --bin sift-code-streams
STREAMS="$CARGO_TARGET_DIR/release/sift-code-streams"
echo "build-wasm: engine core (lean, for search boxes)"
engine sift_wasm sift_wasm "$CARGO_TARGET_DIR" --features semantic
echo "build-wasm: engine core (keyword: semantic search off)"
engine sift_wasm_keyword sift_wasm "$CARGO_TARGET_DIR/wasm-keyword"
echo "build-wasm: engine core (full: explain, multiSearch, related)"
engine sift_wasm_full sift_wasm_full "$CARGO_TARGET_DIR/wasm-full" --features full
# sift.js instantiates the keyword engine with the glue it bundles (sift_wasm.js's): the two
# must export the same API, so their glue must be the same file.
if ! cmp -s "$DIST/sift_wasm_keyword.js" "$DIST/sift_wasm.js"; then
  echo "build-wasm: error: the keyword engine's glue differs from the lean one's (their exported APIs must match)" >&2
  exit 1
fi

# One module per stemmed language besides English (crates/sift-stem-wasm, `frostem` with that
# language alone): a page whose bundle is in one of them loads the lean engine and its
# language's stemmer, not the full runtime with every stemmer. Norwegian (no) serves nb and
# nn. Built like the engines (the size build when there is one) into a target dir of their
# own; the crate is touched before each build, because every language's module has the
# same file name and cargo would take the last one built as fresh.
STEM_LANGUAGES="ar:arabic ca:catalan cs:czech da:danish de:german el:greek eo:esperanto es:spanish et:estonian eu:basque
  fa:persian fi:finnish fr:french ga:irish hi:hindi hu:hungarian hy:armenian id:indonesian it:italian lt:lithuanian
  ne:nepali nl:dutch no:norwegian pl:polish pt:portuguese ro:romanian ru:russian sr:serbian sv:swedish ta:tamil
  tr:turkish uk:ukrainian yi:yiddish"
echo "build-wasm: stemmers, one module per language"
mkdir -p "$DIST/stem" "$WORK/stem"
STEM_TARGET="$CARGO_TARGET_DIR/wasm-stem"
# Built again only when what they are built from changes: the crate, the lockfile (frostem's
# version), the workspace's profiles, the compiler and the kind of build.
STEM_KEY="stems-$SIZE_BUILD-$( { rustc -vV; [ "$SIZE_BUILD" = 1 ] && rustc +nightly -vV; cat Cargo.lock Cargo.toml crates/sift-stem-wasm/Cargo.toml crates/sift-stem-wasm/src/*.rs; } | hash_of /dev/stdin)"
STEM_FILES=()
for pair in $STEM_LANGUAGES; do STEM_FILES+=("$DIST/stem/${pair%%:*}.wasm.lzma"); done
if cached "$STEM_KEY" "${STEM_FILES[@]}"; then
  echo "build-wasm: stemmers unchanged (cached)"
else
  for pair in $STEM_LANGUAGES; do
    code="${pair%%:*}" feature="frostem/${pair#*:}"
    touch crates/sift-stem-wasm/src/lib.rs
    if [ "$SIZE_BUILD" = 1 ] && CARGO_TARGET_DIR="$STEM_TARGET/size" RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort" \
      cargo +nightly build --quiet --lib -p sift-stem-wasm --target wasm32-unknown-unknown --profile wasm-release \
      -Zbuild-std=std,panic_abort -Zbuild-std-features=optimize_for_size --features "$feature"; then
      wasm="$STEM_TARGET/size/wasm32-unknown-unknown/wasm-release/sift_stem_wasm.wasm"
    else
      CARGO_TARGET_DIR="$STEM_TARGET" cargo build --quiet --lib -p sift-stem-wasm --target wasm32-unknown-unknown --profile wasm-release --features "$feature"
      wasm="$STEM_TARGET/wasm32-unknown-unknown/wasm-release/sift_stem_wasm.wasm"
    fi
    "$WASM_OPT" -Oz "${OPT_FEATURES[@]}" --strip-debug --strip-producers "$wasm" -o "$WORK/stem/$code.wasm"
    python3 scripts/pack-engine.py --streams "$STREAMS" "$WORK/stem/$code.wasm" "$DIST/stem/$code.wasm.lzma" >/dev/null
  done
  keep "$STEM_KEY" "${STEM_FILES[@]}"
fi

if [ "${SIFT_SKIP_EMBED_WASM:-}" != 1 ]; then
  echo "build-wasm: full-model query embedder (tract + wasm SIMD; the first build takes several minutes)"
  # A target dir of its own: RUSTFLAGS differ, and sharing one would rebuild both every time.
  CARGO_TARGET_DIR="$CARGO_TARGET_DIR/wasm-simd" RUSTFLAGS="-C target-feature=+simd128" \
    cargo build --quiet --lib -p sift-embed-wasm --target wasm32-unknown-unknown --profile wasm-release
  wasm="$CARGO_TARGET_DIR/wasm-simd/wasm32-unknown-unknown/wasm-release/sift_embed_wasm.wasm"
  key="embedder-$(hash_of "$wasm")"
  if ! cached "$key" "$DIST/sift_embed_wasm_bg.wasm" "$DIST/sift_embed_wasm.js" "$DIST/sift_embed_wasm.d.ts"; then
    mkdir -p "$WORK/embed"
    wasm-bindgen --target web --typescript --out-dir "$WORK/embed" "$wasm"
    # Names and producers out (gzip −15%); no -O passes: tract's kernels are already optimised
    # and binaryen in Node takes minutes on a 9 MB module.
    "$WASM_OPT" "${OPT_FEATURES[@]}" --enable-simd --strip-debug --strip-producers "$WORK/embed/sift_embed_wasm_bg.wasm" -o "$DIST/sift_embed_wasm_bg.wasm"
    cp "$WORK/embed/sift_embed_wasm.js" "$WORK/embed/sift_embed_wasm.d.ts" "$DIST/"
    keep "$key" "$DIST/sift_embed_wasm_bg.wasm" "$DIST/sift_embed_wasm.js" "$DIST/sift_embed_wasm.d.ts"
  fi
fi

cp www/src/*.js www/src/*.d.ts "$DIST/"
# The LZMA decoder the engines are unpacked with (crates/sift-lzma, as crates/sift-lzma-wasm: no_std, no allocator),
# carried inside sift.js deflated, as base64 (lzma-wasm.js; the page inflates it with the
# DecompressionStream it inflates shards with). A file of its own would be one more request
# before the first result.
cargo build --quiet -p sift-lzma-wasm --target wasm32-unknown-unknown --profile wasm-release
"$WASM_OPT" -Oz "${OPT_FEATURES[@]}" --strip-debug --strip-producers \
  "$CARGO_TARGET_DIR/wasm32-unknown-unknown/wasm-release/sift_lzma_wasm.wasm" -o "$WORK/sift_lzma.wasm"
python3 -c 'import sys, zlib; c = zlib.compressobj(9, zlib.DEFLATED, -15); sys.stdout.buffer.write(c.compress(open(sys.argv[1], "rb").read()) + c.flush())' \
  "$WORK/sift_lzma.wasm" >"$WORK/sift_lzma.wasm.deflate"
printf '// Generated by scripts/build-wasm.sh from crates/sift-lzma: the LZMA decoder (wasm, deflated, base64).\nexport const LZMA_WASM = "%s";\n' \
  "$(base64 -w0 "$WORK/sift_lzma.wasm.deflate")" >"$DIST/lzma-wasm.js"
# sift.js as one file (with host.js, contract.js and the lean runtime's glue): a page learns
# of its imports only after it has fetched it, so each level of modules is one more round
# trip and one more request before the first result. The full
# runtime and the model embedder (model-embedder.js and its glue) stay separate, loaded on first use. <sift-search> imports it.
# Minified, with source maps beside them (a browser fetches a map only when its developer
# tools are open). Exported names stay; SiftError sets its name itself.
"$ESBUILD" "$DIST/sift.js" --bundle --format=esm --log-level=warning --minify --sourcemap \
  --external:./sift_wasm_full.js --external:./sift-stem.js --external:./sift_embed_wasm.js --external:./model-embedder.js --legal-comments=none --outfile="$WORK/sift.js"
"$ESBUILD" "$DIST/sift-search.js" --bundle --format=esm --log-level=warning --minify --sourcemap \
  --external:./sift.js --external:./sift-search-i18n.js --external:./sift-group.js --legal-comments=none --outfile="$WORK/sift-search.js"
mv "$WORK/sift.js" "$WORK/sift.js.map" "$WORK/sift-search.js" "$WORK/sift-search.js.map" "$DIST/"
cp www/demo/index.html "$DIST/index.html"
# The browser engines and stemmers are fetched by sift.js packed as LZMA (packed above, by
# scripts/pack-engine.py with Python's liblzma: about a tenth below an optimal deflate) and
# decoded in the page (www/src/lzma.js, crates/sift-lzma), so the bytes on the wire do not
# depend on how a host compresses (many send .wasm uncompressed). The plain .wasm files stay
# for workers (which import them) and for callers' wasmUrl. Each module's code is packed as
# streams (crates/sift-lzma's code_streams, split and checked by its sift-code-streams),
# which LZMA compresses better than the code as it is.
rm -f "$DIST"/*.wasm.deflate # the deflated engines of earlier builds
echo "build-wasm: stemmers: $(ls "$DIST"/stem | wc -l) languages, $(cat "$DIST"/stem/*.lzma | wc -c) bytes shipped (LZMA) in all, $(stat -c %s "$DIST/stem/de.wasm.lzma") for German"
for f in "$DIST"/*.wasm; do
  printf 'build-wasm: %-24s %9d bytes, %8d gzip' "$(basename "$f")" "$(stat -c %s "$f")" "$(gzip -9c "$f" | wc -c)"
  if [ -f "$f.lzma" ]; then printf ', %8d shipped (LZMA)' "$(stat -c %s "$f.lzma")"; fi
  echo
done
