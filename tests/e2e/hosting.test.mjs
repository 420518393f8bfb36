// Static hosting anywhere: the built folder works served under a sub-path (/docs/loupe/, the way
// project pages and intranets host it) with every asset relative to the page, and when the app
// cannot start (opened from file://, its wasm blocked) the page says why instead of staying white.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { ROOT, loupe, state, shot } from './helpers.mjs';
import { startServer } from './server.mjs';

const DIST = (process.env.LOUPE_DIST || join(ROOT, 'dist'));
const PREFIX = '/docs/loupe/';
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--no-first-run'];

let server;
let browser;
let origin;
before(async () => {
  server = await startServer(DIST, 0, PREFIX);
  origin = `http://127.0.0.1:${server.address().port}`;
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: FLAGS });
});
after(async () => {
  await browser?.close();
  if (server) await new Promise((ok) => server.close(ok));
});

/** A page that records console errors, failed requests, HTTP errors and every requested URL. */
async function newPage() {
  const context = await browser.newContext({ viewport: { width: 1400, height: 820 } });
  const page = await context.newPage();
  const errors = [];
  const urls = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  context.on('request', (r) => urls.push(r.url()));
  context.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`));
  context.on('response', (r) => { if (r.status() >= 400) errors.push(`HTTP ${r.status()}: ${r.url()}`); });
  return { context, page, errors, urls };
}

test('the built files refer to their assets relative to the page', () => {
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  const refs = [...html.matchAll(/(?:href|src)="([^"]*)"|from '([^']*)'|module_or_path: '([^']*)'/g)]
    .map((m) => m[1] ?? m[2] ?? m[3]).filter((u) => !u.startsWith('data:'));
  assert.ok(refs.some((u) => /app-[0-9a-f]+\.js$/.test(u)), `the app module is referenced: ${refs}`);
  assert.ok(refs.some((u) => /app-[0-9a-f]+_bg\.wasm$/.test(u)), 'the app wasm is referenced');
  assert.ok(refs.includes('boot.js') || refs.includes('./boot.js'), 'the boot watchdog is referenced');
  for (const u of refs) assert.ok(!u.startsWith('/') && !/^[a-z]+:/i.test(u), `relative asset URL: ${u}`);
  const loader = readFileSync(join(DIST, 'worker_loader.js'), 'utf8');
  assert.match(loader, /importScripts\("\.\/worker\.js"\)/);
  assert.doesNotMatch(loader, /["']\/(?!\/)/, `no absolute path in worker_loader.js: ${loader}`);
  for (const f of readdirSync(DIST).filter((f) => f.endsWith('.js'))) {
    assert.doesNotMatch(readFileSync(join(DIST, f), 'utf8'), /["']\/(app|worker)[-_.]/, `no absolute asset path in ${f}`);
  }
});

test('served under /docs/loupe/: the demo renders and a file loads through the worker', async () => {
  const { context, page, errors, urls } = await newPage();
  await page.goto(`${origin}/docs/loupe`); // without the slash: the server redirects, as real ones do
  await page.waitForFunction(() => window.__loupe && window.__loupe.frames > 0, null, { timeout: 20000 });
  assert.equal(page.url().split('#')[0], `${origin}${PREFIX}`); // the view's deep link may follow in the fragment
  const l = await loupe(page);
  assert.equal(l.demo, true);
  assert.ok(l.sliceCount > 0, `slices: ${l.sliceCount}`);
  assert.equal(await page.locator('#loupe-boot').count(), 0, 'the boot message is gone once the app runs');
  const trace = JSON.stringify({ traceEvents: [
    { ph: 'X', name: 'outer', pid: 1, tid: 1, ts: 10, dur: 50 },
    { ph: 'X', name: 'inner', pid: 1, tid: 1, ts: 20, dur: 10 },
    { ph: 'X', name: 'other', pid: 1, tid: 2, ts: 15, dur: 30 }] });
  await page.getByTestId('open-file').setInputFiles({ name: 'hosted.json', mimeType: 'application/json', buffer: Buffer.from(trace) });
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 20000 });
  assert.equal(await state(page), 'ready');
  const after = await loupe(page);
  assert.equal(after.demo, false);
  assert.equal(after.sliceCount, 3);
  await shot(page, 'hosting-subpath.png');
  // every request stayed under the sub-path, and the worker's files came from there too
  const outside = urls.filter((u) => u.startsWith(origin) && !u.startsWith(`${origin}${PREFIX}`) && u !== `${origin}/docs/loupe`);
  assert.deepEqual(outside, [], 'no request outside /docs/loupe/');
  for (const f of ['boot.js', 'worker_loader.js', 'worker.js', 'worker_bg.wasm']) {
    assert.ok(urls.includes(`${origin}${PREFIX}${f}`), `${f} requested under the sub-path (requests: ${urls.join(', ')})`);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test('opened from file://: a readable message, not a white page', async () => {
  const { context, page } = await newPage();
  await page.goto(pathToFileURL(join(DIST, 'index.html')).href);
  await page.waitForSelector('#loupe-boot.failed', { timeout: 10000 });
  const box = page.locator('#loupe-boot');
  assert.ok(await box.isVisible());
  const text = await box.innerText();
  assert.match(text, /Loupe could not start/);
  assert.match(text, /opened as a file \(file:\/\/\)/, 'says what happened');
  assert.match(text, /python3 -m http\.server/, 'says how to serve the folder');
  assert.doesNotMatch(text, /Starting Loupe/, 'no contradicting "starting" line');
  assert.ok(!(await page.evaluate(() => !!window.__loupe)), 'the app did not start');
  const maxWidth = await box.evaluate((e) => getComputedStyle(e).maxWidth);
  assert.equal(maxWidth, '704px', 'the boot stylesheet applies under file:// too (44rem)');
  await shot(page, 'hosting-file.png');
  await context.close();
});

test('a browser without WebAssembly SIMD: the page says what it needs', async () => {
  const { context, page } = await newPage();
  // such a browser's WebAssembly.validate refuses any module with SIMD instructions (0xfd prefix)
  await page.addInitScript(() => {
    const validate = WebAssembly.validate;
    WebAssembly.validate = (bytes) => !new Uint8Array(bytes.buffer || bytes).includes(0xfd) && validate(bytes);
  });
  // ... and fails to compile the app's wasm (here: it does not arrive), so the app never mounts
  await page.route(/app-[0-9a-f]+_bg\.wasm$/, (r) => r.abort());
  await page.goto(`${origin}${PREFIX}`);
  await page.waitForSelector('#loupe-boot.failed', { timeout: 10000 });
  const text = await page.locator('#loupe-boot').innerText();
  assert.match(text, /does not support WebAssembly SIMD/, `names the missing feature: ${text}`);
  assert.match(text, /Safari 16\.4/);
  await context.close();
});

test('the app wasm cannot load: the page says so', async () => {
  const { context, page } = await newPage();
  await page.route(/app-[0-9a-f]+_bg\.wasm$/, (r) => r.abort());
  await page.goto(`${origin}${PREFIX}`);
  await page.waitForSelector('#loupe-boot.failed', { timeout: 10000 });
  const text = await page.locator('#loupe-boot').innerText();
  assert.match(text, /Loupe could not start/);
  assert.match(text, /could not be loaded|stopped while starting \(.*\)\. A file of the page/, `names the failure: ${text}`);
  assert.match(text, /python3 -m http\.server/);
  await shot(page, 'hosting-wasm-blocked.png');
  await context.close();
});
