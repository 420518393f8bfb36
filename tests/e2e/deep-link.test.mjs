// Deep links: the view lives in the URL fragment. Open a file, zoom, select, search; the URL
// opened in a new page with the same file restores the same range, selection and query; a link
// for a profile not open yet is kept (not overwritten by the demo); Back returns to the earlier view.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setup, openApp, loupe, state, shot, findSlicePoint } from './helpers.mjs';

let env;
let dir;
let file;
before(async () => {
  env = await setup();
  dir = mkdtempSync(join(tmpdir(), 'loupe-link-'));
  file = join(dir, 'linked.json');
  const ev = [];
  for (const pid of [1, 2]) {
    ev.push({ name: 'process_name', ph: 'M', pid, args: { name: `proc ${pid}` } });
    for (let i = 0; i < 400; i++) {
      ev.push({ name: `step ${i % 5}`, ph: 'X', ts: i * 100, dur: 90, pid, tid: 1 });
      ev.push({ name: `kernel ${i % 3}`, ph: 'X', ts: i * 100 + 10, dur: 50, pid, tid: 1 });
    }
  }
  writeFileSync(file, JSON.stringify({ traceEvents: ev }));
});
after(async () => {
  await env?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function open(page) {
  await page.getByTestId('open-file').setInputFiles(file);
  await page.waitForFunction(() => document.body.dataset.loupeState === 'ready' && window.__loupe && !window.__loupe.demo, null, { timeout: 60000 });
}
const hashParams = (url) => new URLSearchParams(new URL(url).hash.slice(1));
async function waitHash(page, pred, what) {
  for (let i = 0; i < 50; i++) {
    if (pred(hashParams(page.url()))) return hashParams(page.url());
    await page.waitForTimeout(100);
  }
  assert.fail(`URL fragment never got ${what}: ${page.url()}`);
}

test('zoom + select + search → link → same view in a new page with the same file; Back', async () => {
  const { page, errors, context } = await openApp(env);
  await open(page);
  const search = page.getByPlaceholder(/Search events/);
  await search.fill('kernel');
  await search.blur();
  // the search selects its first hit; the link follows
  const afterSearch = await waitHash(page, (h) => h.get('s') && h.get('q') === 'kernel', 'the first hit and the query');
  const box = await page.getByTestId('timeline').boundingBox();
  await page.mouse.move(box.x + box.width * 0.4, box.y + 60);
  for (let i = 0; i < 4; i++) await page.keyboard.press('w');
  await page.waitForTimeout(300);
  const p = await findSlicePoint(page);
  assert.ok(p, 'a slice is painted');
  await page.mouse.click(p.x, p.y);
  await page.getByTestId('details').getByText('duration', { exact: true }).waitFor();
  const selectedName = await page.getByTestId('details').locator('h2, h3, .details-title').first().textContent().catch(() => '');
  const params = await waitHash(page, (h) => h.get('s') !== afterSearch.get('s') && h.get('q') === 'kernel' && h.get('t'), 'the clicked selection');
  await page.waitForTimeout(600); // the view has settled: the URL is final
  const view = await loupe(page);
  const link = page.url();
  assert.equal(hashParams(link).get('s'), params.get('s'));
  console.log(`# link: ${link.slice(link.indexOf('#'))}`);
  assert.equal(params.get('v'), '1');
  assert.match(params.get('p'), /^[0-9a-f]{16}$/);

  // the link in a fresh page: the demo shows first and the link is kept until the file is opened
  const page2 = await context.newPage();
  await page2.goto(link);
  await page2.waitForFunction(() => window.__loupe && window.__loupe.frames > 0, null, { timeout: 20000 });
  await page2.waitForTimeout(1000);
  assert.equal(new URL(page2.url()).hash, new URL(link).hash, 'the pending link is not overwritten by the demo');
  assert.equal(params.get('f'), 'linked.json', 'the link names its file');
  const pending = page2.getByTestId('link-pending');
  assert.match(await pending.textContent(), /linked\.json.*Open that file/, 'it says which file it expects');
  await open(page2);
  await pending.waitFor({ state: 'detached', timeout: 10000 });
  await page2.waitForFunction((want) => Math.abs(window.__loupe.startNs - want) < 2, view.startNs, { timeout: 10000 });
  const v2 = await loupe(page2);
  assert.ok(Math.abs(v2.nsPerPx - view.nsPerPx) / view.nsPerPx < 1e-6, `same zoom: ${v2.nsPerPx} vs ${view.nsPerPx}`);
  await page2.getByTestId('details').getByText('duration', { exact: true }).waitFor();
  if (selectedName) {
    assert.equal(await page2.getByTestId('details').locator('h2, h3, .details-title').first().textContent(), selectedName);
  }
  assert.equal(await page2.getByPlaceholder(/Search events/).inputValue(), 'kernel');
  const p2 = await waitHash(page2, (h) => h.get('t'), 'range');
  assert.equal(p2.get('s'), params.get('s'), 'same selection in the restored URL');
  assert.equal(p2.get('t'), params.get('t'), 'same range in the restored URL');
  await shot(page2, 'deep-link-restored.png');

  // Back: zoom out (a new history entry once the view settles), then back to the linked view
  await page2.waitForTimeout(1200);
  await page2.mouse.move(box.x + box.width * 0.4, box.y + 60);
  for (let i = 0; i < 3; i++) await page2.keyboard.press('s');
  await waitHash(page2, (h) => h.get('t') !== params.get('t'), 'a new range');
  await page2.waitForTimeout(600);
  await page2.goBack();
  await page2.waitForFunction((want) => Math.abs(window.__loupe.startNs - want) < 2, view.startNs, { timeout: 10000 });
  assert.equal(await state(page2), 'ready');
  assert.deepEqual(errors, []);
  await context.close();
});

test('Copy link copies this view; a search does not carry into the next profile; menus close on Esc and outside clicks', async () => {
  const { page, errors, context } = await openApp(env);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.base });
  await open(page);
  const search = page.getByPlaceholder(/Search events/);
  await search.fill('kernel');
  await waitHash(page, (h) => h.get('q') === 'kernel', 'the query');
  await page.getByTestId('copy-link').click();
  await page.getByTestId('copy-link-message').waitFor();
  assert.match(await page.getByTestId('copy-link-message').textContent(), /Link copied/);
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  const h = new URLSearchParams(new URL(copied).hash.slice(1));
  assert.equal(h.get('q'), 'kernel');
  assert.equal(h.get('f'), 'linked.json');
  assert.equal(h.get('p'), hashParams(page.url()).get('p'));

  // the next profile opens without the last one's search
  const hits = page.getByTestId('search-count');
  await page.getByTestId('open-file').setInputFiles({ name: 'other.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ traceEvents: [{ name: 'kernel z', ph: 'X', ts: 0, dur: 5, pid: 1, tid: 1 }] })) });
  await page.waitForFunction(() => document.body.dataset.loupeState === 'ready' && window.__loupe.sliceCount === 1, null, { timeout: 60000 });
  await page.waitForTimeout(300);
  assert.equal(await search.inputValue(), '', 'the search box is empty');
  assert.equal(await hits.count(), 0, 'no hits carried over');
  assert.equal(hashParams(page.url()).get('q'), null);

  // menus: Esc closes, a click outside closes, a click inside does not
  for (const id of ['layout-menu', 'add-widget-menu', 'export-menu']) {
    const menu = page.getByTestId(id);
    await menu.locator('summary').click();
    assert.equal(await menu.getAttribute('open'), '', `${id} opens`);
    await page.keyboard.press('Escape');
    assert.equal(await menu.getAttribute('open'), null, `${id} closes on Esc`);
    await menu.locator('summary').click();
    await menu.locator('.menu-panel, ul, div').first().click({ position: { x: 2, y: 2 } }).catch(() => {});
    assert.equal(await menu.getAttribute('open'), '', `${id} stays open on a click inside`);
    await page.getByTestId('stats').click();
    assert.equal(await menu.getAttribute('open'), null, `${id} closes on a click outside`);
  }
  assert.deepEqual(errors, []);
  await context.close();
});
