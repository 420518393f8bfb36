// Shared e2e helpers: static server for dist/, headless Chromium via playwright-core, console
// error collection, canvas pixel checks, screenshots in tests/e2e/out/.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from './server.mjs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const OUT = join(ROOT, 'tests', 'e2e', 'out');
export const SAMPLES = process.env.LOUPE_SAMPLES || join(ROOT, '..', 'shared', 'samples');
mkdirSync(OUT, { recursive: true });

/**
 * Runs a native program of the workspace and returns its stdout. `env` names a variable that may
 * hold the path of the program already built (scripts/test-all.sh sets them to what its native
 * step built in the `ci` profile, so the end-to-end step compiles nothing); otherwise
 * `cargo run <cargoArgs> -- <args>` builds it.
 */
export function runWorkspaceBin(env, cargoArgs, args, options = {}) {
  const opts = { cwd: ROOT, encoding: 'utf8', maxBuffer: 512 << 20, timeout: 15 * 60_000, ...options };
  const bin = process.env[env];
  if (bin) return execFileSync(bin, args, opts);
  return execFileSync('cargo', ['run', '-q', ...cargoArgs, '--', ...args], opts);
}

/**
 * Whether the build under test has the threaded parser worker (`LOUPE_THREADS=1 trunk build
 * --release`; scripts/test-all.sh passes the same variable on). It is opt-in (README, Threads):
 * tests/e2e/threads.test.mjs checks the threaded worker in such a build, and in any other that the
 * page never asks for it.
 */
export const THREADED = process.env.LOUPE_THREADS === '1';

const FLAGS = [
  '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run',
];

/** Start the server (unless BASE_URL is set) and a browser; returns { base, browser, close }. */
export async function setup() {
  let server = null;
  let base = process.env.BASE_URL;
  if (!base) {
    const dist = process.env.LOUPE_DIST || join(ROOT, 'dist'); // LOUPE_DIST: another build folder
    if (!existsSync(join(dist, 'index.html'))) throw new Error('dist/ is missing: run `trunk build --release` first');
    server = await startServer(dist, 0);
    base = `http://127.0.0.1:${server.address().port}/`;
  }
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: FLAGS });
  return {
    base,
    browser,
    async close() {
      await browser.close();
      if (server) await new Promise((ok) => server.close(ok));
    },
  };
}

/** A new page with console-error collection; waits until the app painted. */
export async function openApp(env, { dpr = 1, width = 1400, height = 820, colorScheme = 'light' } = {}) {
  const context = await env.browser.newContext({ viewport: { width, height }, deviceScaleFactor: dpr, colorScheme });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()} (${r.failure()?.errorText})`));
  await page.goto(env.base);
  await page.waitForFunction(() => window.__loupe && window.__loupe.frames > 0, null, { timeout: 20000 });
  return { page, errors, context };
}

/**
 * Polls `fn` in the page (it may be async) until it returns a truthy value; returns that value.
 * Use this, not `page.waitForFunction`, for a condition that needs `await` (Cache Storage,
 * IndexedDB, service-worker registrations): waitForFunction does not await the predicate, and
 * the promise an async function returns is truthy, so it resolves at once whatever the answer.
 */
export async function waitForAsync(page, fn, arg, { timeout = 10000, polling = 250, what = 'condition' } = {}) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await page.evaluate(fn, arg);
      if (last) return last;
    } catch (e) {
      last = e; // e.g. the page is navigating: try again
    }
    if (Date.now() > end) throw new Error(`waitForAsync: ${what} not met within ${timeout} ms (last: ${last})`);
    await page.waitForTimeout(polling);
  }
}

/** Number of distinct colours in a grid sample of the timeline canvas backing store. */
export async function canvasColours(page) {
  return page.evaluate(() => {
    const c = document.querySelector('[data-testid=timeline]');
    const g = c.getContext('2d');
    const { data } = g.getImageData(0, 0, c.width, c.height);
    const seen = new Set();
    for (let y = 0; y < c.height; y += 7) {
      for (let x = 0; x < c.width; x += 7) {
        const i = (y * c.width + x) * 4;
        seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
      }
    }
    return seen.size;
  });
}

export const loupe = (page) => page.evaluate(() => ({ ...window.__loupe }));
export const state = (page) => page.evaluate(() => document.body.dataset.loupeState);

/** Opens `files` through the file input and waits until the load ends; fails with the page's message if it failed. */
export async function load(page, files) {
  await page.getByTestId('open-file').setInputFiles(files);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 60000 });
  if ((await state(page)) === 'error') throw new Error(`load failed: ${await page.getByTestId('load-error').textContent()}`);
}

/**
 * Wait until the timeline canvas shows more than `min` colours (a load's "ready" comes a frame
 * before its paint, and a new profile's layout may mount a fresh canvas); returns the count.
 */
export async function waitCanvasPainted(page, min, timeout = 10000) {
  const end = Date.now() + timeout;
  let n = 0;
  while (Date.now() < end) {
    n = await canvasColours(page);
    if (n > min) return n;
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  }
  return n;
}

/** Wait for the next painted frame after an action. */
export async function nextFrame(page, before) {
  await page.waitForFunction((f) => window.__loupe.frames > f, before.frames, { timeout: 5000 });
}

export async function shot(page, name) {
  await page.screenshot({ path: join(OUT, name) });
}

/** Page coordinates of the centre of the widest painted slice (via window.__loupe.findSlice). */
export async function findSlicePoint(page) {
  const box = await page.locator('[data-testid=timeline]').boundingBox();
  const p = await page.evaluate(() => window.__loupe.findSlice());
  return p ? { x: box.x + p.x, y: box.y + p.y } : null;
}
