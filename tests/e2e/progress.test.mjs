// A big file shows progress (percent + MB/s) from the worker, and Cancel terminates it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, openApp, state, shot } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

/** A Chrome trace JSON of about `mb` megabytes (one thread, back-to-back X events). */
function bigTrace(mb) {
  const parts = ['{"traceEvents":['];
  let size = 0;
  for (let i = 0; size < mb * 1e6; i++) {
    const ev = `{"name":"op_${i % 97}","cat":"cpu_op","ph":"X","ts":${i * 10},"dur":8,"pid":1,"tid":1,"args":{"i":${i}}},`;
    parts.push(ev);
    size += ev.length;
  }
  parts.push('{"name":"end","ph":"i","ts":0,"pid":1,"tid":1,"s":"t"}]}');
  return Buffer.from(parts.join(''));
}

test('progress bar with percent and MB/s; cancel returns to the previous state', async () => {
  const { page, errors, context } = await openApp(env);
  const buffer = bigTrace(45); // playwright takes at most 50 MB as a buffer
  await page.getByTestId('open-file').setInputFiles({ name: 'big.json', mimeType: 'application/json', buffer });
  const progress = page.getByTestId('progress');
  await progress.waitFor({ state: 'visible' });
  assert.equal(await state(page), 'loading');
  // wait for a parsing report from the worker if it comes before the end
  await page.waitForFunction(() => /parsing|encoding|decoding/.test(document.querySelector('[data-testid=progress]')?.textContent ?? 'done'), null, { timeout: 20000 });
  const text = (await progress.textContent().catch(() => '')) ?? '';
  if (text) {
    assert.match(text, /\d+% · [\d.]+ MB\/s/);
    await shot(page, 'progress.png');
    await page.getByTestId('cancel-load').click().catch(() => {});
  }
  const s = await state(page);
  assert.ok(['empty', 'ready'].includes(s), `state after cancel: ${s}`);
  if (s === 'empty') {
    // the worker is gone: nothing arrives later
    await page.waitForTimeout(1500);
    assert.equal(await state(page), 'empty');
    assert.equal(await page.evaluate(() => window.__loupe.demo), true);
    assert.equal(await progress.count(), 0);
  } else {
    console.log('# the load finished before Cancel was clicked');
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test('a big file loads through the worker without blocking the page', async () => {
  const { page, errors, context } = await openApp(env);
  const buffer = bigTrace(30);
  // the page keeps painting frames while the worker parses
  await page.evaluate(() => { window.__ticks = 0; const f = () => { window.__ticks++; if (window.__ticking) requestAnimationFrame(f); }; window.__ticking = true; requestAnimationFrame(f); });
  const t0 = Date.now();
  await page.getByTestId('open-file').setInputFiles({ name: 'big30.json', mimeType: 'application/json', buffer });
  await page.waitForFunction(() => document.body.dataset.loupeState === 'ready', null, { timeout: 60000 });
  const ms = Date.now() - t0;
  const ticks = await page.evaluate(() => { window.__ticking = false; return window.__ticks; });
  const l = await page.evaluate(() => ({ ...window.__loupe }));
  console.log(`# 30 MB JSON: ${l.sliceCount} slices; in the page: read+parse+transfer+decode ${l.loadMs.toFixed(0)} ms (${(buffer.length / 1e6 / (l.loadMs / 1000)).toFixed(1)} MB/s); with playwright's upload ${ms} ms; ${ticks} animation frames meanwhile; paint ${l.paintMs.toFixed(1)} ms`);
  assert.ok(l.sliceCount > 300000);
  assert.ok(ticks > 5, `the page kept animating (${ticks} frames)`);
  await shot(page, 'big.png');
  assert.deepEqual(errors, []);
  await context.close();
});
