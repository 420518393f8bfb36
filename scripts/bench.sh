#!/usr/bin/env bash
# Loupe performance benchmarks: native (criterion + examples), browser (wasm in headless Chromium),
# and speedscope vs Loupe on the same 50 MB trace. Prints numbers only (no pass/fail on time);
# the machine may be shared, so read min and median.
#
#   bash scripts/bench.sh            # everything (≈ 15–25 min on 2 cores, most of it compiling)
#   bash scripts/bench.sh --quick    # smaller inputs, no criterion (≈ 5 min once built)
# Env: SKIP_SETUP=1, SKIP_NATIVE=1, SKIP_BROWSER=1, SKIP_SPEEDSCOPE=1, SKIP_FRAMES=1, SKIP_REOPEN=1, SKIP_GAPS=1 (GAPS_MB, 1000), SKIP_NTFF_APP=1, WASM_OPT=0 (skip wasm-opt -O3),
#      LOUPE_DIST=<app build> (default dist/ when present), RUNS (browser runs, default 3).
# Raw outputs land in target/bench/.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:/usr/local/bin:$PATH"
QUICK=0
[ "${1:-}" = "--quick" ] && QUICK=1
OUT=target/bench
mkdir -p "$OUT"
# outputs of an earlier run must not show up in this run's summary (generated inputs are kept)
rm -f "$OUT"/native-*.txt "$OUT"/criterion.txt "$OUT"/browser.txt "$OUT"/browser.json "$OUT"/speedscope.txt "$OUT"/speedscope-vs-loupe.json \
  "$OUT"/frames.txt "$OUT"/frames.json "$OUT"/paint-probe.txt \
  "$OUT"/reopen.txt "$OUT"/load-gaps.txt "$OUT"/ntff-app.txt
T0=$(date +%s)
step() { echo "::: [+$(( $(date +%s) - T0 ))s] $*"; }

if [ "${SKIP_SETUP:-0}" != 1 ]; then
  step setup
  bash scripts/setup.sh
fi
# setup.sh runs npm ci only for playwright-core; speedscope comes from the same package.json
if [ ! -d node_modules/speedscope ] || [ ! -d node_modules/playwright-core ]; then
  npm ci --no-audit --no-fund
fi

if [ $QUICK = 1 ]; then
  JSON_MB=${JSON_MB:-50}; NTFF_MB=${NTFF_MB:-128}; SLICES=${SLICES:-2000000}; FRAMES=${FRAMES:-30}; RUNS=${RUNS:-2}
else
  JSON_MB=${JSON_MB:-200}; NTFF_MB=${NTFF_MB:-512}; SLICES=${SLICES:-10000000}; FRAMES=${FRAMES:-100}; RUNS=${RUNS:-3}
fi
export JSON_MB NTFF_MB SLICES FRAMES RUNS

if [ "${SKIP_NATIVE:-0}" != 1 ]; then
  step "native: build examples"
  cargo build --release -p loupe-core --examples 2>&1 | tail -1
  step "native: chrome JSON import, ${JSON_MB} MB"
  ./target/release/examples/bench_chrome "$JSON_MB" "$RUNS" | tee "$OUT/native-json.txt"
  step "native: NTFF decode, ${NTFF_MB} MB of records"
  ./target/release/examples/bench_ntff "$NTFF_MB" | tee "$OUT/native-ntff.txt"
  step "native: bytes per slice"
  ./target/release/examples/bench_memory "$SLICES" "$JSON_MB" | tee "$OUT/native-memory.txt"
  step "native: GPU breakdowns (HTA) and latency summary, 1 M events"
  ./target/release/examples/bench_gpu 1000000 | tee "$OUT/native-gpu.txt"
  if [ $QUICK = 0 ]; then
    step "native: criterion (cargo bench -p loupe-core)"
    cargo bench -p loupe-core 2>&1 | grep -vE '^(Benchmarking|Found|  [0-9]+ \()' | tee "$OUT/criterion.txt"
  fi
fi

if [ "${SKIP_BROWSER:-0}" != 1 ] || [ "${SKIP_SPEEDSCOPE:-0}" != 1 ]; then
  step "wasm: build loupe-bench-wasm"
  cargo build --release --target wasm32-unknown-unknown -p loupe-bench-wasm 2>&1 | tail -1
  wasm-bindgen --target web --out-dir bench/wasm/pkg target/wasm32-unknown-unknown/release/loupe_bench_wasm.wasm
  if [ "${WASM_OPT:-1}" != 0 ]; then
    wasm-opt -O3 bench/wasm/pkg/loupe_bench_wasm_bg.wasm -o bench/wasm/pkg/loupe_bench_wasm_bg.wasm
  fi
fi
if [ "${SKIP_BROWSER:-0}" != 1 ]; then
  step "browser: JSON ${JSON_MB} MB, NTFF ${NTFF_MB} MB, LOD+paint at ${SLICES} slices"
  OUT="$OUT/browser.json" node tests/bench/browser-bench.mjs | tee "$OUT/browser.txt"
fi
if [ "${SKIP_FRAMES:-0}" != 1 ]; then
  # issue 10 goal 2: the app itself (?demo=N), continuous pan/zoom, rAF gaps and frame work,
  # pixel-buffer painter vs the fillRect painter (?raster=0)
  step "browser: paint strategies (canvas fillRect / pixel buffer / WebGL2), 34 k rects"
  node tests/bench/paint-probe.mjs | tee "$OUT/paint-probe.txt"
  FRAMES_DIST=${LOUPE_DIST:-dist}
  if [ ! -f "$FRAMES_DIST/index.html" ]; then
    step "app: trunk build --release (for the frames benchmark)"
    trunk build --release 2>&1 | tail -2
  fi
  step "browser: frames with ${SLICES} slices (app, ?demo=${SLICES}), continuous pan and zoom"
  FRAMES=${PAN_FRAMES:-90} RUNS=${FRAME_RUNS:-2} LOUPE_DIST="$FRAMES_DIST" OUT="$OUT/frames.json" \
    node tests/bench/frames.mjs | tee "$OUT/frames.txt"
fi
if [ "${SKIP_SPEEDSCOPE:-0}" != 1 ]; then
  step "speedscope vs Loupe (50 MB)"
  cargo build --release -p loupe-core --example gen_chrome 2>&1 | tail -1
  node tests/bench/speedscope-vs-loupe.mjs | tee "$OUT/speedscope.txt"
fi
if [ "${SKIP_REOPEN:-0}" != 1 ] && [ -f dist/index.html ]; then
  step "re-open from the model cache (issue 10 goal 6): 50 MB and 200 MB"
  for mb in 50 200; do TRACE_MB=$mb RUNS=2 node tests/bench/reopen.mjs | tee -a "$OUT/reopen.txt"; done
fi

if [ "${SKIP_GAPS:-0}" != 1 ] && [ -f dist/index.html ]; then
  step "main thread during a ${GAPS_MB:-1000} MB open (issue 10 goal 5): long tasks and rAF gaps"
  TRACE_MB=${GAPS_MB:-1000} node tests/bench/load-gaps.mjs | tee "$OUT/load-gaps.txt"
fi

if [ "${SKIP_NTFF_APP:-0}" != 1 ] && [ -f dist/index.html ]; then
  step "NTFF end to end in the app (issue 10 goal 7): a generated ${NTFF_APP_MB:-100} MB NEFF + NTFF pair"
  NTFF_MB=${NTFF_APP_MB:-100} RUNS=2 node tests/bench/open-ntff.mjs | tee "$OUT/ntff-app.txt"
fi

if [ "${SKIP_TOUR:-0}" != 1 ] && [ -f dist/index.html ]; then
  step "interaction at scale (issue 42 goal 4): every widget, search, colourings, sorts on ?demo=${SLICES}"
  SLICES=$SLICES OUT="$OUT/widget-tour.json" node tests/bench/widget-tour.mjs | tee "$OUT/widget-tour.txt"
fi

step "summary"
node tests/bench/summary.mjs "$OUT"
step done
