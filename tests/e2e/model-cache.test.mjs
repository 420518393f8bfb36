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

// Damaged browser storage (issue 37 §4): a cache entry made from these very files that does not
// decode is kept aside under `<key>.damaged.<time>` (its bytes unchanged), the user is told once,
// and the files are parsed (a stale entry, made from other content, is only dropped).
test('a damaged cache entry is kept aside, the user told, the files parsed', async () => {
  const { page, errors, context } = await openApp(env);
  const first = await open(page, file);
  // (no eval in the page: its CSP forbids it; each step is its own evaluate)
  const modelKeys = () => page.evaluate(async () => {
    const db = await new Promise((res, rej) => { const r = indexedDB.open('loupe-model-cache'); r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
    try {
      if (!db.objectStoreNames.contains('models')) return [];
      return await new Promise((res) => { const r = db.transaction('models').objectStore('models').getAllKeys(); r.onsuccess = () => res(r.result); });
    } finally { db.close(); }
  });
  // wait until the model is stored (it is written after it is shown)
  let stored = [];
  for (let i = 0; i < 80 && stored.length === 0; i++) {
    await page.waitForTimeout(250);
    try { stored = await modelKeys(); } catch { stored = []; }
  }
  assert.equal(stored.length, 1, `one entry stored: ${stored}`);
  const key = stored[0];
  // damage it: the same key, bytes that are no model
  const GARBAGE = 'this is not a model '.repeat(50);
  await page.evaluate(async ({ k, g }) => {
    const db = await new Promise((res, rej) => { const r = indexedDB.open('loupe-model-cache'); r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
    await new Promise((res, rej) => {
      const tx = db.transaction('models', 'readwrite');
      tx.objectStore('models').put(new Blob([g]), k);
      tx.oncomplete = () => res(true); tx.onerror = () => rej(tx.error);
    });
    db.close();
  }, { k: key, g: GARBAGE });

  const page2 = await context.newPage();
  await page2.goto(env.base);
  await page2.waitForFunction(() => window.__loupe && window.__loupe.frames > 0, null, { timeout: 20000 });
  const again = await open(page2, file);
  assert.equal(again.fromCache, false, 'the damaged entry is not shown: the files are parsed');
  assert.equal(again.sliceCount, first.sliceCount);
  const notice = page2.getByTestId('storage-notice');
  await notice.waitFor({ timeout: 10000 });
  const text = await notice.textContent();
  assert.match(text, /model cache could not be read/);
  const kept = await page2.evaluate(async () => {
    const db = await new Promise((res) => { const r = indexedDB.open('loupe-model-cache'); r.onsuccess = () => res(r.result); });
    const store = db.transaction('models').objectStore('models');
    const ks = await new Promise((res) => { const r = store.getAllKeys(); r.onsuccess = () => res(r.result); });
    const aside = ks.filter((k) => String(k).includes('.damaged.'));
    const blob = aside.length ? await new Promise((res) => { const r = db.transaction('models').objectStore('models').get(aside[0]); r.onsuccess = () => res(r.result); }) : null;
    db.close();
    return { aside, text: blob ? await blob.text() : null };
  });
  assert.equal(kept.aside.length, 1, `one entry kept aside: ${kept.aside}`);
  assert.ok(kept.aside[0].startsWith(`${key}.damaged.`), kept.aside[0]);
  assert.ok(text.includes(kept.aside[0]), 'the banner names where it is kept');
  assert.equal(kept.text, GARBAGE, 'kept unchanged');
  await shot(page2, 'model-cache-damaged.png');
  assert.deepEqual(errors, []);
  await context.close();
});
