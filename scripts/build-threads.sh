#!/usr/bin/env bash
# The threaded parser worker: the `worker` binary with features `sqlite,threads` (a
# wasm-bindgen-rayon pool + loupe-core's data-parallel import stages), built on nightly with
# atomics and shared memory, into <dist>/threads/ next to the normal (classic, single-threaded)
# worker. The page starts it when it is cross-origin isolated (app/src/loader/mod.rs) and falls
# back to the classic worker when it is missing or fails to start.
#
# Usage: scripts/build-threads.sh [DIST]   (default: $TRUNK_STAGING_DIR, else dist)
#        scripts/build-threads.sh clippy   (clippy -D warnings on the threaded worker)
# LOUPE_LINT=1 (scripts/test-all.sh) lints it while it builds, with the same flags as `clippy`.
# Trunk runs it as a post_build hook (Trunk.toml); it builds only with LOUPE_THREADS=1
# (`LOUPE_THREADS=1 trunk build --release`): without it the page uses the classic worker. A built
# threaded worker is announced to the page by a <meta name="loupe-threads"> in index.html.
# Recipe and pitfalls: docs/toolchain.md, "Threads: wasm-bindgen-rayon".
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:/usr/local/bin:$PATH"

DIST="${1:-${TRUNK_STAGING_DIR:-dist}}"
# Opt-in since 2026-12-07 (issue 42 goal 5): on this 2-core machine the threaded worker is within
# noise of the classic one in every browser measurement (README, Threads), while its build is the
# largest stage of a release build. `clippy` (below) runs whatever LOUPE_THREADS says.
if [ "${LOUPE_THREADS:-}" != 1 ] && [ "${1:-}" != clippy ]; then
  echo "::: threads: not built (LOUPE_THREADS=1 builds the threaded worker into $DIST/threads/)"
  exit 0
fi
# Cargo profile (Cargo.toml): release-threads = release without LTO (measured in README)
PROFILE="${LOUPE_THREADS_PROFILE:-release-threads}"
OUT="$DIST/threads"
T0=$(date +%s.%N)

# Everything the threaded build needs, only in this process (stable stays the default elsewhere).
export RUSTUP_TOOLCHAIN=nightly
# its own cache: the flags differ from the normal build (LOUPE_THREADS_TARGET_DIR moves it)
export CARGO_TARGET_DIR="${LOUPE_THREADS_TARGET_DIR:-target/threads}"
export CARGO_UNSTABLE_BUILD_STD=panic_abort,std   # = -Z build-std (std rebuilt with atomics)
# +atomics alone is not enough: this nightly does not pass --shared-memory / --import-memory to
# wasm-ld, and wasm-bindgen then silently skips its threads transform (toolchain.md, pitfall).
# --max-memory: a shared memory cannot grow past its declared maximum; 4 GiB (wasm32's ceiling,
# like the classic worker) so the threaded worker holds the same files (toolchain.md used 1 GiB).
# +simd128 as in .cargo/config.toml, whose rustflags this variable replaces.
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C target-feature=+atomics,+bulk-memory,+mutable-globals,+simd128 \
-C link-arg=--shared-memory -C link-arg=--max-memory=4294967296 -C link-arg=--import-memory \
-C link-arg=--export=__wasm_init_tls -C link-arg=--export=__tls_size \
-C link-arg=--export=__tls_align -C link-arg=--export=__tls_base"
# SQLite's C (sqlite-wasm-rs, clang) must be built for shared memory too, else wasm-ld refuses it
# ("--shared-memory is disallowed by ...sqlite3.o"); clang 14 then also needs the local-exec TLS
# model (else "only -ftls-model=local-exec is supported"); the first flag is .cargo/config.toml's
export CFLAGS_wasm32_unknown_unknown="-fdouble-square-bracket-attributes -matomics -mbulk-memory -mmutable-globals -ftls-model=local-exec"
# trunk may have set these for its own cargo run; they must not leak into this one
unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS CARGO_BUILD_TARGET_DIR

if [ "${1:-}" = clippy ]; then
  # house rules for the code behind cfg(feature = "threads"), in the environment it builds in
  CLIPPY_CONF_DIR="$PWD/clippy-wasm" cargo clippy -p loupe-app --bin worker --features sqlite,threads --target wasm32-unknown-unknown \
    --profile "$PROFILE" --quiet -- -D warnings
  exit 0
fi
if [ "${LOUPE_LINT:-}" = 1 ]; then
  # scripts/test-all.sh: clippy's lints (-D warnings, clippy-wasm/clippy.toml) on the workspace's
  # crates while this build compiles them (clippy-driver as the workspace wrapper), instead of a
  # separate `clippy` run that rebuilt std and checked every dependency again
  RUSTC_WORKSPACE_WRAPPER="$(rustup which --toolchain nightly clippy-driver)"
  export RUSTC_WORKSPACE_WRAPPER CLIPPY_CONF_DIR="$PWD/clippy-wasm"
  export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
  echo "::: threads: linted by clippy as it builds (LOUPE_LINT=1)"
fi
cargo build -p loupe-app --bin worker --features sqlite,threads \
  --target wasm32-unknown-unknown --profile "$PROFILE"
WASM="$CARGO_TARGET_DIR/wasm32-unknown-unknown/$PROFILE/worker.wasm"
T1=$(date +%s.%N)

rm -rf "$OUT"
mkdir -p "$OUT"
# --target web: an ES module (the pool's workers import it again through import.meta.url);
# the rayon helper lands in $OUT/snippets/wasm-bindgen-rayon-*/src/workerHelpers.no-bundler.js
wasm-bindgen --target web --no-typescript --out-dir "$OUT" --out-name worker "$WASM"
# the module worker's entry point (the page starts `threads/worker_loader.js` with type: module);
# init() instantiates the wasm with a fresh shared memory and runs `main` (worker_side::run)
cat >"$OUT/worker_loader.js" <<'EOF'
// Loupe's threaded parser worker (module worker): scripts/build-threads.sh writes this file.
// A trap in the worker's async code is a rejected promise, which a module worker does not report
// to the page as an `error` event: rethrown outside the promise, it is one (the page then fails
// the load, naming the file, as for the classic worker).
self.addEventListener('unhandledrejection', (e) => {
  const reason = e.reason;
  setTimeout(() => { throw reason instanceof Error ? reason : new Error(String(reason)); });
});
import init from './worker.js';
await init();
EOF
wasm-opt -O3 --enable-threads --enable-bulk-memory --enable-mutable-globals --enable-simd \
  "$OUT/worker_bg.wasm" -o "$OUT/worker_bg.wasm"
T2=$(date +%s.%N)
# the page starts the threaded worker only when the build says it has one (no request for a file
# that is not there): a marker in index.html, read by app/src/loader/mod.rs and web/offline.js
if ! grep -q 'name="loupe-threads"' "$DIST/index.html"; then
  sed -i 's|<head>|<head>\n  <meta name="loupe-threads" content="threads/worker_loader.js" />|' "$DIST/index.html"
fi
printf '::: threads: %s/worker_bg.wasm %s bytes (cargo %.0f s, wasm-bindgen + wasm-opt %.0f s)\n' \
  "$OUT" "$(stat -c %s "$OUT/worker_bg.wasm")" "$(echo "$T1 - $T0" | bc)" "$(echo "$T2 - $T1" | bc)"
