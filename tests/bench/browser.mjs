// Headless Debian Chromium through playwright-core (no browser download), as in the e2e tests.
import { chromium } from 'playwright-core';

export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-quic', '--no-first-run',
];

export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    // EXTRA_CHROMIUM_ARGS: e.g. "--js-flags=--no-wasm-dynamic-tiering" (diagnostics only)
    args: [...CHROMIUM_ARGS, ...(process.env.EXTRA_CHROMIUM_ARGS || '').split(' ').filter(Boolean)],
  });
}

// the middle value, or the mean of the two middle values for an even count (nearest-rank would take
// the lower one: with 2 runs, the faster; that flattered ratios such as speedscope / Loupe)
export function median(v) {
  const s = [...v].sort((a, b) => a - b);
  const n = s.length;
  if (!n) return NaN;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}
// nearest-rank percentile
export function pct(v, p) {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.min(s.length, Math.max(1, Math.ceil((p / 100) * s.length))) - 1];
}
export const fmt = (x, d = 1) => (x == null || Number.isNaN(x) ? '-' : Number(x).toFixed(d));

/** Print rows (arrays) as an aligned text table; `left`: indexes of left-aligned columns. */
export function table(header, rows, left = [0]) {
  const all = [header, ...rows].map((r) => r.map(String));
  const w = header.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => (left.includes(i) ? c.padEnd(w[i]) : c.padStart(w[i]))).join('  ').trimEnd();
  console.log(line(all[0]));
  console.log(w.map((n) => '-'.repeat(n)).join('  '));
  for (const r of all.slice(1)) console.log(line(r));
}

/** The app build and a generated Kineto-like trace for app benchmarks (env LOUPE_DIST, TRACE,
 *  TRACE_MB): { ROOT, DIST, TRACE, mb }. Exits when the build is missing; generates the trace with
 *  the core's `gen_chrome` example when absent. */
export async function appBenchInputs(defaultMb) {
  const { default: fs } = await import('node:fs');
  const { default: path } = await import('node:path');
  const { execFileSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const TRACE_MB = +(process.env.TRACE_MB ?? defaultMb);
  const TRACE = path.resolve(process.env.TRACE ?? path.join(ROOT, `target/bench/kineto-${TRACE_MB}MB.json`));
  const DIST = process.env.LOUPE_DIST ? path.resolve(process.env.LOUPE_DIST) : path.join(ROOT, 'dist');
  if (!fs.existsSync(path.join(DIST, 'index.html'))) {
    console.error(`${DIST}/index.html missing: trunk build --release`);
    process.exit(1);
  }
  if (!fs.existsSync(TRACE)) {
    fs.mkdirSync(path.dirname(TRACE), { recursive: true });
    process.stderr.write(`generating ${TRACE} (${TRACE_MB} MB)...\n`);
    execFileSync('cargo', ['run', '--quiet', '--release', '-p', 'loupe-core', '--example', 'gen_chrome', '--', `${TRACE_MB}MB`, TRACE], { cwd: ROOT, stdio: 'inherit' });
  }
  return { ROOT, DIST, TRACE, mb: fs.statSync(TRACE).size / 1e6 };
}

// A user picks a file seconds after the page opened; by then the app has started its parser
// worker ahead (`window.__loupeWorkerWarm`). Benchmarks timed from the file input wait for it too
// (at most 15 s; builds without the prewarm just go on). Returns whether it was warm.
export async function waitWorkerWarm(page) {
  return page.waitForFunction(() => window.__loupeWorkerWarm === true, null, { timeout: 15000 }).then(() => true, () => false);
}

// The release app served locally with a 1400x820 page, opened with `?cache=0` (plus QUERY), its
// first frame painted and its parser worker warm: the start of the load benchmarks.
export async function openAppForLoad(dist) {
  const { serve } = await import('./server.mjs');
  const srv = await serve({ '/': dist });
  const browser = await launch();
  const page = await (await browser.newContext({ viewport: { width: 1400, height: 820 } })).newPage();
  await page.goto(`${srv.url}/?cache=0${process.env.QUERY ? '&' + process.env.QUERY : ''}`);
  await page.waitForFunction(() => window.__loupe && window.__loupe.frames > 0);
  await waitWorkerWarm(page);
  return { srv, browser, page };
}

/** An init script (`page.addInitScript(changeTimeline)`): `window.__tl` = { t0: the file input's
 *  change event (performance.now()), ev: [[time, what]] — the change, every data-loupe-state,
 *  long tasks, and requestAnimationFrame gaps over 20 ms after the change }. */
export const changeTimeline = () => {
  const T = (window.__tl = { ev: [], t0: null });
  const mark = (what) => T.ev.push([performance.now(), what]);
  document.addEventListener('change', () => { T.t0 = performance.now(); mark('change'); }, true);
  new MutationObserver(() => mark(`state=${document.body.dataset.loupeState}`))
    .observe(document, { subtree: true, attributes: true, attributeFilter: ['data-loupe-state'] });
  new PerformanceObserver((l) => { for (const e of l.getEntries()) T.ev.push([e.startTime, `long task ${e.duration.toFixed(0)} ms`]); }).observe({ type: 'longtask' });
  let last = performance.now();
  const tick = (t) => { if (T.t0 != null && t - last > 20) T.ev.push([last, `rAF gap ${(t - last).toFixed(0)} ms`]); last = t; requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
};
