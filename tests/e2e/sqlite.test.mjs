// SQLite in the browser: the Nsight Systems export and the DLProf database load through the
// worker's real SQLite (loupe-sqlite, sqlite-wasm-rs) and show their timelines; DLProf's database
// also fills the Dashboard's tables; a binary .nsys-rep is answered with the export command.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setup, openApp, canvasColours, waitCanvasPainted, loupe, state, shot, findSlicePoint, SAMPLES } from './helpers.mjs';

const NSYS = join(SAMPLES, 'nsight-systems-sqlite', 'odema_nsys_profile.sqlite');
const REP = join(SAMPLES, 'nsight-systems-sqlite', 'odema_nsys_profile.nsys-rep');
const DLDB = join(SAMPLES, 'dlprof', 'odema_dlprof_dldb.sqlite');

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

async function load(page, file) {
  await page.getByTestId('open-file').setInputFiles(file);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 90000 });
}

test('Nsight Systems SQLite export: timeline, kernel details', async (t) => {
  if (!existsSync(NSYS)) assert.fail(`no sample ${NSYS}`);
  const { page, errors, context } = await openApp(env, { width: 1500, height: 900 });
  await load(page, NSYS);
  if ((await state(page)) === 'error') assert.fail(`load failed: ${await page.getByTestId('load-error').textContent()}`);
  const l = await loupe(page);
  assert.equal(l.format, 'nsys-sqlite');
  assert.equal(l.sliceCount, 502); // = core/sqlite/tests/count_sqlite.py on this file
  assert.ok((await waitCanvasPainted(page, 12)) > 12, 'canvas is not blank');
  await shot(page, 'sqlite-nsys.png');
  const p = await findSlicePoint(page);
  assert.ok(p, 'a slice is painted');
  await page.mouse.click(p.x, p.y);
  await page.getByTestId('details').getByText('duration', { exact: true }).waitFor();
  await shot(page, 'sqlite-nsys-selected.png');
  assert.deepEqual(errors, []);
  await context.close();
});

test('DLProf database: timeline and dashboard tables', async (t) => {
  if (!existsSync(DLDB)) assert.fail(`no sample ${DLDB}`);
  const { page, errors, context } = await openApp(env, { width: 1500, height: 900 });
  await load(page, DLDB);
  if ((await state(page)) === 'error') assert.fail(`load failed: ${await page.getByTestId('load-error').textContent()}`);
  const l = await loupe(page);
  assert.equal(l.format, 'dlprof-sqlite');
  assert.equal(l.sliceCount, 104);
  assert.ok((await waitCanvasPainted(page, 8)) > 8, 'canvas is not blank');
  await shot(page, 'sqlite-dlprof.png');
  await page.locator('.wb-tab[data-widget=dashboard]').click();
  const w = page.getByTestId('widget-dashboard');
  await w.getByText('System Config').first().waitFor();
  await shot(page, 'sqlite-dlprof-dashboard.png');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a binary .nsys-rep is answered with the export command', async (t) => {
  if (!existsSync(REP)) assert.fail(`no sample ${REP}`);
  const { page, context } = await openApp(env);
  await load(page, REP);
  assert.equal(await state(page), 'error');
  assert.match(await page.getByTestId('load-error').textContent(), /nsys export --type sqlite/);
  await context.close();
});
