#!/usr/bin/env bash
# Build the prebuilt `sift` packages into $CARGO_TARGET_DIR/packages/:
#   sift-search-<v>.tgz               the npm package (the web runtime, and a `sift` command:
#                                     www/bin/sift.js, which runs the platform package's binary)
#   sift-search-cli-<os>-<cpu>-<v>.tgz  the platform package holding the binary (npm installs
#                                     the one whose os/cpu match, as an optional dependency)
#   sift_search-<v>-py3-none-<platform>.whl  the PyPI wheel (maturin, bindings = "bin"), host only
# Built here: this machine's platform. SIFT_PACKAGE_TARGETS="x86_64-unknown-linux-gnu
# aarch64-unknown-linux-gnu" also cross-builds Linux arm64 (bench/package-arm64.sh runs it
# under qemu); macOS and Windows binaries come from runners of those systems (the same
# script there); every platform below is listed as an optional dependency either way.
# SIFT_PACKAGE_PROFILE=dev packages a debug build; SIFT_PACKAGE_BIN packages that binary
# (this machine's platform) instead of building one (scripts/test.sh: the one its tests ran).
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$SIFT_ROOT"
OUT="$CARGO_TARGET_DIR/packages"
STAGE="$CARGO_TARGET_DIR/packages-stage"
PROFILE="${SIFT_PACKAGE_PROFILE:-release}"
VERSION="$(awk -F'"' '/^version = / { print $2; exit }' Cargo.toml)"
HOST="$(rustc -vV | awk '/^host:/ { print $2 }')"
TARGETS="${SIFT_PACKAGE_TARGETS:-$HOST}"
[ -f www/dist/sift.js ] || bash scripts/build-wasm.sh
rm -rf "$OUT" "$STAGE"
mkdir -p "$OUT" "$STAGE"

# Rust target → npm's os and cpu, and the binary's name.
npm_platform() {
  case "$1" in
    x86_64-unknown-linux-gnu) echo "linux x64 sift" ;;
    aarch64-unknown-linux-gnu) echo "linux arm64 sift" ;;
    x86_64-apple-darwin) echo "darwin x64 sift" ;;
    aarch64-apple-darwin) echo "darwin arm64 sift" ;;
    x86_64-pc-windows-msvc) echo "win32 x64 sift.exe" ;;
    *) echo "package.sh: no npm platform for target $1" >&2; return 1 ;;
  esac
}
ALL_PLATFORMS="linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64"

t0=$SECONDS
for target in $TARGETS; do
  read -r os cpu exe <<<"$(npm_platform "$target")"
  dir="$([ "$PROFILE" = dev ] && echo debug || echo "$PROFILE")"
  if [ "$target" = "$HOST" ] && [ -n "${SIFT_PACKAGE_BIN:-}" ]; then
    bin="$SIFT_PACKAGE_BIN"
  elif [ "$target" = "$HOST" ]; then
    cargo build --quiet --profile "$PROFILE" -p sift
    bin="$CARGO_TARGET_DIR/$dir/$exe"
  else
    # A Linux target other than the host's: Debian's cross gcc links it and compiles the C
    # in dependencies (apt: gcc-aarch64-linux-gnu; bench/package-arm64.sh installs it).
    arch="${target%%-*}"
    upper="$(echo "$target" | tr 'a-z-' 'A-Z_')"
    if command -v "$arch-linux-gnu-gcc" >/dev/null 2>&1; then
      export "CARGO_TARGET_${upper}_LINKER=$arch-linux-gnu-gcc" "CC_${target//-/_}=$arch-linux-gnu-gcc"
    fi
    rustup target list --installed | grep -qx "$target" || rustup target add "$target"
    cargo build --quiet --profile "$PROFILE" -p sift --target "$target"
    bin="$CARGO_TARGET_DIR/$target/$dir/$exe"
  fi
  pkg="$STAGE/cli-$os-$cpu"
  mkdir -p "$pkg/bin"
  cp "$bin" "$pkg/bin/$exe"
  # Symbols are most of the file; the binary needs none of them.
  strip_tool=strip
  [ "$target" != "$HOST" ] && strip_tool="${target%%-*}-linux-gnu-strip"
  [ "$exe" = sift ] && command -v "$strip_tool" >/dev/null && "$strip_tool" "$pkg/bin/$exe" 2>/dev/null || true
  cat >"$pkg/package.json" <<JSON
{
  "name": "@sift-search/cli-$os-$cpu",
  "version": "$VERSION",
  "description": "The prebuilt sift binary for $os-$cpu (installed by the sift-search package).",
  "license": "MIT",
  "os": ["$os"],
  "cpu": ["$cpu"],
  "files": ["bin/"],
  "preferUnplugged": true
}
JSON
  (cd "$pkg" && npm pack --silent --pack-destination "$OUT" >/dev/null)
  echo "package.sh: @sift-search/cli-$os-$cpu ($(du -k "$pkg/bin/$exe" | cut -f1) kB binary) — $((SECONDS - t0)) s"
done

# The main package: www/ as published, with the `sift` command and the platform packages.
main="$STAGE/sift-search"
mkdir -p "$main"
cp -r www/dist www/bin www/README.md "$main/"
node -e '
  const fs = require("fs");
  const [src, dst, version, platforms] = process.argv.slice(1);
  const p = JSON.parse(fs.readFileSync(src, "utf8"));
  p.version = version;
  p.bin = { sift: "bin/sift.js" };
  p.files = ["dist/", "bin/"];
  p.optionalDependencies = Object.fromEntries(platforms.split(" ").map((x) => [`@sift-search/cli-${x}`, version]));
  delete p.devDependencies;
  delete p.scripts;
  fs.writeFileSync(dst, JSON.stringify(p, null, 2) + "\n");
' www/package.json "$main/package.json" "$VERSION" "$ALL_PLATFORMS"
(cd "$main" && npm pack --silent --pack-destination "$OUT" >/dev/null)
echo "package.sh: sift-search $VERSION (npm) — $((SECONDS - t0)) s"

# The wheel: maturin from PyPI (idempotent), over the same build cache.
if ! command -v maturin >/dev/null 2>&1; then
  PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check "maturin>=1.5,<2"
fi
maturin_profile=()
[ "$PROFILE" = dev ] && maturin_profile=(--profile dev) || maturin_profile=(--release)
# (The host's wheel: a cross-built one needs the target's Python tags checked there.)
for target in $HOST; do
  # The host's build without --target: it shares the build cache's host folder with cargo.
  target_arg=()
  maturin build --quiet "${maturin_profile[@]}" --manifest-path sift/Cargo.toml "${target_arg[@]}" --out "$OUT" >/dev/null
done
ls "$OUT"/*.whl >/dev/null
echo "package.sh: wheel — $((SECONDS - t0)) s"
ls -la "$OUT"
