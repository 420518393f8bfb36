// Annotations on a real Kineto trace: right-click drops markers, a flag drags on the ruler, "diff vs"
// shows the interval and its metrics, Zoom shows the interval on the timeline, a named set survives
// a page reload (same profile opened again), export/import round trip, a bad file gives a message.
// Screenshots in tests/e2e/out/annotations-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setup, openApp, loupe, state, nextFrame, shot, SAMPLES } from './helpers.mjs';

const DIR = join(SAMPLES, 'pytorch-kineto');
const file = existsSync(DIR) ? readdirSync(DIR).find((f) => f.includes('cupti_profiler_benchmark') && f.endsWith('.json.gz')) : undefined;

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

async function openProfile(page, t) {
  await page.getByTestId('open-file').setInputFiles(join(DIR, file));
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 60000 });
  if ((await state(page)) === 'error') {
    const msg = await page.getByTestId('load-error').textContent();
    assert.fail(`load failed: ${msg}`);
  }
  await page.waitForFunction(() => window.__loupe.demo === false);
  await page.locator('.wb-tab[data-widget=annotations]').click();
  await page.getByTestId('widget-annotations').waitFor({ state: 'visible' });
}

const markers = (page) => page.evaluate(() => window.__loupe.markers.map((m) => ({ ...m })));
/** The markers once the timeline has painted `n` of them (`window.__loupe` is refreshed after each paint). */
async function markersN(page, n) {
  await page.waitForFunction((k) => window.__loupe.markers && window.__loupe.markers.length === k, n, { timeout: 10000 });
  return markers(page);
}
const rows = (page) => page.getByTestId('annotation-row');

test('annotations: drop, drag, diff, zoom, save, reload, export/import', async (t) => {
  if (!file) assert.fail(`no Kineto sample in ${DIR}`);
  const { page, errors, context } = await openApp(env);
  await page.evaluate(() => localStorage.clear());
  await openProfile(page, t);
  await page.getByTestId('annotations-empty').waitFor();

  // ---- right-click drops a marker (no browser menu: the page handles contextmenu) ----
  const box = await page.locator('[data-testid=timeline]').boundingBox();
  const y = box.y + 120;
  const xa = box.x + box.width * 0.3;
  // The listener is installed (awaited) before the click is sent: an un-awaited evaluate can reach the
  // page after the click on a slow machine, and then no event is seen.
  await page.evaluate(() => {
    window.__ctxPrevented = undefined;
    document.querySelector('[data-testid=timeline]').addEventListener('contextmenu', (e) => setTimeout(() => { window.__ctxPrevented = e.defaultPrevented; }), { once: true });
  });
  await page.mouse.click(xa, y, { button: 'right' });
  const prevented = await page.waitForFunction(() => window.__ctxPrevented !== undefined, null, { timeout: 5000 })
    .then(() => page.evaluate(() => window.__ctxPrevented), () => 'no contextmenu event reached the timeline within 5 s');
  assert.equal(prevented, true, 'the browser context menu is prevented');
  await rows(page).first().waitFor();
  let m = await markersN(page, 1);
  assert.equal(m.length, 1);
  assert.ok(Math.abs(m[0].x - (xa - box.x)) <= 8.5, `marker within the 8 px snap distance of the click (${m[0].x} vs ${xa - box.x})`);
  assert.equal(m[0].name, 'A');

  // ---- a second marker ----
  const xb = box.x + box.width * 0.7;
  await page.mouse.click(xb, y, { button: 'right' });
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=annotation-row]').length === 2);
  m = await markersN(page, 2);
  assert.equal(m.length, 2);
  assert.deepEqual(m.map((x) => x.name).sort(), ['A', 'B']);
  await shot(page, 'annotations-two-markers.png');

  // ---- drag marker B's flag on the ruler 80 px to the left ----
  const mb = m.find((x) => x.name === 'B');
  const before = await loupe(page);
  await page.mouse.move(box.x + mb.x, box.y + 20);
  await page.mouse.down();
  await page.mouse.move(box.x + mb.x - 40, box.y + 20, { steps: 4 });
  await page.mouse.move(box.x + mb.x - 80, box.y + 20, { steps: 4 });
  await page.mouse.up();
  await page.waitForFunction((x0) => {
    const b = window.__loupe.markers.find((k) => k.name === 'B');
    return b && Math.abs(b.x - x0) > 40;
  }, mb.x);
  m = await markers(page);
  const mb2 = m.find((x) => x.name === 'B');
  assert.ok(Math.abs(mb2.x - (mb.x - 80)) <= 8.5, `dragged marker within snap distance of the pointer (${mb2.x} vs ${mb.x - 80})`);
  const after1 = await loupe(page);
  assert.equal(after1.startNs, before.startNs, 'dragging a flag does not pan');
  assert.equal(after1.nsPerPx, before.nsPerPx, 'dragging a flag does not zoom');
  // the widget's row follows the state
  await page.waitForFunction((t) => [...document.querySelectorAll('[data-testid=annotation-row]')].some((r) => Number(r.dataset.tNs) === t), mb2.tNs);

  // ---- diff vs: A compared with B shows the interval and its metrics ----
  const ids = await rows(page).evaluateAll((rs) => rs.map((r) => ({ id: r.dataset.id, t: r.dataset.tNs })));
  const [first, second] = ids; // rows are in time order
  await page.locator(`[data-testid=annotation-row][data-id="${first.id}"] [data-testid=annotation-diff]`).selectOption(second.id);
  const metrics = page.getByTestId('annotation-metrics');
  await metrics.waitFor();
  const lenNs = BigInt(await metrics.getAttribute('data-len-ns'));
  assert.equal(lenNs, BigInt(second.t) - BigInt(first.t), 'interval = the time between the markers');
  assert.ok(lenNs > 0n);
  const events = Number(await metrics.getAttribute('data-events'));
  assert.ok(events > 0, 'the interval holds events');
  assert.ok((await page.getByTestId('annotation-tracks').locator('tbody tr').count()) > 0, 'per-track rows');
  const interval = await page.locator(`[data-testid=annotation-row][data-id="${first.id}"] [data-testid=annotation-interval]`).textContent();
  assert.match(interval, /^\+\d/);
  await shot(page, 'annotations-diff.png');

  // ---- zoom to the interval ----
  const b0 = await loupe(page);
  await page.locator(`[data-testid=annotation-row][data-id="${first.id}"] [data-testid=annotation-zoom]`).click();
  await nextFrame(page, b0);
  await page.waitForFunction((s) => window.__loupe.startNs !== s, b0.startNs);
  const z = await loupe(page);
  const [t0, t1] = [Number(first.t), Number(second.t)];
  const pad = (t1 - t0) / 40;
  const tol = pad + 4 * z.nsPerPx;
  assert.ok(Math.abs(z.startNs - t0) <= tol, `view starts at the first marker (${z.startNs} vs ${t0}, tol ${tol})`);
  assert.ok(Math.abs(z.endNs - t1) <= tol, `view ends at the second marker (${z.endNs} vs ${t1}, tol ${tol})`);
  assert.ok(z.nsPerPx < b0.nsPerPx, 'zoomed in');
  // both markers now sit near the canvas edges
  m = await markers(page);
  assert.ok(m.every((k) => k.x >= 0 && k.x <= z.widthPx), 'both markers visible after the zoom');
  await shot(page, 'annotations-zoomed.png');

  // ---- rename, then save the set under a name ----
  const nameA = page.locator(`[data-testid=annotation-row][data-id="${first.id}"] [data-testid=annotation-name]`);
  await nameA.fill('warmup start');
  await nameA.press('Enter');
  await page.waitForFunction(() => window.__loupe.markers.some((k) => k.name === 'warmup start'));
  await page.getByTestId('annotation-set-name').fill('my set');
  await page.getByTestId('annotation-save').click();
  await page.getByTestId('annotation-message').getByText('Saved “my set”.').waitFor();
  const savedTimes = (await markers(page)).map((k) => k.tNs).sort();

  // ---- reload: the same profile brings the set back ----
  await page.reload();
  await page.waitForFunction(() => window.__loupe && window.__loupe.frames > 0, null, { timeout: 20000 });
  await openProfile(page, t);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=annotation-row]').length === 2);
  assert.equal(await page.getByTestId('annotation-set-name').inputValue(), 'my set');
  m = await markersN(page, 2);
  assert.deepEqual(m.map((k) => k.tNs).sort(), savedTimes, 'the markers come back at the same times');
  assert.ok(m.some((k) => k.name === 'warmup start'), 'with their names');
  assert.ok((await page.getByTestId('annotation-set-select').locator('option', { hasText: 'my set' }).count()) === 1);
  await shot(page, 'annotations-after-reload.png');

  // ---- export, delete a marker, import the export back ----
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('annotation-export').click()]);
  const exported = JSON.parse(readFileSync(await download.path(), 'utf8'));
  assert.equal(exported.loupe_annotations, 1);
  assert.equal(exported.current, 'my set');
  assert.equal(exported.sets.find((s) => s.name === 'my set').markers.length, 2);
  await page.getByTestId('annotation-delete').first().click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=annotation-row]').length === 1);
  await page.getByTestId('annotation-import').setInputFiles({ name: 'back.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(exported)) });
  await page.getByTestId('annotation-message').getByText(`Imported ${exported.sets.length} set(s) from back.json; showing “my set”.`, { exact: false }).waitFor();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=annotation-row]').length === 2);

  // ---- a bad file: a clear message, nothing changes ----
  await page.getByTestId('annotation-import').setInputFiles({ name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{"loupe_annotations": 1, "sets": [') });
  await page.getByTestId('annotation-message').getByText(/Could not import bad\.json: not valid JSON/).waitFor();
  await page.getByTestId('annotation-import').setInputFiles({ name: 'trace.json', mimeType: 'application/json', buffer: Buffer.from('{"traceEvents": []}') });
  await page.getByTestId('annotation-message').getByText(/not a Loupe annotations file/).waitFor();
  assert.equal(await rows(page).count(), 2);
  await shot(page, 'annotations-bad-import.png');

  // ---- snapping: a right-click 6 px left of the widest slice (it starts with the trace at
  // "Fit all", so nothing lies left of it) lands on its start ----
  await page.getByTestId('fit-all').click();
  await page.waitForTimeout(100);
  const p = await page.evaluate(() => window.__loupe.findSlice());
  assert.ok(p && p.x0 > 7 && p.x1 - p.x0 > 40, `a wide slice starting inside the canvas (${JSON.stringify(p)})`);
  const n0 = (await markers(page)).length;
  const known = (await markers(page)).map((k) => k.id);
  await page.mouse.click(box.x + p.x0 - 6, box.y + p.y, { button: 'right' });
  await page.waitForFunction((n) => window.__loupe.markers.length === n + 1, n0);
  const snapped = (await markers(page)).find((k) => !known.includes(k.id));
  assert.ok(Math.abs(snapped.x - p.x0) <= 1, `the marker snapped to the slice's start (${snapped.x} vs ${p.x0}, clicked at ${p.x0 - 6})`);
  await shot(page, 'annotations-snapped.png');

  // ---- help lists the gestures ----
  await page.evaluate(() => document.activeElement?.blur());
  await page.keyboard.press('?');
  await page.getByTestId('help-panel').getByText('Right-click the timeline').waitFor();
  await page.keyboard.press('Escape');

  assert.deepEqual(errors, []);
  await context.close();
});
