// The Memory view on the shared NTFF (issue 40 §3): SBUF per partition and PSUM per bank as heat
// strips over time, from neuron-profile's definition of occupancy (core/src/neuron/ntff/memory.rs,
// equal to the export's `instruction_usage` on every shared capture natively). Dropped with its own
// JSON export, the peaks are the export's: SBUF 2048 B of a partition's 192 KiB (1.0417 %), each of
// PSUM banks 0–2 in use at some time; alone, the NTFF's view says what it lacks. A cell's hover
// gives its values, a click zooms the timeline to its time range. The columns span the timeline's
// current view (the default, following pans and zooms) or the whole capture.
// Screenshots: tests/e2e/out/memory-{light,dark}.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { setup, openApp, load, shot, SAMPLES } from './helpers.mjs';

const NTFF = join(SAMPLES, 'neuron', 'profile_128x128x1024.ntff');
const JSON_EXPORT = join(SAMPLES, 'neuron', 'profile_128x128x1024.json');

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

// the oracle: the export's own peak per row
const usage = JSON.parse(readFileSync(JSON_EXPORT, 'utf8')).instruction_usage;
const sbufPeakPct = 100 * Math.max(...usage.filter((r) => r.type === 'sb').map((r) => r.partition_0_usage));
const banksUsed = [0, 1, 2].filter((b) => usage.some((r) => r.type === 'psum' && r[`bank_${b}_usage`] > 0));

async function openMemory(page) {
  await page.locator('.wb-tab[data-widget=memory]').click();
  const w = page.getByTestId('memory');
  await w.getByTestId('memory-cell').first().waitFor();
  return w;
}

const peaks = (w) => w.getByTestId('memory-cell').evaluateAll((els) => {
  const m = {};
  for (const e of els) m[e.dataset.row] = Math.max(m[e.dataset.row] ?? 0, Number(e.dataset.peak));
  return m;
});

for (const colorScheme of ['light', 'dark']) {
  test(`Memory view (${colorScheme}): NTFF + its export, the export's peaks; hover, click zooms`, async () => {
    const { page, errors, context } = await openApp(env, { width: 1440, height: 900, colorScheme });
    await load(page, [NTFF, JSON_EXPORT]);
    const w = await openMemory(page);
    assert.equal(await w.locator('[data-span=view]').getAttribute('aria-pressed'), 'true', 'the current view by default');
    await w.locator('[data-span=whole]').click();
    await page.waitForFunction(() => document.querySelector('[data-span=whole]')?.getAttribute('aria-pressed') === 'true');
    await w.getByTestId('memory-cell').first().waitFor();
    const p = await peaks(w);
    for (const part of [0, 32, 64, 96]) {
      assert.ok(Math.abs(p[`SBUF p${part}`] - sbufPeakPct) < 1e-4, `SBUF p${part} peak ${p[`SBUF p${part}`]} vs the export's ${sbufPeakPct}`);
    }
    assert.deepEqual(banksUsed, [0, 1, 2], 'the export uses three PSUM banks');
    for (const b of banksUsed) assert.equal(p[`PSUM b${b}`], 100, `PSUM bank ${b} in use at some time`);
    assert.equal(await w.getByTestId('memory-ntff-note').count(), 0, 'with the export nothing is missing');
    assert.match(await w.getByTestId('memory-legend').textContent(), /SBUF: 0 %.*PSUM bank: free.*in use/s);

    // hover → readout; click → the timeline shows that cell's range
    const cell = w.locator('[data-testid=memory-cell][data-row="SBUF p0"]');
    const hot = await w.locator('[data-testid=memory-cell][data-row="SBUF p0"]').evaluateAll((els) =>
      els.findIndex((e) => Number(e.dataset.peak) > 1));
    assert.ok(hot >= 0, 'a cell at the peak');
    const c = cell.nth(hot);
    await c.hover();
    assert.match(await w.getByTestId('memory-readout').textContent(), /^SBUF p0 · .* peak 1\.0 % \(2\.0 KiB of 192 KiB\), mean /);
    const [t0, t1] = [Number(await c.getAttribute('data-t0-ns')), Number(await c.getAttribute('data-t1-ns'))];
    const hotPeak = Number(await c.getAttribute('data-peak'));
    await c.click();
    // the timeline shows the cell's range (with the view's 1/40 margin each side, to a pixel)
    await page.waitForFunction(([a, b]) => {
      const l = window.__loupe; const px = l.nsPerPx ?? 1;
      return l.startNs <= a + px && l.endNs >= b - px && l.endNs - l.startNs <= (b - a) * 1.1 + 2 * px;
    }, [t0, t1], { timeout: 10000 });
    // the current view: the columns follow the zoom (cut to it), and the peak there is the cell's
    await w.locator('[data-span=view]').click();
    const view = await page.evaluate(() => [window.__loupe.startNs, window.__loupe.endNs]);
    await page.waitForFunction(([a, b]) => {
      const s = document.querySelector('[data-testid=memory-span]');
      return s && Number(s.dataset.t0Ns) >= a - 1 && Number(s.dataset.t1Ns) <= b + 1 && Number(s.dataset.t1Ns) - Number(s.dataset.t0Ns) < (b - a) * 1.01 + 2;
    }, view, { timeout: 10000 });
    const inView = await peaks(w);
    assert.ok(inView['SBUF p0'] >= hotPeak - 1e-9 && inView['SBUF p0'] <= sbufPeakPct + 1e-4,
      `the zoomed cell's peak (${hotPeak}) in view: ${inView['SBUF p0']}`);
    await shot(page, `memory-${colorScheme}.png`);
    assert.deepEqual(errors, []);
    await context.close();
  });
}

test('Memory view: an NTFF alone says what it cannot know', async () => {
  const { page, errors, context } = await openApp(env, { width: 1440, height: 900 });
  await load(page, NTFF);
  const w = await openMemory(page);
  assert.match(await w.getByTestId('memory-ntff-note').textContent(), /JSON export/);
  const p = await peaks(w);
  assert.deepEqual(Object.keys(p).sort(), ['PSUM b0', 'PSUM b1', 'PSUM b2', 'SBUF p0', 'SBUF p32', 'SBUF p64', 'SBUF p96']);
  assert.deepEqual(errors, []);
  await context.close();
});
