// rocprofv3 JSON (no shared sample): the documented-schema fixture of the core's tests
// (core/src/import/rocprof/tests.rs), gzip-compressed as rocprofv3 may write it, dropped in the app.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setup, openApp, loupe, state, shot, ROOT } from './helpers.mjs';

let env;
let dir;
let file;
before(async () => {
  env = await setup();
  const src = readFileSync(join(ROOT, 'core/src/import/rocprof/tests.rs'), 'utf8');
  const json = src.slice(src.indexOf('r#"{"rocprofiler-sdk-tool"') + 3, src.indexOf('}]}"#') + 3);
  JSON.parse(json); // the fixture is JSON
  dir = mkdtempSync(join(tmpdir(), 'loupe-rocprof-'));
  file = join(dir, 'results.json.gz');
  writeFileSync(file, gzipSync(json));
});
after(async () => {
  await env?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('rocprofv3 JSON (gzip): per-GPU queue tracks, copies and API calls on the timeline', async () => {
  const { page, errors, context } = await openApp(env);
  await page.getByTestId('open-file').setInputFiles(file);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState) && !window.__loupe.demo, null, { timeout: 30000 });
  assert.equal(await state(page), 'ready');
  const l = await loupe(page);
  assert.equal(l.format, 'rocprof');
  assert.equal(l.sliceCount, 10, '3 dispatches + 2 copies + 5 API calls');
  assert.match(await page.getByTestId('track-list').textContent(), /GPU 0 — AMD Instinct MI300X/);
  await shot(page, 'rocprof.png');
  assert.deepEqual(errors, []);
  await context.close();
});
