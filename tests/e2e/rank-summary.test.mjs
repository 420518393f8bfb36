// Rank Summary and clock alignment (issue 41 §1): the two ranks of one job dropped together.
// The heatmap's cells are `loupe ranks --json`'s step times (rank, step, ns); a click zooms the
// timeline to that rank's iteration; aligning the clocks by the start of ProfilerStep#K applies
// exactly `loupe ranks --align iteration:K --json`'s offset to rank 1 — the window a rank-1 cell
// zooms to moves by it, rank 1's step is painted where rank 0's is, Event Details shows the
// offset — and the deep link carries the alignment. Screenshots light and dark at 1440×900.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { setup, openApp, shot, SAMPLES, runWorkspaceBin, load, waitForAsync } from './helpers.mjs';

const FILES = [0, 1].map((r) => join(SAMPLES, 'pytorch-kineto', `hta__trace_filter_sampled_rank-${r}.json.gz`));
const cliJson = (args) =>
  JSON.parse(runWorkspaceBin('LOUPE_CLI_BIN', ['--release', '-p', 'loupe-cli'], ['ranks', '--json', ...args, ...FILES]));

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

// times as BigInt where they must be exact: Kineto's epoch nanoseconds exceed 2^53
const win = async (page) => {
  const w = await page.evaluate(() => ({ start: window.__loupe.startNsText, nsPerPx: window.__loupe.nsPerPx }));
  return { startNs: BigInt(w.start), nsPerPx: w.nsPerPx };
};
const painted = (page, cell) => page.evaluate(([t, i]) => window.__loupe.paintedSlice(t, i), cell);
const cellRef = async (loc) => [Number(await loc.getAttribute('data-track')), Number(await loc.getAttribute('data-index'))];

/** Click a heat cell and wait until the timeline shows its step (on the current clock). */
async function zoomTo(page, cell, offsetNs) {
  const start = Number(BigInt(await cell.getAttribute('data-start-ns')) + BigInt(offsetNs));
  const dur = Number(await cell.getAttribute('data-ns'));
  await cell.click();
  await waitForAsync(page, ([s, d]) => {
    const l = window.__loupe;
    // (to a few hundred ns: JavaScript numbers near 1.7e18)
    return l.startNs <= s + 1024 && l.endNs >= s + d - 1024 && l.endNs - l.startNs <= d * 1.2;
  }, [start, dur], { what: `the window around step ${start}+${dur}` });
  return win(page);
}

test('Rank Summary: heatmap = CLI step times, click zooms, alignment moves rank 1 by the CLI offset', async () => {
  const cli = cliJson([]);
  const byRank = new Map(cli.ranks.map((r) => [r.rank, new Map((r.step_ns || []).map((s) => [s.step, s.dur_ns]))]));
  assert.equal(byRank.size, 2);
  // the first step both ranks have
  const k = [...byRank.get(0).keys()].sort((a, b) => a - b).find((s) => byRank.get(1).has(s));
  assert.ok(k !== undefined, 'a step common to both ranks');
  const aligned = cliJson(['--align', `iteration:${k}`]);
  const off1 = aligned.offsets.find((o) => o.rank === 1).offset_ns;
  assert.notEqual(off1, 0, 'the sample pair is not aligned as recorded (else the test proves nothing)');

  const { page, errors, context } = await openApp(env, { width: 1440, height: 900 });
  await load(page, FILES);
  await page.locator('.wb-tab[data-widget=rank-summary]').click();
  const w = page.getByTestId('widget-rank-summary');
  const cells = w.getByTestId('heat-cell');
  await cells.first().waitFor({ timeout: 30000 });
  // every cell is the CLI's step time, and every CLI step has its cell
  const got = await cells.evaluateAll((els) => els.map((e) => [Number(e.dataset.rank), Number(e.dataset.step), Number(e.dataset.ns)]));
  const want = [...byRank].flatMap(([r, m]) => [...m].map(([s, ns]) => [r, s, ns]));
  const key = (x) => `${x[0]}/${x[1]}`;
  assert.deepEqual(new Map(got.map((x) => [key(x), x[2]])), new Map(want.map((x) => [key(x), x[2]])));
  assert.equal(got.length, want.length);
  assert.equal(await w.getByTestId('ranks-heatmap').getAttribute('data-drawn'), 'true');
  // the per-rank table: the CLI's breakdown
  for (const r of cli.ranks) {
    const row = w.locator(`[data-testid=ranks-row][data-rank="${r.rank}"] td[data-ns]`);
    assert.deepEqual(await row.evaluateAll((els) => els.map((e) => Number(e.dataset.ns))),
      [r.kernel_ns, r.idle_ns, r.compute_ns, r.non_compute_ns, r.exposed_comm_ns]);
  }

  // a click zooms to that rank's iteration and selects its step
  const c0 = w.locator(`[data-testid=heat-cell][data-rank="0"][data-step="${k}"]`);
  const c1 = w.locator(`[data-testid=heat-cell][data-rank="1"][data-step="${k}"]`);
  const details = page.getByTestId('widget-details');
  const startShown = async () => {
    await page.locator('.wb-tab[data-widget=details]').click();
    await waitForAsync(page, (k) => document.querySelector('[data-testid=widget-details] .details-title')?.textContent === `ProfilerStep#${k}`, k, { what: 'the step in Event Details' });
    const t = await details.locator('tr:has(th:text-is("start")) td').textContent();
    await page.locator('.wb-tab[data-widget=rank-summary]').click();
    return t;
  };
  await zoomTo(page, c0, 0);
  const start0 = await startShown();
  const rec = await zoomTo(page, c1, 0);
  const start1 = await startShown();
  assert.notEqual(start0, start1, 'as recorded, the ranks start step K apart');
  const rank1 = await cellRef(c1);
  const x1Recorded = await painted(page, rank1);
  assert.ok(x1Recorded, 'rank 1 step painted on its own');

  // align by the start of step K
  await page.getByTestId('clock-align-kind').selectOption('iteration');
  const n = page.getByTestId('clock-align-n');
  await n.fill(String(k));
  await n.dispatchEvent('change');
  const shown = page.locator('[data-testid=clock-offset][data-rank="1"]');
  await waitForAsync(page, (o) => document.querySelector('[data-testid=clock-offset][data-rank="1"]')?.dataset.ns === String(o), off1, { what: 'the offset shown' });
  assert.equal(Number(await shown.getAttribute('data-ns')), off1);
  assert.equal(BigInt(await c1.getAttribute('data-start-ns')) + BigInt(off1), BigInt(await c0.getAttribute('data-start-ns')),
    'the CLI offset puts rank 1 step K onto rank 0 step K');
  // the same cell now zooms to a window moved by exactly the offset, in which rank 1's step is
  // painted where it was (the painter moved it by the offset too; unmoved it would be
  // offset / nsPerPx ≈ a third of a pixel off)
  const al = await zoomTo(page, c1, off1);
  assert.equal(al.startNs - rec.startNs, BigInt(off1), 'the window moved by the offset');
  assert.equal(al.nsPerPx, rec.nsPerPx);
  const x1Aligned = await painted(page, rank1);
  assert.ok(Math.abs(x1Aligned.x0 - x1Recorded.x0) < 0.01, `rank 1 drawn at ${x1Aligned.x0}, was ${x1Recorded.x0}`);
  // Event Details: rank 1's step starts where rank 0's does, and says by how much it moved
  assert.equal(await startShown(), start0, 'aligned, rank 1 step K starts at rank 0 step K');
  await page.locator('.wb-tab[data-widget=details]').click();
  const detailsOffset = page.getByTestId('details-clock-offset');
  await detailsOffset.waitFor();
  assert.equal(Number(await detailsOffset.getAttribute('data-ns')), off1);
  // the deep link carries the alignment
  await waitForAsync(page, (k) => location.hash.includes(`k=iteration:${k}`), k, { what: 'the alignment in the URL' });
  await page.locator('.wb-tab[data-widget=rank-summary]').click();
  await shot(page, 'rank-summary-1440x900.png');
  // back to as recorded: no offsets
  await page.getByTestId('clock-align-kind').selectOption('recorded');
  await waitForAsync(page, () => document.querySelectorAll('[data-testid=clock-offset]').length === 0, null, { what: 'offsets cleared' });
  assert.deepEqual(errors, []);
  await context.close();
});

test('Rank Summary: dark theme and the one-rank empty state', async () => {
  const { page, errors, context } = await openApp(env, { width: 1440, height: 900, colorScheme: 'dark' });
  await load(page, FILES);
  await page.locator('.wb-tab[data-widget=rank-summary]').click();
  const w = page.getByTestId('widget-rank-summary');
  await w.getByTestId('heat-cell').first().waitFor({ timeout: 30000 });
  await waitForAsync(page, () => document.querySelector('[data-testid=ranks-heatmap]')?.dataset.drawn === 'true', null, { what: 'heatmap drawn' });
  // the heatmap follows the theme: its background is the dark chart background
  const bg = await page.evaluate(() => {
    const c = document.querySelector('[data-testid=ranks-heatmap]');
    const p = c.getContext('2d').getImageData(c.width - 2, 1, 1, 1).data;
    return (0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]) / 255;
  });
  assert.ok(bg < 0.3, `dark heatmap background (luminance ${bg})`);
  await page.getByTestId('clock-align-kind').selectOption('collective');
  await page.locator('[data-testid=clock-offset][data-rank="1"]').waitFor();
  await shot(page, 'rank-summary-dark-1440x900.png');
  // one rank: the widget says why it has nothing to show
  await load(page, [FILES[0]]);
  await page.locator('.wb-tab[data-widget=rank-summary]').click();
  const empty = w.getByTestId('ranks-empty');
  await empty.waitFor({ timeout: 30000 });
  assert.equal(await empty.getAttribute('data-why'), 'one-rank');
  assert.equal(await page.getByTestId('clock-align').count(), 0, 'no alignment control for one rank');
  assert.deepEqual(errors, []);
  await context.close();
});
