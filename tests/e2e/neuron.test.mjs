// Neuron files through the worker: an NTFF device trace, and NEFF + NTFF dropped together
// (paired; the sample NEFF is from another program, so the UUID mismatch is reported, not fatal).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setup, openApp, load, canvasColours, waitCanvasPainted, loupe, shot, findSlicePoint, SAMPLES } from './helpers.mjs';

const NTFF = join(SAMPLES, 'neuron', 'profile_128x128x1024.ntff');
const NEFF = join(SAMPLES, 'neuron', 'matmul_small.neff');

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

test('NTFF: device timeline with engine tracks, instruction details', async (t) => {
  if (!existsSync(NTFF)) assert.fail(`no sample ${NTFF}`);
  const { page, errors, context } = await openApp(env, { dpr: 2 });
  await load(page, NTFF);
  const l = await loupe(page);
  assert.equal(l.demo, false);
  assert.match(String(l.format), /ntff/);
  assert.ok(l.sliceCount > 300, `slices: ${l.sliceCount}`);
  const tracks = await page.getByTestId('track-list').textContent();
  for (const name of ['Tensor', 'Vector', 'Scalar', 'GpSimd', 'Sync']) assert.ok(tracks.includes(name), `track ${name} listed`);
  assert.ok((await waitCanvasPainted(page, 8)) > 8, 'canvas is not blank');
  const p = await findSlicePoint(page);
  assert.ok(p, 'a slice is painted');
  await page.mouse.click(p.x, p.y);
  await page.getByTestId('details').getByText('duration', { exact: true }).waitFor();
  // an instruction's own values (a row set over its instruction's arguments) are shown with them
  const details = await page.getByTestId('details').textContent();
  for (const k of ['pc', 'evt_wait_time_ns', 'wait_cycles', 'crc_in', 'crc_out']) assert.ok(details.includes(k), `argument ${k} shown`);
  await shot(page, 'neuron-ntff.png');
  assert.deepEqual(errors, []);
  await context.close();
});

test('NEFF + NTFF together load as one paired profile', async (t) => {
  if (!existsSync(NTFF) || !existsSync(NEFF)) assert.fail('no Neuron samples');
  const { page, errors, context } = await openApp(env);
  await load(page, [NEFF, NTFF]);
  const l = await loupe(page);
  assert.match(String(l.format), /ntff\+neff/);
  assert.ok(l.sliceCount > 300);
  assert.deepEqual(errors, []);
  await context.close();
});
