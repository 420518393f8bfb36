// Critical Path widget (issue 41 §3): on HTA's own test trace the widget shows the path `loupe
// critical-path --json` prints for the same file and window (which tests/critical_path.rs checks
// against HTA 0.5.0), its bound-by classes, the longest edges; *Show on timeline* highlights the
// path's events; a what-if shortens a name's events and the path does not get longer.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { setup, openApp, state, shot, SAMPLES, runWorkspaceBin, waitForAsync } from './helpers.mjs';

const FILE = join(SAMPLES, 'pytorch-kineto', 'hta__critical_path_cuda_event_sync_multi_stream_event_sync_trace.json.gz');

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

test('Critical Path: equals loupe critical-path, bound-by classes, highlight, what-if', async () => {
  const cli = JSON.parse(runWorkspaceBin('LOUPE_CLI_BIN', ['--release', '-p', 'loupe-cli'], ['critical-path', '--json', FILE]));
  const { page, errors, context } = await openApp(env, { width: 1440, height: 900 });
  await page.getByTestId('open-file').setInputFiles(FILE);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState) && !window.__loupe.demo, null, { timeout: 60000 });
  assert.equal(await state(page), 'ready');
  // a GPU trace's layout has it one tab away
  await page.locator('.wb-tab[data-widget=critical-path]').click();
  const w = page.getByTestId('widget-critical-path');
  const total = w.getByTestId('cp-total');
  await total.waitFor({ timeout: 30000 });
  assert.equal(Number(await total.getAttribute('data-ns')), cli.total_ns, 'the same path length as the CLI');
  assert.match(await w.getByTestId('cp-window').textContent(), new RegExp(`path: ${cli.nodes} nodes, ${cli.edges} edges · graph: ${cli.graph_nodes} nodes, ${cli.graph_edges} edges`));
  for (const [key, pct] of Object.entries(cli.bound_by)) {
    if (!key) continue;
    const row = w.locator(`[data-testid=cp-bound] tr[data-key=${key}]`);
    assert.ok(Math.abs(Number(await row.getAttribute('data-pct')) - pct) < 1e-3, `${key}: ${pct} %`);
    assert.ok((await row.locator('th').getAttribute('title')).length > 20, `${key} has its definition on hover`);
  }
  const edges = w.locator('[data-testid=cp-edges] tbody tr');
  assert.ok(await edges.count() >= Math.min(10, cli.edges), 'the longest edges are listed');
  assert.equal(Number(await edges.first().locator('td').first().getAttribute('data-ns')), cli.longest[0].dur_ns);

  // the path on the timeline: its events highlighted
  await w.getByTestId('cp-show').click();
  const origin = page.getByTestId('search-origin');
  await origin.waitFor();
  const highlighted = Number(await origin.getByTestId('search-count').textContent());
  assert.ok(highlighted >= 2 && highlighted <= cli.nodes, `${highlighted} events of a ${cli.nodes}-node path`);
  // and its edges drawn as arrows (those in view; never more than the path has)
  await waitForAsync(page, () => window.__loupe.edgesDrawn > 0, null, { what: 'critical-path arrows drawn' });
  const arrows = await page.evaluate(() => window.__loupe.edgesDrawn);
  assert.ok(arrows <= cli.edges, `${arrows} arrows of a ${cli.edges}-edge path`);

  // what if the longest edge's event were 50 % shorter: never a longer path
  await w.getByTestId('cp-whatif-name').fill(cli.longest[0].name);
  await w.getByTestId('cp-whatif-pct').fill('50');
  await w.getByTestId('cp-whatif-run').click();
  const wi = w.getByTestId('cp-whatif-result');
  await wi.waitFor();
  const after = Number(await wi.getAttribute('data-ns'));
  assert.ok(after <= cli.total_ns && after > 0, `what-if ${after} ≤ ${cli.total_ns}`);
  await shot(page, 'critical-path-1440x900.png');

  // a window that does not exist says why
  await w.getByTestId('cp-annotation').fill('no such annotation');
  await w.getByTestId('cp-compute').click();
  await w.getByTestId('cp-error').waitFor({ timeout: 30000 });
  assert.match(await w.getByTestId('cp-error').textContent(), /no slice named like 'no such annotation'/);
  assert.deepEqual(errors, []);
  await context.close();
});
