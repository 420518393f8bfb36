// GPU Breakdown and Latency widgets (issue 9 §2, §4, §5): on a Kineto trace the widgets show the
// numbers `loupe analyze --json` prints for the same file (the CLI is run here), draw their
// charts, and highlight the events of a clicked row; they compute only once their tab is shown.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setup, openApp, state, shot, SAMPLES, ROOT, runWorkspaceBin } from './helpers.mjs';

// HTA reads it (scripts/hta_oracle.py): computation, NCCL communication and memcpy on two
// streams, three ProfilerSteps (the last is dropped), launch flows
const FILE = join(SAMPLES, 'pytorch-kineto', 'hta__nccl_parser_config_nccl_data.json.gz');

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

/** `loupe analyze --json FILE [extra]`: `$LOUPE_CLI_BIN`, else built by cargo. */
function analyze(file, extra = []) {
  return JSON.parse(runWorkspaceBin('LOUPE_CLI_BIN', ['--release', '-p', 'loupe-cli'], ['analyze', '--json', ...extra, file]));
}

async function load(page, file) {
  await page.getByTestId('open-file').setInputFiles(file);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 60000 });
  if ((await state(page)) === 'error') assert.fail(`load failed: ${await page.getByTestId('load-error').textContent()}`);
}

const drawn = (page, id) => page.waitForFunction((i) => document.querySelector(`[data-testid=${i}]`)?.dataset.drawn === 'true', id, { timeout: 10000 });

async function highlighted(page) {
  const origin = page.getByTestId('search-origin');
  await origin.waitFor();
  return { count: Number(await origin.getByTestId('search-count').textContent()), text: await origin.textContent() };
}

test('Kineto: GPU breakdown equals loupe analyze, charts drawn, rows highlight their events', async (t) => {
  if (!existsSync(FILE)) assert.fail(`no sample ${FILE}`);
  const cli = analyze(FILE);
  const rank = cli.temporal_breakdown.ranks[0];
  const { page, errors, context } = await openApp(env, { width: 1500, height: 1500 });
  await load(page, FILE);
  const w = page.getByTestId('widget-gpu-breakdown');
  // the GPU trace layout opens on it (the side pane's first tab)
  assert.equal(await page.locator('.wb-tab[data-widget=gpu-breakdown]').getAttribute('aria-selected'), 'true');
  const temporal = w.getByTestId('gpu-temporal');
  await temporal.waitFor({ timeout: 30000 });

  // temporal breakdown: the CLI's numbers, ns for ns
  const cell = async (key) => {
    const tr = temporal.locator(`tr[data-key=${key}]`);
    return { ns: Number(await tr.getAttribute('data-ns')), pct: Number(await tr.getAttribute('data-pct')) };
  };
  for (const [key, ns, pct] of [['idle', rank.idle_ns, rank.idle_pct], ['compute', rank.compute_ns, rank.compute_pct], ['non_compute', rank.non_compute_ns, rank.non_compute_pct]]) {
    const c = await cell(key);
    assert.equal(c.ns, ns, `${key} ns`);
    assert.equal(c.pct, pct, `${key} %`);
  }
  assert.equal((await cell('kernel')).ns, rank.kernel_ns);
  console.log('temporal', rank);
  // HTA's rules are stated
  const method = await w.getByTestId('gpu-method').textContent();
  assert.match(method, /HTA/);
  assert.match(method, /last ProfilerStep/);
  assert.match(method, /whole µs/);

  // kernel types: every CLI total
  const types = w.getByTestId('gpu-kernel-types');
  for (const k of cli.kernel_types) {
    assert.equal(Number(await types.locator(`tr[data-type="${k.type}"] td[data-ns]`).getAttribute('data-ns')), k.total_ns, k.type);
  }
  assert.equal(await types.locator('tbody tr').count(), cli.kernel_types.length);

  // top computation kernels of rank 0, in the CLI's order, the rest folded
  const top = cli.top_kernels.find((k) => k.rank === rank.rank && k.type === 'COMPUTATION');
  const table = w.getByTestId('gpu-top-table');
  const shown = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.dataset.name, Number(tr.querySelector('td[data-ns]').dataset.ns), Number(tr.querySelector('td[data-count]').dataset.count)]));
  assert.deepEqual(shown, top.kernels.map((k) => [k.name, k.total_ns, k.count]));
  assert.equal(await table.locator('tr[data-folded=true]').count(), top.kernels.some((k) => k.name === 'others') ? 1 : 0);
  // sort by count ascending, then back
  await table.locator('th[data-sort=count]').click();
  // (the folded rest stays last)
  const kernelCounts = () => table.locator('tbody tr[data-folded=false] td[data-count]').evaluateAll((tds) => tds.map((td) => Number(td.dataset.count)));
  let counts = await kernelCounts();
  assert.deepEqual(counts, [...counts].sort((a, b) => b - a), 'count descending');
  await table.locator('th[data-sort=count]').click();
  counts = await kernelCounts();
  assert.deepEqual(counts, [...counts].sort((a, b) => a - b), 'count ascending');
  assert.equal(await table.locator('tbody tr').last().getAttribute('data-folded'), String(top.kernels.some((k) => k.name === 'others')));
  await table.locator('th[data-sort=total]').click();

  // charts drawn
  for (const id of ['gpu-temporal-pie', 'gpu-types-pie', 'gpu-top-bars', 'gpu-launch-hist', 'gpu-util-area']) await drawn(page, id);
  await shot(page, 'gpu-breakdown.png');
  await w.screenshot({ path: join(ROOT, 'tests/e2e/out/gpu-breakdown-widget.png') });
  // in the default (narrow) side pane nothing is cut off: the temporal breakdown and kernel types
  // tables show every column (below their doughnut when there is no room beside it), the wide
  // tables scroll sideways inside the widget
  for (const id of ['gpu-temporal', 'gpu-kernel-types']) {
    const fit = await w.getByTestId(id).evaluate((t) => ({ sw: t.scrollWidth, cw: t.clientWidth, r: t.getBoundingClientRect().right }));
    const right = await w.evaluate((e) => e.getBoundingClientRect().right);
    assert.ok(fit.sw <= fit.cw + 1 && fit.r <= right + 1, `${id}: ${JSON.stringify(fit)}, widget right ${right}`);
  }
  for (const id of ['gpu-top-table', 'gpu-idle-table']) {
    const box = await w.getByTestId(id).evaluate((t) => {
      const p = t.parentElement;
      return { scroll: getComputedStyle(p).overflowX, right: p.getBoundingClientRect().right };
    });
    const right = await w.evaluate((e) => e.getBoundingClientRect().right);
    assert.ok(box.scroll === 'auto' && box.right <= right + 1, `${id}: ${JSON.stringify(box)}, widget right ${right}`);
  }

  // click a kernel row: exactly its occurrences are highlighted
  const first = table.locator('tbody tr[data-folded=false]').first();
  const want = Number(await first.locator('td[data-count]').getAttribute('data-count'));
  await first.click();
  let h = await highlighted(page);
  assert.equal(h.count, want, `kernel row highlights its ${want} kernels`);
  assert.match(h.text, /events? highlighted from/);
  // the folded rest: as many kernels as the "others" row counts
  const others = table.locator('tbody tr[data-folded=true]');
  if (await others.count()) {
    const n = Number(await others.locator('td[data-count]').getAttribute('data-count'));
    await others.click();
    await page.waitForFunction((x) => Number(document.querySelector('[data-testid=search-origin] [data-testid=search-count]')?.textContent) === x, n);
  }
  // a kernel type and a stream
  await types.locator('tr[data-type=COMMUNICATION]').click();
  await page.waitForFunction(() => /COMMUNICATION kernels/.test(document.querySelector('[data-testid=search-origin]')?.textContent || ''));
  h = await highlighted(page);
  const comm = cli.top_kernels.find((k) => k.rank === rank.rank && k.type === 'COMMUNICATION');
  assert.equal(h.count, comm.kernels.reduce((s, k) => s + k.count, 0), 'every communication kernel');
  const idle = w.getByTestId('gpu-idle-table');
  assert.equal(await idle.locator('tbody tr').count(), cli.idle_breakdown.filter((s) => s.rank === rank.rank).length);
  const s0 = cli.idle_breakdown[0];
  assert.equal(Number(await idle.locator(`tr[data-stream="${s0.stream}"] td[data-ns]`).getAttribute('data-ns')), s0.idle_ns);
  await idle.locator(`tr[data-stream="${s0.stream}"]`).click();
  await page.waitForFunction((s) => (document.querySelector('[data-testid=search-origin]')?.textContent || '').includes(s), s0.stream);
  h = await highlighted(page);
  assert.ok(h.count > 0, `stream events ${h.count}`);
  await shot(page, 'gpu-breakdown-highlight.png');

  // overlap and exposed time as the CLI
  const ov = cli.comm_comp_overlap.find((o) => o.rank === rank.rank);
  if (ov.overlap_pct !== null) assert.equal(Number(await w.getByTestId('gpu-overlap').getAttribute('data-pct')), ov.overlap_pct);
  const ex = cli.exposed_time.find((e) => e.rank === rank.rank);
  assert.equal(Number(await w.locator('[data-testid=gpu-exposed] tr[data-key=exposed_comm]').getAttribute('data-ns')), ex.exposed_comm_ns);

  // a launch-delay outlier selects its kernel (Event Details, in the tab behind, shows it)
  const outlier = w.getByTestId('gpu-outlier').first();
  if (await outlier.count()) {
    const name = await outlier.getAttribute('title');
    await outlier.click();
    await page.waitForFunction((n) => document.querySelector('[data-testid=details] .details-title')?.textContent === n, name);
  }

  // Loupe's definitions by default: busy as the CLI's
  assert.equal((await cell('busy')).ns, rank.busy_ns);
  assert.equal(await w.getByTestId('gpu-method').getAttribute('data-definitions'), 'loupe');
  // HTA's definitions: equal to `analyze --definitions hta`
  await w.locator('button[data-option=hta]').click();
  const hta = analyze(FILE, ['--definitions', 'hta']).temporal_breakdown.ranks[0];
  await page.waitForFunction(() => document.querySelector('[data-testid=gpu-method]')?.dataset.definitions === 'hta', null, { timeout: 30000 });
  await page.waitForFunction((ns) => document.querySelector('[data-testid=gpu-temporal] tr[data-key=kernel]')?.dataset.ns === String(ns), hta.kernel_ns, { timeout: 30000 });
  assert.equal((await cell('idle')).ns, hta.idle_ns);
  // HTA's switches: exact ns and the last step kept, equal to the CLI with the same switches
  await w.locator('button[data-option=exact]').click();
  await w.locator('button[data-option=keep-last-step]').click();
  const exact = analyze(FILE, ['--definitions', 'hta', '--exact', '--keep-last-step']).temporal_breakdown.ranks[0];
  await page.waitForFunction((ns) => document.querySelector('[data-testid=gpu-temporal] tr[data-key=kernel]')?.dataset.ns === String(ns), exact.kernel_ns, { timeout: 30000 });
  assert.equal((await cell('idle')).ns, exact.idle_ns);
  assert.equal((await cell('compute')).ns, exact.compute_ns);
  assert.match(await w.getByTestId('gpu-method').textContent(), /exact ns/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('Kineto: latency summary sorts, filters, shows a histogram and highlights a name', async (t) => {
  if (!existsSync(FILE)) assert.fail(`no sample ${FILE}`);
  const cli = analyze(FILE).latency;
  const { page, errors, context } = await openApp(env, { width: 1500, height: 1500 });
  await load(page, FILE);
  await page.locator('.wb-tab[data-widget=latency]').click();
  const w = page.getByTestId('widget-latency');
  const table = w.getByTestId('latency-table');
  await table.locator('tbody tr[data-name]').first().waitFor({ timeout: 30000 });
  assert.match(await w.getByTestId('latency-rule').textContent(), /nearest-rank/);
  // by total, descending: the CLI's first rows with every statistic
  const rows = await table.locator('tbody tr[data-name]').evaluateAll((trs) => trs.slice(0, 5).map((tr) => ({
    name: tr.dataset.name,
    count: Number(tr.querySelector('td[data-count]').dataset.count),
    ns: [...tr.querySelectorAll('td[data-ns]')].map((td) => Number(td.dataset.ns)),
  })));
  for (const [i, r] of rows.entries()) {
    const o = cli.operators[i];
    assert.equal(r.name, o.name);
    assert.equal(r.count, o.count);
    assert.deepEqual(r.ns, [o.min_ns, o.max_ns, o.mean_ns, o.median_ns, o.p90_ns, o.p95_ns, o.p99_ns, o.p999_ns, o.total_ns], o.name);
  }
  // sort by p99 descending
  await table.locator('th[data-sort=p99]').click();
  const p99 = await table.locator('tbody tr[data-name]').evaluateAll((trs) => trs.map((tr) => Number(tr.querySelectorAll('td[data-ns]')[6].dataset.ns)));
  assert.deepEqual(p99, [...p99].sort((a, b) => b - a), 'p99 descending');
  // units: ns shows whole numbers
  await w.locator('button[data-unit=ns]').click();
  assert.match(await table.locator('tbody tr[data-name] td[data-ns]').first().textContent(), /^\d+ ns$/);
  // device split: the CLI's device list
  await w.locator('button[data-side=device]').click();
  await table.locator('th[data-sort=total]').click();
  const dev = await table.locator('tbody tr[data-name]').evaluateAll((trs) => trs.map((tr) => tr.dataset.name));
  assert.equal(dev.length, Math.min(cli.by_device.device.length, 200));
  assert.equal(dev[0], cli.by_device.device[0].name);
  // filter, click: histogram drawn, its events highlighted
  const name = cli.by_device.device[0].name;
  await w.getByTestId('latency-filter').fill(name.slice(0, 12));
  const row = table.locator(`tbody tr[data-name="${name}"]`);
  await row.click();
  await drawn(page, 'latency-hist');
  const h = await highlighted(page);
  assert.equal(h.count, cli.by_device.device[0].count, 'every device slice of that name');
  await shot(page, 'latency.png');
  await w.screenshot({ path: join(ROOT, 'tests/e2e/out/latency-widget.png') });
  assert.deepEqual(errors, []);
  await context.close();
});

test('CPU-only trace: the GPU breakdown says why it does not apply', async (t) => {
  const cpu = join(SAMPLES, 'pytorch-kineto', 'hta__cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz');
  if (!existsSync(cpu)) assert.fail(`no sample ${cpu}`);
  const { page, errors, context } = await openApp(env);
  await load(page, cpu);
  // a CPU trace's layout has no GPU Breakdown: added from the menu, it says why it is empty
  assert.equal(await page.locator('.wb-tab[data-widget=gpu-breakdown]').count(), 0);
  await page.getByTestId('add-widget-menu').locator('summary').click();
  await page.getByTestId('add-widget-menu').locator('button[data-widget=gpu-breakdown]').click();
  const empty = page.getByTestId('widget-gpu-breakdown').getByTestId('gpu-empty');
  await empty.waitFor({ timeout: 20000 });
  assert.match(await empty.textContent(), /no GPU stream.*Kineto/s);
  await shot(page, 'gpu-breakdown-empty.png');
  assert.deepEqual(errors, []);
  await context.close();
});
