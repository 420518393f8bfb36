// The threaded parser worker (dist/threads/, scripts/build-threads.sh) is opt-in: a build made
// with LOUPE_THREADS=1 has it and says so with <meta name="loupe-threads">. In such a build (this
// file sees LOUPE_THREADS=1 too): on a cross-origin isolated page the loader starts it (a module
// worker with a wasm-bindgen-rayon pool), `?threads=0` keeps the classic worker, and both give the
// same model. In a build without it, the page never asks for a file of threads/ and parses on one
// thread. Either way the next load's worker is started ahead and used.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setup, openApp, loupe, state, shot, ROOT, SAMPLES, THREADED } from './helpers.mjs';
import { startServer } from './server.mjs';

const DIST = (process.env.LOUPE_DIST || join(ROOT, 'dist'));
const NSYS = join(SAMPLES, 'nsight-systems-sqlite', 'odema_nsys_profile.sqlite');

let env;
let dir;
let file;
before(async () => {
  env = await setup();
  dir = mkdtempSync(join(tmpdir(), 'loupe-threads-'));
  // 4 processes × 6 threads of nested calls, counters and instants (deterministic)
  const ev = [];
  let seed = 7;
  const rnd = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  for (let pid = 1; pid <= 4; pid++) {
    ev.push({ name: 'process_name', ph: 'M', pid, args: { name: `proc ${pid}` } });
    for (let tid = 1; tid <= 6; tid++) {
      let ts = 0;
      for (let i = 0; i < 400; i++) {
        const dur = 20 + Math.floor(rnd() * 200);
        ev.push({ name: `step ${i % 7}`, cat: 'cpu', ph: 'X', ts, dur, pid, tid, args: { i } });
        ev.push({ name: `kernel ${i % 11}`, cat: 'gpu', ph: 'X', ts: ts + 2, dur: Math.floor(dur / 2), pid, tid });
        if (i % 50 === 0) ev.push({ name: 'mark', ph: 'i', s: 't', ts: ts + 1, pid, tid });
        ts += dur + Math.floor(rnd() * 30);
      }
    }
    for (let i = 0; i < 300; i++) ev.push({ name: 'memory', ph: 'C', ts: i * 100, pid, args: { bytes: Math.floor(rnd() * 1e6) } });
  }
  file = join(dir, 'threads.json');
  writeFileSync(file, JSON.stringify({ traceEvents: ev }));
});
after(async () => {
  await env?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Open `path` on `base` + `query`; returns the model's numbers and the page's stats line. */
async function openWith(base, query, path, shotName) {
  const { page, errors, context } = await openApp({ ...env, base: base + query });
  const threadFiles = [];
  page.on('request', (r) => { if (/\/threads\//.test(r.url())) threadFiles.push(r.url()); });
  await page.getByTestId('open-file').setInputFiles(path);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 90000 });
  if ((await state(page)) === 'error') assert.fail(`load failed: ${await page.getByTestId('load-error').textContent()}`);
  const l = await loupe(page);
  const stats = await page.getByTestId('stats').textContent();
  const isolated = await page.evaluate(() => self.crossOriginIsolated);
  // shared memory: the worker wrote the model into it and the page decoded it meanwhile
  const streamed = await page.evaluate(() => window.__loupeLoad?.modelStreamed);
  if (shotName) await shot(page, shotName);
  await context.close();
  return {
    threads: l.threads,
    isolated,
    streamed,
    errors,
    threadFiles,
    stats,
    model: {
      format: l.format, sliceCount: l.sliceCount, trackCount: l.trackCount, counterCount: l.counterCount,
      memoryBytes: l.memoryBytes, lazyArgs: l.lazyArgs,
      // "… · loaded in 123 ms on 2 threads": everything but the timing
      stats: stats.replace(/ · loaded in .*$/, ''),
    },
  };
}

test('the build and this run agree on the threaded worker (LOUPE_THREADS)', () => {
  const meta = /<meta name="loupe-threads"/.test(readFileSync(join(DIST, 'index.html'), 'utf8'));
  const built = existsSync(join(DIST, 'threads', 'worker_bg.wasm'));
  assert.equal(built, THREADED, THREADED
    ? `LOUPE_THREADS=1 but ${DIST}/threads/ has no worker: build with LOUPE_THREADS=1 trunk build --release`
    : `${DIST}/threads/ holds a threaded worker but LOUPE_THREADS is not 1: run the tests with LOUPE_THREADS=1`);
  assert.equal(meta, THREADED, 'index.html announces the threaded worker exactly when it is built');
});

if (!THREADED) {
  test('a build without the threaded worker: the isolated page never asks for it and parses on one thread', async () => {
    const r = await openWith(env.base, '?cache=0', file, 'threads-off.png');
    assert.equal(r.isolated, true);
    assert.equal(r.threads, 1);
    assert.match(r.stats, /loaded in \d+ ms on 1 thread$/);
    assert.equal(r.model.sliceCount, 4 * 6 * 400 * 2);
    assert.deepEqual(r.threadFiles, []);
    assert.deepEqual(r.errors, []);
  });
}

if (THREADED) test('isolated page: the threaded worker runs a pool and gives the same model as ?threads=0', async () => {
  const probe = await env.browser.newPage();
  const cores = await probe.evaluate(() => navigator.hardwareConcurrency);
  await probe.context().close();
  const on = await openWith(env.base, '?cache=0', file, 'threads-on.png');
  const off = await openWith(env.base, '?cache=0&threads=0', file);
  assert.equal(on.isolated, true);
  assert.equal(on.threads, Math.min(Math.max(cores, 1), 8), `pool of hardwareConcurrency (${cores}) threads`);
  if (cores >= 2) assert.ok(on.threads >= 2);
  assert.match(on.stats, new RegExp(`loaded in \\d+ ms on ${on.threads} threads?`));
  assert.equal(off.threads, 1);
  assert.match(off.stats, /loaded in \d+ ms on 1 thread$/);
  assert.equal(on.model.sliceCount, 4 * 6 * 400 * 2);
  assert.deepEqual(on.model, off.model);
  assert.deepEqual(on.errors, []);
  assert.deepEqual(off.errors, []);
  assert.deepEqual(off.threadFiles, []);
});

// Starting a worker (script, wasm compile, the pool) is 0.2–0.5 s: the app starts the next load's
// worker ahead — after the page's own start and after each load — and a load takes it.
test('the parser worker is started ahead, used by the next load, and started again after it', async () => {
  for (const query of ['?cache=0', '?cache=0&threads=0']) {
    const { page, errors, context } = await openApp({ ...env, base: env.base + query });
    const models = [];
    for (let round = 0; round < 2; round++) {
      await page.waitForFunction(() => window.__loupeWorkerWarm === true, null, { timeout: 30000 });
      if (round === 0) {
        // the page's own load steps ran once on the demo model at idle too (loader::warm_page)
        await page.waitForFunction(() => window.__loupe?.pageWarmUpMs > 0, null, { timeout: 30000 });
      }
      await page.getByTestId('open-file').setInputFiles(file);
      await page.waitForFunction(() => document.body.dataset.loupeState === 'ready' && window.__loupeLoad?.workerWarm !== undefined, null, { timeout: 90000 });
      const r = await page.evaluate(() => ({ warm: window.__loupeLoad.workerWarm, threads: window.__loupe.threads, slices: window.__loupe.sliceCount, memoryBytes: window.__loupe.memoryBytes }));
      assert.equal(r.warm, 1, `${query} load ${round + 1}: the worker started ahead was ready and used`);
      assert.equal(r.threads > 1, THREADED && query === '?cache=0' && (await page.evaluate(() => navigator.hardwareConcurrency)) > 1, `${query}: threads ${r.threads}`);
      models.push(r);
      await page.evaluate(() => { delete window.__loupeLoad.workerWarm; });
    }
    assert.equal(models[0].slices, 4 * 6 * 400 * 2);
    assert.deepEqual(models[1], models[0]);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

// A user who picks a file at once must not wait for the warm-up of the worker started ahead: it
// says {ready} before warming up, and a request stops the warm-up at its next step (no {warm}
// after it); a worker started because a load waits (the next load right after one, before the
// next worker is started ahead) skips the warm-up altogether. Checked on the worker messages
// themselves, so it holds whatever the timing.
test('a file picked at once does not wait for the warm-up: a request stops it, a worker started for a load skips it', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1400, height: 820 } });
  await context.addInitScript(() => {
    window.__workerLog = [];
    const W = window.Worker;
    let n = 0;
    window.Worker = function (url, opts) {
      const id = n++;
      const w = new W(url, opts);
      const log = (what) => window.__workerLog.push({ id, name: opts?.name ?? '', what });
      w.addEventListener('message', (e) => { const k = e.data?.kind; if (k && k !== 'progress' && k !== 'encoded') log(k); });
      const post = w.postMessage.bind(w);
      w.postMessage = (m, t) => { log(`request ${m?.kind}`); return post(m, t); };
      return w;
    };
    window.Worker.prototype = W.prototype;
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`));
  await page.goto(`${env.base}?cache=0`, { waitUntil: 'commit' });
  const input = page.getByTestId('open-file');
  await input.waitFor({ state: 'attached' });
  for (let round = 0; round < 2; round++) {
    // the first at once, the second right after the first (the next worker is started ahead
    // only 1.5 s after a load)
    await input.setInputFiles(file);
    await page.waitForFunction((r) => document.body.dataset.loupeState === 'ready' && window.__workerLog.filter((e) => e.what === 'done').length > r, round, { timeout: 90000 });
    assert.equal((await loupe(page)).sliceCount, 4 * 6 * 400 * 2);
  }
  const log = await page.evaluate(() => window.__workerLog);
  const byWorker = new Map();
  for (const e of log) byWorker.set(e.id, [...(byWorker.get(e.id) ?? []), e]);
  const used = [...byWorker.values()].filter((es) => es.some((e) => e.what === 'request load'));
  assert.equal(used.length, 2, `two workers ran the two loads: ${JSON.stringify(log)}`);
  for (const es of used) {
    const req = es.findIndex((e) => e.what === 'request load');
    assert.ok(es.findIndex((e) => e.what === 'ready') < req, 'the request went after {ready}');
    assert.deepEqual(es.slice(req).filter((e) => e.what === 'warm'), [], `no warm-up step after the request: ${JSON.stringify(es)}`);
  }
  const forALoad = used.filter((es) => es[0].name === 'loupe-parser-for-a-load');
  assert.ok(forALoad.length >= 1, `the second load started its own worker: ${JSON.stringify(log)}`);
  for (const es of forALoad) assert.ok(!es.some((e) => e.what === 'warm'), 'a worker started for a load does not warm up');
  assert.deepEqual(errors, []);
  await context.close();
});

if (THREADED) test('SQLite (Nsight Systems) through the threaded worker: same model as the classic one', async () => {
  assert.ok(existsSync(NSYS), `the sample ${NSYS} is missing`);
  const on = await openWith(env.base, '?cache=0', NSYS);
  const off = await openWith(env.base, '?cache=0&threads=0', NSYS);
  assert.ok(on.threads >= 1 && off.threads === 1);
  assert.equal(on.model.sliceCount, 502);
  assert.deepEqual(on.model, off.model);
  assert.deepEqual([...on.errors, ...off.errors], []);
});

test('no COOP/COEP: not isolated, the classic worker, one thread, same model', async () => {
  const server = await startServer(DIST, 0, '/', { isolate: false });
  try {
    const r = await openWith(`http://127.0.0.1:${server.address().port}/`, '?cache=0', file);
    const ref = await openWith(env.base, '?cache=0&threads=0', file);
    assert.equal(r.isolated, false);
    assert.equal(r.threads, 1);
    assert.equal(r.streamed, 0, 'no shared memory: the model is transferred whole');
    assert.equal(ref.streamed, 1, 'isolated: the model is decoded while the worker writes it');
    assert.deepEqual(r.model, ref.model);
    assert.deepEqual(r.errors, []);
  } finally {
    await new Promise((ok) => server.close(ok));
  }
});

// a folder copied without its threads/ (index.html still announcing it)
if (THREADED) test('threaded worker announced but missing: falls back to the classic worker silently', async () => {
  const server = await startServer(DIST, 0, '/', { hide: /\/threads\// });
  try {
    const r = await openWith(`http://127.0.0.1:${server.address().port}/`, '?cache=0', file);
    assert.equal(r.isolated, true);
    assert.equal(r.threads, 1);
    assert.match(r.model.stats, /slices/);
    // the browser reports the missing script (a 404) itself; nothing else may fail
    assert.deepEqual(r.errors.filter((e) => !/threads\/worker_loader\.js|404/.test(e)), []);
  } finally {
    await new Promise((ok) => server.close(ok));
  }
});
