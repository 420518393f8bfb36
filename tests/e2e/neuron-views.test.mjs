// Neuron: a NEFF alone opens the program view; an NTFF (with its NEFF when present) shows engine
// tracks whose instructions carry pc/opcode in the details panel.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setup, openApp, state, shot, SAMPLES } from './helpers.mjs';

const DIR = join(SAMPLES, 'neuron');
const NEFF = join(DIR, 'matmul_small.neff');

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

async function waitLoaded(page) {
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 60000 });
  if ((await state(page)) === 'error') assert.fail(`load failed: ${await page.getByTestId('load-error').textContent()}`);
}

test('NEFF alone: program view', async (t) => {
  if (!existsSync(NEFF)) assert.fail(`no ${NEFF}`);
  const { page, errors, context } = await openApp(env);
  await page.getByTestId('open-file').setInputFiles(NEFF);
  await waitLoaded(page);
  const program = page.getByTestId('program');
  await program.waitFor();
  const text = await program.textContent();
  assert.match(text, /NEFF/);
  assert.match(text, /Instructions per subgraph and engine/);
  assert.ok((await page.getByTestId('program-hierarchy').locator('.op-node').count()) > 0, 'hierarchy has nodes');
  await shot(page, 'neuron-neff-program.png');
  assert.deepEqual(errors, []);
  await context.close();
});
