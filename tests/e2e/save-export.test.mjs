// Save and export: a profile with an annotation saved as .loupe re-opens (in a fresh browser
// profile, without the original file) with the same counts, the same markers and view; the
// visible range exports as CSV, the profile as Chrome JSON that Loupe re-opens with the same
// slice count, and Parquet tables that start with the Parquet magic.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setup, openApp, loupe, state, shot } from './helpers.mjs';

let env;
let dir;
let file;
before(async () => {
  env = await setup();
  dir = mkdtempSync(join(tmpdir(), 'loupe-save-'));
  file = join(dir, 'to-save.json');
  const ev = [];
  for (const tid of [1, 2, 3]) {
    for (let i = 0; i < 300; i++) {
      ev.push({ name: `outer ${i % 4}`, ph: 'X', ts: i * 50, dur: 45, pid: 7, tid, args: { i } });
      ev.push({ name: `inner ${i % 2}`, ph: 'X', ts: i * 50 + 5, dur: 20, pid: 7, tid });
    }
  }
  ev.push({ name: 'mark', ph: 'i', ts: 100, pid: 7, tid: 1, s: 't' });
  writeFileSync(file, JSON.stringify({ traceEvents: ev }));
});
after(async () => {
  await env?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function open(page, path) {
  await page.getByTestId('open-file').setInputFiles(path);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState) && window.__loupe && !window.__loupe.demo, null, { timeout: 60000 });
  if ((await state(page)) === 'error') assert.fail(await page.getByTestId('load-error').textContent());
  return loupe(page);
}

async function downloadOf(page, click) {
  const [dl] = await Promise.all([page.waitForEvent('download'), click()]);
  const path = join(dir, dl.suggestedFilename());
  await dl.saveAs(path);
  return path;
}

test('save a .loupe with a marker, re-open it elsewhere: same counts, markers and view', async () => {
  const { page, errors, context } = await openApp(env);
  const first = await open(page, file);
  const box = await page.getByTestId('timeline').boundingBox();
  await page.mouse.click(box.x + box.width * 0.5, box.y + 80, { button: 'right' });
  await page.waitForFunction(() => window.__loupe.markers && window.__loupe.markers.length === 1, null, { timeout: 10000 });
  const marker = (await loupe(page)).markers[0];
  await page.waitForTimeout(500); // the view settles
  const view = await loupe(page);
  const profileKey = new URLSearchParams(new URL(page.url()).hash.slice(1)).get('p');
  assert.match(profileKey ?? '', /^[0-9a-f]{16}$/, 'the page URL names the profile');
  const saved = await downloadOf(page, () => page.getByTestId('save-profile').click());
  assert.match(saved, /to-save\.loupe$/);
  assert.equal(readFileSync(saved).subarray(0, 5).toString(), 'LOUPE');
  await page.getByTestId('export-menu').locator('summary').click();
  assert.match(await page.getByTestId('export-message').textContent(), /Saved to-save\.loupe \([\d.]+ kB\)/);
  await context.close();

  // a fresh browser profile (no cache, no stored annotations), only the .loupe file
  const b = await openApp(env);
  const again = await open(b.page, saved);
  for (const k of ['sliceCount', 'trackCount', 'counterCount']) assert.equal(again[k], first[k], k);
  await b.page.waitForFunction((t) => window.__loupe.markers.length === 1 && window.__loupe.markers[0].tNs === t, marker.tNs, { timeout: 10000 });
  await b.page.waitForFunction((s) => Math.abs(window.__loupe.startNs - s) < 2, view.startNs, { timeout: 10000 });
  // the URL follows the .loupe just opened: a link to this view, with the saved markers
  await b.page.waitForFunction((p) => {
    const h = new URLSearchParams(location.hash.slice(1));
    return h.get('p') === p && h.get('m');
  }, profileKey, { timeout: 10000 });
  await shot(b.page, 'save-reopened.png');
  assert.deepEqual([...errors, ...b.errors], []);
  await b.context.close();
});

test('exports: range CSV, Chrome JSON that re-opens, Parquet tables', async () => {
  const { page, errors, context } = await openApp(env);
  const first = await open(page, file);
  const menu = page.getByTestId('export-menu');
  await menu.locator('summary').click();
  const csv = readFileSync(await downloadOf(page, () => page.getByTestId('export-range-csv').click()), 'utf8').trim().split('\n');
  assert.equal(csv[0], 'group,track,depth,start_ns,dur_ns,end_ns,name,category,opcode,instruction');
  assert.equal(csv.length - 1, first.sliceCount, 'the whole profile is visible: every slice is a row');
  const json = await downloadOf(page, () => page.getByTestId('export-json').click());
  for (const t of ['slices', 'tracks']) {
    const pq = readFileSync(await downloadOf(page, () => page.getByTestId(`export-parquet-${t}`).click()));
    assert.equal(pq.subarray(0, 4).toString(), 'PAR1');
    assert.equal(pq.subarray(pq.length - 4).toString(), 'PAR1');
  }
  await shot(page, 'export-menu.png');
  const back = await open(page, json);
  assert.equal(back.sliceCount, first.sliceCount);
  assert.deepEqual(errors, []);
  await context.close();
});
