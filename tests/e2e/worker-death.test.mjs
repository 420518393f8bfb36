// Issue 37 §2: a parser worker that dies during a load (a wasm trap: what a failed allocation or
// a bug ends in) is a load error naming the file and what happened. The page never says "ready"
// after it, and the profile shown before stays. The trap is real: `?test-worker-trap=<name>`
// makes the worker execute wasm `unreachable` right after its first progress report on a load
// of a file of that name (app/src/loader: test_worker_trap), so the load is under way when it
// dies, in the default worker (threaded where built) and in the classic one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { setup, openApp, load, loupe, state, shot, SAMPLES } from './helpers.mjs';

const FIRST = join(SAMPLES, 'pytorch-kineto', 'hta__triton_example_triton_example.json.gz');
const SECOND = join(SAMPLES, 'pytorch-kineto', 'hta__trace_file_list_inference_rank_1.json.gz');

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

const cases = [
  // a plain Chrome JSON is streamed (read and parsed piece by piece); a gzip is read whole
  // the default worker (the threaded one where it is built and the page is isolated) and the
  // classic one
  { mode: 'default', query: '', second: { name: 'second.json', buffer: gunzipSync(readFileSync(SECOND)) } },
  { mode: 'classic', query: '&threads=0', second: { name: 'second.json', buffer: gunzipSync(readFileSync(SECOND)) } },
  { mode: 'default', query: '', second: { name: 'second.json.gz', buffer: readFileSync(SECOND) } },
];

for (const { mode, query, second } of cases) {
  test(`${mode} worker dies while loading ${second.name}: a load error naming it, the previous profile stays`, async () => {
    const { page, context } = await openApp({ ...env, base: `${env.base}?cache=0&test-worker-trap=${second.name}${query}` });
    await load(page, FIRST);
    const shown = await loupe(page);
    assert.equal(shown.demo, false);
    // every state the page goes through from now on
    await page.evaluate(() => {
      window.__states = [];
      new MutationObserver(() => window.__states.push(document.body.dataset.loupeState))
        .observe(document.body, { attributes: true, attributeFilter: ['data-loupe-state'] });
    });
    await page.getByTestId('open-file').setInputFiles({ ...second, mimeType: 'application/octet-stream' });
    await page.waitForFunction(() => window.__states.some((s) => s === 'error' || s === 'ready'), null, { timeout: 60000 });
    const err = page.getByTestId('load-error');
    assert.equal(await state(page), 'error', `states: ${await page.evaluate(() => window.__states.join(' → '))}`);
    const text = await err.textContent();
    assert.ok(text.includes(`'${second.name}'`), `the message names the file: ${text}`);
    assert.match(text, /parser worker failed/);
    assert.match(text, /RuntimeError: unreachable/, 'what happened: the trap');
    // the load was under way when the worker died
    assert.ok((await page.evaluate(() => window.__states)).includes('loading'));
    // nothing later turns it into "ready" (a dead worker sends nothing more)
    await page.waitForTimeout(1500);
    const states = await page.evaluate(() => window.__states);
    assert.ok(!states.includes('ready'), `never ready after the worker died: ${states.join(' → ')}`);
    assert.equal(await state(page), 'error');
    // the profile shown before is still shown, and still drawn
    const now = await loupe(page);
    assert.equal(now.sliceCount, shown.sliceCount);
    assert.equal(now.format, shown.format);
    assert.equal(now.trackCount, shown.trackCount);
    assert.ok(now.items > 0, 'the timeline still paints the previous profile');
    await shot(page, `worker-death-${mode}-${second.name.replace(/\W/g, '_')}.png`);
    // a next load works: a fresh worker
    await load(page, FIRST);
    assert.equal((await loupe(page)).sliceCount, shown.sliceCount);
    await context.close();
  });
}
