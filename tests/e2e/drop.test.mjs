// Files dropped anywhere on the page are loaded (synthetic DataTransfer drop).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openApp, state, shot } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

const TRACE = JSON.stringify({
  traceEvents: [
    { name: 'process_name', ph: 'M', pid: 1, args: { name: 'dropped' } },
    { name: 'outer', ph: 'X', ts: 0, dur: 100, pid: 1, tid: 1 },
    { name: 'inner', ph: 'X', ts: 10, dur: 50, pid: 1, tid: 1 },
  ],
});

test('synthetic drop loads the file', async () => {
  const { page, errors, context } = await openApp(env);
  await page.evaluate(async (text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'dropped.json', { type: 'application/json' }));
    const target = document.querySelector('[data-testid=timeline]');
    target.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    target.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, TRACE);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 20000 });
  assert.equal(await state(page), 'ready', 'the dropped Chrome JSON did not load');
  assert.equal(await page.evaluate(() => window.__loupe.sliceCount), 2);
  assert.equal(await page.evaluate(() => window.__loupe.demo), false);
  assert.match(await page.getByTestId('stats').textContent(), /2 slices/);
  await shot(page, 'drop.png');
  assert.deepEqual(errors, []);
  await context.close();
});
