# Sourced by the benchmarks: the site they measure (SITE: $SIFT_BENCH_SITE, else the Python
# docs, installed with apt when absent) and Pagefind, the peer they build beside it
# (PAGEFIND, from npm). Idempotent.
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
