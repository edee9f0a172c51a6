// grid.test.mjs: browser tests of issue 27's items 2, 3 and 9 on the shared-grid games (Tech City,
// SimCity) at 1280×800, 1100×800 (the two-column table) and 390×844, in real Chromium on a real daemon: the grid fits its box at
// first (no cut-off row), zooms with the buttons, says how to pan, draws card names at 12 px or
// more and no card sideways; each cell a picked card may go to shows what the play there scores,
// in words for screen readers too; wider than 1000 px the grid and the picked card are in view together;
// Suggest says why (the expert's estimate for its choice and the runner-up); axe finds nothing
// serious.
//
//   CITY_ROOT=$PWD CITYD=$PWD/build/cityd ./scripts/with-postgres.sh node --test tests/js/grid.test.mjs

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { startDaemon } from './lib/daemon.mjs';
import { openTableAs, launchChromium, callApi, axeSerious } from './browser-helpers.mjs';

let daemon;
let browser;

before(async () => {
  daemon = await startDaemon();
  browser = await launchChromium(chromium);
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
});

const VIEWPORTS = [{ width: 1280, height: 800 }, { width: 390, height: 844 }];
/** The grid's own checks also at 1100 px, where the seats' panels go under your move (981–1199). */
const LAYOUTS = [...VIEWPORTS, { width: 1100, height: 800 }];

/** What the grid looks like now: the city's box against its scroll box, names' sizes, turned faces. */
function gridFacts(page) {
  return page.evaluate(() => {
    const box = document.querySelector('#city-scroll').getBoundingClientRect();
    const city = document.querySelector('#city').getBoundingClientRect();
    const names = [...document.querySelectorAll('#city .tc-name, #city .sc-name')].map((e) => parseFloat(getComputedStyle(e).fontSize));
    const turned = [...document.querySelectorAll('#city .face, #city .sc-face')].filter((e) => getComputedStyle(e).transform !== 'none').length;
    return { boxTop: box.top, cityTop: city.top, fits: city.width <= box.width + 1 && city.height <= box.height + 1, names, turned, zoom: Number(document.querySelector('#city-scroll').dataset.zoom) };
  });
}

/**
 * Creates a 3-seat game of `game` (Ada and two greedy bots), opens Ada's table at `viewport`
 * and runs check(page, game); then axe must find nothing serious and the page no error.
 */
async function atTable(game, viewport, check, g = null) {
  g ??= (await callApi(daemon.base, 'POST', '/games', { body: { game, name: 'Ada', seats: 3, bots: ['greedy', 'greedy'] } })).json;
  const { context, page, errors } = await openTableAs(browser, daemon.base, g.id, { seat: 0, token: g.token }, { viewport, bypassCSP: true });
  try {
    await check(page, g);
    const hits = await axeSerious(page);
    assert.deepEqual(hits, [], `axe: ${JSON.stringify(hits, null, 1)}`);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
}

/** True when element `sel` is wholly inside the window. */
const inView = (page, sel) => page.locator(sel).first().evaluate((e) => { const r = e.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight && r.height > 0; });

for (const [game, pick] of [['tech_city', '#hand .tcard:not(.dim)'], ['simcity', '#hand .sccard:not(.dim)']]) {
  for (const viewport of LAYOUTS) {
    test(`${game} at ${viewport.width}×${viewport.height}: a fitted, zoomable, readable grid; each cell shows what a play scores; axe-clean`, { timeout: 60_000 }, () => atTable(game, viewport, async (page) => {
      await page.waitForSelector('#city .cell');
      await page.waitForFunction(() => document.querySelector('#action')?.dataset.busy === 'false' && document.querySelector('#hand button'));
      await page.waitForTimeout(300); // the first fit runs on the next frame
      const f = await gridFacts(page);
      // Fitted: the whole city, unless that would make names smaller than 12 px (the least zoom).
      assert.ok(f.fits || await page.isDisabled('#zoom-out'), `the city fits its box at first: ${JSON.stringify(f)}`);
      // A city that fits shows its top row whole. One too big for the least zoom (the bots may
      // have built six cards by now on a slow machine) is centred on its middle, as it should be.
      if (f.fits) assert.ok(f.cityTop >= f.boxTop - 1, `the top row is not cut off: ${JSON.stringify(f)}`);
      assert.ok(f.names.every((px) => px >= 12), `names at 12 px or more: ${f.names}`);
      assert.equal(f.turned, 0, 'no card is drawn turned');
      assert.ok(await page.locator('#pan-hint').isVisible(), 'a visible line says how to pan and zoom');
      // The zoom buttons: in, then fit again.
      await page.click('#zoom-in');
      assert.ok((await gridFacts(page)).zoom > f.zoom, 'zoomed in');
      await page.click('#zoom-fit');
      const back = await gridFacts(page);
      assert.ok(Math.abs(back.zoom - f.zoom) < 0.02, `Fit shows the whole city again: ${JSON.stringify([f, back])}`);
      // Item 2: a card picked, each cell it may go to shows its score, in words too (at the
      // seat's build or play; a bot's service asking for help first is declined).
      for (let k = 0; k < 8; k++) {
        // Ada's next decision; one that is not a build or a play (helping a bot's service, an
        // effect, the owner's draw: the deal decides) is declined to reach the next one.
        const [state, turn] = await page.waitForFunction(() => { const a = document.querySelector('#action'); return a?.dataset.busy === 'false' && a.dataset.turn !== 'none' && [a.dataset.state, a.dataset.turn]; }, null, { timeout: 45_000 }).then((x) => x.jsonValue());
        if (state === 'build' || state === 'play') break;
        const decline = page.locator('#pass, #no-draw').first();
        await decline.click();
        await page.waitForFunction((t) => document.querySelector('#action')?.dataset.turn !== t, turn, { timeout: 45_000 });
      }
      await page.locator(pick).first().click();
      const cells = page.locator('#city .cell.target');
      await cells.first().waitFor();
      const scored = await cells.evaluateAll((els) => els.map((e) => ({ score: e.dataset.score, shown: e.querySelector('.cell-score')?.textContent ?? '', said: e.getAttribute('aria-label') ?? e.textContent })));
      assert.ok(scored.some((c) => c.score !== ''), `cells carry their score: ${JSON.stringify(scored)}`);
      for (const c of scored.filter((x) => x.score !== '')) {
        assert.match(c.shown, new RegExp(`\\+\\$?${c.score}$`), 'the number on the cell');
        assert.match(c.said, /scores \$?\d+/, 'and in words');
      }
      if (viewport.width > 1000) {
        // No jump between clicks: picking a cell moves neither the grid nor the hand.
        const at = () => page.evaluate(() => [document.querySelector('#city-scroll').getBoundingClientRect().top, document.querySelector('#hand').getBoundingClientRect().top]);
        // Where both stand once the page is still (two readings 150 ms apart agree): a redraw
        // the click did not cause (the view read again, a bot's move) must not count as a jump.
        const where = async () => {
          let last = await at();
          for (let i = 0; i < 20; i++) {
            await page.waitForTimeout(150);
            const now = await at();
            if (now[0] === last[0] && now[1] === last[1]) return now;
            last = now;
          }
          return last;
        };
        const before = await where();
        const free = page.locator('#city .cell.target:not(.chosen)');
        if (await free.count()) {
          await free.first().click();
          await page.waitForSelector('#city .cell.chosen');
          const after = await where();
          assert.ok(Math.abs(after[0] - before[0]) < 1, `the grid stays put: ${before} → ${after}`);
          assert.ok(Math.abs(after[1] - before[1]) < 1, `and so does the hand: ${before} → ${after}`);
        }
        // The picked card and the grid in view together: the page scrolled to the table's
        // panels, both show (no scrolling between them for a build).
        await page.locator('.city-box').evaluate((e) => e.scrollIntoView({ block: 'start' }));
        assert.ok(await inView(page, '#hand .is-build'), 'the picked card is in view');
        assert.ok(await inView(page, '#city-scroll'), 'and so is the whole grid');
      }
    }));
  }
}

test('Suggest says why: the expert\'s estimate for its choice and for the runner-up, in words', { timeout: 60_000 }, async () => {
  let game = null; // one game: the second viewport asks at the same point
  for (const viewport of VIEWPORTS) {
    await atTable('tech_city', viewport, async (page, g) => {
      game = g;
      await page.waitForSelector('#suggest[data-hints-left]:not([data-hints-left=""])');
      await page.click('#suggest');
      const line = page.locator('.hint-line');
      await line.waitFor({ timeout: 20_000 });
      const text = await line.textContent();
      assert.match(text, /The expert suggests: .+\. Why: playing the game out \d+ times from here .* won \d+% of the games with this choice, ending at about \d+ points?\./, text);
      assert.match(text, /The next best, .+, won \d+%/, text);
    }, game);
  }
});

test('a play that does nothing is said before it is sent: Cloud Vault with an empty hand asks "Use it anyway"', { timeout: 60_000 }, async () => {
  let game = null;
  for (const viewport of VIEWPORTS) {
    await atTable('tech_city', viewport, async (page, g) => {
      game = g;
      await page.waitForSelector('#city .cell');
      // The effect point shown (nothing is sent): Cloud Vault in the city, usable, an empty hand.
      await page.route(`**/api/v1/games/${g.id}**`, async (route) => {
        try {
          const url = new URL(route.request().url());
          const isHand = url.pathname.endsWith('/hand');
          if (!isHand && url.pathname !== `/api/v1/games/${g.id}`) return await route.continue();
          const r = await route.fetch();
          const v = await r.json();
          const taken = new Set(v.city.map((c) => `${c.x},${c.y}`));
          const x = Math.max(...v.city.map((c) => c.x)) + 1, y = v.city.find((c) => c.x === x - 1).y;
          if (!taken.has(`${x},${y}`)) v.city.push({ x, y, id: 990, card: 'cloud_vault', domain: 'service', value: 5, owner: null, tilted: false, seed: false });
          v.step = 'effect';
          if (isHand) {
            v.hand = [];
            v.order = null;
            v.pending = { round: v.round, step: 'effect', turn: v.turn, options: { normal: true, free: false, cells: [{ x, y }], free_cells: [], owner_cells: [], uses: [{ x, y, id: 990, card: 'cloud_vault', normal: true, free: false, owner_first: false, score: 0, choices: {} }] } };
          } else v.pending = [0];
          return await route.fulfill({ response: r, json: v });
        } catch {
          return undefined;
        }
      });
      await page.reload();
      await page.waitForSelector('#action[data-state="effect"]');
      await page.click('#city .card-cell[data-slug="cloud_vault"]');
      await page.waitForSelector('#nothing-note');
      assert.match(await page.textContent('#nothing-note'), /Cloud Vault does nothing now: you draw 2 cards and then discard them, as your hand is empty/);
      let sent = 0;
      page.on('request', (req) => { if (req.method() === 'POST' && req.url().endsWith('/orders')) sent++; });
      await page.click('#confirm');
      await page.waitForSelector('#nothing-note[role="alert"]');
      assert.equal(await page.textContent('#confirm'), 'Use it anyway', 'the first Confirm asks again');
      assert.equal(sent, 0, 'and sends nothing');
    }, game);
  }
});
