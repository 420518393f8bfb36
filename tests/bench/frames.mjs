// Frames with N slices in the real app (issue 10, goal 2): opens `?demo=<N>` (the demo built in
// the loader's worker), then drives continuous pan and zoom from inside the page — a held key
// (keydown with repeat, one per frame), ctrl+wheel zoom and shift+wheel pan, one event per
// animation frame — at several zoom levels, and records
//   * every requestAnimationFrame gap of a frame counter running alongside (on time: ≤ 20 ms);
//   * the work of every app frame: the time spent inside the app's rAF callbacks (the app has one
//     rAF owner, canvas/scheduler.rs; `requestAnimationFrame` is wrapped to time each callback),
//     plus a 1×1 `getImageData` of the timeline canvas inside the timed span, which makes
//     Chromium rasterise the 2D commands just recorded (otherwise fillRect's raster cost would
//     land after the callback, outside the figure; FLUSH=0 leaves it out).
// Runs the default pixel-buffer painter ("raster") and, for before/after, the same build with
// `?raster=0` (one fillRect per item, the painter before issue 10). Numbers only.
//   node tests/bench/frames.mjs
// Env: SLICES (10000000), FILES (comma-separated profile files opened through the file input
//      instead of the demo, e.g. a NEFF and its NTFF), LOUPE_DIST (default dist/), MODES ("raster,canvas"), FRAMES (frames per
//      gesture, 90), ZOOMS ("1,10,100,1000,10000,100000": visible fraction of the trace is 1/z),
//      OUT (target/bench/frames.json), RUNS (1).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from './server.mjs';
import { launch, pct, fmt, table, median } from './browser.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const env = (k, d) => process.env[k] ?? d;
let SLICES = +env('SLICES', 10_000_000);
const FILES = env('FILES', '') ? env('FILES', '').split(',').map((f) => path.resolve(f)) : null;
const DIST = path.resolve(env('LOUPE_DIST', path.join(ROOT, 'dist')));
const MODES = env('MODES', 'raster,canvas').split(',');
const FRAMES = +env('FRAMES', 90);
const ZOOMS = env('ZOOMS', '1,10,100,1000,10000,100000').split(',').map(Number);
const RUNS = +env('RUNS', 1);
const OUT = env('OUT', path.join(ROOT, 'target/bench/frames.json'));
const GAP_MS = 20;
const FLUSH = env('FLUSH', '1') !== '0';

if (!fs.existsSync(path.join(DIST, 'index.html'))) {
  console.error(`no app build in ${DIST}: run \`trunk build --release\` (or set LOUPE_DIST)`);
  process.exit(1);
}
const srv = await serve({ '/': DIST });
const browser = await launch();
const results = { chromium: browser.version(), date: new Date().toISOString(), slices: SLICES, runs: [] };

// In-page instrumentation, installed before the app starts.
const INIT = (flush) => {
  const orig = window.requestAnimationFrame.bind(window);
  window.__bench = { work: [], gaps: [], on: false };
  let ctx = null;
  window.requestAnimationFrame = (cb) => orig((t) => {
    const a = performance.now();
    cb(t);
    if (window.__bench.on) {
      if (flush) {
        ctx = ctx || document.querySelector('[data-testid=timeline]')?.getContext('2d');
        ctx?.getImageData(0, 0, 1, 1);
      }
      window.__bench.work.push(performance.now() - a);
    }
  });
  // the frame counter: one rAF per frame while recording
  let last = null;
  const tick = (t) => {
    if (window.__bench.on) {
      if (last !== null) window.__bench.gaps.push(t - last);
      last = t;
    } else last = null;
    orig(tick);
  };
  orig(tick);
};

// One gesture for `frames` frames: an input event dispatched at the start of every frame.
async function gesture(page, kind, frames) {
  return page.evaluate(([kind, frames]) => new Promise((done) => {
    const canvas = document.querySelector('[data-testid=timeline]');
    const r = canvas.getBoundingClientRect();
    const at = { clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, bubbles: true, cancelable: true };
    const b = window.__bench;
    b.work = []; b.gaps = []; b.on = true;
    let k = 0;
    const step = () => {
      if (k >= frames) { b.on = false; done({ work: b.work, gaps: b.gaps }); return; }
      const half = k < frames / 2;
      if (kind === 'keys') {
        // held key: repeat keydowns, right for half the time, then back left
        window.dispatchEvent(new KeyboardEvent('keydown', { key: half ? 'd' : 'a', repeat: k > 0, bubbles: true, cancelable: true }));
      } else if (kind === 'zoom') {
        // ctrl+wheel: in for half, out for the other half (stays around the level)
        canvas.dispatchEvent(new WheelEvent('wheel', { ...at, deltaY: half ? -60 : 60, ctrlKey: true }));
      } else if (kind === 'pan') {
        canvas.dispatchEvent(new WheelEvent('wheel', { ...at, deltaY: half ? 120 : -120, shiftKey: true }));
      }
      k++;
      requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  }), [kind, frames]);
}

// Zoom (ctrl+wheel at the centre) until about 1/z of the whole trace is visible.
async function zoomTo(page, z) {
  await page.keyboard.press('0');
  await page.waitForTimeout(100);
  const dy = -Math.log(z) / 0.002; // viewport: factor exp(-dy * 0.002)
  await page.evaluate((dy) => {
    const c = document.querySelector('[data-testid=timeline]');
    const r = c.getBoundingClientRect();
    c.dispatchEvent(new WheelEvent('wheel', { clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, deltaY: dy, ctrlKey: true, bubbles: true, cancelable: true }));
  }, dy);
  await page.waitForTimeout(200);
}

const stats = (work, gaps) => ({
  frames: gaps.length,
  on_time_pct: gaps.length ? (100 * gaps.filter((g) => g <= GAP_MS).length) / gaps.length : NaN,
  gap_max_ms: gaps.length ? Math.max(...gaps) : NaN,
  work_p50_ms: work.length ? pct(work, 50) : NaN,
  work_p95_ms: work.length ? pct(work, 95) : NaN,
  work_max_ms: work.length ? Math.max(...work) : NaN,
  app_frames: work.length,
});

try {
  for (let run = 0; run < RUNS; run++) {
    for (const mode of MODES) {
      const ctx = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
      await ctx.addInitScript(INIT, FLUSH);
      const page = await ctx.newPage();
      page.on('pageerror', (e) => console.error('page error:', e.message));
      const q = FILES ? `?cache=0${mode === 'canvas' ? '&raster=0' : ''}` : `?demo=${SLICES}${mode === 'canvas' ? '&raster=0' : ''}`;
      process.stderr.write(`run ${run + 1}, ${mode}: loading ${FILES ? FILES.map((f) => path.basename(f)).join(' + ') : q} ...\n`);
      const t0 = Date.now();
      await page.goto(`${srv.url}/${q}`);
      if (FILES) {
        await page.waitForFunction(() => window.__loupe && window.__loupe.frames > 0);
        await page.locator('[data-testid=open-file]').setInputFiles(FILES);
        await page.waitForFunction(() => document.body.dataset.loupeState !== 'ready', null, { timeout: 60_000 }).catch(() => {});
      }
      await page.waitForFunction(() => document.body.dataset.loupeState === 'ready' || document.body.dataset.loupeState === 'error', null, { timeout: 600_000 });
      if (FILES) SLICES = results.slices = await page.evaluate(() => window.__loupe.sliceCount);
      await page.waitForFunction((n) => window.__loupe && window.__loupe.sliceCount === n, SLICES, { timeout: 60_000 });
      const info = await page.evaluate(() => ({ ...window.__loupe }));
      results.canvas_css_px = `${info.widthPx}x${info.heightPx}`;
      const load_ms = Date.now() - t0;
      process.stderr.write(`  loaded in ${(load_ms / 1000).toFixed(1)} s; memoryBytes ${info.memoryBytes} (${fmt(info.memoryBytes / SLICES, 1)} B/slice); raster=${info.raster}\n`);
      const levels = [];
      let allWork = [], allGaps = [];
      for (const z of ZOOMS) {
        await zoomTo(page, z);
        const items = (await page.evaluate(() => window.__loupe.items));
        const per = {};
        for (const kind of ['keys', 'zoom', 'pan']) {
          const r = await gesture(page, kind, FRAMES);
          per[kind] = stats(r.work, r.gaps);
          allWork = allWork.concat(r.work); allGaps = allGaps.concat(r.gaps);
          per[kind].work = r.work; per[kind].gaps = r.gaps;
        }
        const work = [...per.keys.work, ...per.zoom.work, ...per.pan.work];
        const gaps = [...per.keys.gaps, ...per.zoom.gaps, ...per.pan.gaps];
        levels.push({ zoom: z, items, ...stats(work, gaps), per: Object.fromEntries(Object.entries(per).map(([k, v]) => [k, { ...v, work: undefined, gaps: undefined }])) });
      }
      if (run === 0) await page.screenshot({ path: path.join(ROOT, `target/bench/frames-${mode}.png`) });
      results.runs.push({ run, mode, load_ms, memory_bytes: info.memoryBytes, raster: info.raster, levels, all: stats(allWork, allGaps) });
      await ctx.close();
    }
  }
} finally {
  await browser.close();
  await srv.close();
}

fs.mkdirSync(path.dirname(OUT), { recursive: true });
fs.writeFileSync(OUT, JSON.stringify(results, null, 2));
console.log(`\nFrames with ${SLICES} slices (${FILES ? FILES.map((f) => path.basename(f)).join(' + ') : `?demo=${SLICES}`}), Chromium ${results.chromium} headless --disable-gpu, 1920x1080;`);
console.log(`timeline canvas ${results.canvas_css_px} CSS px (default layout); per zoom level ${FRAMES} frames each of held keys (D/A),`);
console.log(`ctrl+wheel zoom, shift+wheel pan; on time = rAF gap <= ${GAP_MS} ms; work = app rAF callbacks${FLUSH ? ' + forced canvas raster' : ''}\n`);
table(['run', 'painter', 'zoom', 'items', 'frames', 'on time %', 'max gap', 'work p50', 'work p95', 'work max'],
  results.runs.flatMap((r) => [...r.levels, { zoom: 'all', items: '', ...r.all }].map((l) => [r.run + 1, r.mode, l.zoom === 'all' ? 'all' : `1/${l.zoom}`, l.items,
    l.frames, fmt(l.on_time_pct, 1), fmt(l.gap_max_ms, 1), fmt(l.work_p50_ms, 2), fmt(l.work_p95_ms, 2), fmt(l.work_max_ms, 1)])));
for (const mode of MODES) {
  const rs = results.runs.filter((r) => r.mode === mode);
  if (!rs.length) continue;
  const onTime = rs.map((r) => r.all.on_time_pct), p95 = rs.map((r) => r.all.work_p95_ms);
  // the worst zoom level decides "at every zoom level"
  const worstOn = rs.map((r) => Math.min(...r.levels.map((l) => l.on_time_pct)));
  const worstP95 = rs.map((r) => Math.max(...r.levels.map((l) => l.work_p95_ms)));
  const best = (v, hi) => (hi ? Math.max(...v) : Math.min(...v));
  const met = best(worstOn, true) >= 95 && best(worstP95, false) <= 8;
  console.log(`\n${mode}: frames on time ${fmt(best(onTime, true), 1)} % best / ${fmt(median(onTime), 1)} % median (worst zoom ${fmt(best(worstOn, true), 1)} %), target >= 95 % at every zoom;` +
    ` frame work p95 ${fmt(best(p95, false), 2)} ms best / ${fmt(median(p95), 2)} ms median (worst zoom ${fmt(best(worstP95, false), 2)} ms), target <= 8 ms: ${met ? 'MET' : 'NOT MET'} (${rs.length} run${rs.length > 1 ? 's' : ''})`);
}
console.log(`\n(raw results in ${path.relative(ROOT, OUT)})`);
