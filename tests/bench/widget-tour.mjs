// Interaction at scale (issue 42, goal 4): on the 10 M-slice demo (or FILES), opens every widget
// of the workbench one after the other, then searches, changes the colouring, sorts a table and
// clicks rows, and prints for each action the main thread's longest task (PerformanceObserver
// `longtask`, > 50 ms), the time to the first frame showing a response (the widget, a spinner, a
// count) and the time until it settled (no spinner left). Targets: no task over 50 ms, a response
// within 100 ms. Numbers only; not part of CI.
//   node tests/bench/widget-tour.mjs
// Env: SLICES (10000000; the `?demo=` size), FILES (comma-separated files opened through the file
//      input instead of the demo), LOUPE_DIST (dist/), OUT (target/bench/widget-tour.json),
//      ONLY (comma-separated widget test names to open, default all).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from './server.mjs';
import { launch, fmt, table } from './browser.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const env = (k, d) => process.env[k] ?? d;
const SLICES = +env('SLICES', 10_000_000);
const FILES = env('FILES', '') ? env('FILES', '').split(',').map((f) => path.resolve(f)) : null;
const DIST = path.resolve(env('LOUPE_DIST', path.join(ROOT, 'dist')));
const OUT = env('OUT', path.join(ROOT, 'target/bench/widget-tour.json'));
const ONLY = env('ONLY', '') ? env('ONLY', '').split(',') : null;
const SETTLE_MS = 180000;

if (!fs.existsSync(path.join(DIST, 'index.html'))) {
  console.error(`no app build in ${DIST}: run \`trunk build --release\` (or set LOUPE_DIST)`);
  process.exit(1);
}
const srv = await serve({ '/': DIST });
const browser = await launch();
const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
// long tasks for the whole session, read per action by time
await page.addInitScript(() => {
  window.__lt = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__lt.push([e.startTime, e.duration]); })
    .observe({ type: 'longtask', buffered: true });
});
const query = FILES ? '?cache=0' : `?cache=0&demo=${SLICES}`;
await page.goto(`${srv.url}/${query}`);
if (FILES) {
  await page.waitForFunction(() => window.__loupe && window.__loupe.frames > 0);
  await page.locator('[data-testid=open-file]').setInputFiles(FILES);
}
await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 900000, polling: 250 });
const info = await page.evaluate(() => ({ state: document.body.dataset.loupeState, slices: window.__loupe?.slices }));
console.log(`loaded: ${JSON.stringify(info)}`);
await page.waitForTimeout(1500);

// One action: `act` runs in the page at t0 (synchronously, as a user's click would); `first` is a
// selector whose presence is the first response, `busy` one whose absence means settled.
async function action(name, act, first, busy, arg) {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const r = await page.evaluate(async ([act, first, busy, arg, settleMs]) => {
    const q = (s) => (s ? document.querySelector(s) : null);
    const t0 = performance.now();
    new Function('arg', act)(arg);
    let firstMs = null;
    const deadline = t0 + settleMs;
    // first response: the first animation frame where `first` is in the page
    await new Promise((res) => {
      const f = () => {
        if (!first || q(first)) { firstMs = performance.now() - t0; res(); } else if (performance.now() > deadline) res(); else requestAnimationFrame(f);
      };
      requestAnimationFrame(f);
    });
    // settled: `busy` gone for two frames in a row (a deferred analysis shows its spinner first)
    let quiet = 0;
    await new Promise((res) => {
      const f = () => {
        quiet = busy && q(busy) ? 0 : quiet + 1;
        if (quiet >= 3 || performance.now() > deadline) res(); else setTimeout(() => requestAnimationFrame(f), 30);
      };
      requestAnimationFrame(f);
    });
    const settledMs = performance.now() - t0;
    const lt = window.__lt.filter(([s]) => s >= t0 - 1).map(([, d]) => d);
    return { firstMs, settledMs, longest: lt.length ? Math.max(...lt) : 0, count: lt.length, timedOut: performance.now() > deadline };
  }, [act, first, busy, arg ?? null, SETTLE_MS]);
  const row = { name, ...r };
  rows.push(row);
  console.log(`${name}: first ${fmt(r.firstMs, 0)} ms, settled ${fmt(r.settledMs, 0)} ms, longest task ${fmt(r.longest, 0)} ms (${r.count} over 50 ms)${r.timedOut ? ' TIMED OUT' : ''}`);
  return row;
}
const rows = [];
const PENDING = '.analysis-pending, .spinner';

// 1. every widget the menu offers, in its order
const widgets = await page.evaluate(() => {
  document.querySelector('[data-testid=add-widget-menu]').open = true;
  return [...document.querySelectorAll('[data-testid=add-widget-menu] button[data-widget]')].map((b) => b.dataset.widget);
});
for (const w of widgets.filter((w) => !ONLY || ONLY.includes(w))) {
  await action(`open ${w}`, `document.querySelector('[data-testid=add-widget-menu]').open = true;
    document.querySelector('[data-testid=add-widget-menu] button[data-widget="' + arg + '"]').click();`,
  `[data-testid="widget-${w}"]`, `[data-testid="widget-${w}"] :is(${PENDING})`, w);
}
// 2. the widgets open from the start: switch to each tab not yet measured
const tabs = await page.evaluate(() => [...document.querySelectorAll('.wb-tab[data-widget]')].map((t) => t.dataset.widget));
for (const w of tabs.filter((w) => !widgets.includes(w) && (!ONLY || ONLY.includes(w)))) {
  await action(`show ${w}`, `document.querySelector('.wb-tab[data-widget="' + arg + '"]').click();`,
    `[data-testid="widget-${w}"]`, `[data-testid="widget-${w}"] :is(${PENDING})`, w);
}
const tab = (w) => `document.querySelector('.wb-tab[data-widget="${w}"]')?.click();`;
// 3. search a frequent name (the demo's kernels and ops), typed as one input event
await action('search "mm"', `${tab('search')}
  const i = document.querySelector('[data-testid=search-input]');
  i.value = arg; i.dispatchEvent(new Event('input', { bubbles: true }));
  i.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));`,
'[data-testid=search-count]', '[data-testid=search-count][data-done=false]', 'mm');
// 4. every colouring
const colourings = await page.evaluate(() => [...document.querySelectorAll('[data-testid=colour-by] option')].map((o) => o.value));
for (const c of colourings) {
  await action(`colour by ${c}`, `const s = document.querySelector('[data-testid=colour-by]');
    s.value = arg; s.dispatchEvent(new Event('change', { bubbles: true }));`,
  `[data-testid=colour-legend][data-colour-by="${c}"]`, null, c);
}
// 5. sort the operator table by each sortable column, then click its first rows (highlights)
await page.evaluate((t) => new Function(t)(), tab('operator-table'));
await page.waitForSelector('[data-testid=optable-row]', { timeout: SETTLE_MS });
const headers = await page.evaluate(() => document.querySelectorAll('[data-testid=optable-sort]').length);
for (let i = 0; i < headers; i++) {
  await action(`operator table: sort column ${i}`, `${tab('operator-table')}
    document.querySelectorAll('[data-testid=optable-sort]')[arg].click();`, null, null, i);
}
for (let i = 0; i < 3; i++) {
  await action(`operator table: click row ${i}`, `${tab('operator-table')}
    document.querySelectorAll('[data-testid=optable-row]')[arg]?.click();`, null, null, i);
}

const worst = rows.reduce((a, b) => (b.longest > a.longest ? b : a), rows[0]);
table(['action', 'first (ms)', 'settled (ms)', 'longest task (ms)', 'tasks > 50 ms'],
  rows.map((r) => [r.name, fmt(r.firstMs, 0), fmt(r.settledMs, 0), fmt(r.longest, 0), r.count]));
console.log(`longest main-thread task: ${fmt(worst.longest, 0)} ms (${worst.name}); target <= 50 ms; ` +
  `first response over 100 ms: ${rows.filter((r) => r.firstMs > 100).map((r) => r.name).join(', ') || 'none'}`);
fs.mkdirSync(path.dirname(OUT), { recursive: true });
fs.writeFileSync(OUT, JSON.stringify({ date: new Date().toISOString(), chromium: browser.version(), input: FILES ?? `demo ${SLICES}`, info, rows }, null, 1));
await browser.close(); srv.close();
