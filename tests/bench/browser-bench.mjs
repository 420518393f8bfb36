// Browser benchmarks of loupe-core (bench/wasm, built into bench/wasm/pkg by scripts/bench.sh) in
// headless Chromium, single thread, on the page's main thread. Prints a table; numbers only.
//   node tests/bench/browser-bench.mjs
// Env: JSON_MB (200), NTFF_MB (512, MB of records), SLICES (10000000), TRACKS (8), FRAMES (100),
//      RUNS (3), ZOOMS ("1,10,100,1000,10000,100000"), MERGE_PX ("1,3": LOD merge thresholds, the
//      first is the headline), ONLY ("json,ntff,lod"), OUT (JSON file).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from './server.mjs';
import { launch, fmt, table } from './browser.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const env = (k, d) => process.env[k] ?? d;
const JSON_MB = +env('JSON_MB', 200);
const NTFF_MB = +env('NTFF_MB', 512);
const SLICES = +env('SLICES', 10_000_000);
const TRACKS = +env('TRACKS', 8);
const FRAMES = +env('FRAMES', 100);
const RUNS = +env('RUNS', 3);
const ZOOMS = env('ZOOMS', '1,10,100,1000,10000,100000').split(',').map(Number);
const MERGE_PX = env('MERGE_PX', '1,3').split(',').map(Number);
const ONLY = env('ONLY', 'json,ntff,lod').split(',');
const OUT = env('OUT', path.join(ROOT, 'target/bench/browser.json'));

if (!fs.existsSync(path.join(ROOT, 'bench/wasm/pkg/loupe_bench_wasm.js'))) {
  console.error('bench/wasm/pkg missing: run scripts/bench.sh (or build loupe-bench-wasm + wasm-bindgen) first');
  process.exit(1);
}

const srv = await serve({ '/bench/': path.join(ROOT, 'bench/wasm') });
const browser = await launch();
const results = { chromium: browser.version(), date: new Date().toISOString() };

// A fresh page (fresh wasm instance and memory) per benchmark.
async function withPage(fn) {
  const ctx = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => console.error('page error:', e.message));
  page.on('console', (m) => { if (m.type() === 'error') console.error('console:', m.text()); });
  await page.goto(`${srv.url}/bench/index.html`);
  await page.waitForFunction(() => window.benchReady === true);
  const isolated = await page.evaluate(() => self.crossOriginIsolated);
  try {
    return await fn(page, isolated);
  } finally {
    await ctx.close();
  }
}

try {
  if (ONLY.includes('json')) {
    process.stderr.write(`json: generating ${JSON_MB} MB in wasm and importing it ${RUNS}x...\n`);
    results.json = await withPage((page) => page.evaluate(([mb, runs]) => JSON.parse(window.bench.json_import(mb, runs)), [JSON_MB, RUNS]));
  }
  if (ONLY.includes('ntff')) {
    process.stderr.write(`ntff: generating ${NTFF_MB} MB of records in wasm and decoding ${RUNS}x...\n`);
    results.ntff = await withPage((page) => page.evaluate(([mb, runs]) => JSON.parse(window.bench.ntff_decode(mb, runs)), [NTFF_MB, RUNS]));
  }
  if (ONLY.includes('lod')) {
    process.stderr.write(`lod: building ${SLICES} slices on ${TRACKS} tracks, ${FRAMES} frames per zoom...\n`);
    results.lod = await withPage(async (page, isolated) => {
      const build = await page.evaluate(([n, t]) => JSON.parse(window.bench.lod_build(n, t)), [SLICES, TRACKS]);
      const zooms = [];
      const alt = [];
      for (const [k, m] of MERGE_PX.entries()) {
        for (const z of ZOOMS) {
          // 2 % of a width per frame, like a drag
          const r = await page.evaluate(([z, f, m]) => JSON.parse(window.bench.frames(document.getElementById('c'), z, f, 0.02, m)), [z, FRAMES, m]);
          (k === 0 ? zooms : alt).push(r);
        }
        if (k === 0) {
          const shot = path.join(ROOT, 'target/bench/lod-frame.png');
          fs.mkdirSync(path.dirname(shot), { recursive: true });
          await page.screenshot({ path: shot });
        }
      }
      return { build, zooms, alt, crossOriginIsolated: isolated };
    });
  }
} finally {
  await browser.close();
  await srv.close();
}

fs.mkdirSync(path.dirname(OUT), { recursive: true });
fs.writeFileSync(OUT, JSON.stringify(results, null, 2));

console.log(`\nBrowser benchmarks (Chromium ${results.chromium}, headless, one thread, wasm32)\n`);
const rows = [];
if (results.json) {
  const j = results.json;
  rows.push(['JSON import (MB/s)', `${fmt(j.mb)} MB, ${j.events} events, ${j.slices} slices`, fmt(j.mbps_best, 0), fmt(j.mbps_median, 0), `min ${fmt(j.min_ms, 0)} ms / median ${fmt(j.median_ms, 0)} ms of ${j.times_ms.length}`]);
  rows.push(['bytes/slice (model)', 'Trace::heap_bytes / slices', fmt(j.bytes_per_slice), '', `slice columns only ${fmt(j.column_bytes_per_slice)}`]);
}
if (results.ntff) {
  const n = results.ntff;
  rows.push(['NTFF decode (MB/s)', `${fmt(n.records_mb)} MB records, ${n.records} records`, fmt(n.mbps_best, 0), fmt(n.mbps_median, 0), `min ${fmt(n.min_ms, 0)} ms / median ${fmt(n.median_ms, 0)} ms of ${n.times_ms.length}`]);
}
if (rows.length) table(['benchmark', 'input', 'best', 'median', 'notes'], rows);
if (results.lod) {
  const b = results.lod.build;
  console.log(`\nLOD query + canvas paint per frame: ${b.slices} slices, ${b.tracks} tracks, ${b.rows} rows, 1920x1080 canvas, ${FRAMES} frames per zoom panning 2 %/frame`);
  console.log(`(built in ${fmt(b.build_ms, 0)} ms; ${fmt(b.bytes_per_slice, 2)} bytes/slice; crossOriginIsolated=${results.lod.crossOriginIsolated})\n`);
  table(['merge px', 'zoom', 'visible', 'items p50', 'query p50/p95', 'paint p50/p95', 'flush p50/p95', 'frame p50', 'frame p95', 'frame max'],
    [...results.lod.zooms, ...results.lod.alt].map((z) => [fmt(z.merge_px, 0), `1/${z.zoom}`, z.visible_ms >= 1 ? `${fmt(z.visible_ms, 1)} ms` : `${fmt(z.visible_ms * 1000, 1)} µs`, fmt(z.items_median, 0),
      `${fmt(z.query_ms.p50, 2)}/${fmt(z.query_ms.p95, 2)}`, `${fmt(z.paint_ms.p50, 2)}/${fmt(z.paint_ms.p95, 2)}`, `${fmt(z.flush_ms.p50, 2)}/${fmt(z.flush_ms.p95, 2)}`,
      fmt(z.frame_ms.p50, 2), fmt(z.frame_ms.p95, 2), fmt(z.frame_ms.max, 2)]));
}
console.log(`\n(all times in ms; raw results in ${path.relative(ROOT, OUT)})`);
