// The Dashboard widget (DLProf-style): a Kineto sample shows GPU utilisation, the resource pie,
// the top ops bars, recommendations and tables; an iteration range re-aggregates; a row click
// highlights events on the timeline. DLProf's own report CSVs open as tables.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setup, openApp, state, shot, SAMPLES } from './helpers.mjs';

const KINETO = join(SAMPLES, 'pytorch-kineto');
const kineto = existsSync(KINETO)
  ? readdirSync(KINETO).find((f) => f.includes('ns_resolution_trace') && f.endsWith('.json.gz'))
  : undefined;
const DLPROF = join(SAMPLES, 'dlprof');
const dlprofCsvs = existsSync(DLPROF)
  ? readdirSync(DLPROF).filter((f) => f.startsWith('odema_w_Relu') && f.endsWith('.csv')).sort()
  : [];

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

async function load(page, files) {
  await page.getByTestId('open-file').setInputFiles(files);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 90000 });
  if ((await state(page)) === 'error') assert.fail(`load failed: ${await page.getByTestId('load-error').textContent()}`);
}

/** Share of non-white pixels in a chart canvas's backing store. */
async function inked(page, testid) {
  return page.evaluate((id) => {
    const c = document.querySelector(`[data-testid=${id}]`);
    if (!c || !c.width) return 0;
    const { data } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
    let n = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i] < 240 || data[i + 1] < 240 || data[i + 2] < 240) n++;
    return n / (data.length / 4);
  }, testid);
}

test('Kineto sample: utilisation, pie, top ops, recommendations, range, highlight', async (t) => {
  if (!kineto) assert.fail(`no Kineto sample in ${KINETO}`);
  const { page, errors, context } = await openApp(env, { width: 1500, height: 950 });
  await load(page, join(KINETO, kineto));
  await page.locator('.wb-tab[data-widget=dashboard]').click();
  const w = page.getByTestId('widget-dashboard');
  await w.getByTestId('dash-utilisation').waitFor();
  const util = Number(await w.getByTestId('dash-utilisation').getAttribute('data-value'));
  assert.ok(util > 50 && util < 100, `utilisation ${util}`);
  // pie and bars drawn (pixels), legends beside them
  await page.waitForFunction(() => document.querySelector('[data-testid=dash-resources-pie]')?.dataset.drawn === 'true');
  assert.ok((await inked(page, 'dash-resources-pie')) > 0.2, 'the pie is drawn');
  assert.ok((await inked(page, 'dash-top-ops-bars')) > 0.05, 'the bars are drawn');
  assert.equal(await w.getByTestId('dash-resources-legend').locator('li').count(), 6);
  assert.equal(await w.getByTestId('dash-top-ops-legend').locator('li').count(), 10);
  const recs = await w.getByTestId('dash-recommendations').locator('li').evaluateAll((l) => l.map((e) => e.dataset.key));
  assert.ok(recs.includes('low_tensor_core'), `recommendations ${recs}`);
  assert.match(await w.getByTestId('dash-recommendations').textContent(), /threshold 50 %/);
  await shot(page, 'dashboard-kineto.png');

  // one iteration: every panel re-aggregates
  const opsBefore = await w.getByTestId('dash-ops').locator('tbody tr').count();
  const from = w.getByTestId('dash-iter-from');
  const lo = Number(await from.getAttribute('min'));
  await w.getByTestId('dash-iter-to').fill(String(lo));
  await w.getByTestId('dash-iter-to').dispatchEvent('change');
  await page.waitForFunction(() => /iteration \d+ over/.test(document.querySelector('[data-testid=dash-utilisation]').textContent));
  const util1 = Number(await w.getByTestId('dash-utilisation').getAttribute('data-value'));
  assert.notEqual(util1, util, 'utilisation follows the range');
  const opsAfter = await w.getByTestId('dash-ops').locator('tbody tr').count();
  assert.ok(opsAfter > 0 && opsAfter <= opsBefore, `ops ${opsBefore} → ${opsAfter}`);
  await shot(page, 'dashboard-kineto-iteration.png');

  // sort the kernels table by calls, filter it, click the first row: events highlighted
  const kernels = w.getByTestId('dash-kernels');
  await kernels.locator('th[data-col="3"]').click();
  assert.equal(await kernels.locator('th[data-col="3"]').getAttribute('aria-sort'), 'descending');
  const counts = await kernels.locator('tbody tr td:nth-child(4)').evaluateAll((l) => l.map((e) => Number(e.textContent)));
  assert.deepEqual(counts, [...counts].sort((a, b) => b - a), 'sorted by calls, descending');
  await w.getByTestId('dash-kernels-filter').fill('Memcpy');
  const names = await kernels.locator('tbody tr td:first-child').evaluateAll((l) => l.map((e) => e.textContent));
  assert.ok(names.length > 0 && names.every((n) => /memcpy/i.test(n)), `filtered ${names}`);
  await kernels.locator('tbody tr').first().click();
  await page.getByTestId('search-origin').waitFor();
  const hits = Number(await page.getByTestId('search-count').textContent());
  assert.ok(hits > 0, `highlighted ${hits}`);
  await shot(page, 'dashboard-kineto-highlight.png');
  assert.deepEqual(errors, []);
  await context.close();
});

test('DLProf report CSVs open as tables', async (t) => {
  if (dlprofCsvs.length === 0) assert.fail(`no DLProf CSV samples in ${DLPROF}`);
  const { page, errors, context } = await openApp(env, { width: 1500, height: 950 });
  await load(page, dlprofCsvs.map((f) => join(DLPROF, f)));
  const w = page.getByTestId('widget-dashboard');
  await w.getByTestId('dash-reports').waitFor();
  const kinds = await w.locator('.dash-report').evaluateAll((l) => l.map((e) => e.dataset.kind));
  for (const k of ['summary', 'ops', 'kernels', 'iterations', 'op_types', 'group_ops', 'tensor_core', 'recommendations']) {
    assert.ok(kinds.includes(k), `table kind ${k} in ${kinds}`);
  }
  const kernelTable = w.locator('.dash-report[data-kind=kernels] [data-testid=dash-report-table]');
  assert.equal(await kernelTable.locator('tbody tr').count(), 49);
  assert.match(await w.locator('.dash-report[data-kind=recommendations]').textContent(), /AMP/);
  await shot(page, 'dashboard-dlprof.png');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a CPU-only trace says why the dashboard does not apply', async (t) => {
  const cpuOnly = existsSync(KINETO) ? readdirSync(KINETO).find((f) => f.includes('cpu_only')) : undefined;
  if (!cpuOnly) assert.fail('no CPU-only Kineto sample');
  const { page, errors, context } = await openApp(env);
  await load(page, join(KINETO, cpuOnly));
  // a CPU-only trace's default layout has no GPU widgets: add the Dashboard from the menu
  await page.getByTestId('add-widget-menu').locator('summary').click();
  await page.getByTestId('add-widget-menu').locator('button[data-widget=dashboard]').click();
  await page.getByTestId('dash-empty').waitFor();
  assert.match(await page.getByTestId('dash-empty').textContent(), /needs GPU kernels/);
  assert.deepEqual(errors, []);
  await context.close();
});
