// The Code widget on a generated NEFF + NTFF pair and the Python sources its debug info names
// (written by `cargo run -p loupe-core --example gen_neuron_pair`, or `$LOUPE_GEN_NEURON_PAIR_BIN`): the sources dropped with the
// profile are set aside (not imported), model.py opens with time per line in the gutter; an event
// click marks its line (Ctrl+click scrolls to it); clicking a line highlights its events on the
// timeline (the search widget says where they came from); sources dropped later are added to
// the open profile without reloading it. Screenshots in tests/e2e/out/code-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setup, openApp, load, state, shot, loupe, OUT, runWorkspaceBin } from './helpers.mjs';

const FIX = join(OUT, 'fixtures', 'code');
const NEFF = join(FIX, 'model.neff');
const NTFF = join(FIX, 'model.ntff');
const MODEL = join(FIX, 'src', 'model.py');
const KERNEL = join(FIX, 'src', 'kernel.py');
// 6 iterations (the example's default) × 2 instructions that point at model.py:58
const LINE58_EVENTS = 12;

let env;
let fixtureError = null;
before(async () => {
  try {
    runWorkspaceBin('LOUPE_GEN_NEURON_PAIR_BIN', ['-p', 'loupe-core', '--example', 'gen_neuron_pair'], [FIX], { stdio: 'pipe' });
  } catch (e) {
    fixtureError = `could not generate the fixtures with cargo: ${e.message}`;
  }
  env = await setup();
});
after(async () => { await env?.close(); });

async function showCode(page) {
  await page.locator('.wb-tab[data-widget=code]').click();
  const w = page.getByTestId('widget-code');
  await w.waitFor();
  return w;
}

const line = (page, n) => page.locator(`[data-testid=widget-code] .code-line[data-line="${n}"]`);

test('code: sources dropped with the profile, both ways between events and lines', async (t) => {
  if (fixtureError) assert.fail(fixtureError);
  const { page, errors, context } = await openApp(env, { width: 1500, height: 900 });
  await load(page, [NEFF, NTFF, MODEL, KERNEL]);
  assert.equal((await loupe(page)).format, 'ntff+neff', 'the .py files were not sent to the importers');
  const code = await showCode(page);

  // model.py is open (the file the debug info names), kernel.py is a tab the debug info does not use
  await page.waitForSelector('[data-testid=code-lines][data-path="model.py"]');
  assert.equal(await code.locator('.code-tab.active').getAttribute('data-path'), 'model.py');
  assert.equal(await code.locator('.code-tab.unused').getAttribute('data-path'), 'kernel.py');
  // syntax highlighting: keywords, strings, comments
  assert.ok(await code.locator('.tok-kw').count() > 5, 'keywords highlighted');
  assert.ok(await code.locator('.tok-str').count() > 0, 'strings highlighted');
  assert.ok(await code.locator('.tok-com').count() > 0, 'comments highlighted');
  // virtualised: not every line of the file is in the DOM
  const rendered = await code.locator('.code-line').count();
  assert.ok(rendered < 75, `${rendered} lines rendered`);

  // click the widest event (an instruction of model.py:58): plain click marks the line, no scroll
  const box = await page.getByTestId('timeline').boundingBox();
  const p = await page.evaluate(() => window.__loupe.findSlice());
  assert.ok(p, 'a painted slice');
  await page.mouse.click(box.x + p.x, box.y + p.y);
  await page.waitForFunction(() => document.querySelector('[data-testid=details] .details-title'));
  const scrollTop = () => page.getByTestId('code-view').evaluate((el) => el.scrollTop);
  assert.equal(await scrollTop(), 0, 'a plain click on an event in the open file does not scroll');
  // Ctrl+click the same event: the view scrolls to line 58 and marks it
  await page.keyboard.down('Control');
  await page.mouse.click(box.x + p.x, box.y + p.y);
  await page.keyboard.up('Control');
  await line(page, 58).waitFor({ timeout: 5000 });
  await page.waitForFunction(() => document.querySelector('[data-testid=widget-code] .code-line[data-line="58"]')?.classList.contains('event'));
  assert.ok((await scrollTop()) > 0, 'scrolled to the line');
  assert.match(await line(page, 58).textContent(), /torch\.matmul/);
  assert.equal(await code.locator('.code-line.event').count(), 1, 'only the event line is marked');
  // the gutter: time and count of line 58
  const gutter = line(page, 58).locator('.code-time');
  assert.equal(await gutter.getAttribute('data-count'), String(LINE58_EVENTS));
  assert.equal(await gutter.getAttribute('data-ns'), String(6 * 4000), '6 × (1 µs + 3 µs)');
  assert.match(await gutter.textContent(), /24(\.0)? ?µs/);
  await shot(page, 'code-event-line.png');

  // click line 58: its events are highlighted on the timeline
  await line(page, 58).click();
  const origin = page.getByTestId('search-origin');
  await origin.waitFor();
  assert.equal(await page.getByTestId('search-count').textContent(), String(LINE58_EVENTS));
  assert.match(await origin.textContent(), new RegExp(`${LINE58_EVENTS} events highlighted from model\\.py:58`));
  assert.ok(await line(page, 58).evaluate((el) => el.classList.contains('picked')));
  // the first of them is selected and paged to in Event Details
  assert.match(await page.getByTestId('search-page').textContent(), new RegExp(`hit 1 of ${LINE58_EVENTS}`));
  await shot(page, 'code-line-events.png');
  // shift-click a line without events adds it: same events, both lines named
  await line(page, 57).click({ modifiers: ['Shift'] });
  await page.waitForFunction(() => /model\.py:57,58/.test(document.querySelector('[data-testid=search-origin]')?.textContent));
  assert.equal(await page.getByTestId('search-count').textContent(), String(LINE58_EVENTS));
  assert.equal(await code.locator('.code-line.picked').count(), 2);
  // a line with no events alone: 0 events
  await line(page, 56).click();
  await page.waitForFunction(() => /model\.py:56/.test(document.querySelector('[data-testid=search-origin]')?.textContent));
  assert.equal(await page.getByTestId('search-count').textContent(), '0');

  // kernel.py: a tab of its own, no times (the typed source column names model.py only)
  await code.locator('.code-tab[data-path="kernel.py"]').click();
  await page.waitForSelector('[data-testid=code-lines][data-path="kernel.py"]');
  assert.equal(await code.locator('.code-time[data-ns]').count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test('code: empty state names the debug-info paths; sources dropped later join the open profile', async (t) => {
  if (fixtureError) assert.fail(fixtureError);
  const { page, errors, context } = await openApp(env, { width: 1500, height: 900 });
  await load(page, [NEFF, NTFF]);
  const code = await showCode(page);
  const empty = page.getByTestId('code-empty');
  await empty.waitFor();
  assert.match(await empty.textContent(), /No source: drop the \.py files your profile was compiled from \(debug info names: model\.py\)/);
  await shot(page, 'code-empty.png');
  const before = await loupe(page);

  // only a source file: added without reloading the profile
  await page.getByTestId('open-file').setInputFiles([MODEL]);
  await page.waitForSelector('[data-testid=code-lines][data-path="model.py"]');
  const afterDrop = await loupe(page);
  assert.equal(await state(page), 'ready');
  assert.equal(afterDrop.loadMs, before.loadMs, 'the profile was not reloaded');
  assert.equal(afterDrop.sliceCount, before.sliceCount);
  // the gutter already has line 58's time
  await code.getByTestId('code-view').evaluate((el) => { el.scrollTop = 40 * 18; });
  await line(page, 58).waitFor();
  assert.equal(await line(page, 58).locator('.code-time').getAttribute('data-count'), String(LINE58_EVENTS));
  assert.deepEqual(errors, []);
  await context.close();
});

test('code: a folder (Open folder…) gives its sources and its Neuron captures', async (t) => {
  if (fixtureError) assert.fail(fixtureError);
  if (!existsSync(FIX)) assert.fail('no fixtures');
  const { page, errors, context } = await openApp(env, { width: 1500, height: 900 });
  await page.getByTestId('open-folder').setInputFiles(FIX);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 60000 });
  if ((await state(page)) === 'error') assert.fail(`load failed: ${await page.getByTestId('load-error').textContent()}`);
  assert.equal((await loupe(page)).format, 'ntff+neff');
  const code = await showCode(page);
  // folder-relative paths (code/src/model.py) still match the debug info's model.py
  await page.waitForSelector('[data-testid=code-lines]');
  assert.match(await code.locator('.code-tab.active').getAttribute('data-path'), /src\/model\.py$/);
  await shot(page, 'code-folder.png');
  assert.deepEqual(errors, []);
  await context.close();
});
