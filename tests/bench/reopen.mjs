// Re-open benchmark (issue 10, goal 6): the same Kineto-like trace opened in the app twice in
// one browser profile; the second open comes from the model cache (IndexedDB). Numbers only.
//   node tests/bench/reopen.mjs
// Env: RUNS (3), TRACE_MB (50), TRACE (path; generated with the core's generator if missing),
//      LOUPE_DIST (default dist/; build it with `trunk build --release`).
// Each run: a fresh browser context; page 1 opens the file (parse), waits until the model is in
// the cache and its next parser worker is warm (idle); page 2 (same context) opens it again. Both
// timed from setInputFiles to data-loupe-state="ready" + two animation frames, in node (the
// ratio), and in the page from the input's change event (without the harness's ≈ 50–100 ms of
// setInputFiles round trip and polling).
import path from 'node:path';
import { serve } from './server.mjs';
import { appBenchInputs, changeTimeline, launch, fmt, waitWorkerWarm, median } from './browser.mjs';

const RUNS = +(process.env.RUNS ?? 3);
const { DIST, TRACE, mb } = await appBenchInputs(50);
const srv = await serve({ '/': DIST });
const browser = await launch();
const twoFrames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));

// TIMELINE=1: the re-open's page-side timeline (input change, loader states, long tasks, frame
// gaps over 20 ms), in ms from the input's change event
const TIMELINE = process.env.TIMELINE === '1';
async function openOnce(page) {
  await page.addInitScript(changeTimeline);
  await page.goto(`${srv.url}/`);
  const input = page.locator('[data-testid=open-file]');
  await input.waitFor({ state: 'attached' });
  await page.waitForFunction(() => window.__loupe && window.__loupe.frames > 0);
  await waitWorkerWarm(page);
  const t = performance.now();
  await input.setInputFiles(TRACE);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 300000, polling: 'raf' });
  // in the page: from the input's change event (the user's pick), without the harness's
  // setInputFiles round trip and polling
  const inPage = await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(performance.now() - window.__tl.t0)))));
  const ms = performance.now() - t;
  const l = await page.evaluate(() => ({ ...window.__loupe, stages: window.__loupeLoad || {} }));
  if (TIMELINE) {
    const tl = await page.evaluate(() => window.__tl);
    process.stderr.write(`  timeline: ${tl.ev.filter(([t]) => t >= tl.t0 - 1).sort((a, b) => a[0] - b[0]).map(([t, w]) => `+${fmt(t - tl.t0, 0)} ${w}`).join(', ')}\n`);
  }
  return { ms, inPage, fromCache: l.fromCache, slices: l.sliceCount, stages: l.stages };
}

const cacheEntries = (page) => page.evaluate(() => new Promise((ok) => {
  const r = indexedDB.open('loupe-model-cache');
  // not there yet: do not create it (an empty database the app would have to repair)
  r.onupgradeneeded = () => r.transaction.abort();
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
    rows.push({ first: first.ms, again: again.ms, firstPage: first.inPage, againPage: again.inPage, cached: again.fromCache, slices: again.slices, storeMs });
    process.stderr.write(`run ${run + 1}/${RUNS}: open ${fmt(first.ms, 0)} ms, re-open ${fmt(again.ms, 0)} ms (in the page, from the change event: ${fmt(first.inPage, 0)} / ${fmt(again.inPage, 0)} ms; from cache: ${again.fromCache}), stored after +${fmt(storeMs, 0)} ms\n`);
    process.stderr.write(`  first-open steps (ms): ${Object.entries(first.stages).map(([k, v]) => `${k} ${fmt(v, 0)}`).join(', ')}\n`);
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
const fp = median(rows.map((r) => r.firstPage));
const ap = median(rows.map((r) => r.againPage));
console.log(`re-open (${path.basename(TRACE)}, ${fmt(mb, 1)} MB, ${rows[0]?.slices} slices, ${RUNS} runs): first open median ${fmt(f, 0)} ms (${fmt(mb / (f / 1e3), 0)} MB/s), re-open median ${fmt(a, 0)} ms → ${fmt(f / a, 1)}× (target ≥ 5×: ${ok && f / a >= 5 ? 'met' : 'NOT met'})${ok ? '' : ' — a re-open did not come from the cache'}; in the page from the change event: ${fmt(fp, 0)} → ${fmt(ap, 0)} ms = ${fmt(fp / ap, 1)}×`);
