// The Summary widget on a device profile, as a Neuron user reads it: the shared NTFF (alone, and
// with a NEFF dropped beside it) shows MFU / HFU / MBU / arithmetic intensity as headline cells
// whose data-key / data-value equal what `loupe summary X.ntff --json` prints for those keys
// (a key the NTFF cannot give shows "—" with the reason on hover, in the page and absent from
// the CLI alike); the insights list is there with the same fired rules as the CLI's `insights`;
// an insight's button outlines its events; HBM traffic is a doughnut (read / write / unused
// bandwidth, shares from the CLI's MBU and bytes) when there are no spill bytes; with the NEFF,
// the Tensor view lists its tensors.
// Screenshots: tests/e2e/out/neuron-summary.png, tensors.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setup, openApp, load, shot, SAMPLES, OUT, runWorkspaceBin } from './helpers.mjs';

const NTFF = join(SAMPLES, 'neuron', 'profile_128x128x1024.ntff');
const NEFF = join(SAMPLES, 'neuron', 'matmul_small.neff');
const HEADLINE = ['mfu_estimated_percent', 'hfu_estimated_percent', 'mbu_estimated_percent', 'mm_arithmetic_intensity'];

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

/** `loupe summary --json [--neff N] FILE`: `$LOUPE_CLI_BIN`, else built by cargo. */
function cliSummary(file, neff) {
  const args = ['summary', '--json', ...(neff ? ['--neff', neff] : []), file];
  const out = runWorkspaceBin('LOUPE_CLI_BIN', ['--release', '-p', 'loupe-cli'], args);
  return JSON.parse(out.trim().split('\n')[0]);
}

async function check(page, cli, what) {
  const ds = cli.device_summary;
  assert.ok(ds, `${what}: the CLI gives a device summary`);
  const w = page.getByTestId('neuron-summary');
  await w.waitFor({ state: 'visible', timeout: 30000 });
  const head = page.getByTestId('ns-headline');
  for (const key of HEADLINE) {
    const cell = head.locator(`[data-key=${key}]`);
    assert.equal(await cell.count(), 1, `${what}: one headline cell for ${key}`);
    if (key in ds) {
      const v = Number(await cell.getAttribute('data-value'));
      assert.ok(Math.abs(v - ds[key]) <= 1e-12 * Math.abs(ds[key]) + 1e-18, `${what}: ${key}: page ${v}, CLI ${ds[key]}`);
    } else {
      assert.equal(await cell.getAttribute('data-missing'), 'true', `${what}: ${key} is not in the CLI's summary, the page marks it missing`);
      assert.equal(await cell.getAttribute('data-value'), null);
      assert.equal((await cell.textContent()).trim(), '—');
      assert.match(await cell.getAttribute('title'), /not available: \S/);
    }
  }
  // HFU and MBU come from the NTFF alone: they must be there
  for (const key of ['hfu_estimated_percent', 'mbu_estimated_percent']) assert.ok(key in ds, `${what}: CLI has ${key}`);
  // HBM traffic: a doughnut of the bandwidth over total_time when its shares are well-defined
  // (MBU known, no spill bytes): read + write = MBU split by their bytes, unused = 1 − MBU
  const fig = page.getByTestId('ns-hbm-figure');
  const doughnut = ds.spill_reload_bytes === 0 && ds.spill_save_bytes === 0 && 'mbu_estimated_percent' in ds;
  assert.equal(await fig.getAttribute('data-kind'), doughnut ? 'doughnut' : 'bars', `${what}: HBM figure kind`);
  if (doughnut) {
    const [r, w, u] = await Promise.all(['data-read', 'data-write', 'data-unused'].map(async (a) => Number(await fig.getAttribute(a))));
    const mbu = ds.mbu_estimated_percent;
    const total = ds.hbm_read_bytes + ds.hbm_write_bytes;
    const near = (a, b) => Math.abs(a - b) <= 1e-12;
    assert.ok(near(u, 1 - mbu), `${what}: unused ${u} = 1 − MBU ${1 - mbu}`);
    assert.ok(near(r, mbu * ds.hbm_read_bytes / total) && near(w, mbu * ds.hbm_write_bytes / total), `${what}: read ${r}, write ${w}`);
    assert.equal(await page.getByTestId('ns-hbm-legend').locator('li').count(), 3, `${what}: legend read / write / unused`);
  }
  // insights: the list is there, the fired rules are the CLI's
  const list = page.getByTestId('ns-insights');
  await list.waitFor();
  const fired = await list.locator('li[data-insight]').evaluateAll((els) => els.map((e) => e.dataset.insight));
  const cliFired = cli.insights.filter((i) => i.outcome === 'fired').map((i) => i.rule.id);
  assert.deepEqual(fired, cliFired, `${what}: fired insights`);
  assert.ok(fired.length > 0, `${what}: some insight fires on this capture`);
  const others = await page.getByTestId('ns-insights-other').locator('li[data-insight]').count();
  assert.equal(fired.length + others, cli.insights.length, `${what}: every rule is listed`);
  // no horizontal overflow in the Summary pane
  // (the device overview itself; the older tables below it are checked apart)
  const [overflow, pane, wide] = await page.getByTestId('neuron-summary').evaluate((el) => {
    const r = el.getBoundingClientRect();
    const wide = [...el.querySelectorAll('*')].filter((c) => c.getBoundingClientRect().right > r.right + 1)
      .slice(0, 5).map((c) => `${c.tagName}.${c.className}`);
    return [el.scrollWidth - el.clientWidth, r.width, wide];
  });
  assert.ok(overflow <= 1 && wide.length === 0, `${what}: the device overview (${pane} px) overflows by ${overflow} px: ${wide}`);
}

test('NTFF alone: headline cells equal the CLI, insights listed, an insight shows its events', async (t) => {
  if (!existsSync(NTFF)) { t.skip('no Neuron samples'); return; }
  const cli = cliSummary(NTFF);
  const { page, errors, context } = await openApp(env, { width: 1500, height: 1000 });
  await load(page, NTFF);
  await page.locator('.wb-tab[data-widget=summary]').click();
  await check(page, cli, 'NTFF');
  // the small-DGE-packets insight outlines its packets (the search hits count them)
  const small = page.locator('[data-testid=ns-insights] li[data-insight=small_dge_packets]');
  if (await small.count()) {
    const n = Number(await small.getAttribute('data-events'));
    assert.ok(n > 0, 'small DGE packets: events');
    await small.getByTestId('ns-insight-show').click();
    const origin = page.getByTestId('search-origin');
    await origin.waitFor();
    assert.equal(Number(await origin.getByTestId('search-count').textContent()), n, 'every small DGE packet outlined');
  }
  await page.getByTestId('neuron-summary').screenshot({ path: join(OUT, 'neuron-summary.png') });
  await shot(page, 'neuron-summary-page.png');
  assert.deepEqual(errors, []);
  await context.close();
});

test('NEFF + NTFF: the same cells as `loupe summary --neff`', async (t) => {
  if (!existsSync(NTFF) || !existsSync(NEFF)) { t.skip('no Neuron samples'); return; }
  const cli = cliSummary(NTFF, NEFF);
  const { page, errors, context } = await openApp(env, { width: 1500, height: 1000 });
  await load(page, [NEFF, NTFF]);
  await page.locator('.wb-tab[data-widget=summary]').click();
  await check(page, cli, 'NEFF + NTFF');
  // the Tensor view: the NEFF's tensors, sizes from dtype × shape, the DMA link's absence explained
  await page.locator('.wb-tab[data-widget=tensors]').click();
  const table = page.getByTestId('tensors-table');
  await table.waitFor({ state: 'visible' });
  const x = table.locator('tr[data-tensor=x]').first();
  assert.equal(await x.locator('td').nth(3).textContent(), 'float16');
  assert.equal(Number(await x.locator('td').nth(5).getAttribute('data-value')), 128 * 256 * 2);
  assert.match(await page.getByTestId('tensors-dma-note').textContent(), /cannot be linked to tensors/);
  await page.getByTestId('tensors-filter').fill('identity');
  const n = await table.locator('tbody tr').count();
  assert.ok(n > 0 && (await table.locator('tbody tr[data-tensor=x]').count()) === 0, `filter: ${n} rows`);
  await page.getByTestId('widget-tensors').screenshot({ path: join(OUT, 'tensors.png') });
  assert.deepEqual(errors, []);
  await context.close();
});
