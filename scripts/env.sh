# Sourced by the project's scripts: one build cache outside the clone, so CI runs and
# local runs on the same machine reuse compiled dependencies.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/sift-target}"
export PATH="$HOME/.cargo/bin:$PATH"
# Tools that phone home stay quiet (no network here but the package registries).
export WRANGLER_SEND_METRICS=false CLOUDFLARE_CF_FETCH_ENABLED=false WRANGLER_HIDE_BANNER=true
export NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false
SIFT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export SIFT_ROOT
