#!/usr/bin/env bash
# From zero to a search box with the prebuilt packages (scripts/package.sh): in an empty
# folder, with node/npm only on the PATH and a fresh HOME (no model, no caches), the npm
# tarballs installed, the Python docs built and searched; the same from the PyPI wheel.
# Prints where the time goes (the goal: under 60 s each, on 2 cores).
set -euo pipefail
source "$(dirname "$0")/../scripts/env.sh"
cd "$SIFT_ROOT"
source bench/site.sh
bash scripts/package.sh >/dev/null
PKG="$CARGO_TARGET_DIR/packages"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/bin" "$WORK/home" "$WORK/npm-app"
ln -s "$(command -v node)" "$WORK/bin/node"
ln -s "$(readlink -f "$(command -v npm)")" "$WORK/bin/npm"
ln -s /bin/sh "$WORK/bin/sh"
clean() { env -i PATH="$WORK/bin" HOME="$WORK/home" npm_config_cache="$WORK/npm-cache" npm_config_update_notifier=false "$@"; }
now() { date +%s.%N; }
span() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f s", b - a }'; }

echo "npm (tarballs: $(du -ch "$PKG"/*.tgz | tail -1 | cut -f1)):"
t0=$(now)
(cd "$WORK/npm-app" && clean npm install --offline --no-save --loglevel=error "$PKG"/sift-search-[0-9]*.tgz "$PKG"/sift-search-cli-*.tgz >/dev/null)
t1=$(now)
(cd "$WORK/npm-app" && clean node_modules/.bin/sift build "$SITE" --out _sift -q)
t2=$(now)
(cd "$WORK/npm-app" && clean node_modules/.bin/sift search _sift "read a file line by line" --limit 3 | head -4)
t3=$(now)
echo "  npm install $(span "$t0" "$t1"), sift build $(span "$t1" "$t2"), sift search $(span "$t2" "$t3"); total $(span "$t0" "$t3")"

echo "PyPI (wheel: $(du -h "$PKG"/*.whl | cut -f1)):"
t0=$(now)
PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --no-index --no-deps --disable-pip-version-check --target "$WORK/py" "$PKG"/*.whl
t1=$(now)
(cd "$WORK/py" && clean bin/sift build "$SITE" --out _sift -q)
t2=$(now)
(cd "$WORK/py" && clean bin/sift search _sift "read a file line by line" --limit 3 | head -4)
t3=$(now)
echo "  pip install $(span "$t0" "$t1"), sift build $(span "$t1" "$t2"), sift search $(span "$t2" "$t3"); total $(span "$t0" "$t3")"
