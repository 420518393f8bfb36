// Light and dark themes (issue 39 §4): the system's prefers-color-scheme picks the first one, the
// header's toggle switches and is remembered across reloads, and what is painted on canvases (the
// timeline, a chart) follows, not only the page's CSS.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { setup, openApp, state, shot, SAMPLES } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

/** Relative luminance (0 black … 1 white) of a CSS `rgb(…)` colour. */
const lum = (css) => {
  const [r, g, b] = css.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number);
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
};

/** The page's background, the header's text, and the timeline canvas' pixel at (2, 2) (its background). */
async function looks(page) {
  return page.evaluate(() => {
    const c = document.querySelector('[data-testid=timeline]');
    const px = c.getContext('2d').getImageData(2, 2, 1, 1).data;
    return {
      theme: document.documentElement.dataset.theme,
      scheme: getComputedStyle(document.documentElement).colorScheme,
      body: getComputedStyle(document.body).backgroundColor,
      text: getComputedStyle(document.querySelector('.topbar .brand')).color,
      canvas: `rgb(${px[0]}, ${px[1]}, ${px[2]})`,
    };
  });
}

const repainted = (page, dark) => page.waitForFunction((d) => {
  const c = document.querySelector('[data-testid=timeline]');
  const px = c.getContext('2d').getImageData(2, 2, 1, 1).data;
  const l = (0.2126 * px[0] + 0.7152 * px[1] + 0.0722 * px[2]) / 255;
  return d ? l < 0.3 : l > 0.7;
}, dark, { timeout: 10000 });

test('theme: follows the system first, the toggle switches page and canvas, the choice survives a reload', async () => {
  const { page, errors, context } = await openApp(env, { width: 1440, height: 900 });
  let l = await looks(page);
  assert.equal(l.theme, 'light', 'a light system opens light');
  assert.ok(lum(l.body) > 0.8 && lum(l.text) < 0.3 && lum(l.canvas) > 0.8, `light: ${JSON.stringify(l)}`);

  await page.getByTestId('theme-toggle').click();
  await repainted(page, true);
  l = await looks(page);
  assert.equal(l.theme, 'dark');
  assert.equal(l.scheme, 'dark', 'form controls and scrollbars dark too (color-scheme)');
  assert.ok(lum(l.body) < 0.2 && lum(l.text) > 0.7 && lum(l.canvas) < 0.3, `dark: ${JSON.stringify(l)}`);
  await shot(page, 'theme-dark-demo-1440x900.png');

  // remembered: a reload opens dark although the system is light
  await page.reload();
  await page.waitForFunction(() => window.__loupe && window.__loupe.frames > 0, null, { timeout: 20000 });
  await repainted(page, true);
  assert.equal((await looks(page)).theme, 'dark');

  // and back
  await page.getByTestId('theme-toggle').click();
  await repainted(page, false);
  assert.equal((await looks(page)).theme, 'light');
  assert.deepEqual(errors, []);
  await context.close();
});

test('theme: a dark system opens dark; a Kineto chart is drawn dark', async () => {
  const { page, errors, context } = await openApp(env, { width: 1440, height: 900, colorScheme: 'dark' });
  const l = await looks(page);
  assert.equal(l.theme, 'dark', 'prefers-color-scheme: dark opens dark');
  assert.ok(lum(l.canvas) < 0.3, `canvas background ${l.canvas}`);

  await page.getByTestId('open-file').setInputFiles(join(SAMPLES, 'pytorch-kineto', 'hta__nccl_parser_config_nccl_data.json.gz'));
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 60000 });
  assert.equal(await state(page), 'ready');
  const chart = page.locator('[data-testid=widget-gpu-breakdown] canvas.chart').first();
  await chart.waitFor({ timeout: 30000 });
  await page.waitForFunction(() => document.querySelector('[data-testid=widget-gpu-breakdown] canvas.chart')?.dataset.drawn === 'true', null, { timeout: 10000 });
  const corner = await chart.evaluate((c) => { const p = c.getContext('2d').getImageData(1, 1, 1, 1).data; return `rgb(${p[0]}, ${p[1]}, ${p[2]})`; });
  assert.ok(lum(corner) < 0.3, `chart background ${corner} is dark`);
  await shot(page, 'theme-dark-kineto-1440x900.png');
  assert.deepEqual(errors, []);
  await context.close();
});

test('header at 900 px: every button is whole and inside the window; the file name shrinks, its hover has it all', async () => {
  const { page, errors, context } = await openApp(env, { width: 900, height: 900 });
  const long = 'a-rather-long-trace-file-name-from-a-cluster-run-rank-0017-of-0064.pt.trace.json';
  await page.getByTestId('open-file').setInputFiles({ name: long, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ traceEvents: [{ name: 'k', ph: 'X', ts: 0, dur: 5, pid: 1, tid: 1 }] })) });
  await page.waitForFunction(() => document.body.dataset.loupeState === 'ready' && !window.__loupe.demo, null, { timeout: 60000 });
  const boxes = await page.evaluate(() => [...document.querySelectorAll('.topbar button, .topbar label.button, .topbar summary')]
    .filter((e) => e.offsetParent !== null)
    .map((e) => { const r = e.getBoundingClientRect(); return { text: e.textContent.trim(), left: r.left, right: r.right, clipped: e.scrollWidth > e.clientWidth + 1 }; }));
  assert.ok(boxes.length >= 7, `header controls: ${boxes.map((b) => b.text).join(' | ')}`);
  for (const b of boxes) {
    assert.ok(b.left >= 0 && b.right <= 900, `“${b.text}” inside the window: ${b.left}–${b.right}`);
    assert.ok(!b.clipped, `“${b.text}” not cut`);
  }
  assert.equal(await page.locator('.topbar .source-name').getAttribute('title'), long);
  await shot(page, 'header-900.png');
  assert.deepEqual(errors, []);
  await context.close();
});
