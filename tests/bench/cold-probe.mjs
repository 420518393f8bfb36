// Where a cold open's time goes: the file input handed the trace the moment it exists; the page's
// state changes, the change event and the worker's messages, each with its time since the input.
//   LOUPE_DIST=dist node tests/bench/cold-probe.mjs
import path from 'node:path';
import { serve } from './server.mjs';
import { appBenchInputs, launch, fmt } from './browser.mjs';

const { DIST, TRACE } = await appBenchInputs(50);
const srv = await serve({ '/': DIST });
const browser = await launch();
try {
  for (let run = 0; run < +(process.env.RUNS ?? 2); run++) {
    const ctx = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
    const page = await ctx.newPage();
    await page.addInitScript(() => {
      window.__probe = [];
      const mark = (what) => window.__probe.push([what, performance.now()]);
      document.addEventListener('change', () => mark('change event'), true);
      new MutationObserver(() => mark(`state ${document.body?.dataset.loupeState}`)).observe(document, { attributes: true, subtree: true, attributeFilter: ['data-loupe-state'] });
      const W = window.Worker;
      window.Worker = function (url, opts) { mark(`new Worker ${url} ${opts?.name ?? ''}`); const w = new W(url, opts); w.addEventListener('message', (e) => { const k = e.data?.kind; if (k && k !== 'progress' && k !== 'encoded') mark(`worker: ${k}`); }); return w; };
      window.Worker.prototype = W.prototype;
      let last = performance.now();
      const tick = (t) => { if (t - last > 100) mark(`rAF gap ${Math.round(t - last)} ms`); last = t; requestAnimationFrame(tick); };
      requestAnimationFrame(tick);
    });
    const t0 = performance.now();
    await page.goto(`${srv.url}/`, { waitUntil: 'commit' });
    const input = page.locator('[data-testid=open-file]');
    await input.waitFor({ state: 'attached', polling: 'raf' });
    const tIn = await page.evaluate(() => performance.now());
    await input.setInputFiles(TRACE);
    await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { polling: 'raf', timeout: 120000 });
    const probe = await page.evaluate(() => window.__probe);
    console.log(`run ${run + 1}: input attached ${fmt(performance.now() - t0, 0)} ms after goto (node clock)`);
    for (const [what, t] of probe) console.log(`  ${fmt(t - tIn, 0).padStart(6)} ms  ${what}`);
    await ctx.close();
  }
} finally {
  await browser.close();
  await srv.close();
}
