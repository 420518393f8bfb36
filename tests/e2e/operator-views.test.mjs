// Operator Views (issue 9 §1): a Neuron device profile shows the framework / HLO operator views —
// pie with a legend and a table that sorts, filters, and highlights its events on the timeline.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setup, openApp, load, shot, SAMPLES } from './helpers.mjs';

const JSON_EXPORT = join(SAMPLES, 'neuron', 'profile_128x128x1024.json');
const KINETO_DIR = join(SAMPLES, 'pytorch-kineto');

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

test('device profile: operator views pie, table sort / filter, click highlights events', async (t) => {
  if (!existsSync(JSON_EXPORT)) assert.fail(`no sample ${JSON_EXPORT}`);
  const { page, errors, context } = await openApp(env);
  await load(page, JSON_EXPORT);
  await page.locator('.wb-tab[data-widget=operator-views]').click();
  const w = page.getByTestId('widget-operator-views');
  const table = w.getByTestId('op-views-table');
  await table.locator('tbody tr').first().waitFor();
  await page.waitForFunction(() => document.querySelector('[data-testid=op-views-pie]')?.dataset.drawn === 'true');
  const rows = table.locator('tbody tr');
  // the HLO view, checked against the export's own instruction rows (an independent sum)
  await w.locator('button.seg[data-level=hlo]').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=op-views-table] tbody tr[data-name]'));
  const n = await rows.count();
  assert.ok(n >= 1, `operator rows: ${n}`);
  const exp = JSON.parse(readFileSync(JSON_EXPORT, 'utf8'));
  const byHlo = new Map();
  // semaphore waits are waiting, not compute: left out by default (the "include waits" toggle)
  for (const i of exp.instruction) if (i.hlo_name && i.opcode !== 'EVENT_SEMAPHORE') byHlo.set(i.hlo_name, (byHlo.get(i.hlo_name) || 0) + Number(i.duration));
  const shown = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.dataset.name, Number(tr.querySelector('td[data-ns]').dataset.ns)]));
  console.log('HLO rows', shown, 'export', [...byHlo]);
  for (const [name, ns] of shown) {
    const want = [...byHlo].find(([k]) => k.includes(name) || name.includes(k));
    assert.ok(want, `HLO op ${name} is in the export`);
    assert.ok(ns >= want[1], `${name}: ${ns} ns ≥ its instructions' ${want[1]} ns (DMA attributed to it adds)`);
  }
  // sorted by time, longest first; clicking the header flips it
  const times = async () => (await table.locator('tbody td[data-ns]').evaluateAll((tds) => tds.map((td) => Number(td.dataset.ns))));
  let ts = await times();
  assert.deepEqual(ts, [...ts].sort((a, b) => b - a), 'time descending');
  await table.locator('th[data-sort=time]').click();
  ts = await times();
  assert.deepEqual(ts, [...ts].sort((a, b) => a - b), 'time ascending after a click');
  // the legend lists the pie's parts with percentages
  assert.ok((await w.getByTestId('op-views-legend').locator('li').count()) >= 2);
  // filter by the first row's name keeps it
  const name = await rows.first().getAttribute('data-name');
  await w.getByTestId('op-views-filter').fill(name);
  assert.ok((await rows.count()) >= 1 && (await rows.count()) <= n);
  assert.equal(await rows.first().getAttribute('data-name'), name);
  await shot(page, 'operator-views-device.png');
  // click → its events are highlighted (the search widget says so)
  await rows.first().click();
  const origin = page.getByTestId('search-origin');
  await origin.waitFor();
  const count = Number(await origin.getByTestId('search-count').textContent());
  assert.ok(count > 0, `highlighted ${count}`);
  await shot(page, 'operator-views-highlight.png');
  assert.deepEqual(errors, []);
  await context.close();
});

test('host trace: operator views say why they do not apply', async (t) => {
  const files = existsSync(KINETO_DIR) ? (await import('node:fs')).readdirSync(KINETO_DIR).filter((f) => /\.json(\.gz)?$/.test(f)) : [];
  if (!files.length) assert.fail('no Kineto sample');
  const { page, errors, context } = await openApp(env);
  await load(page, join(KINETO_DIR, files[0]));
  // not in the default layout of a host trace: add it from the menu
  await page.getByTestId('add-widget-menu').locator('summary').click();
  await page.getByTestId('add-widget-menu').locator('button[data-widget=operator-views]').click();
  const w = page.getByTestId('widget-operator-views');
  await w.getByText('need a device profile').waitFor();
  assert.deepEqual(errors, []);
  await context.close();
});
