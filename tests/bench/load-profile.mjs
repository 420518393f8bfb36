// Where the page's main thread spends a load (issue 10, goal 5): opens a generated Kineto-like
// trace in the app with the CDP sampling profiler on, then prints, for every long task
// (> 50 ms), and every requestAnimationFrame gap over GAP_MS (default 40), the functions with the
// most samples in it (self time, and inclusive). Function names
// need a build that keeps them, e.g. the app built with `data-keep-debug data-wasm-opt="0"`
// (see bench/RESULTS.md); a stripped release build shows `wasm-function[N]`. Numbers only.
//   LOUPE_DIST=/tmp/dist-prof TRACE_MB=1000 node tests/bench/load-profile.mjs
import { appBenchInputs, fmt, openAppForLoad } from './browser.mjs';
const { DIST, TRACE } = await appBenchInputs(1000);
const TOP = +(process.env.TOP ?? 12);
const { srv, browser, page } = await openAppForLoad(DIST);
await page.evaluate(() => {
  window.__lt = []; window.__gaps = [];
  let last = performance.now();
  const tick = (t) => { if (t - last > (window.__gapMs ?? 40)) window.__gaps.push([last, t - last]); last = t; requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__lt.push([e.startTime, e.duration]); }).observe({ type: 'longtask', buffered: false });
});
const cdp = await page.context().newCDPSession(page);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: +(process.env.INTERVAL_US ?? 500) });
await cdp.send('Profiler.start');
// the profile's clock and performance.now() differ by an offset: a named busy function run at a
// known performance.now() finds it in the profile
const syncAt = await page.evaluate(() => {
  window.loupeProfileSync = function loupeProfileSync() { const t = performance.now(); while (performance.now() - t < 5); return t; };
  return window.loupeProfileSync();
});
await page.locator('[data-testid=open-file]').setInputFiles(TRACE);
await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 900000, polling: 200 });
await page.waitForTimeout(1500);
const { profile } = await cdp.send('Profiler.stop');
const GAP_MS = +(process.env.GAP_MS ?? 40);
const [lt0, gaps] = await page.evaluate(() => [window.__lt, window.__gaps]);
// long tasks, then the frame gaps no long task covers
const lt = [...lt0.map(([s, d]) => [s, d, 'long task']), ...gaps.filter(([s, d]) => d > GAP_MS && !lt0.some(([ls, ld]) => ls < s + d && s < ls + ld)).map(([s, d]) => [s, d, 'rAF gap'])];
await browser.close(); srv.close();

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const label = (n) => `${n.callFrame.functionName || '(anonymous)'}${n.callFrame.url ? ' ' + n.callFrame.url.replace(/^.*\//, '') : ''}`;
// sample timestamps (µs since the profile's start clock)
const times = [];
let t = profile.startTime;
for (const d of profile.timeDeltas) { t += d; times.push(t); }
let off = null;
profile.samples.forEach((id, i) => {
  if (off != null) return;
  for (let k = id; k != null; k = parent.get(k)) if (byId.get(k).callFrame.functionName.includes('loupeProfileSync')) { off = times[i] / 1000 - syncAt; return; }
});
if (off == null) { console.log('the sync marker is not in the profile'); process.exit(1); }
if (!lt.length) console.log('no long task and no frame gap');
const best = { off };
for (const [st, du, kind] of lt) {
  const self = new Map(); const incl = new Map(); let n = 0;
  profile.samples.forEach((id, i) => {
    const ms = times[i] / 1000 - best.off;
    if (ms < st || ms > st + du) return;
    n++;
    const node = byId.get(id);
    self.set(label(node), (self.get(label(node)) ?? 0) + 1);
    const seen = new Set();
    for (let k = id; k != null; k = parent.get(k)) { const l = label(byId.get(k)); if (!seen.has(l)) { seen.add(l); incl.set(l, (incl.get(l) ?? 0) + 1); } }
  });
  console.log(`\n${kind} at ${fmt(st, 0)} ms, ${fmt(du, 0)} ms, ${n} samples`);
  console.log('  self:'); for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`    ${v}\t${k}`);
  console.log('  inclusive:'); for (const [k, v] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, TOP * 2)) console.log(`    ${v}\t${k}`);
}
