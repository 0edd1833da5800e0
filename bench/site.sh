# Sourced by the benchmarks: the site they measure (SITE: $SIFT_BENCH_SITE, else the Python
# docs, installed with apt when absent), Pagefind, the peer they build beside it (PAGEFIND,
# from npm), and hyperfine (HYPERFINE, from crates.io), which times whole processes.
# Idempotent.
SITE="${SIFT_BENCH_SITE:-/usr/share/doc/python3.11/html}"
if [ ! -d "$SITE" ]; then
  echo "bench: installing python3.11-doc (the Python docs as a static site)"
  (apt-get install -y python3.11-doc || (apt-get update && apt-get install -y python3.11-doc)) > /dev/null
fi
if [ ! -x "$SIFT_ROOT/bench/node_modules/.bin/pagefind" ]; then
  echo "bench: installing pagefind from npm"
  (cd "$SIFT_ROOT/bench" && npm install --no-audit --no-fund --loglevel=error)
fi
PAGEFIND="$SIFT_ROOT/bench/node_modules/.bin/pagefind"
HYPERFINE="$(command -v hyperfine || echo "$HOME/.cargo/bin/hyperfine")"
if [ ! -x "$HYPERFINE" ]; then
  echo "bench: installing hyperfine from crates.io"
  # 1.19 builds on the project's stable toolchain (2.0 needs a newer rustc).
  cargo install --quiet hyperfine@1.19.0
fi
