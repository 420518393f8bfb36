#!/usr/bin/env bash
# Runs every cargo-fuzz target in core/fuzz for SECONDS_PER_TARGET seconds (default 300) and prints
# the exec count of each. Exits non-zero when a target crashes, hangs (-timeout) or runs out of
# memory (-rss_limit_mb); the input that did it is kept in core/fuzz/artifacts/<target>/.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET]
#
# Seeds, copied into a temporary directory at run time (never committed):
#   - the synthetic Parquet tables in core/fuzz/seeds/ (committed; written by core/fuzz/seedgen),
#     and the .loupe files there (committed; written and kept current by core/tests/loupe_file.rs),
#   - a few small files per target from ../shared/samples (skipped with a message when absent).
# New inputs the fuzzer finds go to a temporary corpus (so a run's length does not grow with its
# history), or with FUZZ_CORPUS_DIR=core/fuzz/corpus (git-ignored) to <dir>/<target>/, so that long
# runs build on each other. FUZZ_TARGETS="import_ntff import_neff" runs a subset; SAMPLES overrides
# the samples directory; FUZZ_TARGET_DIR the cargo target dir (default core/fuzz/target).
# FUZZ_JOBS=N runs N targets at a time (default: one per core, `nproc`; each target still gets
# SECONDS_PER_TARGET of its own). FUZZ_SEED=N fixes libFuzzer's random seed (test-all uses one,
# so that a CI run is reproducible).
# FUZZ_SANITIZER=none builds without AddressSanitizer (default: address): the build takes about
# 40 % less CPU and runs more execs per second; scripts/test-all.sh uses it for its short runs.
# A crash input becomes a regression test: copy it to core/tests/fuzz_regressions/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:/usr/local/bin:$PATH"
ROOT=$PWD
SECS=${1:-300}
SAMPLES=${SAMPLES:-$ROOT/../shared/samples}
TARGETS=${FUZZ_TARGETS:-"import_chrome import_neff import_ntff import_neuron_json import_parquet import_dlprof_csv import_tb_neuron_ops import_loupe import_perfetto import_xplane import_rocprof import_nsys_sqlite import_dlprof_sqlite decode_wire"}
SANITIZER=${FUZZ_SANITIZER:-address}
TARGET_DIR=${FUZZ_TARGET_DIR:-$ROOT/core/fuzz/target}
# another sanitizer means other flags: its own directory, so switching does not rebuild everything
if [ "$SANITIZER" != address ]; then TARGET_DIR=$TARGET_DIR/sanitizer-$SANITIZER; fi
MAX_LEN=65536

log() { echo "::: fuzz: $*"; }

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "cargo-fuzz is not installed: run scripts/setup.sh (or cargo install cargo-fuzz --locked)" >&2
  exit 2
fi

SEEDS=$(mktemp -d /tmp/loupe-fuzz-seeds.XXXXXX)
trap 'rm -rf "$SEEDS"' EXIT

# copy the files matching a pattern (relative to $SAMPLES) that are below 2 MB, at most $2 of them
# (smallest first) into the seed directory of target $1
pick() {
  local target=$1 max=$2; shift 2
  local f n=0
  mkdir -p "$SEEDS/$target"
  [ -d "$SAMPLES" ] || return 0
  for f in $( (cd "$SAMPLES" && find "$@" -maxdepth 0 -type f -size -2M -printf '%s %p\n' 2>/dev/null) | sort -n | awk '{print $2}'); do
    cp "$SAMPLES/$f" "$SEEDS/$target/$(echo "$f" | tr '/' '_')"
    n=$((n + 1))
    if [ "$n" -ge "$max" ]; then break; fi
  done
  return 0
}

# a neuron-profile JSON export with every array cut to its first 3 rows (keeps the seed small
# enough for -max_len); a plain copy when python3 is missing
shrink_json() {
  python3 - "$1" "$2" <<'EOF' 2>/dev/null || cp "$1" "$2"
import json, sys
d = json.load(open(sys.argv[1]))
def cut(v):
    if isinstance(v, list):
        return [cut(x) for x in v[:3]]
    if isinstance(v, dict):
        return {k: cut(x) for k, x in v.items()}
    return v
json.dump(cut(d), open(sys.argv[2], "w"), separators=(",", ":"))
EOF
}

# seed directories for every target (samples are picked for all of them, even when running a subset)
mkdir -p "$SEEDS"/{import_chrome,import_neff,import_ntff,import_neuron_json,import_parquet,import_dlprof_csv,import_tb_neuron_ops,import_loupe,import_perfetto,import_xplane,import_rocprof,import_nsys_sqlite,import_dlprof_sqlite,decode_wire}
for t in $TARGETS; do
  mkdir -p "$SEEDS/$t"
  if [ -d "core/fuzz/seeds/$t" ]; then cp core/fuzz/seeds/"$t"/* "$SEEDS/$t/"; fi
done
if [ -d "$SAMPLES" ]; then
  (
    cd "$SAMPLES"
    pick import_chrome 12 chrome-trace-json/*.json chrome-trace-json/*.gz chrome-trace-json/*.zip \
      chrome-trace-json/malformed/* pytorch-kineto/*.json.gz
    pick import_neff 2 neuron/*.neff
    pick import_ntff 4 neuron/*.ntff neuron/ntff-v5/*.ntff
    pick import_dlprof_csv 6 dlprof/*.csv
    pick import_perfetto 14 perfetto-proto/*.pftrace perfetto-proto/encoded_from_perfetto_difftests/*.pftrace
    pick import_xplane 9 xprof/*.json xprof/*.xplane.pb
    n=0
    for f in neuron/*.json neuron/ntff-v5/*.json; do
      [ -f "$f" ] || continue
      shrink_json "$f" "$SEEDS/import_neuron_json/$(basename "$f" .json).small.json"
      n=$((n + 1))
      if [ "$n" -ge 3 ]; then break; fi
    done
  )
else
  log "no samples at $SAMPLES: seeding from core/fuzz/seeds only"
fi

log "building the targets (cargo +nightly fuzz build: release + debug assertions, sanitizer $SANITIZER)"
(cd core && cargo +nightly fuzz build -s "$SANITIZER" --target-dir "$TARGET_DIR")
BIN_DIR=$TARGET_DIR/$(rustc +nightly -vV | sed -n "s/^host: //p")/release

# Targets run FUZZ_JOBS at a time (default: one per core; each libFuzzer process uses one core).
JOBS=${FUZZ_JOBS:-$(nproc)}
RESULTS_DIR=$(mktemp -d /tmp/loupe-fuzz-results.XXXXXX)
trap 'rm -rf "$SEEDS" "$RESULTS_DIR"' EXIT

# runs target $1; writes its result line to $RESULTS_DIR/$1.ok or .failed; always returns 0
run_target() {
  local t=$1 corpus artifacts nseeds out rc execs cov crash
  if [ -n "${FUZZ_CORPUS_DIR:-}" ]; then corpus=$FUZZ_CORPUS_DIR/$t; else corpus=$SEEDS/corpus-$t; fi
  artifacts=core/fuzz/artifacts/$t
  mkdir -p "$corpus" "$artifacts"
  nseeds=$(find "$SEEDS/$t" -type f | wc -l)
  log "$t: ${SECS}s, $nseeds seed files, corpus $corpus"
  out=$(mktemp /tmp/loupe-fuzz-$t.XXXXXX.log)
  # the binary itself, not `cargo fuzz run`: that would rebuild when a source changed since the build
  # A unit slower than -timeout fails the run as a hang.
  rc=0
  "$BIN_DIR/$t" "$corpus" "$SEEDS/$t" \
    -max_total_time="$SECS" -max_len="$MAX_LEN" -rss_limit_mb=2048 -timeout=10 \
    ${FUZZ_SEED:+-seed="$FUZZ_SEED"} -print_final_stats=1 -artifact_prefix="$artifacts/" >"$out" 2>&1 || rc=$?
  execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$out" | grep -oE '[0-9]+$' | tail -1 || true)
  cov=$(grep -oE '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED).*cov: [0-9]+' "$out" | grep -oE 'cov: [0-9]+' | tail -1 || true)
  if [ "$rc" -ne 0 ]; then
    crash=$(grep -oE 'Test unit written to [^ ]+' "$out" | tail -1 | sed 's/Test unit written to //' || true)
    {
      echo "::: fuzz: $t FAILED (exit $rc)"
      grep -E 'panicked at|ERROR: libFuzzer|ERROR: AddressSanitizer|SUMMARY:|==[0-9]+== ERROR' "$out" | head -5 || true
      tail -40 "$out"
    } >&2
    echo "$t: FAILED (exit $rc) after ${execs:-?} execs; input: ${crash:-see $out}" >"$RESULTS_DIR/$t.failed"
  else
    echo "$t: ok, ${execs:-?} execs in ${SECS}s${cov:+, $cov}" >"$RESULTS_DIR/$t.ok"
    rm -f "$out"
  fi
  return 0
}

log "running the targets, $JOBS at a time"
for t in $TARGETS; do
  run_target "$t" &
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
done
wait

FAILED=0
RESULTS=()
for t in $TARGETS; do
  if [ -f "$RESULTS_DIR/$t.ok" ]; then RESULTS+=("$(cat "$RESULTS_DIR/$t.ok")")
  elif [ -f "$RESULTS_DIR/$t.failed" ]; then RESULTS+=("$(cat "$RESULTS_DIR/$t.failed")"); FAILED=1
  else RESULTS+=("$t: no result (the run did not finish)"); FAILED=1
  fi
done

log "results"
for r in "${RESULTS[@]}"; do echo "  $r"; done
exit "$FAILED"
