// Collectives widget (issue 41 §2): the two ranks of one job dropped together; the widget lists
// the instances `loupe ranks --json` finds (which core/tests/ranks.rs checks against an
// independent script), the straggler ranking, sorting by skew, and a click outlines the
// instance's kernel on both ranks.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { setup, openApp, state, shot, SAMPLES, runWorkspaceBin } from './helpers.mjs';

const FILES = [0, 1].map((r) => join(SAMPLES, 'pytorch-kineto', `hta__trace_filter_sampled_rank-${r}.json.gz`));

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

test('Collectives: instances, stragglers, sort by skew, click outlines every rank', async () => {
  const cli = JSON.parse(runWorkspaceBin('LOUPE_CLI_BIN', ['--release', '-p', 'loupe-cli'], ['ranks', '--json', ...FILES]));
  const { page, errors, context } = await openApp(env, { width: 1440, height: 900 });
  await page.getByTestId('open-file').setInputFiles(FILES);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState) && !window.__loupe.demo, null, { timeout: 60000 });
  assert.equal(await state(page), 'ready');
  await page.locator('.wb-tab[data-widget=collectives]').click();
  const w = page.getByTestId('widget-collectives');
  const count = w.getByTestId('coll-count');
  await count.waitFor({ timeout: 30000 });
  assert.equal(Number(await count.getAttribute('data-count')), cli.collectives.length);
  const first = w.locator('[data-testid=coll-stragglers] tbody tr').first();
  assert.equal(Number(await first.getAttribute('data-rank')), cli.stragglers[0].rank);
  assert.equal(Number(await first.getByTestId('coll-last-count').textContent()), cli.stragglers[0].last_count);
  // sorted by skew (the default): the largest first
  const rows = w.locator('[data-testid=coll-instances] tbody tr');
  const worst = Math.max(...cli.collectives.map((c) => c.start_skew_ns));
  assert.equal(Number(await rows.first().getAttribute('data-skew-ns')), worst);
  await w.getByTestId('coll-sort-time').click();
  assert.equal(Number(await rows.first().getAttribute('data-seq')), 0);
  await w.getByTestId('coll-sort-skew').click();
  // a click outlines the instance's kernel on both ranks
  await rows.first().click();
  const origin = page.getByTestId('search-origin');
  await origin.waitFor();
  assert.equal(Number(await origin.getByTestId('search-count').textContent()), 2);
  await shot(page, 'collectives-1440x900.png');
  assert.deepEqual(errors, []);
  await context.close();
});
