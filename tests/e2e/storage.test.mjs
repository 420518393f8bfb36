// Damaged browser storage (issue 37 §4): saved layouts that do not parse are not dropped (the next
// save would overwrite them): the record is kept aside under `<key>.damaged.<time>`, a banner says
// what, why and where, and the page goes on with the default layout. A later save writes a fresh
// record beside the kept one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openApp, shot } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

test('damaged saved layouts are kept aside and the user is told once', async () => {
  const { page, errors } = await openApp(env, { width: 1440, height: 900 });
  const DAMAGED = '{"my layout": {"type": "slot", "widgets": ["timeline"';
  await page.evaluate((t) => localStorage.setItem('loupe.layouts.v1', t), DAMAGED);
  await page.reload();
  await page.waitForFunction(() => window.__loupe && window.__loupe.frames > 0, null, { timeout: 20000 });
  const notice = page.getByTestId('storage-notice');
  await notice.waitFor({ timeout: 10000 });
  const text = await notice.textContent();
  assert.match(text, /The saved layouts in this browser could not be read \(not valid JSON/);
  const kept = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('loupe.layouts.v1.damaged.')));
  assert.equal(kept.length, 1, 'one record kept aside');
  assert.ok(text.includes(kept[0]), 'the banner names where it is kept');
  assert.equal(await page.evaluate((k) => localStorage.getItem(k), kept[0]), DAMAGED, 'kept unchanged');
  assert.equal(await page.evaluate(() => localStorage.getItem('loupe.layouts.v1')), null);
  await shot(page, 'storage-damaged-layouts.png');
  // the layout menu still works; reading again finds nothing damaged, so no second banner
  await page.getByTestId('layout-menu').locator('summary').click();
  await page.keyboard.press('Escape');
  assert.equal(await page.getByTestId('storage-notice').count(), 1);
  await page.getByTestId('storage-notice-dismiss').click();
  assert.equal(await page.getByTestId('storage-notice').count(), 0);
  assert.deepEqual(errors, []);
});
