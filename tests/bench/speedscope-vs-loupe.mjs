// Time-to-first-render of the same 50 MB Kineto-like trace in speedscope (npm package, its built
// page served locally) and in Loupe, in the same headless Chromium, same run. Numbers only.
//   node tests/bench/speedscope-vs-loupe.mjs
// Env: RUNS (3), TRACE_MB (50), TRACE (path; generated with the core's generator if missing),
//      LOUPE_DIST (the app build to open; default dist/ when it exists), OUT (JSON file).
//
// Each run opens a fresh browser context and measures, in node, from page.goto() to:
//  * speedscope: `#profileURL=<same-origin url>` loads the profile; done when the title is
//    "<name> - speedscope", the "Time Order" toolbar tab exists (only rendered once a profile is
//    active) and two animation frames have passed (the flame chart draws in requestAnimationFrame).
//  * loupe-app-cold (when a build exists; issue 42 goal 1): setInputFiles on
//    [data-testid=open-file] the moment that input exists (the page's wasm may still be starting,
//    its parser worker not yet started or warm); done when <body data-loupe-state="ready"> and
//    two animation frames have passed. Goal 1's ratio uses file input -> ready.
//  * loupe-app-2s: the same, with the file input 2 s after the page's first frame, as a user's
//    pick comes (a file dialog or a drag takes that long).
//  * loupe-wasm: bench/wasm page, `?open=<url>`: wasm init, fetch, import_bytes, one full-zoom LOD
//    frame painted on a 1920x1080 canvas, two animation frames; done at data-loupe-state="ready".
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { serve } from './server.mjs';
import { launch, fmt, median, table, waitWorkerWarm } from './browser.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RUNS = +(process.env.RUNS ?? 3);
const TRACE_MB = +(process.env.TRACE_MB ?? 50);
const TRACE = path.resolve(process.env.TRACE ?? path.join(ROOT, `target/bench/kineto-${TRACE_MB}MB.json`));
const OUT = process.env.OUT ?? path.join(ROOT, 'target/bench/speedscope-vs-loupe.json');
const DIST = process.env.LOUPE_DIST ? path.resolve(process.env.LOUPE_DIST) : path.join(ROOT, 'dist');
const HAVE_APP = fs.existsSync(path.join(DIST, 'index.html'));
const HAVE_WASM = fs.existsSync(path.join(ROOT, 'bench/wasm/pkg/loupe_bench_wasm.js'));
const SPEEDSCOPE = path.join(ROOT, 'node_modules/speedscope/dist/release');
const SHOTS = path.join(ROOT, 'target/bench');

if (!fs.existsSync(path.join(SPEEDSCOPE, 'index.html'))) {
  console.error('node_modules/speedscope missing: npm ci');
  process.exit(1);
}
if (!fs.existsSync(TRACE)) {
  fs.mkdirSync(path.dirname(TRACE), { recursive: true });
  process.stderr.write(`generating ${TRACE} (${TRACE_MB} MB)...\n`);
  execFileSync('cargo', ['run', '--quiet', '--release', '-p', 'loupe-core', '--example', 'gen_chrome', '--', `${TRACE_MB}MB`, TRACE], { cwd: ROOT, stdio: 'inherit' });
}
const size = fs.statSync(TRACE).size;
const name = path.basename(TRACE);
fs.mkdirSync(SHOTS, { recursive: true });

const mounts = { '/speedscope/': SPEEDSCOPE, '/data/': path.dirname(TRACE), '/bench/': path.join(ROOT, 'bench/wasm') };
if (HAVE_APP) mounts['/'] = DIST; // trunk builds reference their assets from "/"
const srv = await serve(mounts);
const browser = await launch();
const twoFrames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
const LIMIT = 180_000;
const PICK_MS = +(process.env.PICK_MS ?? 2000);

async function measure(kind, run) {
  const ctx = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', (d) => { errors.push(`dialog: ${d.message()}`); d.dismiss(); });
  const timers = []; // speedscope's console.time() phases, e.g. "import: 1234 ms"
  page.on('console', (m) => { if (/^[\w ]+: [\d.]+ ?m?s$/.test(m.text())) timers.push(m.text()); });
  let extra = {};
  const t0 = performance.now();
  try {
    if (kind === 'speedscope') {
      await page.goto(`${srv.url}/speedscope/index.html#profileURL=${encodeURIComponent(`${srv.url}/data/${name}`)}`);
      await page.waitForFunction(() => document.title.endsWith(' - speedscope') && document.body.innerText.includes('Time Order'), null, { timeout: LIMIT, polling: 'raf' });
      await page.evaluate(twoFrames);
    } else if (kind === 'loupe-app-cold' || kind === 'loupe-app-2s') {
      await page.goto(`${srv.url}/`, { waitUntil: 'commit' });
      const input = page.locator('[data-testid=open-file]');
      await input.waitFor({ state: 'attached', timeout: LIMIT, polling: 'raf' });
      const attached = performance.now();
      if (kind === 'loupe-app-2s') {
        await page.waitForFunction(() => window.__loupe && window.__loupe.frames > 0, null, { timeout: LIMIT });
        await page.waitForTimeout(PICK_MS);
      }
      const tl = performance.now();
      await input.setInputFiles(TRACE);
      await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: LIMIT, polling: 'raf' });
      await page.evaluate(twoFrames);
      const open = performance.now() - tl;
      const l = await page.evaluate(() => ({ stages: window.__loupeLoad || {}, warm: window.__loupeLoad?.workerWarm }));
      extra = { input_ms: attached - t0, open_to_ready_ms: open, worker_warm: l.warm, worker_parse_ms: l.stages.workerParseMs, stages: l.stages, state: await page.evaluate(() => document.body.dataset.loupeState) };
      extra.total_ms = open;
    } else {
      await page.goto(`${srv.url}/bench/index.html?open=${encodeURIComponent(`/data/${name}`)}`);
      await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: LIMIT, polling: 'raf' });
      extra = await page.evaluate(() => window.openResult);
    }
    const ms = extra.total_ms ?? performance.now() - t0;
    if (run === 0) await page.screenshot({ path: path.join(SHOTS, `${kind}.png`) });
    return { kind, run, ms, errors, timers, ...extra };
  } catch (e) {
    return { kind, run, ms: NaN, errors: [...errors, String(e.message || e)] };
  } finally {
    await ctx.close();
  }
}

const kinds = ['speedscope', ...(HAVE_APP ? ['loupe-app-cold', 'loupe-app-2s'] : []), ...(HAVE_WASM ? ['loupe-wasm'] : [])];
const runs = [];
try {
  for (let r = 0; r < RUNS; r++) {
    for (const k of kinds) {
      process.stderr.write(`run ${r + 1}/${RUNS}: ${k}... `);
      const m = await measure(k, r);
      process.stderr.write(`${fmt(m.ms, 0)} ms${m.errors.length ? ` (errors: ${m.errors.join('; ')})` : ''}\n`);
      runs.push(m);
    }
  }
} finally {
  await browser.close();
  await srv.close();
}

const mb = size / 1e6;
const summary = {};
for (const k of kinds) {
  const v = runs.filter((m) => m.kind === k && Number.isFinite(m.ms)).map((m) => m.ms);
  summary[k] = { runs: v, min_ms: Math.min(...v), median_ms: median(v), mbps_median: mb / (median(v) / 1e3) };
}
const loupeKind = HAVE_APP ? 'loupe-app-cold' : 'loupe-wasm';
const ratio = summary.speedscope.median_ms / summary[loupeKind]?.median_ms;
const ratioMin = summary.speedscope.min_ms / summary[loupeKind]?.min_ms;
fs.writeFileSync(OUT, JSON.stringify({ file: TRACE, bytes: size, chromium: browser.version(), app_dist: HAVE_APP ? DIST : null, runs, summary, ratio_median: ratio, ratio_min: ratioMin }, null, 2));

console.log(`\nspeedscope vs Loupe: ${name}, ${fmt(mb)} MB, page.goto -> first render, ${RUNS} runs each, same browser\n`);
table(['viewer', 'min ms', 'median ms', 'MB/s (median)', 'runs ms'],
  kinds.map((k) => [k, fmt(summary[k].min_ms, 0), fmt(summary[k].median_ms, 0), fmt(summary[k].mbps_median, 1), summary[k].runs.map((x) => fmt(x, 0)).join(' ')]));
if (HAVE_APP) {
  for (const [kind, when, goal] of [['loupe-app-cold', 'the moment it exists', 10], ['loupe-app-2s', `${PICK_MS} ms after the first frame`, 20]]) {
    const a = runs.filter((m) => m.kind === kind && m.open_to_ready_ms);
    const open = median(a.map((m) => m.open_to_ready_ms));
    console.log(`\n${kind} (median): file input exists ${fmt(median(a.map((m) => m.input_ms)), 0)} ms after goto, open -> ready ${fmt(open, 0)} ms (${a.map((m) => fmt(m.open_to_ready_ms, 0)).join(' ')}; worker parse ${a.map((m) => fmt(m.worker_parse_ms, 0)).join(' ')}; worker started ahead and used: ${a.map((m) => m.worker_warm ?? '-').join(' ')}; app build: ${path.relative(ROOT, DIST) || DIST})`);
    const steps = (m) => Object.entries(m.stages ?? {}).filter(([k, v]) => /Ms$/.test(k) && v >= 5).map(([k, v]) => `${k.replace(/Ms$/, '')} ${fmt(v, 0)}`).join(', ');
    for (const m of a) console.log(`  run ${m.run + 1}: ${fmt(m.open_to_ready_ms, 0)} ms; load steps (ms): ${steps(m)}`);
    const r = summary.speedscope.median_ms / open;
    console.log(`issue 42 goal 1 (file input ${when} -> first complete timeline paint): speedscope ${fmt(summary.speedscope.median_ms, 0)} ms (goto -> rendered) / Loupe ${fmt(open, 0)} ms = ${fmt(r, 1)}x (median; goal >= ${goal}x: ${r >= goal ? 'met' : 'not met'})`);
  }
} else {
  console.log('\n(no app build at dist/: Loupe measured with the bench wasm page = fetch + import_bytes + one painted LOD frame)');
}
if (HAVE_WASM) {
  const w = runs.filter((m) => m.kind === 'loupe-wasm' && m.import_ms);
  console.log(`loupe-wasm breakdown (median): fetch ${fmt(median(w.map((m) => m.fetch_ms)), 0)} ms, import_bytes ${fmt(median(w.map((m) => m.import_ms)), 0)} ms (${fmt(mb / (median(w.map((m) => m.import_ms)) / 1e3), 0)} MB/s), first frame ${fmt(median(w.map((m) => m.first_frame_ms)), 1)} ms`);
}
const st = runs.filter((m) => m.kind === 'speedscope').map((m) => m.timers.join(', ')).filter(Boolean);
if (st.length) console.log(`speedscope's own timers: ${st.join(' | ')}`);
console.log(`\nratio speedscope / ${loupeKind}: ${fmt(ratio, 1)}x (median), ${fmt(ratioMin, 1)}x (min)`);
