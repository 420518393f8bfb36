#!/usr/bin/env bash
# Installs what is missing, then runs every test: native (core, cli, golden tests over ../shared/samples),
# wasm-bindgen-test in headless Chromium, and Playwright end-to-end flows against the release build.
# Idempotent. `.ci/run` calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:/usr/local/bin:$PATH"
T0=$(date +%s)
# each step prints the wall time since the start and the CPU time (user + system) its children
# used so far (bash's `times`): CPU seconds do not depend on what else the machine runs, so a
# stage's cost can be read off a contended run too; `step done` prints the table
STAGES=()
TIMES_FILE=$(mktemp /tmp/loupe-times.XXXXXX)
# `times` must run in this shell (a $(…) subshell would report its own, empty, accounting)
cpu_s() { awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%d", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$TIMES_FILE"; }
step() {
  local now cpu
  times >"$TIMES_FILE"
  now=$(( $(date +%s) - T0 )); cpu=$(cpu_s)
  STAGES+=("$now $cpu $*")
  echo "::: [+${now}s, cpu ${cpu}s] $*"
  if [ "$*" = done ]; then
    echo "::: stage times (wall s, children's CPU s)"
    local i
    for (( i = 0; i + 1 < ${#STAGES[@]}; i++ )); do
      read -r w0 c0 name <<<"${STAGES[i]}"; read -r w1 c1 _ <<<"${STAGES[i+1]}"
      printf ':::   %5d %6d  %s\n' $(( w1 - w0 )) $(( c1 - c0 )) "$name"
    done
  fi
}

step setup
# the golden, oracle and end-to-end tests read real files from ../shared/samples: without them a
# run would prove nothing, so it fails instead of skipping
SAMPLES_DIR="${LOUPE_SAMPLES:-../shared/samples}"
for d in neuron neuron/ntff-v5 pytorch-kineto chrome-trace-json nsight-systems-sqlite perfetto-proto xprof dlprof; do
  if [ ! -d "$SAMPLES_DIR/$d" ]; then
    echo "test-all: $SAMPLES_DIR/$d is missing: the sample files must be beside the repository (../shared/samples)" >&2
    exit 1
  fi
done
bash scripts/setup.sh

step "check: loupe-core has no web dependency"
for target in "" "--target wasm32-unknown-unknown"; do
  # shellcheck disable=SC2086
  if cargo tree -p loupe-core -e normal --prefix none $target | grep -E '^(wasm-bindgen|web-sys|js-sys|leptos)[ @]'; then
    echo "loupe-core must not depend on web crates ($target)" >&2; exit 1
  fi
done

step "house rules: cargo fmt --check, clippy -D warnings (native workspace; the wasm crates in their builds)"
cargo fmt --all --check
# the native crates natively (this check also gives rustdoc below its dependencies' metadata)
cargo clippy --workspace --exclude loupe-app --exclude loupe-bench-wasm --all-targets --quiet -- -D warnings
# The wasm crates are linted while the builds the tests need compile them (clippy-driver as cargo's
# workspace wrapper: the workspace's crates compiled by rustc + clippy's lints, dependencies by
# plain rustc), not by a separate `cargo clippy`, which checked every dependency once more for wasm
# and once more with the threaded worker's nightly std rebuilt for atomics (bench/RESULTS.md: the
# largest stage of a CI run). A lint is then a compile error of that build, with clippy's message:
#   wasm-bindgen tests (+ the browser benchmarks' crate) -> the app, with clippy-wasm/clippy.toml
#   trunk's threaded worker, when LOUPE_THREADS=1 builds it (scripts/build-threads.sh sees
#   LOUPE_LINT=1) -> the code behind `threads`
# CLIPPY_ARGS is the flag list cargo-clippy hands its driver ("__CLIPPY_HACKERY__"-separated).
lint() {
  RUSTC_WORKSPACE_WRAPPER="$(rustup which clippy-driver)" CLIPPY_CONF_DIR="$PWD/clippy-wasm" \
    CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__" "$@"
}
export LOUPE_LINT=1

step "layers: scripts/check_imports.py (no import cycle or upward import in the core and the app)"
# two commands, not `a && b`: under `set -e` a failure on the left of && would not stop the script
python3 scripts/check_imports.py --self-test
python3 scripts/check_imports.py

step "docs: rustdoc, no broken intra-doc link (native crates, private items too)"
RUSTDOCFLAGS="-D rustdoc::broken_intra_doc_links -A rustdoc::private_intra_doc_links" \
  cargo doc --no-deps -p loupe-core -p loupe-cli -p loupe-sqlite --document-private-items --quiet

# Fuzzing (its nightly build, then 14 targets × 20 s) runs in the background beside the native tests
# and the wasm-bindgen tests: those stages leave a core idle for much of their time (single long
# tests, linking, the headless browser), which the fuzz build and runs use. Its result is waited
# for, and checked, right after the wasm tests (bench/RESULTS.md: the stage table).
step "fuzz: each core/fuzz target for 20 s, in the background (fails on a crash, hang or OOM)"
FUZZ_SANITIZER=none FUZZ_SEED=1 bash scripts/fuzz.sh 20 >/tmp/loupe-fuzz.log 2>&1 &
FUZZ_PID=$!
trap 'kill "$FUZZ_PID" 2>/dev/null || true' EXIT
fuzz_wait() {
  step "fuzz: waiting for the background runs"
  if ! wait "$FUZZ_PID"; then
    tail -60 /tmp/loupe-fuzz.log; echo "fuzz failed (log: /tmp/loupe-fuzz.log)" >&2; exit 1
  fi
  trap - EXIT
  sed -n '/^::: fuzz: results/,$p' /tmp/loupe-fuzz.log
}

step "native tests (core, cli, golden tests)"
NATIVE_SET=(--profile ci --workspace --exclude loupe-app --exclude loupe-bench-wasm)
cargo test "${NATIVE_SET[@]}" --lib --bins --tests 2>&1 | tee /tmp/loupe-native-tests.log | grep -E '^(test result|running|error|failures|---- )|panicked' || true
if grep -qE '^test result: FAILED|^error' /tmp/loupe-native-tests.log; then
  cat /tmp/loupe-native-tests.log | tail -80; exit 1
fi
NATIVE_PASSED=$(grep -oE 'test result: ok\. [0-9]+ passed' /tmp/loupe-native-tests.log | awk '{s+=$4} END {print s+0}')
step "native: $NATIVE_PASSED passed"
# The native programs the end-to-end step runs, from this step's build (same packages and
# profile, so only the example is compiled): the e2e tests would otherwise `cargo run` them, the
# CLI in the LTO release profile (minutes on a clean clone).
cargo build "${NATIVE_SET[@]}" --example gen_neuron_pair --example gen_neuron_parquet --quiet
TARGET_DIR=$(realpath "${CARGO_TARGET_DIR:-target}")
export LOUPE_CLI_BIN="$TARGET_DIR/ci/loupe" LOUPE_GEN_NEURON_PAIR_BIN="$TARGET_DIR/ci/examples/gen_neuron_pair" \
  LOUPE_GEN_NEURON_PARQUET_BIN="$TARGET_DIR/ci/examples/gen_neuron_parquet"


if [ -d app ]; then
  step "wasm-bindgen-test (headless Chromium)"
  # linted as it compiles (lint() above); the bench crate rides along so that it is linted with the
  # same dependency build (its cdylib test harness holds no test)
  lint cargo test -p loupe-app -p loupe-bench-wasm --target wasm32-unknown-unknown 2>&1 | tee /tmp/loupe-wasm-tests.log | grep -E '^(test result|running|error)|panicked|FAIL' || true
  if ! grep -qE '^test result: ok' /tmp/loupe-wasm-tests.log || grep -qE '^test result: FAILED|^error' /tmp/loupe-wasm-tests.log; then
    tail -60 /tmp/loupe-wasm-tests.log; exit 1
  fi
  fuzz_wait

  # The threaded worker is opt-in (README, Threads): LOUPE_THREADS=1 builds it (Trunk.toml hook,
  # linted as it compiles) and the e2e step then tests it (tests/e2e/threads.test.mjs); without it
  # the same test checks that the page never asks for it.
  step "trunk build --release (LOUPE_THREADS=${LOUPE_THREADS:-unset}: the threaded worker only with 1)"
  if ! trunk build --release >/tmp/loupe-trunk.log 2>&1; then tail -40 /tmp/loupe-trunk.log; exit 1; fi
  grep -E '::: threads' /tmp/loupe-trunk.log || tail -3 /tmp/loupe-trunk.log
  if [ "${LOUPE_THREADS:-}" = 1 ] && [ ! -s dist/threads/worker_bg.wasm ]; then
    echo "dist/threads/worker_bg.wasm is missing: the threaded worker was not built" >&2; exit 1
  fi

  step "end-to-end (Playwright + Chromium)"
  node --test --test-concurrency=1 --test-timeout=300000 tests/e2e/
else
  fuzz_wait
fi
step done
