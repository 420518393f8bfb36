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
  if (!existsSync(A) || !existsSync(B)) assert.fail(`samples absent in ${DIR}`);
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

// B's timeline is a second, interactive timeline: labelled lanes, hover tooltip, click → details,
// ctrl+wheel / drag on B move the shared window (A follows, B follows A), wheel scrolls B's lanes.
test('B timeline: labels, hover, click → details, zoom and pan move A', async (t) => {
  if (!existsSync(A) || !existsSync(B)) assert.fail(`samples absent in ${DIR}`);
  const { page, errors, context } = await openApp(env);
  await page.getByTestId('open-file').setInputFiles(A);
  await page.waitForFunction(() => document.body.dataset.loupeState === 'ready' && !window.__loupe.demo, null, { timeout: 60000 });
  await page.getByTestId('compare-open').setInputFiles(B);
  await page.getByTestId('compare-table').waitFor({ timeout: 60000 });
  await page.waitForFunction(() => window.__loupe.compareB && window.__loupe.compareB.slice, null, { timeout: 20000 });
  const b = () => page.evaluate(() => ({ ...window.__loupe.compareB }));
  const b0 = await b();
  // B follows A's window exactly
  let a0 = await loupe(page);
  assert.equal(b0.startNs, a0.startNs, 'B draws A\'s window');
  // 1. a readable label per lane: B's track and group names
  const labels = page.getByTestId('compare-lane-labels').locator('.compare-lane-label');
  assert.equal(await labels.count(), b0.lanes, 'one label per lane');
  const first = await labels.first().textContent();
  assert.ok(first.trim().length > 3, `label text: ${first}`);
  const lh = (await labels.first().boundingBox()).height;
  assert.ok(lh >= 16, `label rows are readable (${lh} px)`);
  // 2. hover → tooltip with the slice's name, its start on B and on A, duration, track
  const canvas = page.getByTestId('compare-lanes');
  const box = await canvas.boundingBox();
  const p = b0.slice;
  await page.mouse.move(box.x + p.x, box.y + p.y);
  const tip = page.getByTestId('compare-b-tooltip');
  await tip.waitFor({ state: 'visible', timeout: 5000 });
  const tipText = await tip.textContent();
  assert.ok(tipText.includes(p.name), `tooltip names the slice: ${tipText}`);
  for (const k of ['track', 'start', 'duration', 'start on A']) assert.ok(tipText.includes(k), `tooltip has ${k}: ${tipText}`);
  // click → outlined and its details shown
  await page.mouse.click(box.x + p.x, box.y + p.y);
  const details = page.getByTestId('compare-b-details');
  await details.waitFor({ timeout: 5000 });
  assert.equal((await details.locator('.details-title').textContent()).trim(), p.name);
  const dText = await details.textContent();
  for (const k of ['category', 'duration', 'start', 'track', "start on A's clock"]) assert.ok(dText.includes(k), `details have ${k}`);
  await page.waitForFunction(() => window.__loupe.compareB.selected === true, null, { timeout: 5000 });
  await shot(page, 'compare-b-selected.png');
  // 3. ctrl+wheel on B zooms the shared window: A's nsPerPx and startNs change, B follows
  a0 = await loupe(page);
  await page.mouse.move(box.x + box.width * 0.3, box.y + p.y);
  await page.keyboard.down('Control');
  await page.mouse.wheel(0, -400);
  await page.keyboard.up('Control');
  await page.waitForFunction((n) => window.__loupe.nsPerPx < n * 0.9, a0.nsPerPx, { timeout: 5000 });
  let a1 = await loupe(page);
  assert.ok(a1.startNs !== a0.startNs, 'zoom at the pointer moves the start');
  await page.waitForFunction(() => window.__loupe.compareB.startNs === window.__loupe.startNs, null, { timeout: 5000 });
  // drag on B pans: dragging left shows later times, on both
  a1 = await loupe(page);
  const y = box.y + Math.min(box.height - 4, p.y + 30);
  await page.mouse.move(box.x + box.width * 0.6, y);
  await page.mouse.down();
  for (let i = 1; i <= 5; i++) await page.mouse.move(box.x + box.width * 0.6 - i * 40, y);
  await page.mouse.up();
  await page.waitForFunction((s) => window.__loupe.startNs > s, a1.startNs, { timeout: 5000 });
  const a2 = await loupe(page);
  assert.ok(Math.abs(a2.nsPerPx - a1.nsPerPx) / a1.nsPerPx < 1e-6, 'a drag pans, it does not zoom');
  const panned = a2.startNs - a1.startNs;
  const bPx = (await b()).nsPerPx;
  assert.ok(Math.abs(panned - 200 * bPx) <= 2 * bPx + 2, `panned by the drag: ${panned} ns vs ${200 * bPx}`);
  await page.waitForFunction(() => window.__loupe.compareB.startNs === window.__loupe.startNs, null, { timeout: 5000 });
  // the drag did not select anything else
  assert.equal((await details.locator('.details-title').textContent()).trim(), p.name);
  // 4. every track: "all N tracks" when B has more than 24; plain wheel scrolls the lanes
  const showAll = page.getByTestId('compare-show-all');
  if (await showAll.count()) {
    await showAll.click();
    await page.waitForFunction(() => window.__loupe.compareB.lanes === window.__loupe.compareB.available, null, { timeout: 5000 });
  }
  const bAll = await b();
  assert.equal(bAll.lanes, bAll.available, 'every track of B has a lane');
  assert.equal(await labels.count(), bAll.available);
  const rowsH = (await canvas.boundingBox()).height - 18;
  if (bAll.totalH > rowsH + 1) {
    const before = await loupe(page);
    await page.mouse.move(box.x + 50, box.y + 40);
    await page.mouse.wheel(0, 120);
    await page.waitForFunction(() => window.__loupe.compareB.scrollY > 0, null, { timeout: 5000 });
    assert.equal((await loupe(page)).nsPerPx, before.nsPerPx, 'plain wheel scrolls, it does not zoom');
  }
  // 5. a table row highlights both sides: at the whole view, B's highlighted slices are painted
  const tableRows = page.getByTestId('compare-table').locator('tbody tr');
  let pick = 0;
  for (let i = 0; i < Math.min(await tableRows.count(), 50); i++) {
    const c = await tableRows.nth(i).locator('td').allTextContents();
    if (Number(c[2]) > 0 && Number(c[3]) > 0) { pick = i; break; }
  }
  await tableRows.nth(pick).click();
  await page.getByTestId('compare-table').locator('tbody tr.selected').waitFor({ timeout: 5000 });
  await page.locator('body').press('0');
  await page.waitForFunction(() => window.__loupe.compareB.markedInView > 0, null, { timeout: 5000 });
  await shot(page, 'compare-b-timeline.png');
  assert.deepEqual(errors, []);
  await context.close();
});
