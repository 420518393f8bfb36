// Embedding and ?url=: the docs/embed example page posts a file into Loupe (?mode=embedded, no
// chrome) and gets `ready` and `loaded`, then moves the view; ?url= loads a file served by the
// same server with progress, and says why when it cannot.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT, OUT } from './helpers.mjs';
import { serve } from '../bench/server.mjs';

const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--no-first-run'];
let srv;
let browser;
let dir;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'loupe-embed-'));
  const ev = [{ name: 'process_name', ph: 'M', pid: 1, args: { name: 'served' } }];
  for (let i = 0; i < 1000; i++) ev.push({ name: `op ${i % 4}`, ph: 'X', ts: i * 10, dur: 8, pid: 1, tid: 1 });
  writeFileSync(join(dir, 'served trace.json'), JSON.stringify({ traceEvents: ev }));
  srv = await serve({ '/': (process.env.LOUPE_DIST || join(ROOT, 'dist')), '/embed/': join(ROOT, 'docs', 'embed'), '/data/': dir }, { isolate: false });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: FLAGS });
});
after(async () => {
  await browser?.close();
  await srv?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function newPage() {
  const context = await browser.newContext({ viewport: { width: 1300, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  return { context, page, errors };
}

test('?url= loads a file from the same server; a missing one gives a clear error', async () => {
  const { context, page, errors } = await newPage();
  await page.goto(`${srv.url}/?url=${encodeURIComponent('/data/served%20trace.json')}`);
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState) && window.__loupe && !window.__loupe.demo, null, { timeout: 30000 });
  assert.equal(await page.evaluate(() => document.body.dataset.loupeState), 'ready');
  assert.equal(await page.evaluate(() => window.__loupe.sliceCount), 1000);
  assert.match(await page.locator('.source-name').first().textContent(), /served trace\.json/);
  assert.deepEqual(errors, []);

  await page.goto(`${srv.url}/?url=/data/missing.json`);
  await page.getByTestId('load-error').waitFor({ timeout: 20000 });
  assert.match(await page.getByTestId('load-error').textContent(), /could not read '\/data\/missing\.json': the server answered 404/);
  await context.close();
});

test('the embed example posts a file and gets ready + loaded; view moves the embedded timeline', async () => {
  const { context, page, errors } = await newPage();
  await page.goto(`${srv.url}/embed/`);
  await page.getByTestId('embed-status').filter({ hasText: 'ready' }).waitFor({ timeout: 20000 });
  const frame = page.frameLocator('#loupe');
  assert.equal(await frame.locator('.topbar').isVisible(), false, 'no header in embedded mode');
  await page.getByTestId('embed-file').setInputFiles(join(dir, 'served trace.json'));
  await page.getByTestId('embed-status').filter({ hasText: 'loaded' }).waitFor({ timeout: 30000 });
  const log = (await page.getByTestId('embed-log').textContent()).trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(log.map((m) => m.loupe), ['ready', 'loaded']);
  const s = log[1].summary;
  assert.equal(s.name, 'served trace.json');
  assert.equal(s.slices, 1000);
  assert.equal(s.format, 'chrome-json');
  const f = page.frames().find((x) => x.url().includes('mode=embedded'));
  await page.getByTestId('embed-view').click();
  const mid = s.start_ns + Math.floor(s.duration_ns / 2);
  await f.waitForFunction((m) => Math.abs(window.__loupe.endNs - m) < 2, mid, { timeout: 10000 });
  await page.screenshot({ path: join(OUT, 'embed-example.png') });
  assert.deepEqual(errors, []);
  await context.close();
});

// ---- the embedding contract (app/src/embed.rs): only the parent, one pinned origin, replies only
// about the host's own loads. Three origins: Loupe (srv), the host page and a stranger, each on
// its own port of 127.0.0.1.
function traceJson(n, name) {
  const ev = [{ name: 'process_name', ph: 'M', pid: 1, args: { name } }];
  for (let i = 0; i < n; i++) ev.push({ name: `${name} ${i % 3}`, ph: 'X', ts: i * 10, dur: 8, pid: 1, tid: 1 });
  return JSON.stringify({ traceEvents: ev });
}

// The host: embeds Loupe (query given) and a stranger's frame; records what Loupe posts to it.
const HOST_HTML = (loupeSrc, strangerSrc) => `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><body>
<iframe id="loupe" src="${loupeSrc}" style="width:900px;height:500px"></iframe>
<iframe id="stranger" src="${strangerSrc}" style="width:300px;height:100px"></iframe>
<script>
  window.__msgs = [];
  const frame = document.getElementById('loupe');
  window.addEventListener('message', (ev) => {
    if (ev.source === frame.contentWindow && ev.data && typeof ev.data.loupe === 'string') window.__msgs.push(ev.data);
  });
  window.hostOpen = (name, text) => {
    const buffer = new TextEncoder().encode(text).buffer;
    frame.contentWindow.postMessage({ loupe: 'open', name, buffer }, '*', [buffer]);
  };
</script></body>`;

// The stranger: a sibling frame of another origin that tries to drive Loupe, and a popup opener.
const STRANGER_HTML = `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><body>
<button id="pop">pop</button>
<script>
  window.strangerOpen = (target, name, text) => {
    const buffer = new TextEncoder().encode(text).buffer;
    target.postMessage({ loupe: 'open', name, buffer }, '*', [buffer]);
    target.postMessage({ loupe: 'view', start_ns: 0, end_ns: 50 }, '*');
  };
  window.sibling = () => parent.frames[0];
  document.getElementById('pop').onclick = () => { window.popup = window.open(window.loupeUrl, 'loupe-popup'); };
</script></body>`;

async function contractSetup(query) {
  const hostDir = mkdtempSync(join(tmpdir(), 'loupe-host-'));
  const strangerDir = mkdtempSync(join(tmpdir(), 'loupe-stranger-'));
  writeFileSync(join(strangerDir, 'index.html'), STRANGER_HTML);
  const hostSrv = await serve({ '/': hostDir }, { isolate: false });
  const strangerSrv = await serve({ '/': strangerDir }, { isolate: false });
  const q = typeof query === 'function' ? query(hostSrv.url, strangerSrv.url) : query;
  writeFileSync(join(hostDir, 'index.html'), HOST_HTML(`${srv.url}/${q}`, `${strangerSrv.url}/`));
  const { context, page, errors } = await newPage();
  await page.goto(`${hostSrv.url}/`);
  const loupe = () => page.frames().find((x) => x.url().startsWith(srv.url));
  const stranger = () => page.frames().find((x) => x.url().startsWith(strangerSrv.url));
  await page.waitForFunction(() => document.getElementById('loupe').contentWindow && true);
  for (let i = 0; i < 200 && !(loupe() && stranger()); i++) await new Promise((r) => setTimeout(r, 50));
  await loupe().waitForFunction(() => window.__loupe && window.__loupe.frames > 0, null, { timeout: 30000 });
  await stranger().waitForFunction(() => typeof window.strangerOpen === 'function');
  const close = async () => {
    await context.close();
    await hostSrv.close();
    await strangerSrv.close();
    rmSync(hostDir, { recursive: true, force: true });
    rmSync(strangerDir, { recursive: true, force: true });
  };
  return { page, errors, loupe, stranger, close, hostUrl: hostSrv.url, strangerUrl: strangerSrv.url };
}

const settle = (ms = 2500) => new Promise((r) => setTimeout(r, ms));

test('embedding: a third-origin sibling frame cannot open or move the frame; the host can', async () => {
  const t = await contractSetup('?mode=embedded');
  await t.page.waitForFunction(() => window.__msgs.some((m) => m.loupe === 'ready'), null, { timeout: 20000 });
  await t.stranger().evaluate(([text]) => window.strangerOpen(window.sibling(), 'stranger.json', text), [traceJson(7, 'stranger')]);
  await settle();
  assert.equal(await t.loupe().evaluate(() => window.__loupe.demo), true, "the stranger's open was obeyed");
  assert.equal(await t.loupe().evaluate(() => document.body.dataset.loupeState), 'empty');
  // the host is obeyed, and told
  await t.page.evaluate(([text]) => window.hostOpen('host.json', text), [traceJson(40, 'host')]);
  await t.page.waitForFunction(() => window.__msgs.some((m) => m.loupe === 'loaded'), null, { timeout: 30000 });
  assert.equal(await t.loupe().evaluate(() => window.__loupe.sliceCount), 40);
  const loaded = await t.page.evaluate(() => window.__msgs.filter((m) => m.loupe === 'loaded').map((m) => m.summary.name));
  assert.deepEqual(loaded, ['host.json']);
  // after the host's open the stranger is still ignored
  await t.stranger().evaluate(([text]) => window.strangerOpen(window.sibling(), 'stranger.json', text), [traceJson(7, 'stranger')]);
  await settle();
  assert.equal(await t.loupe().evaluate(() => window.__loupe.sliceCount), 40);
  assert.deepEqual(await t.page.evaluate(() => window.__msgs.map((m) => m.loupe)), ['ready', 'loaded']);
  assert.deepEqual(t.errors, []);
  await t.close();
});

test("embedding: a file the user opens in the frame is never reported to the host", async () => {
  const t = await contractSetup('?mode=embedded');
  await t.page.waitForFunction(() => window.__msgs.some((m) => m.loupe === 'ready'), null, { timeout: 20000 });
  await t.page.evaluate(([text]) => window.hostOpen('host.json', text), [traceJson(40, 'host')]);
  await t.page.waitForFunction(() => window.__msgs.some((m) => m.loupe === 'loaded'), null, { timeout: 30000 });
  // the user's own file, through the frame's file input
  const userFile = join(dir, 'secret user file.json');
  writeFileSync(userFile, traceJson(25, 'user'));
  await t.loupe().locator('[data-testid="open-file"]').setInputFiles(userFile);
  await t.loupe().waitForFunction(() => window.__loupe && window.__loupe.sliceCount === 25, null, { timeout: 30000 });
  await settle(1500);
  const msgs = await t.page.evaluate(() => window.__msgs);
  assert.deepEqual(msgs.map((m) => m.loupe), ['ready', 'loaded'], 'only the host-requested load is reported');
  assert.ok(!JSON.stringify(msgs).includes('secret'), 'the user file name reached the host');
  // and a bad user file's error is not reported either
  const bad = join(dir, 'secret broken.json');
  writeFileSync(bad, '{"traceEvents": [ {"ph": "X", "ts": ');
  await t.loupe().locator('[data-testid="open-file"]').setInputFiles(bad);
  await t.loupe().getByTestId('load-error').waitFor({ timeout: 20000 });
  await settle(1000);
  assert.deepEqual(await t.page.evaluate(() => window.__msgs.map((m) => m.loupe)), ['ready', 'loaded']);
  await t.close();
});

test('embedding: a popup of Loupe obeys no opener, and without ?mode=embedded the parent is ignored', async () => {
  const t = await contractSetup('');
  // not embedded: no ready, the parent's open is ignored
  await settle(1000);
  await t.page.evaluate(([text]) => window.hostOpen('host.json', text), [traceJson(40, 'host')]);
  await settle();
  assert.equal(await t.loupe().evaluate(() => window.__loupe.demo), true, 'a page without ?mode=embedded obeyed its parent');
  assert.deepEqual(await t.page.evaluate(() => window.__msgs), [], 'a page without ?mode=embedded posted to its parent');
  // a popup opened by the stranger (with ?mode=embedded): it has no parent, so nobody drives it
  await t.stranger().evaluate((u) => { window.loupeUrl = u; }, `${srv.url}/?mode=embedded`);
  const [popup] = await Promise.all([t.page.context().waitForEvent('page'), t.stranger().locator('#pop').click()]);
  await popup.waitForFunction(() => window.__loupe && window.__loupe.frames > 0, null, { timeout: 30000 });
  await t.stranger().evaluate(([text]) => window.strangerOpen(window.popup, 'popup.json', text), [traceJson(9, 'popup')]);
  await settle();
  assert.equal(await popup.evaluate(() => window.__loupe.demo), true, 'the popup obeyed its opener');
  await t.close();
});

test('embedding: ?host= pins the host origin; a host of another origin is ignored', async () => {
  // pinned to the stranger's origin: the real parent (the host) is not it, so nothing is accepted
  const wrong = await contractSetup((_host, stranger) => `?mode=embedded&host=${encodeURIComponent(stranger)}`);
  await settle(1000);
  assert.deepEqual(await wrong.page.evaluate(() => window.__msgs), [], 'ready went to an origin other than the pinned one');
  await wrong.page.evaluate(([text]) => window.hostOpen('host.json', text), [traceJson(40, 'host')]);
  await settle();
  assert.equal(await wrong.loupe().evaluate(() => window.__loupe.demo), true);
  await wrong.close();
  // pinned to the host's own origin: it works
  const right = await contractSetup((host) => `?mode=embedded&host=${encodeURIComponent(host)}`);
  await right.page.waitForFunction(() => window.__msgs.some((m) => m.loupe === 'ready'), null, { timeout: 20000 });
  await right.page.evaluate(([text]) => window.hostOpen('host.json', text), [traceJson(40, 'host')]);
  await right.page.waitForFunction(() => window.__msgs.some((m) => m.loupe === 'loaded'), null, { timeout: 30000 });
  assert.equal(await right.loupe().evaluate(() => window.__loupe.sliceCount), 40);
  await right.close();
});
