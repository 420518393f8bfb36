#!/usr/bin/env bash
# Installs everything Loupe needs to build, serve and test, if missing. Idempotent.
# No GitHub downloads: every tool comes from crates.io, npm or Debian (see docs/toolchain.md).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:/usr/local/bin:$PATH"
TRUNK_VERSION=0.21.14
WASM_BINDGEN_VERSION=0.2.130
BINARYEN_VERSION=132.0.0

log() { echo "::: setup: $*"; }

rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || rustup target add wasm32-unknown-unknown
# house rules in scripts/test-all.sh: cargo fmt --check and clippy
rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy
rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt

if ! command -v trunk >/dev/null || ! trunk --version | grep -q "$TRUNK_VERSION"; then
  log "installing trunk $TRUNK_VERSION (compiles from crates.io, ~3 min)"
  # unoptimised, without debug info: trunk only runs cargo, wasm-bindgen and wasm-opt, so its own
  # speed does not show, and on 2 cores this build takes 3 min instead of 12 (trunk's LTO release)
  CARGO_PROFILE_DEV_DEBUG=0 cargo install --locked --debug trunk --version "$TRUNK_VERSION"
fi
if ! command -v wasm-bindgen >/dev/null || ! wasm-bindgen --version | grep -q "$WASM_BINDGEN_VERSION"; then
  log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION"
  # not --locked: its lock file pins a webpki-roots the registry does not have
  # optimised, but without LTO and in 16 codegen units: 2m44 instead of 3m44 on 2 cores
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi
if ! command -v wasm-opt >/dev/null || ! wasm-opt --version | grep -q "version 132"; then
  log "installing binaryen $BINARYEN_VERSION from npm"
  npm i -g --prefix /usr/local "binaryen@$BINARYEN_VERSION"
fi
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  log "installing chromium + chromium-driver from Debian"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium chromium-driver >/dev/null
fi
# clang: sqlite-wasm-rs compiles SQLite's C for wasm32 (loupe-sqlite in the app's worker)
if ! command -v clang >/dev/null; then
  log "installing clang from Debian (SQLite for wasm32)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq clang >/dev/null
fi
# fuzzing (scripts/fuzz.sh): cargo-fuzz on the preinstalled nightly. Its default build (ASan,
# without -Zbuild-std) needs no rust-src.
if ! rustup toolchain list | grep -q '^nightly'; then
  log "installing the nightly toolchain (cargo-fuzz needs it)"
  rustup toolchain install nightly --profile minimal
fi
# the threaded parser worker (opt-in: LOUPE_THREADS=1, scripts/build-threads.sh) rebuilds std
# with atomics: nightly's rust-src
if [ "${LOUPE_THREADS:-}" = 1 ] && ! rustup component list --installed --toolchain nightly 2>/dev/null | grep -q '^rust-src'; then
  log "adding rust-src to nightly (the threaded worker's -Z build-std)"
  rustup component add rust-src --toolchain nightly
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  log "installing cargo-fuzz from crates.io (a minute)"
  # unoptimised like trunk: it only runs cargo
  CARGO_PROFILE_DEV_DEBUG=0 cargo install cargo-fuzz --locked --debug
fi
if [ -f package.json ]; then
  if [ ! -d node_modules/playwright-core ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    log "npm ci"
    if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
  fi
fi
# DuckDB (PyPI, ~4 s): the independent reader of the Parquet export in cli/tests/parquet_duckdb.rs
if [ ! -x target/venv-duckdb/bin/python ] || ! target/venv-duckdb/bin/python -c 'import duckdb' 2>/dev/null; then
  log "DuckDB for the Parquet export test (python venv in target/venv-duckdb)"
  mkdir -p target
  python3 -m venv target/venv-duckdb && target/venv-duckdb/bin/pip install -q duckdb \
    || log "DuckDB could not be installed: the Parquet read-back test (cli/tests/parquet_duckdb.rs) will fail"
fi
# `trunk serve` refuses to start when a path in Trunk.toml's [watch] ignore list is missing
mkdir -p target
log "ok"
