// Neuron ranks (issue 41 §1 for Neuron): one NTFF per NeuronCore of a job dropped together is one
// profile with a rank per file, numbered by the files' `rank_N` names. The default layout puts the
// Rank Summary in front; its per-rank rows are `loupe ranks --json`'s (execution span, idle,
// compute, DMA-only time; exposed communication "not known" when the files cannot say); ranks of
// different NEFFs carry the CLI's warning. Inputs: real captures copied under job names (the
// samples are single-core captures: the copies stand for a job's cores).
// Screenshot: tests/e2e/out/neuron-ranks.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setup, openApp, load, shot, SAMPLES, runWorkspaceBin } from './helpers.mjs';

const V5 = join(SAMPLES, 'neuron', 'ntff-v5');
const cliJson = (files) =>
  JSON.parse(runWorkspaceBin('LOUPE_CLI_BIN', ['--release', '-p', 'loupe-cli'], ['ranks', '--json', ...files]));

let env;
let dir;
before(async () => {
  env = await setup();
  dir = mkdtempSync(join(tmpdir(), 'loupe-neuron-ranks-'));
});
after(async () => {
  await env?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Copies of `sources` named job_rank_<i>.ntff (listed in reverse, so the order given is not the rank order). */
function job(name, sources) {
  const files = sources.map((src, i) => {
    const to = join(dir, `${name}_rank_${i}.ntff`);
    copyFileSync(src, to);
    return to;
  });
  return files.reverse();
}

async function rankRows(page) {
  const w = page.getByTestId('widget-rank-summary');
  await w.getByTestId('ranks-row').first().waitFor({ timeout: 30000 });
  return w.getByTestId('ranks-row').evaluateAll((rows) => rows.map((r) => ({
    rank: Number(r.dataset.rank),
    label: r.querySelector('th').textContent,
    ns: [...r.querySelectorAll('td[data-ns]')].map((td) => Number(td.dataset.ns)),
    unknown: [...r.querySelectorAll('td')].filter((td) => td.textContent === 'not known').length,
  })));
}

test('two NTFFs of one job: two ranks, the Rank Summary in front, its rows = loupe ranks --json', async () => {
  const files = job('same', [0, 0].map(() => join(V5, 'profile_128x128x1008.ntff')));
  const cli = cliJson(files);
  assert.deepEqual(cli.ranks.map((r) => r.rank).sort(), [0, 1]);
  assert.deepEqual(cli.warnings ?? [], [], 'one NEFF: no warning');

  const { page, errors, context } = await openApp(env, { width: 1440, height: 900 });
  await load(page, files);
  // the default layout of a job's ranks shows the Rank Summary
  const tab = page.locator('.wb-tab[data-widget=rank-summary]');
  assert.equal(await tab.getAttribute('aria-selected'), 'true', 'the Rank Summary is the shown tab');
  const rows = await rankRows(page);
  assert.deepEqual(rows.map((r) => r.rank), [0, 1]);
  for (const r of cli.ranks) {
    const row = rows.find((x) => x.rank === r.rank);
    assert.match(row.label, new RegExp(`^rank ${r.rank}`));
    const want = [r.kernel_ns, r.idle_ns, r.compute_ns, r.non_compute_ns];
    if (r.exposed_comm_ns !== null && r.exposed_comm_ns !== undefined) want.push(r.exposed_comm_ns);
    else assert.equal(row.unknown, 1, 'exposed communication: not known');
    assert.deepEqual(row.ns, want, `rank ${r.rank}: the CLI's figures`);
    assert.ok(r.kernel_ns > 0 && r.compute_ns > 0 && r.compute_ns <= r.kernel_ns);
  }
  // the same capture twice: the same figures on both ranks
  assert.deepEqual(rows[0].ns, rows[1].ns);
  assert.equal(await page.getByTestId('ranks-warning').count(), 0);
  await shot(page, 'neuron-ranks.png');
  assert.deepEqual(errors, []);
  await context.close();
});

test('ranks of different programs: the NEFF mismatch is said, as the CLI says it', async () => {
  const files = job('mixed', [join(V5, 'profile_128x128x1000.ntff'), join(V5, 'profile_128x128x1008.ntff')]);
  const cli = cliJson(files);
  assert.ok((cli.warnings ?? []).length >= 1, `the CLI warns: ${JSON.stringify(cli.warnings)}`);
  const { page, errors, context } = await openApp(env, { width: 1440, height: 900 });
  await load(page, files);
  const rows = await rankRows(page);
  assert.deepEqual(rows.map((r) => r.rank), [0, 1]);
  const warning = page.getByTestId('ranks-warning').first();
  await warning.waitFor();
  assert.match(await warning.textContent(), /NEFF/);
  // different captures: different figures, each the CLI's
  for (const r of cli.ranks) assert.equal(rows.find((x) => x.rank === r.rank).ns[0], r.kernel_ns);
  assert.notEqual(rows[0].ns[0], rows[1].ns[0]);
  assert.deepEqual(errors, []);
  await context.close();
});
