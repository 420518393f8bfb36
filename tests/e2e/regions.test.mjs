// Regions widget (issue 40 §2, Neuron Explorer's Region Highlighter): on a Kineto rank the
// iterations and collective-boundary regions equal what `loupe regions --json` prints for the same
// file, and the iterations equal an independent count of ProfilerStep#N events in the JSON; two
// regions compared side by side; "As annotations" makes the regions the current marker set. On the
// Neuron JSON export, regions by HLO operator equal the CLI's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { setup, openApp, load, shot, SAMPLES, runWorkspaceBin } from './helpers.mjs';

const RANK0 = join(SAMPLES, 'pytorch-kineto', 'hta__trace_filter_sampled_rank-0.json.gz');
const NEURON = join(SAMPLES, 'neuron', 'profile_128x128x1024.json');

const cli = (file, method) =>
  JSON.parse(runWorkspaceBin('LOUPE_CLI_BIN', ['--release', '-p', 'loupe-cli'], ['regions', '--json', '--method', method, file]));

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

async function open(page, file) {
  await load(page, file);
  await page.waitForFunction(() => !window.__loupe.demo, null, { timeout: 60000 });
  await page.locator('.wb-tab[data-widget=regions]').click();
  return page.getByTestId('widget-regions');
}

async function count(w) {
  const c = w.getByTestId('regions-count');
  await c.waitFor({ timeout: 30000 });
  return Number(await c.getAttribute('data-count'));
}

test('Regions on a Kineto rank: iterations and collectives equal the CLI, compare, as annotations', async () => {
  // independent: the ProfilerStep#N annotations of the JSON itself
  const json = JSON.parse(gunzipSync(readFileSync(RANK0)).toString('utf8'));
  const steps = new Set(json.traceEvents.filter((e) => e.ph === 'X' && /^ProfilerStep#\d+$/.test(e.name)).map((e) => e.name));
  assert.ok(steps.size >= 2, 'the sample has iterations');
  const iters = cli(RANK0, 'iterations');
  assert.equal(iters.regions.length, steps.size, 'one region per ProfilerStep');
  const colls = cli(RANK0, 'collectives');
  assert.ok(colls.regions.length >= 1, 'the sample has collectives');

  const { page, errors } = await openApp(env, { width: 1440, height: 900 });
  const w = await open(page, RANK0);
  const method = w.getByTestId('regions-method');
  await method.selectOption('iterations');
  await w.locator(`[data-testid=regions-count][data-count="${steps.size}"]`).waitFor({ timeout: 30000 });
  const rows = w.locator('[data-testid=regions-table] tbody tr');
  assert.equal(await rows.count(), steps.size);
  for (let i = 0; i < iters.regions.length; i++) {
    const r = rows.nth(i);
    assert.equal(await r.getAttribute('data-name'), iters.regions[i].name);
    assert.equal(Number(await r.getAttribute('data-start')), iters.regions[i].start_ns);
    assert.equal(Number(await r.getAttribute('data-end')), iters.regions[i].end_ns);
  }
  // two regions side by side
  await rows.nth(0).getByTestId('region-compare').click();
  await rows.nth(1).getByTestId('region-compare').click();
  const cmp = w.getByTestId('regions-compare');
  await cmp.waitFor();
  assert.equal(await cmp.locator('thead th').count(), 3, 'label column + two regions');
  assert.match(await cmp.textContent(), /length/);
  // the regions become the annotation markers
  await w.getByTestId('regions-annotate').click();
  const msg = w.getByTestId('regions-message');
  await msg.waitFor();
  const markers = Number((await msg.textContent()).match(/^(\d+) markers/)[1]);
  assert.ok(markers >= steps.size && markers <= 2 * steps.size, `${markers} markers for ${steps.size} iterations`);
  await shot(page, 'regions-kineto-1440x900.png');

  await method.selectOption('collectives');
  assert.equal(await count(w), colls.regions.length, 'collective regions as the CLI');
  assert.equal(await w.locator('[data-testid=regions-table] tbody tr').first().getAttribute('data-name'), colls.regions[0].name);
  assert.deepEqual(errors, []);
});

test('Regions on a Neuron export: by HLO operator as the CLI; unavailable methods say why', async () => {
  const hlo = cli(NEURON, 'hlo');
  assert.ok(hlo.regions.length >= 1);
  const { page, errors } = await openApp(env, { width: 1440, height: 900 });
  const w = await open(page, NEURON);
  await w.getByTestId('regions-method').selectOption('hlo');
  assert.equal(await count(w), hlo.regions.length);
  const first = w.locator('[data-testid=regions-table] tbody tr').first();
  assert.equal(await first.getAttribute('data-name'), hlo.regions[0].name);
  assert.equal(Number(await first.getAttribute('data-start')), hlo.regions[0].start_ns);
  // a device profile has no iterations nor collectives: listed with the reason, not offered
  assert.equal(await w.locator('option[value=iterations]').getAttribute('disabled'), '');
  assert.match(await w.locator('li[data-method=collectives]').textContent(), /no collective kernels/);
  await shot(page, 'regions-neuron-1440x900.png');
  assert.deepEqual(errors, []);
});
