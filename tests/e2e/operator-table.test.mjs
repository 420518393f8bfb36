// The Operator Table on real files: a Kineto trace (call tree → kernels through the launch flows)
// and an NTFF (instructions per engine). The table sorts, filters, expands, a click highlights the
// row's events on the timeline (the search widget says so), a double-click zooms to them.
// Screenshots in tests/e2e/out/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setup, openApp, load, loupe, shot, SAMPLES } from './helpers.mjs';

const KINETO = join(SAMPLES, 'pytorch-kineto', 'hta__critical_path_simple_add_benchmark_result_493459_1694039959_trace.json.gz');
const NTFF = join(SAMPLES, 'neuron', 'profile_128x128x1024.ntff');

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

async function openTable(page, hierarchy) {
  await page.locator('.wb-tab[data-widget=operator-table]').click();
  const w = page.getByTestId('widget-operator-table');
  await w.waitFor({ state: 'visible' });
  await w.locator(`[data-testid=optable-table][data-hierarchy=${hierarchy}]`).waitFor({ timeout: 30000 });
  return w;
}

/** Visible rows as {name, depth, count, total}. */
const rows = (w) => w.locator('[data-testid=optable-row]').evaluateAll((els) => els.map((e) => ({
  id: e.dataset.id, name: e.dataset.name, depth: Number(e.dataset.depth), count: Number(e.dataset.count), total: Number(e.dataset.totalNs),
})));

const sorted = (xs, cmp) => xs.every((x, i) => i === 0 || cmp(xs[i - 1], x) <= 0);

async function checkSorting(w) {
  let top = (await rows(w)).filter((r) => r.depth === 0);
  assert.ok(top.length > 0, 'root rows');
  assert.ok(sorted(top, (a, b) => b.total - a.total), `default: total descending ${JSON.stringify(top.map((r) => r.total))}`);
  await w.locator('[data-testid=optable-sort][data-key=count]').click();
  await w.locator('[data-testid=optable-table][data-sort=count][data-desc=true]').waitFor();
  top = (await rows(w)).filter((r) => r.depth === 0);
  assert.ok(sorted(top, (a, b) => b.count - a.count), 'count descending');
  await w.locator('[data-testid=optable-sort][data-key=count]').click();
  await w.locator('[data-testid=optable-table][data-sort=count][data-desc=false]').waitFor();
  top = (await rows(w)).filter((r) => r.depth === 0);
  assert.ok(sorted(top, (a, b) => a.count - b.count), 'count ascending after a second click');
  await w.locator('[data-testid=optable-sort][data-key=total]').first().click();
  await w.locator('[data-testid=optable-table][data-sort=total][data-desc=true]').waitFor();
}

async function highlightCount(page) {
  const origin = page.getByTestId('search-origin');
  await origin.waitFor();
  return { n: Number(await origin.getByTestId('search-count').textContent()), text: await origin.textContent() };
}

test('Operator Table on a Kineto trace: call tree → kernels, sort, filter, expand, highlight, zoom', async (t) => {
  if (!existsSync(KINETO)) assert.fail(`no sample ${KINETO}`);
  const { page, errors, context } = await openApp(env, { width: 1500, height: 950 });
  await load(page, KINETO);
  const w = await openTable(page, 'call-tree');
  await checkSorting(w);

  // expand the biggest root, then one of its children: the rows under it appear one level deeper
  const before = await rows(w);
  await w.locator('[data-testid=optable-row][data-depth="0"] [data-testid=optable-toggle]').first().click();
  await w.locator('[data-testid=optable-row][data-depth="1"]').first().waitFor();
  const after1 = await rows(w);
  assert.ok(after1.length > before.length, 'expanding adds rows');
  await shot(page, 'optable-kineto-expanded.png');

  // filter: the runtime call that launches kernels; matches keep their ancestors and open them
  await w.getByTestId('optable-filter').fill('cudaLaunchKernel');
  await w.getByTestId('optable-status').getByText(/match/).waitFor();
  const f = await rows(w);
  const hits = f.filter((r) => r.name === 'cudaLaunchKernel');
  assert.ok(hits.length > 0, 'a match is shown');
  assert.ok(f.some((r) => r.depth === 0 && r.name !== 'cudaLaunchKernel'), 'its ancestors are kept');
  assert.ok(f.every((r) => r.depth === 0 || f.some((p) => p.depth === r.depth - 1)), 'every row has its parent level shown');
  // open a launch: the kernels it launched are its children
  const launch = w.locator('[data-testid=optable-row][data-name=cudaLaunchKernel]').first();
  const depth = Number(await launch.getAttribute('data-depth'));
  await launch.locator('[data-testid=optable-toggle]').click();
  await w.locator(`[data-testid=optable-row][data-depth="${depth + 1}"]`).first().waitFor();
  const kernel = (await rows(w)).find((r) => r.depth === depth + 1);
  assert.ok(kernel, 'a kernel under the launch');
  await shot(page, 'optable-kineto-filtered.png');

  // click: the launch's events (its calls and the kernels) are highlighted on the timeline
  const launchRow = (await rows(w)).find((r) => r.name === 'cudaLaunchKernel');
  await launch.click();
  const h = await highlightCount(page);
  assert.match(h.text, /highlighted from Operator Table: cudaLaunchKernel/);
  assert.ok(h.n >= launchRow.count + kernel.count, `highlighted ${h.n} ≥ ${launchRow.count} calls + ${kernel.count} kernels`);
  await shot(page, 'optable-kineto-highlight.png');

  // double-click the kernel row: the timeline zooms to its events
  const l0 = await loupe(page);
  await w.locator(`[data-testid=optable-row][data-id="${kernel.id}"]`).dblclick();
  await page.waitForFunction((ns) => window.__loupe.nsPerPx !== ns, l0.nsPerPx, { timeout: 10000 });
  const l1 = await loupe(page);
  assert.ok(l1.nsPerPx < l0.nsPerPx, `zoomed in: ${l0.nsPerPx} → ${l1.nsPerPx} ns/px`);
  await shot(page, 'optable-kineto-zoomed.png');

  // another grouping: by name
  await w.getByTestId('optable-hierarchy').selectOption('name');
  await w.locator('[data-testid=optable-table][data-hierarchy=name]').waitFor();
  assert.deepEqual(errors, []);
  await context.close();
});

test('Operator Table on an NTFF: instructions per engine, sort by engine, filter, highlight', async (t) => {
  if (!existsSync(NTFF)) assert.fail(`no sample ${NTFF}`);
  const { page, errors, context } = await openApp(env, { width: 1500, height: 950 });
  await load(page, NTFF);
  const w = await openTable(page, 'operators');
  // an NTFF alone names no operators: one group, its instruction kinds below, per-engine columns
  const top = (await rows(w)).filter((r) => r.depth === 0);
  assert.deepEqual(top.map((r) => r.name), ['(no operator)']);
  const l = await loupe(page);
  assert.ok(top[0].count > 0 && top[0].count <= l.sliceCount);
  for (const e of ['Tensor', 'Vector', 'Scalar', 'GpSimd', 'Sync']) {
    assert.equal(await w.locator(`[data-testid=optable-sort]`).getByText(e, { exact: true }).count(), 1, `${e} column`);
  }
  await w.getByText(/DMA: .* not attributed to operators/).waitFor();
  await w.locator('[data-testid=optable-toggle]').first().click();
  await w.locator('[data-testid=optable-row][data-depth="1"]').first().waitFor();
  const kids = (await rows(w)).filter((r) => r.depth === 1);
  assert.ok(kids.length > 3, 'instruction kinds');
  assert.equal(kids.reduce((s, r) => s + r.count, 0), top[0].count, 'children counts add up to the group');
  assert.equal(kids.reduce((s, r) => s + r.total, 0), top[0].total, 'children times add up to the group');
  await checkSorting(w);
  // sort by the Tensor-engine column: MATMUL-like PE instructions first
  await w.locator('[data-testid=optable-sort]').getByText('Tensor', { exact: true }).click();
  await w.locator('[data-testid=optable-table][data-sort=lane-0][data-desc=true]').waitFor();
  await shot(page, 'optable-ntff.png');

  // filter by an opcode, click it: exactly its instructions are highlighted
  await w.getByTestId('optable-filter').fill('matmul');
  await w.getByTestId('optable-status').getByText(/match/).waitFor();
  const m = (await rows(w)).find((r) => /matmul/i.test(r.name));
  assert.ok(m, 'a MATMUL row');
  await w.locator(`[data-testid=optable-row][data-id="${m.id}"]`).click();
  const h = await highlightCount(page);
  assert.equal(h.n, m.count, `highlighted ${h.n} = the row's ${m.count} instructions`);
  await shot(page, 'optable-ntff-highlight.png');
  assert.deepEqual(errors, []);
  await context.close();
});
