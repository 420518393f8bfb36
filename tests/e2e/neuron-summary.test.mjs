// The Summary widget on a device profile, as a Neuron user reads it: the shared NTFF (alone, and
// with a NEFF dropped beside it) shows MFU / HFU / MBU / arithmetic intensity as headline cells
// whose data-key / data-value equal what `loupe summary X.ntff --json` prints for those keys
// (a key the NTFF cannot give shows "—" with the reason on hover, in the page and absent from
// the CLI alike); the insights list is there with the same fired rules as the CLI's `insights`;
// an insight's button outlines its events; HBM traffic is a doughnut (read / write / unused
// bandwidth, shares from the CLI's MBU and bytes) when there are no spill bytes; with the NEFF,
// the Tensor view lists its tensors.
// The scope switch: after a zoom, "Current view" sums the visible window, every cell's
// data-value equals `loupe summary --window T0:T1 --json` for the window the scope line states
// (cells marked data-scope=whole equal the whole profile's), and a further zoom is followed.
// A large generated capture (`gen_neuron_pair`, $LOUPE_GEN_NEURON_PAIR_BIN) prints how long the
// current view's summary took and its longest step between two turns of the browser.
// Screenshots: tests/e2e/out/neuron-summary.png, tensors.png, neuron-summary-scope{,-dma,-page}-{light,dark}.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setup, openApp, load, shot, SAMPLES, OUT, ROOT, runWorkspaceBin } from './helpers.mjs';

const NTFF = join(SAMPLES, 'neuron', 'profile_128x128x1024.ntff');
const NEFF = join(SAMPLES, 'neuron', 'matmul_small.neff');
const HEADLINE = ['mfu_estimated_percent', 'hfu_estimated_percent', 'mbu_estimated_percent', 'mm_arithmetic_intensity'];

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

/** `loupe summary --json [--neff N] FILE`: `$LOUPE_CLI_BIN`, else built by cargo. */
function cliSummary(file, neff, window) {
  const args = ['summary', '--json', ...(neff ? ['--neff', neff] : []), ...(window ? ['--window', `${window[0]}:${window[1]}`] : []), file];
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
  if (!existsSync(NTFF)) assert.fail('no Neuron samples');
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
  if (!existsSync(NTFF) || !existsSync(NEFF)) assert.fail('no Neuron samples');
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

/** Every value cell of the overview: key → { value, scope }. */
async function cells(page) {
  return page.getByTestId('neuron-summary').evaluate((el) => Object.fromEntries(
    [...el.querySelectorAll('[data-key][data-value]')].map((c) => [c.dataset.key, { value: c.dataset.value, scope: c.dataset.scope }])));
}

/** The scope line once the scope `id` is summed: its window. */
async function summed(page, id, notWindow) {
  await page.waitForFunction(([id, nw]) => {
    const l = document.querySelector('[data-testid=ns-scope-line]');
    return l && l.dataset.scope === id && l.dataset.pending === 'false' && (!nw || `${l.dataset.t0}:${l.dataset.t1}` !== nw);
  }, [id, notWindow], { timeout: 60000 });
  const l = page.getByTestId('ns-scope-line');
  return [Number(await l.getAttribute('data-t0')), Number(await l.getAttribute('data-t1')), Number(await l.getAttribute('data-ms')), await l.getAttribute('title')];
}

/** Each cell equals the CLI: the window's keys its `device_summary_window`, the others the whole's. */
function sameAsCli(got, cli, what, id = 'view') {
  const win = cli.device_summary_window.summary;
  let n = 0;
  for (const [key, { value, scope }] of Object.entries(got)) {
    const want = scope === 'whole' ? cli.device_summary[key] : win[key];
    assert.ok(want !== undefined, `${what}: ${key} (${scope}) is in the CLI's summary`);
    if (scope !== 'whole') assert.equal(scope, id, `${what}: ${key}`);
    const v = Number(value);
    assert.ok(Math.abs(v - want) <= 1e-12 * Math.abs(want) + 1e-18, `${what}: ${key} (${scope}): page ${v}, CLI ${want}`);
    n += 1;
  }
  return n;
}

async function zoomIn(page, times) {
  const box = await page.getByTestId('timeline').boundingBox();
  await page.mouse.move(box.x + box.width * 0.45, box.y + 80);
  for (let i = 0; i < times; i++) await page.keyboard.press('w');
}

for (const colorScheme of ['light', 'dark']) {
  test(`NTFF, ${colorScheme}: the current view after a zoom, each cell as \`loupe summary --window\``, async (t) => {
    if (!existsSync(NTFF)) assert.fail('no Neuron samples');
    const { page, errors, context } = await openApp(env, { width: 1440, height: 900, colorScheme });
    await load(page, NTFF);
    await page.locator('.wb-tab[data-widget=summary]').click();
    await page.getByTestId('neuron-summary').waitFor({ state: 'visible', timeout: 30000 });
    assert.equal(await page.getByTestId('ns-scope-line').getAttribute('data-scope'), 'whole');
    const whole = await cells(page);
    assert.ok(Object.values(whole).every((c) => c.scope === 'whole'), 'whole profile: every cell says so');
    // no box selection, no markers: only the whole profile and the current view are offered
    const offered = await page.getByTestId('ns-scope').locator('button[data-scope]').evaluateAll((b) => b.map((x) => x.dataset.scope));
    assert.deepEqual(offered, ['whole', 'view']);

    await page.getByTestId('timeline').click({ position: { x: 300, y: 5 } }).catch(() => {});
    await zoomIn(page, 4);
    await page.waitForTimeout(300);
    await page.getByTestId('ns-scope').locator('button[data-scope=view]').click();
    const [t0, t1, ms] = await summed(page, 'view');
    assert.ok(t0 > 0 && t1 > t0, `a window: ${t0}..${t1}`);
    const view = await cells(page);
    const cli = cliSummary(NTFF, null, [t0, t1]);
    const n = sameAsCli(view, cli, `view ${t0}:${t1}`);
    const inView = Object.entries(view).filter(([, c]) => c.scope === 'view');
    const changed = inView.filter(([k, c]) => c.value !== whole[k]?.value).map(([k]) => k);
    assert.ok(inView.length >= 15, `cells summed over the view: ${inView.map(([k]) => k)}`);
    assert.ok(changed.length >= 8, `cells that changed: ${changed}`);
    for (const k of ['hfu_estimated_percent', 'tensor_engine_active_time_percent', 'static_dma_packet_count']) {
      assert.equal(view[k]?.scope, 'view', `${k} is over the view`);
    }
    assert.equal(view.mbu_estimated_percent?.scope, 'whole', 'MBU is the whole profile\'s (marked)');
    console.log(`# ${colorScheme}: view ${t1 - t0} ns: ${n} cells equal the CLI, ${changed.length} changed from the whole profile; summed in ${ms} ms`);
    // over a part, the insights (the whole profile's) come last, folded
    assert.equal(await page.getByTestId('ns-insights-whole').count(), 1);
    assert.equal(await page.getByTestId('ns-insights-whole').evaluate((e) => e.open), false);
    const pane = page.getByTestId('widget-summary');
    await pane.screenshot({ path: join(OUT, `neuron-summary-scope-${colorScheme}.png`) });
    await page.getByTestId('ns-dma').scrollIntoViewIfNeeded();
    await pane.screenshot({ path: join(OUT, `neuron-summary-scope-dma-${colorScheme}.png`) });
    await shot(page, `neuron-summary-scope-page-${colorScheme}.png`);

    // the view moves on: the summary follows it (debounced), still equal to the CLI
    await zoomIn(page, 2);
    const [u0, u1] = await summed(page, 'view', `${t0}:${t1}`);
    assert.ok(u1 - u0 < t1 - t0, `zoomed further: ${u1 - u0} < ${t1 - t0}`);
    sameAsCli(await cells(page), cliSummary(NTFF, null, [u0, u1]), `view ${u0}:${u1}`);

    // a box selection (Shift+drag): its time range, all tracks
    if (colorScheme === 'light') {
      const box = await page.getByTestId('timeline').boundingBox();
      await page.keyboard.down('Shift');
      await page.mouse.move(box.x + box.width * 0.3, box.y + 40);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.6, box.y + 200, { steps: 6 });
      await page.mouse.up();
      await page.keyboard.up('Shift');
      await page.locator('.wb-tab[data-widget=summary]').click();
      const sel = page.getByTestId('ns-scope').locator('button[data-scope=selection]');
      await sel.waitFor({ timeout: 10000 });
      await sel.click();
      const [s0, s1] = await summed(page, 'selection');
      assert.ok(s1 > s0, `selection ${s0}..${s1}`);
      const m = sameAsCli(await cells(page), cliSummary(NTFF, null, [s0, s1]), `selection ${s0}:${s1}`, 'selection');
      console.log(`# box selection ${s1 - s0} ns: ${m} cells equal the CLI`);

      // two annotation markers (right-click on the timeline): the interval between them
      for (const f of [0.35, 0.55]) {
        await page.mouse.click(box.x + box.width * f, box.y + 120, { button: 'right' });
      }
      await page.waitForFunction(() => window.__loupe.markers && window.__loupe.markers.length === 2, null, { timeout: 10000 });
      await page.locator('.wb-tab[data-widget=summary]').click();
      const ann = page.getByTestId('ns-scope').locator('button[data-scope=annotation]');
      await ann.waitFor({ timeout: 10000 });
      await ann.click();
      const [a0, a1] = await summed(page, 'annotation');
      assert.match(await page.getByTestId('ns-scope-interval').locator('option:checked').textContent(), /A → B|B → A/);
      const k = sameAsCli(await cells(page), cliSummary(NTFF, null, [a0, a1]), `annotation ${a0}:${a1}`, 'annotation');
      console.log(`# annotation interval ${a1 - a0} ns: ${k} cells equal the CLI`);
    }

    // back to the whole profile: the first numbers again
    await page.getByTestId('ns-scope').locator('button[data-scope=whole]').click();
    await page.waitForFunction(() => document.querySelector('[data-testid=ns-scope-line]')?.dataset.scope === 'whole');
    assert.deepEqual(await cells(page), whole);
    assert.deepEqual(errors, []);
    await context.close();
  });
}

test('a large generated capture: the current view summed in steps', async () => {
  const dir = join(ROOT, 'target', 'e2e-ns-large');
  mkdirSync(dir, { recursive: true });
  const iterations = Number(process.env.LOUPE_NS_LARGE_ITERATIONS || 200000);
  runWorkspaceBin('LOUPE_GEN_NEURON_PAIR_BIN', ['-p', 'loupe-core', '--example', 'gen_neuron_pair'], [dir, String(iterations)], { stdio: 'pipe' });
  const ntff = join(dir, 'model.ntff');
  const { page, errors, context } = await openApp(env, { width: 1440, height: 900 });
  await load(page, ntff);
  await page.locator('.wb-tab[data-widget=summary]').click();
  await page.getByTestId('neuron-summary').waitFor({ state: 'visible', timeout: 60000 });
  await page.getByTestId('ns-scope').locator('button[data-scope=view]').click();
  const [t0, t1, ms, title] = await summed(page, 'view');
  const events = await page.evaluate(() => window.__loupe?.sliceCount ?? null);
  console.log(`# large capture (${iterations} iterations, ${(statSync(ntff).size / 1e6).toFixed(1)} MB, ${events ?? '?'} slices): current view ${t1 - t0} ns summed in ${ms} ms (${title})`);
  assert.ok(ms >= 0);
  assert.deepEqual(errors, []);
  await context.close();
});
