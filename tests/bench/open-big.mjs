// Big-file open benchmark (issue 10, goal 3): a generated Kineto-like Chrome JSON opened in the
// release app through the file input; the worker streams it (the `File`'s stream, BYOB reads) with lazy
// arguments (above 64 MB). Numbers only; not part of CI.
//   node tests/bench/open-big.mjs
// Env: TRACE (path; default target/bench/kineto-<TRACE_MB>MB.json, generated when missing),
//      TRACE_MB (1000), QUERY (extra page query, e.g. `lazyargs=0`), LOUPE_DIST (default dist/),
//      PICK_MS (wait this long after the worker is warm before picking the file).
// Timed from setInputFiles to data-loupe-state="ready" + two animation frames, with ?cache=0.
// Then one slice is clicked and the time until its (lazy) arguments show is measured.
import path from 'node:path';
import { serve } from './server.mjs';
import { appBenchInputs, launch, fmt, waitWorkerWarm } from './browser.mjs';

const { ROOT, DIST, TRACE, mb } = await appBenchInputs(1000);
const srv = await serve({ '/': DIST });
const browser = await launch();
const twoFrames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 820 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('crash', () => errors.push('the page crashed'));
  const q = process.env.QUERY ? `&${process.env.QUERY}` : '';
  await page.goto(`${srv.url}/?cache=0${q}`);
  await page.waitForFunction(() => window.__loupe && window.__loupe.frames > 0);
  if (!process.env.NOWARM) await waitWorkerWarm(page);
  // PICK_MS: pick the file this long after the worker's ready signal (the browser may still be
  // optimising the code the worker's warm-up ran)
  if (process.env.PICK_MS) await page.waitForTimeout(+process.env.PICK_MS);
  // the page's longest main-thread gap during the load (rAF gaps)
  await page.evaluate(() => {
    window.__gap = 0;
    let last = performance.now();
    const tick = (t) => { window.__gap = Math.max(window.__gap, t - last); last = t; requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  });
  const t = performance.now();
  await page.locator('[data-testid=open-file]').setInputFiles(TRACE);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 900000, polling: 'raf' });
  await page.evaluate(twoFrames);
  const ms = performance.now() - t;
  const st = await page.evaluate(() => document.body.dataset.loupeState);
  if (st !== 'ready') {
    console.log(`${fmt(mb, 0)} MB: error after ${fmt(ms / 1000, 1)} s: ${await page.locator('[data-testid=load-error]').textContent()}`);
  } else {
    const l = await page.evaluate(() => ({ ...window.__loupe, gap: window.__gap, stages: window.__loupeLoad || {} }));
    console.log(`${fmt(mb, 0)} MB opened in ${fmt(ms / 1000, 1)} s = ${fmt(mb / (ms / 1000), 0)} MB/s end to end (worker parse ${fmt(l.loadMs / 1000, 1)} s as the app counts it)`);
    console.log(`slices ${l.sliceCount}, tracks ${l.trackCount}, lazy arg sets ${l.lazyArgs}, memoryBytes ${fmt(l.memoryBytes / 1e6, 0)} MB = ${fmt(l.memoryBytes / l.sliceCount, 1)} B/slice, longest rAF gap during the load ${fmt(l.gap, 0)} ms`);
    console.log(`page-side steps (ms): ${Object.entries(l.stages).map(([k, v]) => `${k} ${fmt(v, 0)}`).join(', ')}`);
    // one event through the search (at full view every row is merged blocks): Enter selects the first hit
    const t1 = performance.now();
    await page.locator('[data-testid=search-input]').fill('nccl');
    await page.locator('[data-testid=search-input]').press('Enter');
    const args = page.locator('[data-testid=details-args], [data-testid=details-args-note]');
    await args.first().waitFor({ timeout: 60000 }).catch(() => {});
    const n = await page.locator('[data-testid=details-args] tr').count();
    console.log(`search + select a hit: ${n} argument rows shown after ${fmt(performance.now() - t1, 0)} ms`);
    await page.screenshot({ path: path.join(ROOT, 'tests/e2e/out/open-big.png') });
  }
  if (errors.length) console.log(`errors: ${errors.join(' | ')}`);
} finally {
  await browser.close();
  srv.close();
}
