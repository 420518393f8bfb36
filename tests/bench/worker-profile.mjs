// Where the parser worker's time goes during one load: the CDP sampling profiler attached to the
// page's dedicated workers (the one started ahead does the load), from the file input to ready.
// Prints the top self and inclusive functions of the busiest worker. Needs a build with names
// (see load-profile.mjs); QUERY=threads=0 profiles the classic worker. Numbers only.
//   LOUPE_DIST=/tmp/dist-prof QUERY=threads=0 node tests/bench/worker-profile.mjs
// Env: SETTLE_MS (300: the wait between the worker's attach and the file input; 1000 or more
//      profiles a worker whose warm-up code the browser has finished optimising),
//      TRACE / TRACE_MB (50) / FILES=a,b (several files), TOP (30), CALLEES=regex (what the
//      matching functions spend their samples in).
import { appBenchInputs, openAppForLoad, fmt } from './browser.mjs';
const { DIST, TRACE } = await appBenchInputs(50);
const FILES = process.env.FILES ? process.env.FILES.split(',') : TRACE;
const TOP = +(process.env.TOP ?? 30);
const { srv, browser, page } = await openAppForLoad(DIST);
// keep a finished worker alive a little longer, so that its profile can still be taken
await page.evaluate(() => { const t = Worker.prototype.terminate; Worker.prototype.terminate = function () { setTimeout(() => t.call(this), 3000); }; });
const cdp = await page.context().newCDPSession(page);
// non-flat sessions: the worker's messages travel inside Target.* messages of this session
const workers = new Map(); // sessionId -> { pending: Map(id -> resolve) }
let nextId = 1;
cdp.on('Target.attachedToTarget', (e) => {
  if (e.targetInfo.type === 'worker') workers.set(e.sessionId, { pending: new Map(), url: e.targetInfo.url });
});
cdp.on('Target.receivedMessageFromTarget', (e) => {
  const w = workers.get(e.sessionId);
  const m = JSON.parse(e.message);
  if (w && m.id && w.pending.has(m.id)) { w.pending.get(m.id)(m); w.pending.delete(m.id); }
});
const send = (sessionId, method, params = {}) => new Promise((resolve) => {
  const id = nextId++;
  workers.get(sessionId).pending.set(id, resolve);
  cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) }).catch(() => resolve(null));
});
await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
await page.waitForTimeout(+(process.env.SETTLE_MS ?? 300));
if (!workers.size) throw new Error('no worker target attached');
if (process.env.DEBUG) console.error('workers', [...workers.values()].map((w) => w.url));
for (const s of workers.keys()) {
  for (const [m, a] of [['Profiler.enable'], ['Profiler.setSamplingInterval', { interval: 200 }], ['Profiler.start']]) {
    const r = await send(s, m, a);
    if (process.env.DEBUG) console.error(m, JSON.stringify(r));
  }
}
const t = performance.now();
await page.locator('[data-testid=open-file]').setInputFiles(FILES);
await page.waitForFunction(() => window.__loupeLoad?.workerParseMs != null || document.body.dataset.loupeState === 'error', null, { timeout: 300000, polling: 2 });
const profiles = [];
await Promise.all([...workers.keys()].map(async (s) => {
  const r = await Promise.race([send(s, 'Profiler.stop'), new Promise((ok) => setTimeout(() => ok(null), 5000))]).catch(() => null);
  if (process.env.DEBUG) console.error(s, workers.get(s).url, JSON.stringify(r)?.slice(0, 200));
  if (r?.result?.profile) profiles.push(r.result.profile);
}));
await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 300000, polling: 'raf' });
const ms = performance.now() - t;
const stages = await page.evaluate(() => window.__loupeLoad || {});
await browser.close(); await srv.close();
console.log(`load ${fmt(ms, 0)} ms; ${Object.entries(stages).map(([k, v]) => `${k} ${fmt(v, 0)}`).join(', ')}`);
const busy = (p) => { const idle = p.nodes.filter((n) => /^\((idle|program)\)$/.test(n.callFrame.functionName)).map((n) => n.id); return p.samples.filter((s) => !idle.includes(s)).length; };
profiles.sort((a, b) => busy(b) - busy(a));
const p = profiles[0];
if (!p) throw new Error('no worker profile');
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const label = (n) => n.callFrame.functionName || '(anonymous)';
const dt = (p.endTime - p.startTime) / 1000 / p.samples.length;
const self = new Map(); const incl = new Map();
for (const id of p.samples) {
  const l = label(byId.get(id));
  self.set(l, (self.get(l) ?? 0) + 1);
  const seen = new Set();
  for (let k = id; k != null; k = parent.get(k)) { const x = label(byId.get(k)); if (!seen.has(x)) { seen.add(x); incl.set(x, (incl.get(x) ?? 0) + 1); } }
}
const ms1 = (n) => `${fmt(n * dt, 1)} ms`;
console.log(`busiest worker: ${p.samples.length} samples (~${fmt(dt, 2)} ms each), busy ${ms1(busy(p))}`);
console.log('top self:'); for (const [k, v] of [...self].sort((a, c) => c[1] - a[1]).slice(0, TOP)) console.log(`  ${ms1(v)}\t${k}`);
console.log('top inclusive:'); for (const [k, v] of [...incl].sort((a, c) => c[1] - a[1]).filter(([k]) => !/^\((idle|program|root)\)/.test(k)).slice(0, TOP)) console.log(`  ${ms1(v)}\t${k}`);
// Samples counted by `key(chain)` (the stack, leaf first; null: not counted), the top TOP printed.
function tally(title, key) {
  const by = new Map();
  for (const id of p.samples) {
    const chain = [];
    for (let k = id; k != null; k = parent.get(k)) chain.push(label(byId.get(k)));
    const k = key(chain);
    if (k != null) by.set(k, (by.get(k) ?? 0) + 1);
  }
  console.log(title);
  for (const [k, v] of [...by].sort((a, c) => c[1] - a[1]).slice(0, TOP)) console.log(`  ${ms1(v)}\t${k}`);
}
// CALLEES=<regex>: what the matching functions call (the frame just below the innermost match)
if (process.env.CALLEES) {
  const re = new RegExp(process.env.CALLEES);
  tally(`under /${process.env.CALLEES}/ (direct callees):`, (c) => { const at = c.findIndex((l) => re.test(l)); return at < 0 ? null : c[Math.max(at - 1, 0)]; });
}
// CALLERS=<regex>: who calls the matching functions (the frame just above the outermost match)
if (process.env.CALLERS) {
  const re = new RegExp(process.env.CALLERS);
  tally(`callers of /${process.env.CALLERS}/:`, (c) => { const at = c.findLastIndex((l) => re.test(l)); return at < 0 ? null : c[at + 1] ?? '(top)'; });
}
