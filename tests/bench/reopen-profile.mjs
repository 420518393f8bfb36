// Where a re-open's time goes on the page's main thread: page 1 opens the trace (cached), page 2
// re-opens it under the CDP sampling profiler; prints the samples in 20 ms bins from the input's
// change event (top self function of each bin) and the top functions overall. Needs a build with
// names (see load-profile.mjs). Numbers only.
//   LOUPE_DIST=/tmp/dist-prof node tests/bench/reopen-profile.mjs
// Env: FIRST=1 profiles the first open instead; FILES=a,b opens those files together (e.g. a
//      NEFF + NTFF pair) instead of the Kineto-like TRACE; BIN (20) ms per bin; FROM (0) ms after
//      the change event where the bins start.
import { serve } from './server.mjs';
import { appBenchInputs, changeTimeline, launch, fmt, waitWorkerWarm } from './browser.mjs';
const { DIST, TRACE } = await appBenchInputs(50);
const FIRST = process.env.FIRST === '1'; // profile the first open instead
const BIN = +(process.env.BIN ?? 20);
const FROM = +(process.env.FROM ?? 0);
const FILES = process.env.FILES ? process.env.FILES.split(',') : TRACE;
const srv = await serve({ '/': DIST });
const browser = await launch();
const ctx = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
async function open(page, profile) {
  await page.addInitScript(changeTimeline);
  await page.goto(`${srv.url}/`);
  const input = page.locator('[data-testid=open-file]');
  await input.waitFor({ state: 'attached' });
  await page.waitForFunction(() => window.__loupe && window.__loupe.frames > 0);
  await waitWorkerWarm(page);
  let cdp, syncAt;
  if (profile) {
    cdp = await page.context().newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
    syncAt = await page.evaluate(() => {
      window.loupeProfileSync = function loupeProfileSync() { const t = performance.now(); while (performance.now() - t < 5); return t; };
      return window.loupeProfileSync();
    });
  }
  await input.setInputFiles(FILES);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 300000, polling: 'raf' });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const end = await page.evaluate(() => performance.now());
  if (!profile) return;
  const { profile: p } = await cdp.send('Profiler.stop');
  const tl = await page.evaluate(() => window.__tl);
  return { p, syncAt, tl, end };
}
const p1 = await ctx.newPage();
if (!FIRST) {
  await open(p1, false);
  await p1.waitForTimeout(1500);
  await waitWorkerWarm(p1);
}
const p2 = FIRST ? p1 : await ctx.newPage();
const { p, syncAt, tl, end } = await open(p2, true);
await browser.close(); srv.close();
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const label = (n) => `${n.callFrame.functionName || '(anonymous)'}${n.callFrame.url ? ' ' + n.callFrame.url.replace(/^.*\//, '').slice(0, 20) : ''}`;
const times = []; let t = p.startTime;
for (const d of p.timeDeltas) { t += d; times.push(t); }
let off = null;
p.samples.forEach((id, i) => {
  if (off != null) return;
  for (let k = id; k != null; k = parent.get(k)) if (byId.get(k).callFrame.functionName.includes('loupeProfileSync')) { off = times[i] / 1000 - syncAt; return; }
});
console.log(`states: ${tl.ev.map(([x, w]) => `+${fmt(x - tl.t0, 0)} ${w}`).join(', ')}; end +${fmt(end - tl.t0, 0)}`);
const bins = new Map(); const total = new Map(); const incl = new Map();
const interesting = (l) => !/^\((idle|program|garbage collector)\)/.test(l);
p.samples.forEach((id, i) => {
  const ms = times[i] / 1000 - off - tl.t0;
  if (ms < Math.min(-50, FROM) || ms > end - tl.t0) return;
  const b = Math.floor(ms / BIN);
  const l = label(byId.get(id));
  if (!bins.has(b)) bins.set(b, new Map());
  bins.get(b).set(l, (bins.get(b).get(l) ?? 0) + 1);
  if (ms < 0) return;
  total.set(l, (total.get(l) ?? 0) + 1);
  const seen = new Set();
  for (let k = id; k != null; k = parent.get(k)) { const x = label(byId.get(k)); if (!seen.has(x)) { seen.add(x); incl.set(x, (incl.get(x) ?? 0) + 1); } }
});
const dt = (p.endTime - p.startTime) / 1000 / p.samples.length;
console.log(`~${fmt(dt, 2)} ms a sample`);
for (const [b, m] of [...bins].sort((a, c) => a[0] - c[0]).filter(([b]) => b * BIN >= FROM - BIN)) {
  const all = [...m].reduce((s, [, v]) => s + v, 0);
  const idle = m.get('(idle)') ?? 0;
  const top = [...m].filter(([k]) => k !== '(idle)').sort((a, c) => c[1] - a[1]).slice(0, 3).map(([k, v]) => `${k} ${v}`).join(' | ');
  console.log(`+${b * BIN}: busy ${all - idle}/${all}  ${top}`);
}
console.log('top self:'); for (const [k, v] of [...total].sort((a, c) => c[1] - a[1]).slice(0, 25)) console.log(`  ${v}\t${k}`);
console.log('top inclusive:'); for (const [k, v] of [...incl].sort((a, c) => c[1] - a[1]).filter(([k]) => interesting(k)).slice(0, 50)) console.log(`  ${v}\t${k}`);
// CALLEES=<regex>: what the matching functions spend their samples in (inclusive, one level down
// and below: the deepest frame under the match that names loupe code)
if (process.env.CALLEES) {
  const re = new RegExp(process.env.CALLEES);
  const under = new Map();
  p.samples.forEach((id, i) => {
    const ms = times[i] / 1000 - off - tl.t0;
    if (ms < FROM || ms > end - tl.t0) return;
    const chain = [];
    for (let k = id; k != null; k = parent.get(k)) chain.push(label(byId.get(k)));
    const at = chain.findIndex((l) => re.test(l));
    if (at < 0) return;
    // the frames between the match and the leaf that name this app's code
    const below = chain.slice(0, at).filter((l) => /loupe/.test(l));
    const key = below.length ? below[below.length - 1] : chain[0];
    under.set(key, (under.get(key) ?? 0) + 1);
  });
  console.log(`under /${process.env.CALLEES}/:`);
  for (const [k, v] of [...under].sort((a, c) => c[1] - a[1]).slice(0, 30)) console.log(`  ${v}\t${k}`);
}
