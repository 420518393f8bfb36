// Keep the evidence, say how sure it is (issue 39 §3), in the browser:
// - a NEFF from another program with a real NTFF: a notice that stays open (not the folded
//   warnings) says the attribution is unverified, and the operator names are marked
//   "unverified (NEFF mismatch)" in the Operator Table, Operator Views and Event Details;
// - an NTFF with its own JSON export: one profile whose Operator Table names the export's
//   operators (not all "(no operator)"), no unverified mark;
// - a truncated NTFF: cut in its records it loads in part with a notice "the NTFF ends at byte N:
//   the capture is incomplete" and no device summary; cut in its metadata it fails with that
//   message.
// The shared samples are required (the test fails without them). Screenshots in tests/e2e/out/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setup, openApp, state, shot, SAMPLES, OUT } from './helpers.mjs';

const NTFF = join(SAMPLES, 'neuron', 'profile_128x128x1024.ntff');
const EXPORT = join(SAMPLES, 'neuron', 'profile_128x128x1024.json');
const OTHER_NEFF = join(SAMPLES, 'neuron', 'matmul_small.neff');
const MARK = 'unverified (NEFF mismatch)';

let env;
before(async () => {
  for (const f of [NTFF, EXPORT, OTHER_NEFF]) assert.ok(existsSync(f), `shared sample ${f} is required`);
  env = await setup();
});
after(async () => { await env?.close(); });

/** Opens `files`; resolves to the final state ('ready' or 'error'). */
async function open(page, files) {
  await page.getByTestId('open-file').setInputFiles(files);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 60000 });
  return state(page);
}

async function load(page, files) {
  if ((await open(page, files)) === 'error') assert.fail(`load failed: ${await page.getByTestId('load-error').textContent()}`);
}

async function openTable(page) {
  await page.locator('.wb-tab[data-widget=operator-table]').click();
  const w = page.getByTestId('widget-operator-table');
  await w.waitFor({ state: 'visible' });
  await w.locator('[data-testid=optable-table][data-hierarchy=operators]').waitFor({ timeout: 30000 });
  return w;
}

const rows = (w) => w.locator('[data-testid=optable-row]').evaluateAll((els) => els.map((e) => ({
  id: e.dataset.id, name: e.dataset.name, depth: Number(e.dataset.depth), unverified: e.dataset.unverified === 'true',
})));

test('NEFF of another program: a prominent notice, operator names marked unverified everywhere', async () => {
  const { page, errors, context } = await openApp(env, { width: 1500, height: 950 });
  await load(page, [OTHER_NEFF, NTFF]);
  // the notice is open on the page, not inside the folded warnings
  const banner = page.getByTestId('evidence-banner');
  await banner.waitFor({ state: 'visible' });
  const notice = await banner.getByTestId('neff-mismatch-notice').textContent();
  assert.match(notice, /unverified/i);
  assert.ok(notice.includes(MARK), notice);
  assert.equal(await page.locator('[data-testid=warnings] [data-testid=neff-mismatch-notice]').count(), 0);
  await shot(page, 'evidence-neff-mismatch.png');

  // Operator Table: a note, and every operator row marked
  const w = await openTable(page);
  await w.getByTestId('optable-unverified').waitFor();
  const ops = (await rows(w)).filter((r) => r.depth === 0 && r.name !== '(no operator)');
  assert.ok(ops.length > 0, 'the other NEFF resolves some operators');
  assert.ok(ops.every((r) => r.unverified), JSON.stringify(ops));
  const first = w.locator(`[data-testid=optable-row][data-id="${ops[0].id}"]`);
  assert.ok((await first.textContent()).includes(MARK));
  await shot(page, 'evidence-neff-mismatch-optable.png');

  // Event Details of one of its instructions: the operator fields are marked
  await first.click();
  await page.getByTestId('search-origin').waitFor();
  // Event Details shares the pane with the Operator Table in the device layout
  await page.locator('.wb-tab[data-widget=details]').click();
  await page.getByTestId('search-next').click();
  const details = page.getByTestId('details');
  await details.getByText('duration', { exact: true }).waitFor();
  assert.ok((await details.getByTestId('unverified').count()) > 0, 'Event Details marks the attributed fields');
  assert.ok((await details.textContent()).includes(MARK));
  await shot(page, 'evidence-neff-mismatch-details.png');

  // Operator Views: a note and marked names
  await page.locator('.wb-tab[data-widget=operator-views]').click();
  const v = page.getByTestId('widget-operator-views');
  await v.getByTestId('op-views-table').locator('tbody tr').first().waitFor({ timeout: 30000 });
  await v.getByTestId('op-views-unverified').waitFor();
  assert.ok((await v.getByTestId('op-views-table').locator('th[data-unverified=true]').count()) > 0);
  await shot(page, 'evidence-neff-mismatch-views.png');
  assert.deepEqual(errors, []);
  await context.close();
});

test('NTFF with its own JSON export: the export\'s operators on the NTFF\'s rows, nothing unverified', async () => {
  const { page, errors, context } = await openApp(env, { width: 1500, height: 950 });
  await load(page, [NTFF, EXPORT]);
  assert.equal(await page.getByTestId('evidence-banner').count(), 0);
  const w = await openTable(page);
  const top = (await rows(w)).filter((r) => r.depth === 0);
  const exp = JSON.parse(readFileSync(EXPORT, 'utf8'));
  const layers = new Set(exp.instruction.map((i) => i.layer).filter(Boolean));
  assert.ok(layers.size > 0, 'the export names operators');
  for (const l of layers) assert.ok(top.some((r) => r.name === l), `operator ${l} listed: ${JSON.stringify(top)}`);
  assert.ok(top.every((r) => !r.unverified));
  await shot(page, 'evidence-ntff-with-export.png');
  assert.deepEqual(errors, []);
  await context.close();
});

test('truncated NTFF: says where it ends, no device summary; cut in its metadata: a plain error', async () => {
  const full = readFileSync(NTFF);
  const meta = full[1] | (full[2] << 8) | (full[3] << 16);
  // cut one record short of the end: loads in part
  const cut = full.length - 16;
  const partial = join(OUT, 'evidence-truncated.ntff');
  writeFileSync(partial, full.subarray(0, cut));
  const { page, errors, context } = await openApp(env);
  // the whole capture first: its device summary is there (so its absence below means something)
  await load(page, NTFF);
  await page.locator('.wb-tab[data-widget=summary]').click();
  await page.getByTestId('widget-summary').waitFor({ state: 'visible' });
  await page.getByTestId('device-summary').locator('[data-key=total_time]').waitFor({ state: 'attached' }); // in the folded key table
  assert.equal(await page.getByTestId('truncated-notice').count(), 0);
  await load(page, partial);
  const notice = page.getByTestId('truncated-notice');
  await notice.waitFor({ state: 'visible' });
  const text = await notice.textContent();
  assert.ok(text.includes(`the NTFF ends at byte ${cut}: the capture is incomplete`), text);
  await page.locator('.wb-tab[data-widget=summary]').click();
  await page.getByTestId('widget-summary').waitFor({ state: 'visible' });
  assert.equal(await page.getByTestId('device-summary').count(), 0, 'no device summary for an incomplete capture');
  assert.equal(await page.locator('[data-key=total_time]').count(), 0);
  await shot(page, 'evidence-truncated.png');
  assert.deepEqual(errors, []);
  await context.close();

  // cut inside the metadata: nothing to show, the error says why
  const early = 0x80 + Math.floor(meta / 2);
  const broken = join(OUT, 'evidence-truncated-metadata.ntff');
  writeFileSync(broken, full.subarray(0, early));
  const b = await openApp(env);
  assert.equal(await open(b.page, broken), 'error');
  const msg = await b.page.getByTestId('load-error').textContent();
  assert.ok(msg.includes(`the NTFF ends at byte ${early}: the capture is incomplete`), msg);
  await shot(b.page, 'evidence-truncated-metadata.png');
  await b.context.close();
});
