// Embedding and ?url=: the docs/embed example page posts a file into Loupe (?mode=embedded, no
// chrome) and gets `ready` and `loaded`, then moves the view; ?url= loads a file served by the
// same server with progress, and says why when it cannot.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT, OUT } from './helpers.mjs';
import { serve } from '../bench/server.mjs';

const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--no-first-run'];
let srv;
let browser;
let dir;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'loupe-embed-'));
  const ev = [{ name: 'process_name', ph: 'M', pid: 1, args: { name: 'served' } }];
  for (let i = 0; i < 1000; i++) ev.push({ name: `op ${i % 4}`, ph: 'X', ts: i * 10, dur: 8, pid: 1, tid: 1 });
  writeFileSync(join(dir, 'served trace.json'), JSON.stringify({ traceEvents: ev }));
  srv = await serve({ '/': join(ROOT, 'dist'), '/embed/': join(ROOT, 'docs', 'embed'), '/data/': dir }, { isolate: false });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: FLAGS });
});
after(async () => {
  await browser?.close();
  await srv?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function newPage() {
  const context = await browser.newContext({ viewport: { width: 1300, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  return { context, page, errors };
}

test('?url= loads a file from the same server; a missing one gives a clear error', async () => {
  const { context, page, errors } = await newPage();
  await page.goto(`${srv.url}/?url=${encodeURIComponent('/data/served%20trace.json')}`);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState) && window.__loupe && !window.__loupe.demo, null, { timeout: 30000 });
  assert.equal(await page.evaluate(() => document.body.dataset.loupeState), 'ready');
  assert.equal(await page.evaluate(() => window.__loupe.sliceCount), 1000);
  assert.match(await page.locator('.source-name').first().textContent(), /served trace\.json/);
  assert.deepEqual(errors, []);

  await page.goto(`${srv.url}/?url=/data/missing.json`);
  await page.getByTestId('load-error').waitFor({ timeout: 20000 });
  assert.match(await page.getByTestId('load-error').textContent(), /could not read '\/data\/missing\.json': the server answered 404/);
  await context.close();
});

test('the embed example posts a file and gets ready + loaded; view moves the embedded timeline', async () => {
  const { context, page, errors } = await newPage();
  await page.goto(`${srv.url}/embed/`);
  await page.getByTestId('embed-status').filter({ hasText: 'ready' }).waitFor({ timeout: 20000 });
  const frame = page.frameLocator('#loupe');
  assert.equal(await frame.locator('.topbar').isVisible(), false, 'no header in embedded mode');
  await page.getByTestId('embed-file').setInputFiles(join(dir, 'served trace.json'));
  await page.getByTestId('embed-status').filter({ hasText: 'loaded' }).waitFor({ timeout: 30000 });
  const log = (await page.getByTestId('embed-log').textContent()).trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(log.map((m) => m.loupe), ['ready', 'loaded']);
  const s = log[1].summary;
  assert.equal(s.name, 'served trace.json');
  assert.equal(s.slices, 1000);
  assert.equal(s.format, 'chrome-json');
  const f = page.frames().find((x) => x.url().includes('mode=embedded'));
  await page.getByTestId('embed-view').click();
  const mid = s.start_ns + Math.floor(s.duration_ns / 2);
  await f.waitForFunction((m) => Math.abs(window.__loupe.endNs - m) < 2, mid, { timeout: 10000 });
  await page.screenshot({ path: join(OUT, 'embed-example.png') });
  assert.deepEqual(errors, []);
  await context.close();
});
