// A file in no known format shows load-error (escaped, no crash, no console error).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openApp, state, shot } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

test('wrong-format file shows load-error', async () => {
  const { page, errors, context } = await openApp(env);
  const hostile = '<img src=x onerror="window.__pwned=1">.bin';
  await page.getByTestId('open-file').setInputFiles({ name: hostile, mimeType: 'application/octet-stream', buffer: Buffer.from('this is not a trace\u0000\u0001\u0002') });
  const err = page.getByTestId('load-error');
  await err.waitFor({ state: 'visible', timeout: 20000 });
  assert.equal(await state(page), 'error');
  const text = await err.textContent();
  assert.match(text, /unrecognised file format/);
  assert.ok(text.includes('<img src=x'), 'the name is shown as text');
  assert.equal(await page.locator('.banner-error img').count(), 0, 'no HTML injected');
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  // the previous trace (the demo) stays on screen
  assert.equal(await page.evaluate(() => window.__loupe.demo), true);
  await shot(page, 'load-error.png');
  assert.deepEqual(errors, []);
  await context.close();
});

test('empty file shows load-error', async () => {
  const { page, errors, context } = await openApp(env);
  await page.getByTestId('open-file').setInputFiles({ name: 'empty.json', mimeType: 'application/json', buffer: Buffer.alloc(0) });
  await page.getByTestId('load-error').waitFor({ state: 'visible', timeout: 20000 });
  assert.match(await page.getByTestId('load-error').textContent(), /empty/);
  assert.deepEqual(errors, []);
  await context.close();
});
