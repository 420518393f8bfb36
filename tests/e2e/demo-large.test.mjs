// ?demo=<N>: a generated profile of N slices built in the worker like a file load; the timeline
// (pixel-buffer painter) pans and zooms it with held keys and the wheel, stays painted, and the
// state fields follow. No wall-clock assertion (the frame-time figures live in scripts/bench.sh).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, canvasColours, loupe, state, nextFrame, shot, findSlicePoint } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

const N = 1_000_000;

async function openDemo(query) {
  const context = await env.browser.newContext({ viewport: { width: 1400, height: 820 } });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${env.base}?${query}`);
  return { page, errors, context };
}

/** Distinct colours in the tracks area (below the ruler) of the canvas. */
const tracksColours = (page) => page.evaluate(() => {
  const c = document.querySelector('[data-testid=timeline]');
  const { data } = c.getContext('2d').getImageData(0, 60, c.width, c.height - 60);
  const seen = new Set();
  for (let i = 0; i < data.length; i += 4 * 13) seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
  return seen.size;
});

test(`?demo=${N} loads through the worker, pans and zooms`, { timeout: 300_000 }, async () => {
  const { page, errors, context } = await openDemo(`demo=${N}`);
  await page.waitForFunction(() => document.body.dataset.loupeState === 'ready', null, { timeout: 240_000 });
  await page.waitForFunction((n) => window.__loupe && window.__loupe.sliceCount === n, N, { timeout: 20_000 });
  let l = await loupe(page);
  assert.equal(l.sliceCount, N);
  assert.equal(l.trackCount, 8);
  assert.equal(l.raster, true, 'the pixel-buffer painter is on by default');
  // the model's bytes as the core counts them: ≈ 18.4 bytes per slice (start 8, duration 4 as a
  // u32, args id 4, name and category 1 each as indexes into the track's table, LOD) plus small
  // change
  assert.ok(l.memoryBytes > 16 * N && l.memoryBytes < 24 * N, `memoryBytes ${l.memoryBytes}`);
  assert.match(await page.locator('.source-name').first().textContent(), /demo: 1000000 slices/);
  assert.ok((await tracksColours(page)) > 8, 'tracks are painted');
  await shot(page, 'demo-large.png');

  // a colouring's legend over 1 M slices is added up in steps between frames (issue 42 goal 4):
  // the legend says so meanwhile, then lists the names covering the most time, and the canvas
  // repaints in the legend's colours
  await page.evaluate(() => {
    window.__legendStates = [];
    const el = document.querySelector('[data-testid=colour-legend]');
    new MutationObserver(() => window.__legendStates.push(el.dataset.pending))
      .observe(el, { attributes: true, attributeFilter: ['data-pending'] });
  });
  await page.getByTestId('colour-by').selectOption('name');
  await page.waitForFunction(() => {
    const el = document.querySelector('[data-testid=colour-legend]');
    return el.dataset.colourBy === 'name' && el.dataset.pending === 'false' && el.querySelectorAll('.legend-item').length > 1;
  }, null, { timeout: 30_000 });
  assert.deepEqual(await page.evaluate(() => window.__legendStates), ['true', 'false'], 'pending while it was added up, then done');
  const items = page.locator('[data-testid=colour-legend] .legend-item');
  assert.match(await items.first().getAttribute('title'), /— [\d,]+ events, /, 'each entry says how much it covers');
  await page.getByTestId('colour-by').selectOption('auto');
  await page.waitForFunction(() => document.querySelector('[data-testid=colour-legend]').dataset.pending === 'false');

  const box = await page.locator('[data-testid=timeline]').boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  // wheel zoom in (ctrl+wheel) through several zoom levels, checking each frame is painted
  let prev = await loupe(page);
  await page.keyboard.down('Control');
  for (let k = 0; k < 12; k++) {
    await page.mouse.wheel(0, -400);
    await nextFrame(page, prev);
    const cur = await loupe(page);
    assert.ok(cur.nsPerPx < prev.nsPerPx, `wheel ${k} zooms in`);
    prev = cur;
  }
  await page.keyboard.up('Control');
  assert.ok((await tracksColours(page)) > 8, 'painted when zoomed in');
  const zoomedIn = await loupe(page);
  assert.ok(zoomedIn.nsPerPx < l.nsPerPx / 100, 'zoomed in by more than 100×');
  // held keys: D pans right with key repeat, S zooms out
  prev = await loupe(page);
  for (let k = 0; k < 10; k++) await page.keyboard.down('d');
  await page.keyboard.up('d');
  await page.waitForFunction((s) => window.__loupe.startNs > s, prev.startNs, { timeout: 5000 });
  assert.ok((await loupe(page)).startNs > prev.startNs, 'held D pans right');
  prev = await loupe(page);
  for (let k = 0; k < 6; k++) await page.keyboard.down('s');
  await page.keyboard.up('s');
  await page.waitForFunction((n) => window.__loupe.nsPerPx > n, prev.nsPerPx, { timeout: 5000 });
  // shift+wheel pans
  prev = await loupe(page);
  await page.keyboard.down('Shift');
  await page.mouse.wheel(0, 300);
  await page.keyboard.up('Shift');
  await nextFrame(page, prev);
  assert.ok((await loupe(page)).startNs > prev.startNs, 'shift+wheel pans');
  assert.ok((await tracksColours(page)) > 8, 'painted after panning');
  // hit testing still works on the pixel-buffer painter: hover shows the tooltip of a slice
  const p = await findSlicePoint(page);
  assert.ok(p, 'a slice is painted and hit-testable');
  await page.mouse.move(p.x, p.y);
  await page.getByTestId('tooltip').waitFor({ state: 'visible' });
  await shot(page, 'demo-large-zoomed.png');

  // the Critical Path of a profile this size runs when asked, not when its tab is shown (one
  // computation in the page: the tab must not freeze it); then it computes the asked window —
  // here it says why there is none: the large demo is a host-only profile without Kineto's
  // operator categories (natively: CriticalPathError::Empty)
  await page.getByTestId('add-widget-menu').locator('summary').click();
  await page.getByTestId('add-widget-menu').locator('button[data-widget=critical-path]').click();
  const cp = page.getByTestId('widget-critical-path');
  await cp.getByTestId('cp-ask').waitFor();
  assert.match(await cp.getByTestId('cp-ask').textContent(), /1,000,000 events/);
  assert.equal(await cp.getByTestId('cp-computing').count(), 0, 'nothing computes until asked');
  await cp.getByTestId('cp-annotation').fill('ProfilerStep');
  await cp.getByTestId('cp-compute').click();
  await cp.getByTestId('cp-error').waitFor({ timeout: 120_000 });
  assert.match(await cp.getByTestId('cp-error').textContent(), /No critical path: no Kineto CPU operators or CUDA runtime calls in the window/);
  assert.equal(await cp.getByTestId('cp-ask').count(), 0, 'the request was answered');
  assert.deepEqual(errors, []);
  await context.close();
});

test('?raster=0 paints the same view with fillRect, ?demo=abc says what is wrong', async () => {
  const { page, errors, context } = await openDemo('demo=20000&raster=0');
  await page.waitForFunction(() => document.body.dataset.loupeState === 'ready', null, { timeout: 60_000 });
  await page.waitForFunction(() => window.__loupe && window.__loupe.sliceCount === 20000);
  assert.equal((await loupe(page)).raster, false);
  assert.ok((await tracksColours(page)) > 8);
  assert.deepEqual(errors, []);
  await context.close();

  const bad = await openDemo('demo=abc');
  await bad.page.waitForFunction(() => window.__loupe && window.__loupe.frames > 0);
  assert.match(await bad.page.getByTestId('load-error').textContent(), /\?demo=abc: expected a number of slices/);
  assert.equal((await loupe(bad.page)).demo, true, 'the built-in demo stays');
  await bad.context.close();
});
