// Re-open cache: a profile opened before re-opens from the model cache (IndexedDB) without
// parsing, with the same model; the help panel's "Clear cache" empties it; `?cache=0` turns it off.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setup, openApp, loupe, state, shot, waitForAsync } from './helpers.mjs';

let env;
let dir;
let file;
before(async () => {
  env = await setup();
  // a generated Chrome trace (~8 MB): nested slices on a few threads
  dir = mkdtempSync(join(tmpdir(), 'loupe-cache-'));
  file = join(dir, 'cache-me.json');
  const ev = [];
  for (let t = 0; t < 4; t++) {
    ev.push({ name: 'thread_name', ph: 'M', pid: 1, tid: t, args: { name: `worker ${t}` } });
    for (let i = 0; i < 20000; i++) {
      ev.push({ name: `step ${i % 7}`, ph: 'X', ts: i * 10, dur: 9, pid: 1, tid: t, args: { i } });
      ev.push({ name: `op ${i % 13}`, ph: 'X', ts: i * 10 + 1, dur: 5, pid: 1, tid: t });
    }
  }
  writeFileSync(file, JSON.stringify({ traceEvents: ev }));
});
after(async () => {
  await env?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function open(page, path) {
  await page.getByTestId('open-file').setInputFiles(path);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState) && window.__loupe && !window.__loupe.demo, null, { timeout: 60000 });
  assert.equal(await state(page), 'ready');
  return loupe(page);
}

test('a profile opened before re-opens from the cache, identically; Clear cache empties it', async () => {
  const { page, errors, context } = await openApp(env);
  const first = await open(page, file);
  assert.equal(first.fromCache, false, 'the first open parses');
  // files the cache's hints do not list are parsed at once, without a lookup
  assert.equal(await page.evaluate(() => window.__loupeLoad.cacheLookedUp), 0, 'no lookup for files never stored');
  assert.equal(first.sliceCount, 160000);
  // the model is stored after it is shown: wait until the cache holds it
  await page.keyboard.press('?');
  await page.getByTestId('cache-usage').waitFor();
  // (waitForFunction does not await an async predicate: waitForAsync does)
  await waitForAsync(page, async () => {
    const dbs = await indexedDB.databases();
    return dbs.some((d) => d.name === 'loupe-model-cache');
  }, null, { timeout: 10000, what: 'the model cache database' });
  await page.keyboard.press('Escape');

  // a new page of the same origin (same browser profile), the same file
  const page2 = await context.newPage();
  await page2.goto(env.base);
  await page2.waitForFunction(() => window.__loupe && window.__loupe.frames > 0, null, { timeout: 20000 });
  let again;
  for (let i = 0; i < 20; i++) {
    again = await open(page2, file);
    if (again.fromCache) break;
    await page2.waitForTimeout(250); // the store may still be running
  }
  assert.equal(again.fromCache, true, 'the second open comes from the cache');
  assert.equal(await page2.evaluate(() => window.__loupeLoad.cacheLookedUp), 1, 'stored files are looked up first');
  for (const k of ['sliceCount', 'trackCount', 'counterCount', 'format']) assert.equal(again[k], first[k], k);
  assert.match(await page2.getByTestId('stats').textContent(), /re-opened from cache in \d+ ms/);
  console.log(`# first open ${first.loadMs.toFixed(0)} ms, re-open ${again.loadMs.toFixed(0)} ms (${(first.loadMs / again.loadMs).toFixed(1)}×)`);
  await shot(page2, 'model-cache-reopened.png');

  // Clear cache in the help panel → the next open parses again
  await page2.keyboard.press('?');
  await page2.getByTestId('cache-usage').filter({ hasText: /1 profile/ }).waitFor();
  await shot(page2, 'model-cache-help.png');
  await page2.getByTestId('clear-cache').click();
  await page2.getByTestId('cache-usage').filter({ hasText: /empty/ }).waitFor();
  await page2.keyboard.press('Escape');
  const third = await open(page2, file);
  assert.equal(third.fromCache, false, 'after Clear cache the file is parsed');
  assert.deepEqual(errors, []);
  await context.close();
});

test('?cache=0 never uses the cache', async () => {
  const { page, errors, context } = await openApp(env);
  await page.goto(`${env.base}?cache=0`);
  await page.waitForFunction(() => window.__loupe && window.__loupe.frames > 0, null, { timeout: 20000 });
  const a = await open(page, file);
  await page.waitForTimeout(500);
  const b = await open(page, file);
  assert.equal(a.fromCache, false);
  assert.equal(b.fromCache, false);
  assert.deepEqual(errors, []);
  await context.close();
});
