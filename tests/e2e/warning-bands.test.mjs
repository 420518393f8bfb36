// Warning bands under the timeline's ruler on the shared NTFF (issue 40 §2): the strip, one
// band per merged run of a rule with its rule and threshold in the tooltip, the legend, and a
// band click selecting exactly the events behind it (the search widget's highlight count).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setup, openApp, load, shot, SAMPLES } from './helpers.mjs';

const NTFF = join(SAMPLES, 'neuron', 'profile_128x128x1024.ntff');

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

async function highlightCount(page) {
  const origin = page.getByTestId('search-origin');
  await origin.waitFor();
  return { n: Number(await origin.getByTestId('search-count').textContent()), text: await origin.textContent() };
}

for (const colorScheme of ['light', 'dark']) {
  test(`NTFF warning bands (${colorScheme}): strip, rules, tooltip, legend, click selects the events`, async (t) => {
    if (!existsSync(NTFF)) assert.fail(`no sample ${NTFF}`);
    const { page, errors, context } = await openApp(env, { width: 1500, height: 900, colorScheme });
    await load(page, NTFF);
    await page.getByTestId('fit-all').click();
    const strip = page.getByTestId('warning-strip');
    await strip.waitFor({ state: 'attached' });
    // the capture (checked against its JSON export natively, core/tests/device_timeline.rs):
    // 16 small DGE packets, throttling 7/8, two long semaphore waits, no idle-engine band
    await page.locator('[data-testid=warning-band][data-rule=long-semaphore-wait]').first().waitFor();
    const bands = await page.locator('[data-testid=warning-band]').evaluateAll((els) =>
      els.map((e) => ({ rule: e.dataset.rule, events: Number(e.dataset.events), title: e.title, bg: getComputedStyle(e).backgroundColor, w: e.getBoundingClientRect().width })));
    const rules = new Set(bands.map((b) => b.rule));
    for (const r of ['small-dma', 'throttling', 'long-semaphore-wait']) assert.ok(rules.has(r), `a ${r} band: ${JSON.stringify(bands)}`);
    assert.ok(!rules.has('idle-engine'), 'no idle-engine band on this capture');
    const sum = (r) => bands.filter((b) => b.rule === r).reduce((a, b) => a + b.events, 0);
    assert.equal(sum('small-dma'), 16);
    assert.equal(sum('long-semaphore-wait'), 2);
    for (const b of bands) {
      assert.match(b.title, /Rule: /, 'the tooltip states the rule');
      assert.ok(b.w >= 3, `a band is at least 3 px wide: ${b.w}`);
      assert.notEqual(b.bg, 'rgba(0, 0, 0, 0)', `${b.rule}: coloured from its token`);
    }
    assert.match(bands.find((b) => b.rule === 'small-dma').title, /under 4 KiB/);
    assert.match(bands.find((b) => b.rule === 'long-semaphore-wait').title, /at least 10 µs/);
    assert.match(bands.find((b) => b.rule === 'throttling').title, /k\/n < 1/);
    // one colour per rule
    const colours = new Map(bands.map((b) => [b.rule, b.bg]));
    assert.equal(new Set(colours.values()).size, colours.size, `distinct colours: ${JSON.stringify([...colours])}`);
    // the legend lists every rule with its definition
    const legend = await page.locator('[data-testid=warning-legend-item]').evaluateAll((els) => els.map((e) => ({ rule: e.dataset.rule, title: e.title })));
    assert.deepEqual(legend.map((l) => l.rule), ['small-dma', 'throttling', 'long-semaphore-wait', 'idle-engine']);
    assert.match(legend[3].title, /at least 5 % of the profile/);
    // a real click on the (wide) long-wait band selects its two waits
    const wait = page.locator('[data-testid=warning-band][data-rule=long-semaphore-wait]').first();
    await wait.hover();
    await wait.click();
    let h = await highlightCount(page);
    assert.equal(h.n, 2, h.text);
    assert.match(h.text, /Long semaphore wait/);
    await page.getByTestId('details').getByText('EVENT_SEMAPHORE').first().waitFor();
    await shot(page, `warning-bands-${colorScheme}.png`);
    // the small-DMA band(s): the 16 packets
    const small = page.locator('[data-testid=warning-band][data-rule=small-dma]');
    const n = await small.count();
    let selected = 0;
    for (let i = 0; i < n; i++) {
      await small.nth(i).dispatchEvent('click');
      h = await highlightCount(page);
      assert.equal(h.n, Number(await small.nth(i).getAttribute('data-events')), h.text);
      selected += h.n;
    }
    assert.equal(selected, 16);
    assert.deepEqual(errors, []);
    await context.close();
  });
}
