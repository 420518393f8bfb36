// The page's Content-Security-Policy (index.html <meta>): present in the built page, the app
// renders the demo under it with no console errors and no violation, and it does refuse what
// it is there to refuse (inline handlers and scripts, foreign origins).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, loupe, state, shot } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

/** Like helpers.openApp, plus a record of CSP violations from the first byte of the page. */
async function open() {
  const context = await env.browser.newContext({ viewport: { width: 1400, height: 820 } });
  await context.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__csp.push(`${e.effectiveDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`);
    });
  });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`));
  await page.goto(env.base);
  await page.waitForFunction(() => window.__loupe && window.__loupe.frames > 0, null, { timeout: 20000 });
  return { page, errors, context };
}

const policy = (page) =>
  page.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.content ?? null);

test('the CSP meta is served and the app renders the demo under it', async () => {
  const { page, errors, context } = await open();
  const csp = await policy(page);
  assert.ok(csp, 'index.html carries a Content-Security-Policy meta');
  const directives = Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
  assert.deepEqual(directives['default-src'], ["'none'"]);
  assert.deepEqual(directives['script-src'], ["'self'", "'wasm-unsafe-eval'"], 'no unsafe-inline, no foreign scripts');
  assert.deepEqual(directives['worker-src'], ["'self'"]);
  assert.deepEqual(directives['connect-src'], ["'self'"]);
  const l = await loupe(page);
  assert.equal(await state(page), 'empty');
  assert.equal(l.demo, true);
  assert.ok(l.frames > 0, `frames ${l.frames}`);
  assert.equal(l.sliceCount, 12270, "the demo (DEMO_SLICES in core/src/demo.rs)");
  // a file loads through the worker (worker_loader.js + its wasm) under the policy
  const trace = JSON.stringify({ traceEvents: [
    { ph: 'X', name: 'a', pid: 1, tid: 1, ts: 1, dur: 5 }, { ph: 'X', name: 'b', pid: 1, tid: 1, ts: 2, dur: 1 }] });
  await page.getByTestId('open-file').setInputFiles({ name: 't.json', mimeType: 'application/json', buffer: Buffer.from(trace) });
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.loupeState), null, { timeout: 20000 });
  assert.equal(await state(page), 'ready');
  assert.equal((await loupe(page)).sliceCount, 2);
  await shot(page, 'csp.png');
  assert.deepEqual(await page.evaluate(() => window.__csp), [], 'no CSP violations');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the policy refuses injected handlers, inline scripts and foreign origins', async () => {
  const { page, context } = await open();
  const r = await page.evaluate(async () => {
    const img = document.createElement('img');
    img.setAttribute('onerror', 'window.__pwned = 1');
    img.src = 'data:,not-an-image';
    document.body.append(img);
    const s = document.createElement('script');
    s.textContent = 'window.__pwned = 2';
    document.body.append(s);
    let fetchBlocked = false;
    try { await fetch('https://example.com/'); } catch { fetchBlocked = true; }
    await new Promise((ok) => setTimeout(ok, 200));
    return { pwned: window.__pwned ?? null, fetchBlocked, violations: window.__csp };
  });
  assert.equal(r.pwned, null, 'neither the handler nor the inline script ran');
  assert.ok(r.fetchBlocked, 'foreign origins are refused');
  // (eval is not tested here: page.evaluate runs through DevTools, which CSP does not govern)
  for (const d of ['script-src-attr', 'script-src-elem', 'connect-src']) {
    assert.ok(r.violations.some((v) => v.startsWith(d)), `${d} violation in ${JSON.stringify(r.violations)}`);
  }
  await context.close();
});
