// The re-open cache's read, measured alone (issue 10, goal 6): what reading a cached model out of
// IndexedDB costs in a fresh page without the rest of a load, and how much the content
// fingerprint's file reads (run at the same time in a re-open) slow it. Numbers only; not in CI.
//   node tests/bench/cache-read.mjs
// Env: TRACE_MB (50), TRACE (path; generated when missing), RUNS (8, alternating: the read alone,
//      then with the sampling), LOUPE_DIST (default dist/).
// Page 1 opens the file so that the app stores its model; page 2 (same browser context) reads the
// stored entry back the way `model_cache::read` does (open, get the Blob, `arrayBuffer()`), on
// every second run while the file is sampled as `model_cache::fingerprint` samples it (the first
// and last 64 KiB and 16 blocks of 4 KiB, all requested at once).
import { serve } from './server.mjs';
import { appBenchInputs, fmt, launch, median, waitWorkerWarm } from './browser.mjs';

const RUNS = +(process.env.RUNS ?? 8);
const { DIST, TRACE, mb } = await appBenchInputs(50);
const srv = await serve({ '/': DIST });
const browser = await launch();
const rows = { alone: [], sampled: [] };
try {
  const ctx = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
  const page = await ctx.newPage();
  await page.goto(`${srv.url}/`);
  await page.waitForFunction(() => window.__loupe && window.__loupe.frames > 0);
  await waitWorkerWarm(page);
  await page.locator('[data-testid=open-file]').setInputFiles(TRACE);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 300000 });
  // the model is stored after it is shown
  await page.waitForTimeout(3000);
  const p2 = await ctx.newPage();
  await p2.goto(`${srv.url}/`);
  await p2.waitForFunction(() => window.__loupe && window.__loupe.frames > 0);
  await waitWorkerWarm(p2);
  await p2.evaluate(() => { const i = document.createElement('input'); i.type = 'file'; i.id = 'cache-read-file'; document.body.append(i); });
  await p2.locator('#cache-read-file').setInputFiles(TRACE);
  for (let run = 0; run < RUNS; run++) {
    const sampled = run % 2 === 1;
    const r = await p2.evaluate(async (sampled) => {
      const f = document.getElementById('cache-read-file').files[0];
      const sample = () => {
        const size = f.size;
        const ranges = [[0, 65536], [size - 65536, size]];
        const step = (size - 4096) / 16;
        for (let i = 0; i < 16; i++) { const a = Math.floor(i * step); ranges.push([a, a + 4096]); }
        return Promise.all(ranges.map(([a, b]) => f.slice(a, b).arrayBuffer()));
      };
      const req = (r) => new Promise((ok, bad) => { r.onsuccess = () => ok(r.result); r.onerror = () => bad(r.error); });
      const t0 = performance.now();
      const sampling = sampled ? sample().then(() => performance.now() - t0) : null;
      const db = await req(indexedDB.open('loupe-model-cache'));
      const t1 = performance.now();
      const keys = await req(db.transaction('models').objectStore('models').getAllKeys());
      if (!keys.length) { db.close(); return null; }
      const t2 = performance.now();
      const blob = await req(db.transaction('models').objectStore('models').get(keys[0]));
      const t3 = performance.now();
      const buf = await blob.arrayBuffer();
      const t4 = performance.now();
      db.close();
      return { total: t4 - t0, open: t1 - t0, keys: t2 - t1, get: t3 - t2, read: t4 - t3, bytes: buf.byteLength, sampling: sampling && await sampling };
    }, sampled);
    if (!r) { console.log('nothing was cached (is IndexedDB available?)'); break; }
    rows[sampled ? 'sampled' : 'alone'].push(r.total);
    process.stderr.write(`run ${run + 1}/${RUNS} ${sampled ? `with sampling (${fmt(r.sampling, 1)} ms)` : 'alone'}: ${fmt(r.total, 1)} ms = open ${fmt(r.open, 1)} + keys ${fmt(r.keys, 1)} + get ${fmt(r.get, 1)} + arrayBuffer ${fmt(r.read, 1)} (${fmt(r.bytes / 1e6, 1)} MB)\n`);
  }
} finally {
  await browser.close();
  await srv.close();
}
if (rows.alone.length) {
  console.log(`cache read (${fmt(mb, 0)} MB trace's model): alone median ${fmt(median(rows.alone), 1)} ms, with the fingerprint's sampling at the same time ${fmt(median(rows.sampled), 1)} ms`);
}
