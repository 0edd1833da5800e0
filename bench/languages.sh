#!/usr/bin/env bash
# The languages benchmarks: Debian Reference in every language Debian packages it, and the
# Debian FAQ in Korean (no Korean Reference is packaged), built by Sift and by Pagefind 1.6
# in the same run — section titles as queries (MRR@10 of the page, and Sift's deep links:
# bench/languages.mjs), then bytes to the first result for Chinese, Japanese, Korean, German, French and Spanish
# queries (bench/languages-bytes.mjs), then known items on the New Maintainers' Guide, whose pages
# declare no language (bench/maint-guide.py). Installs what it needs (idempotent).
set -euo pipefail
source "$(dirname "$0")/../scripts/env.sh"
cd "$SIFT_ROOT"
scripts/setup-web.sh >/dev/null
LANGS=(de en es fr id it ja ko pt pt-br zh-cn zh-tw)
# The New Maintainers' Guide, whose pages declare no language (bench/maint-guide.py).
GUIDES=(en de es fr it ja ru zh-cn)
missing=()
for l in "${LANGS[@]}"; do
  pkg="debian-reference-$l"
  [ "$l" = ko ] && pkg=debian-faq-ko
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
for l in "${GUIDES[@]}"; do
  pkg="maint-guide-$l"
  [ "$l" = en ] && pkg=maint-guide
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null \
    || { $SUDO apt-get update -q >/dev/null && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null; }
fi
cargo build --quiet -p sift
bash scripts/build-wasm.sh >/dev/null
node bench/languages.mjs "${LANGS[@]}"
node bench/languages-bytes.mjs
python3 bench/maint-guide.py "$CARGO_TARGET_DIR/debug/sift" "$CARGO_TARGET_DIR/bench/maint-guide" "${GUIDES[@]}"
