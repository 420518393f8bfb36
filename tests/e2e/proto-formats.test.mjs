// Perfetto protobuf (.pftrace) and XProf XSpace (.xplane.pb) samples load through the worker and
// show their timeline: format named, slices painted, a slice's details open on click.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setup, openApp, canvasColours, waitCanvasPainted, loupe, state, shot, findSlicePoint, SAMPLES } from './helpers.mjs';

const CASES = [
  {
    label: 'perfetto',
    file: join(SAMPLES, 'perfetto-proto', 'encoded_from_perfetto_difftests', 'flow_events_track_event.pftrace'),
    format: 'perfetto',
    slices: 8,
  },
  {
    label: 'xplane',
    file: join(SAMPLES, 'xprof', 'tracelens_mi300_jax_conv_minimal_08_tw003.xplane.pb'),
    format: 'xplane',
    slices: 3650,
  },
];

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

for (const c of CASES) {
  test(`${c.label}: dropped file shows its timeline`, { timeout: 300000 }, async (t) => {
    if (!existsSync(c.file)) assert.fail(`no sample at ${c.file}`);
    const { page, errors, context } = await openApp(env, { dpr: 1 });
    await page.getByTestId('open-file').setInputFiles(c.file);
    await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 60000 });
    if ((await state(page)) === 'error') assert.fail(`load failed: ${await page.getByTestId('load-error').textContent()}`);
    const l = await loupe(page);
    assert.equal(l.demo, false);
    assert.equal(l.format, c.format);
    assert.equal(l.sliceCount, c.slices);
    assert.ok((await waitCanvasPainted(page, 8)) > 8, 'canvas is not blank');
    await shot(page, `proto-${c.label}.png`);
    const p = await findSlicePoint(page);
    assert.ok(p, 'a slice is painted');
    await page.mouse.click(p.x, p.y);
    await page.getByTestId('details').getByText('duration', { exact: true }).waitFor();
    await shot(page, `proto-${c.label}-selected.png`);
    assert.deepEqual(errors, []);
    await context.close();
  });
}
