// Streaming import with lazy arguments (issue 10, goal 3): a generated Kineto-like Chrome JSON
// opened with `?lazyargs=1` (lazy args at any size; normally only above 64 MB) gives the same
// model as the normal load, and Event Details shows a lazy event's arguments (re-read from the
// File) exactly as the normal load shows them — also when the profile is re-opened from the cache.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setup, loupe, state, shot, findSlicePoint } from './helpers.mjs';

let env;
let dir;
let file;
before(async () => {
  env = await setup();
  dir = mkdtempSync(join(tmpdir(), 'loupe-lazy-'));
  file = join(dir, 'lazy-kineto.json');
  const ev = [{ name: 'thread_name', ph: 'M', pid: 1, tid: 1, args: { name: 'python' } }];
  // one wide step with every kind of arg value, then many small kernels with Kineto ids
  ev.push({ name: 'ProfilerStep#1', ph: 'X', ts: 0, dur: 500000, pid: 1, tid: 1, cat: 'cpu_op',
    args: { 'External id': 17, label: 'caf\u00e9 "quoted"', ratio: 0.25, ok: true, none: null,
      'Input Dims': [[8, 16], []], nested: { a: [1, 2], b: 'x' }, big: 18446744073709551615 } });
  for (let i = 0; i < 3000; i++) {
    ev.push({ name: `aten::op${i % 11}`, ph: 'X', ts: 10 + i * 150, dur: 100, pid: 1, tid: 1, cat: 'cpu_op',
      args: { 'External id': 100 + i, 'Sequence number': i } });
    ev.push({ name: `kernel_${i % 5}`, ph: 'X', ts: 40 + i * 150, dur: 60, pid: 0, tid: 7, cat: 'kernel',
      args: { device: 0, stream: 7, correlation: 5000 + i, grid: [i % 4, 1, 1] } });
    if (i % 100 === 0) ev.push({ name: 'marker', ph: 'i', s: 't', ts: 20 + i * 150, pid: 1, tid: 1, args: { n: i } });
  }
  writeFileSync(file, JSON.stringify({ schemaVersion: 1, traceEvents: ev }));
});
after(async () => {
  await env?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function openPage(context, query) {
  const page = await context.newPage();
  await page.goto(`${env.base}${query}`);
  await page.waitForFunction(() => window.__loupe && window.__loupe.frames > 0, null, { timeout: 20000 });
  return page;
}

async function load(page) {
  await page.getByTestId('open-file').setInputFiles(file);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState) && window.__loupe && !window.__loupe.demo, null, { timeout: 60000 });
  if ((await state(page)) !== 'ready') assert.fail(`load failed: ${await page.getByTestId('load-error').textContent()}`);
  return loupe(page);
}

/** Click the widest painted slice; the Details panel's arguments table as [key, value] rows. */
async function argsOfWidest(page) {
  const p = await findSlicePoint(page);
  assert.ok(p, 'a slice is painted');
  await page.mouse.click(p.x, p.y);
  const table = page.getByTestId('details').getByTestId('details-args');
  await table.waitFor({ timeout: 10000 });
  const rows = await table.locator('tr').evaluateAll((trs) => trs.map((tr) => [tr.querySelector('th').textContent, tr.querySelector('td').textContent]));
  return { title: await page.getByTestId('details').locator('.details-title').textContent(), rows };
}

test('lazy args: same model as the normal load; Event Details re-reads the args from the file', async () => {
  const errors = [];
  const context = await env.browser.newContext({ viewport: { width: 1400, height: 820 } });
  context.on('page', (p) => {
    p.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    p.on('pageerror', (e) => errors.push(String(e)));
  });
  const eagerPage = await openPage(context, '?cache=0');
  const eager = await load(eagerPage);
  assert.equal(eager.lazyArgs, 0, 'a small file keeps its args in memory');
  const eagerArgs = await argsOfWidest(eagerPage);

  const lazyPage = await openPage(context, '?lazyargs=1');
  const lazy = await load(lazyPage);
  assert.equal(lazy.fromCache, false);
  assert.ok(lazy.lazyArgs > 6000, `args kept lazily (${lazy.lazyArgs} sets)`);
  for (const k of ['sliceCount', 'trackCount', 'counterCount', 'format']) assert.equal(lazy[k], eager[k], k);
  assert.ok(lazy.memoryBytes < eager.memoryBytes, `lazy model is smaller (${lazy.memoryBytes} vs ${eager.memoryBytes} bytes)`);
  const lazyArgs = await argsOfWidest(lazyPage);
  assert.equal(lazyArgs.title, eagerArgs.title);
  assert.ok(eagerArgs.rows.length >= 8, JSON.stringify(eagerArgs.rows));
  assert.deepEqual(lazyArgs.rows, eagerArgs.rows, 'lazy args shown exactly as the eager ones');
  await lazyPage.getByTestId('details-args').scrollIntoViewIfNeeded();
  await shot(lazyPage, 'lazy-args-details.png');

  // re-opened from the cache: the page keeps the picked File, so the args still show
  const again = await openPage(context, '?lazyargs=1');
  let reopened;
  for (let i = 0; i < 20; i++) {
    reopened = await load(again);
    if (reopened.fromCache) break;
    await again.waitForTimeout(250); // the store may still be running
  }
  assert.equal(reopened.fromCache, true, 'the second open comes from the cache');
  assert.equal(reopened.lazyArgs, lazy.lazyArgs);
  const cachedArgs = await argsOfWidest(again);
  assert.deepEqual(cachedArgs.rows, eagerArgs.rows);
  assert.deepEqual(errors, []);
  await context.close();
});
