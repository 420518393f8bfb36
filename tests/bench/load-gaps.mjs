// Main-thread stalls during a load (issue 10, goal 5): opens a generated Kineto-like trace in the
// release app and prints every long task (> 50 ms, PerformanceObserver 'longtask') and every
// requestAnimationFrame gap over 40 ms with what the progress bar said, then the page-side steps
// the loader recorded (window.__loupeLoad). Numbers only; not part of CI.
//   TRACE_MB=1000 node tests/bench/load-gaps.mjs      (LOUPE_DIST, TRACE as in open-big.mjs)
import { appBenchInputs, fmt, openAppForLoad } from './browser.mjs';
const { DIST, TRACE } = await appBenchInputs(1000);
const { srv, browser, page } = await openAppForLoad(DIST);
await page.evaluate(() => {
  window.__lt = []; window.__marks = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__lt.push([e.startTime, e.duration]); }).observe({ type: 'longtask', buffered: false });
  let last = performance.now();
  const tick = (t) => { if (t - last > 40) window.__marks.push([last, t - last, document.querySelector('[data-testid=progress]')?.innerText?.slice(0, 60) ?? document.body.dataset.loupeState]); last = t; requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  window.__t0 = performance.now();
});
await page.locator('[data-testid=open-file]').setInputFiles(TRACE);
await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 900000, polling: 200 });
await page.waitForTimeout(1000);
const r = await page.evaluate(() => ({ lt: window.__lt, marks: window.__marks, t0: window.__t0, st: window.__loupeLoad }));
for (const [s, d] of r.lt) console.log(`longtask at +${fmt(s - r.t0, 0)} ms: ${fmt(d, 0)} ms`);
for (const [s, d, what] of r.marks) console.log(`rAF gap at +${fmt(s - r.t0, 0)}: ${fmt(d, 0)} ms (${what})`);
console.log(JSON.stringify(r.st));
await browser.close(); srv.close();
