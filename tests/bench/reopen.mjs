// Re-open benchmark (issue 10, goal 6): the same Kineto-like trace opened in the app twice in
// one browser profile; the second open comes from the model cache (IndexedDB). Numbers only.
//   node tests/bench/reopen.mjs
// Env: RUNS (3), TRACE_MB (50), TRACE (path; generated with the core's generator if missing),
//      LOUPE_DIST (default dist/; build it with `trunk build --release`).
// Each run: a fresh browser context; page 1 opens the file (parse), waits until the model is in
// the cache and its next parser worker is warm (idle); page 2 (same context) opens it again. Both timed from setInputFiles to
// data-loupe-state="ready" + two animation frames.
import path from 'node:path';
import { serve } from './server.mjs';
import { appBenchInputs, launch, fmt, waitWorkerWarm, median } from './browser.mjs';

const RUNS = +(process.env.RUNS ?? 3);
const { DIST, TRACE, mb } = await appBenchInputs(50);
const srv = await serve({ '/': DIST });
const browser = await launch();
const twoFrames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));

async function openOnce(page) {
  await page.goto(`${srv.url}/`);
  const input = page.locator('[data-testid=open-file]');
  await input.waitFor({ state: 'attached' });
  await page.waitForFunction(() => window.__loupe && window.__loupe.frames > 0);
  await waitWorkerWarm(page);
  const t = performance.now();
  await input.setInputFiles(TRACE);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 300000, polling: 'raf' });
  await page.evaluate(twoFrames);
  const ms = performance.now() - t;
  const l = await page.evaluate(() => ({ ...window.__loupe, stages: window.__loupeLoad || {} }));
  return { ms, fromCache: l.fromCache, slices: l.sliceCount, stages: l.stages };
}

const cacheEntries = (page) => page.evaluate(() => new Promise((ok) => {
  const r = indexedDB.open('loupe-model-cache');
  r.onsuccess = () => {
    const db = r.result;
    if (!db.objectStoreNames.contains('meta')) { db.close(); ok(0); return; }
    const c = db.transaction('meta').objectStore('meta').count();
    c.onsuccess = () => { db.close(); ok(c.result); };
    c.onerror = () => { db.close(); ok(0); };
  };
  r.onerror = () => ok(0);
}));

const rows = [];
try {
  for (let run = 0; run < RUNS; run++) {
    const ctx = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
    const p1 = await ctx.newPage();
    const first = await openOnce(p1);
    const t = performance.now();
    while ((await cacheEntries(p1)) < 1 && performance.now() - t < 60000) await p1.waitForTimeout(100);
    const storeMs = performance.now() - t;
    // the first page stays open (CLOSE_FIRST=1 closes it), idle: its next parser worker, started
    // 1.5 s after its load, has warmed up (else that warm-up competes with the re-open for the CPU)
    if (process.env.CLOSE_FIRST === '1') await p1.close();
    else await waitWorkerWarm(p1);
    const p2 = await ctx.newPage();
    const again = await openOnce(p2);
    rows.push({ first: first.ms, again: again.ms, cached: again.fromCache, slices: again.slices, storeMs });
    process.stderr.write(`run ${run + 1}/${RUNS}: open ${fmt(first.ms, 0)} ms, re-open ${fmt(again.ms, 0)} ms (from cache: ${again.fromCache}), stored after +${fmt(storeMs, 0)} ms\n`);
    process.stderr.write(`  re-open steps (ms): ${Object.entries(again.stages).map(([k, v]) => `${k} ${fmt(v, 0)}`).join(', ')}\n`);
    await ctx.close();
  }
} finally {
  await browser.close();
  await srv.close();
}
const f = median(rows.map((r) => r.first));
const a = median(rows.map((r) => r.again));
const ok = rows.every((r) => r.cached);
console.log(`re-open (${path.basename(TRACE)}, ${fmt(mb, 1)} MB, ${rows[0]?.slices} slices, ${RUNS} runs): first open median ${fmt(f, 0)} ms (${fmt(mb / (f / 1e3), 0)} MB/s), re-open median ${fmt(a, 0)} ms → ${fmt(f / a, 1)}× (target ≥ 5×: ${ok && f / a >= 5 ? 'met' : 'NOT met'})${ok ? '' : ' — a re-open did not come from the cache'}`);
