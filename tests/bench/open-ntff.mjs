// NTFF end-to-end benchmark (issue 10, goal 7): a generated NEFF + NTFF pair (the core's
// `gen_neuron_pair` example: 3 instruction records per iteration, 32 bytes each) opened together
// through the release app's file input, timed to the painted device view. Numbers only; not in CI.
//   node tests/bench/open-ntff.mjs
// Env: NTFF_MB (100, the NTFF's size), RUNS (3), QUERY (extra page query, e.g. `threads=0`),
//      LOUPE_DIST (default dist/). Timed from setInputFiles to data-loupe-state="ready" + two
//      animation frames, with ?cache=0 and the parser worker warm, as open-big.mjs.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { fmt, median, openAppForLoad } from './browser.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIST = process.env.LOUPE_DIST ? path.resolve(process.env.LOUPE_DIST) : path.join(ROOT, 'dist');
const NTFF_MB = +(process.env.NTFF_MB ?? 100);
const RUNS = +(process.env.RUNS ?? 3);
const iterations = Math.max(1, Math.round((NTFF_MB * 1e6) / 96));
const DIR = path.join(ROOT, `target/bench/neuron-pair-v2-${iterations}`);
if (!fs.existsSync(path.join(DIR, 'model.ntff'))) {
  process.stderr.write(`generating ${DIR} (${iterations} iterations)...\n`);
  execFileSync('cargo', ['run', '--quiet', '--release', '-p', 'loupe-core', '--example', 'gen_neuron_pair', '--', DIR, String(iterations)], { cwd: ROOT, stdio: 'inherit' });
}
const files = [path.join(DIR, 'model.neff'), path.join(DIR, 'model.ntff')];
const mb = files.reduce((s, f) => s + fs.statSync(f).size, 0) / 1e6;
const twoFrames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));

const rows = [];
for (let run = 0; run < RUNS; run++) {
  const { srv, browser, page } = await openAppForLoad(DIST);
  try {
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const t = performance.now();
    await page.locator('[data-testid=open-file]').setInputFiles(files);
    await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 600000, polling: 'raf' });
    await page.evaluate(twoFrames);
    const ms = performance.now() - t;
    const st = await page.evaluate(() => document.body.dataset.loupeState);
    if (st !== 'ready') {
      console.log(`run ${run + 1}: error after ${fmt(ms, 0)} ms: ${await page.locator('[data-testid=load-error]').textContent()}`);
      continue;
    }
    const l = await page.evaluate(() => ({ ...window.__loupe, stages: window.__loupeLoad || {} }));
    rows.push({ ms, parse: l.loadMs });
    console.log(`run ${run + 1}: ${fmt(mb, 1)} MB (NEFF + NTFF) → painted in ${fmt(ms, 0)} ms = ${fmt(mb / (ms / 1000), 0)} MB/s end to end; worker ${fmt(l.loadMs, 0)} ms = ${fmt(mb / (l.loadMs / 1000), 0)} MB/s; slices ${l.sliceCount}, tracks ${l.trackCount}, memoryBytes ${fmt(l.memoryBytes / 1e6, 0)} MB; worker warm-up ${fmt(l.workerWarmUpMs, 0)} ms before the file (not timed)`);
    console.log(`  page-side steps (ms): ${Object.entries(l.stages).map(([k, v]) => `${k} ${fmt(v, 0)}`).join(', ')}`);
    if (run === 0) await page.screenshot({ path: path.join(ROOT, 'tests/e2e/out/open-ntff.png') });
    if (errors.length) console.log(`  errors: ${errors.join(' | ')}`);
  } finally {
    await browser.close();
    srv.close();
  }
}
if (rows.length) {
  const m = median(rows.map((r) => r.ms));
  const p = median(rows.map((r) => r.parse));
  console.log(`goal 7 (NTFF ≥ 500 MB/s end to end, median): ${fmt(mb / (m / 1000), 0)} MB/s (median ${fmt(m, 0)} ms of ${rows.length}); worker alone ${fmt(mb / (p / 1000), 0)} MB/s — ${mb / (m / 1000) >= 500 ? 'met' : 'not met'}`);
}
