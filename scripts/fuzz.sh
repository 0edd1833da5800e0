#!/usr/bin/env bash
# Fuzz Sift with cargo fuzz (libFuzzer + AddressSanitizer).
#
#   bash scripts/fuzz.sh [--time SECONDS] [--keep-going] [--smoke] [--build-only] [TARGET...]
#
# Runs each target (default: all of query, request_json, bundle, html, markdown, lzma, code_streams) for
# SECONDS (default 60), one after another. Seeds come from fuzz/seeds/<target> (checked in,
# read-only); the growing corpus lives in $CARGO_TARGET_DIR/fuzz-corpus/<target> and is
# kept between runs. --keep-going runs libFuzzer in fork mode and goes on after a crash,
# so a long run collects every distinct crash instead of stopping at the first. --smoke
# (CI) starts from the seeds alone in a throwaway corpus, so its time goes to fuzzing
# rather than to replaying a corpus grown by long runs. A crash, leak, timeout or out-of-memory input is written to
# $CARGO_TARGET_DIR/fuzz-artifacts/<target>/ and the script fails; copy the input to
# fuzz/regressions/<target>/ and `cargo test -p sift-fuzz` replays it forever after.
#
# The toolchain here is stable: cargo fuzz needs nightly flags (-Zsanitizer), which
# RUSTC_BOOTSTRAP=1 allows on a stable compiler.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$SIFT_ROOT"

seconds=60
build_only=0
keep_going=()
smoke=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time) seconds="$2"; shift 2 ;;
    --build-only) build_only=1; shift ;;
    --smoke) smoke=1; shift ;;
    --keep-going) keep_going=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1); shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
all=(query request_json bundle html markdown lzma code_streams)
[ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")
for t in "${targets[@]}"; do
  [[ " ${all[*]} " == *" $t "* ]] || { echo "fuzz.sh: unknown target '$t' (targets: ${all[*]})" >&2; exit 2; }
done
[[ "$seconds" =~ ^[0-9]+$ ]] && [ "$seconds" -gt 0 ] || { echo "fuzz.sh: --time wants a positive number of seconds" >&2; exit 2; }

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "== installing cargo-fuzz"
  cargo install cargo-fuzz --version 0.13.2
fi
export RUSTC_BOOTSTRAP=1
fuzz_target_dir="$CARGO_TARGET_DIR/fuzz"

echo "== building fuzz targets (all, in one cargo run: nothing is rebuilt that did not change)"
cargo fuzz build --fuzz-dir fuzz --target-dir "$fuzz_target_dir"
[ "$build_only" = 1 ] && exit 0

declare -A max_len=([query]=4096 [request_json]=4096 [bundle]=16384 [html]=65536 [markdown]=65536 [lzma]=65536 [code_streams]=16384)
summary="$CARGO_TARGET_DIR/fuzz-summary.txt"
# One target: fuzz it, write its line to the summary, fail on a crash or a new artifact.
fuzz_one() {
  local t="$1" corpus artifacts log before rc runs cov files found line
  corpus="$CARGO_TARGET_DIR/fuzz-corpus/$t"
  if [ "$smoke" = 1 ]; then
    corpus="$CARGO_TARGET_DIR/fuzz-smoke-corpus/$t"
    rm -rf "$corpus"
  fi
  artifacts="$CARGO_TARGET_DIR/fuzz-artifacts/$t"
  log="$CARGO_TARGET_DIR/fuzz-logs/$t.log"
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  before=$(find "$artifacts" -type f | wc -l)
  echo "== fuzzing $t for ${seconds}s (log: $log)"
  set +e
  cargo fuzz run --fuzz-dir fuzz --target-dir "$fuzz_target_dir" "$t" "$corpus" "fuzz/seeds/$t" -- \
    -max_total_time="$seconds" -max_len="${max_len[$t]}" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 "${keep_going[@]}" >"$log" 2>&1
  rc=$?
  set -e
  runs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#' || true)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 || true)
  files=$(find "$corpus" -type f | wc -l)
  found=$(( $(find "$artifacts" -type f | wc -l) - before ))
  line="$(date -u +%FT%TZ) $t ${seconds}s rc=$rc runs=${runs:-?} ${cov} corpus=$files new_artifacts=$found"
  echo "$line" | tee -a "$summary"
  if [ "$rc" != 0 ] || [ "$found" != 0 ]; then
    echo "fuzz.sh: $t FAILED; the input is in $artifacts/:" >&2
    grep -E 'ERROR|panicked|SUMMARY|Test unit written' "$log" | head -20 >&2 || true
    return 1
  fi
}
# Smoke runs go side by side, one a core (each target is one process); long runs one
# after another, each with the machine to itself.
jobs=1
[ "$smoke" = 1 ] && jobs="$(nproc)"
failed=0
pids=()
for t in "${targets[@]}"; do
  fuzz_one "$t" &
  pids+=($!)
  if [ "${#pids[@]}" -ge "$jobs" ]; then
    wait "${pids[0]}" || failed=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || failed=1; done
exit "$failed"
