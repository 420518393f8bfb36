// A real PyTorch Kineto trace (.json.gz) loads through the worker and can be navigated.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setup, openApp, canvasColours, waitCanvasPainted, loupe, state, nextFrame, shot, findSlicePoint, SAMPLES } from './helpers.mjs';

const DIR = join(SAMPLES, 'pytorch-kineto');
const file = readdirSync(DIR).find((f) => f.includes('cupti_profiler_benchmark') && f.endsWith('.json.gz'));

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

test('Kineto sample: load, render, hover, click, keys', async () => {
  assert.ok(file, `no cupti_profiler_benchmark Kineto sample in ${DIR}`);
  const { page, errors, context } = await openApp(env, { dpr: 2 });
  await page.getByTestId('open-file').setInputFiles(join(DIR, file));
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 60000 });
  if ((await state(page)) === 'error') {
    assert.fail(`load failed: ${await page.getByTestId('load-error').textContent()}`);
  }
  const l = await loupe(page);
  assert.equal(l.demo, false);
  assert.ok(l.sliceCount > 0);
  assert.ok((await waitCanvasPainted(page, 12)) > 12, 'canvas is not blank');
  await shot(page, 'kineto.png');

  const p = await findSlicePoint(page);
  assert.ok(p, 'a slice is painted');
  await page.mouse.move(p.x, p.y);
  await page.getByTestId('tooltip').waitFor({ state: 'visible' });
  await shot(page, 'kineto-hover.png');
  await page.mouse.click(p.x, p.y);
  await page.getByTestId('details').getByText('duration', { exact: true }).waitFor();
  await shot(page, 'kineto-selected.png');

  await page.mouse.move(5, 5);
  let before = await loupe(page);
  await page.keyboard.press('w');
  await page.keyboard.press('w');
  await nextFrame(page, before);
  let after = await loupe(page);
  assert.ok(after.nsPerPx < before.nsPerPx, 'W zooms in');
  before = after;
  await page.keyboard.press('d');
  await nextFrame(page, before);
  after = await loupe(page);
  assert.ok(after.startNs > before.startNs, 'D pans right');
  await shot(page, 'kineto-zoomed.png');
  assert.deepEqual(errors, []);
  await context.close();
});
