// Neuron Explorer's Parquet output directory as one profile in the page: a folder of schema-7.4.0
// tables (written by `cargo run -p loupe-core --example gen_neuron_parquet`, or
// `$LOUPE_GEN_NEURON_PARQUET_BIN`: `Instruction` in three splits, DmaPacket, SemaphoreUpdate,
// CcOp, Summary, Metadata, NeffHeader, TensorInfo) opened with "Open folder…" loads as one profile whose
// slice count and Summary headline cells equal `loupe summary --json DIR` (the CLI reads a folder
// as one profile too), and the Tensor view lists TensorInfo. A folder of another MAJOR schema
// version is refused with a message naming Metadata.parquet and both versions.
// (A folder dragged onto the page takes the same path after the walk, `sources::walk_entries`;
// Playwright cannot synthesise a dropped directory, so the folder input stands in for it.)
// Screenshot: tests/e2e/out/parquet-directory.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setup, openApp, shot, state, loupe, OUT, runWorkspaceBin } from './helpers.mjs';

const FIX = join(OUT, 'parquet-fixture');
const GOOD = join(FIX, 'profile');
const MAJOR = join(FIX, 'profile-v8');

let env;
before(async () => {
  rmSync(FIX, { recursive: true, force: true });
  mkdirSync(FIX, { recursive: true });
  const gen = (dir, schema) =>
    runWorkspaceBin('LOUPE_GEN_NEURON_PARQUET_BIN', ['-p', 'loupe-core', '--example', 'gen_neuron_parquet'], [dir, schema], { stdio: 'pipe' });
  gen(GOOD, '7.4.0');
  gen(MAJOR, '8.0.0');
  // an output directory may hold other files: they are listed as skipped, not a load failure
  writeFileSync(join(GOOD, 'notes.txt'), 'not a table\n');
  env = await setup();
});
after(async () => { await env?.close(); });

function cliSummary(dir) {
  const out = runWorkspaceBin('LOUPE_CLI_BIN', ['--release', '-p', 'loupe-cli'], ['summary', '--json', dir]);
  return JSON.parse(out.trim().split('\n')[0]);
}

async function openFolder(page, dir) {
  await page.getByTestId('open-folder').setInputFiles(dir);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 60000 });
}

test('an Explorer Parquet directory opens as one profile: the CLI\'s numbers, its tensors', async () => {
  const cli = cliSummary(GOOD);
  const { page, errors, context } = await openApp(env, { width: 1440, height: 900 });
  await openFolder(page, GOOD);
  if ((await state(page)) === 'error') assert.fail(`load failed: ${await page.getByTestId('load-error').textContent()}`);
  const l = await loupe(page);
  assert.equal(l.format, 'neuron-explorer-parquet');
  assert.equal(l.sliceCount, cli.slices, 'every row of the three Instruction splits, DmaPacket and CcOp');
  assert.equal(cli.slices, 3 * 400 + 300 + 8, 'the generator wrote 1200 instructions, 300 packets, 8 collectives');
  // the Summary overview: the same headline cells as the CLI's device summary
  await page.locator('.wb-tab[data-widget=summary]').click();
  const head = page.getByTestId('ns-headline');
  await head.waitFor({ state: 'visible', timeout: 30000 });
  const ds = cli.device_summary;
  assert.ok(ds && 'hfu_estimated_percent' in ds, 'the CLI has HFU from raw_flops');
  for (const key of ['hfu_estimated_percent', 'mbu_estimated_percent']) {
    const cell = head.locator(`[data-key=${key}]`);
    if (key in ds) {
      const v = Number(await cell.getAttribute('data-value'));
      assert.ok(Math.abs(v - ds[key]) <= 1e-12 * Math.abs(ds[key]), `${key}: page ${v}, CLI ${ds[key]}`);
    } else {
      assert.equal(await cell.getAttribute('data-missing'), 'true', `${key}: missing in both`);
    }
  }
  // the collectives' durations (CcOp): the CLI's, per operation; the outlier insight fired on
  // the one AllReduce 3× its group's median
  assert.deepEqual(cli.collectives.map((c) => c.name), ['AllReduce', 'AllGather']);
  for (const c of cli.collectives) {
    const row = page.locator(`[data-testid=ns-collective][data-name="${c.name}"]`);
    assert.equal(Number(await row.locator('td[data-count]').getAttribute('data-count')), c.count);
    assert.deepEqual(await row.locator('td[data-ns]').evaluateAll((els) => els.map((e) => Number(e.dataset.ns))),
      [c.min_ns, c.q1_ns, c.median_ns, c.q3_ns, c.max_ns]);
  }
  // (an independent count: AllReduce 190 200 205 210 220 630 ns → numpy's quartiles 201.25, 207.5, 217.5)
  const ar = cli.collectives.find((c) => c.name === 'AllReduce');
  assert.deepEqual([ar.count, ar.min_ns, ar.q1_ns, ar.median_ns, ar.q3_ns, ar.max_ns], [6, 190, 201, 208, 218, 630]);
  const outliers = cli.insights.find((i) => i.rule.id === 'collective_outliers');
  assert.equal(outliers.outcome, 'fired');
  assert.equal(outliers.event_count, 1, 'the 630 ns AllReduce');
  const fired = page.locator('[data-testid=ns-insights] [data-insight=collective_outliers]');
  assert.equal(await fired.count(), 1, 'the insight is shown as fired');
  assert.equal(await fired.getAttribute('data-events'), '1');
  await shot(page, 'parquet-directory.png');
  // the Tensor view from TensorInfo: stated sizes, IN/OUT/WEIGHT as input/output/const
  await page.locator('.wb-tab[data-widget=tensors]').click();
  const table = page.getByTestId('tensors-table');
  await table.waitFor({ state: 'visible' });
  assert.equal(await table.locator('tbody tr').count(), 3);
  const input = table.locator('tr[data-tensor=input0]');
  assert.equal(await input.locator('td').nth(2).textContent(), 'input');
  assert.equal(Number(await input.locator('td').nth(5).getAttribute('data-value')), 131072);
  assert.equal(await table.locator('tr[data-tensor=weight0] td').nth(2).textContent(), 'const');
  await page.getByTestId('widget-tensors').screenshot({ path: join(OUT, 'parquet-directory-tensors.png') });
  assert.deepEqual(errors, []);
  await context.close();
});

test('a directory of another MAJOR schema version is refused, naming the file and both versions', async () => {
  const { page, context } = await openApp(env, { width: 1440, height: 900 });
  await openFolder(page, MAJOR);
  assert.equal(await state(page), 'error');
  const msg = await page.getByTestId('load-error').textContent();
  assert.match(msg, /Metadata\.parquet' says schema version 8\.0\.0; Loupe reads schema 7\.4\.0/, msg);
  await shot(page, 'parquet-directory-major.png');
  await context.close();
});
