# Sourced by the project's scripts: one build cache outside the clone, so CI runs and
# local runs on the same machine reuse compiled dependencies.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/sift-target}"
export PATH="$HOME/.cargo/bin:$PATH"
# Tools that phone home stay quiet (no network here but the package registries).
export WRANGLER_SEND_METRICS=false CLOUDFLARE_CF_FETCH_ENABLED=false WRANGLER_HIDE_BANNER=true
export NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false
SIFT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export SIFT_ROOT

# Whether the browser engine's size build can run (scripts/build-wasm.sh; scripts/setup.sh
# adds what it needs): a nightly toolchain with rust-src and the wasm32 target, unless
# SIFT_WASM_STABLE=1 asks for stable.
sift_has_size_toolchain() {
  [ "${SIFT_WASM_STABLE:-}" != 1 ] &&
    rustup component list --toolchain nightly --installed 2>/dev/null | grep -q '^rust-src' &&
    rustup target list --toolchain nightly --installed 2>/dev/null | grep -qx wasm32-unknown-unknown
}
