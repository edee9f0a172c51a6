// lobby.test.mjs: browser tests of the lobby and of the host's tools at a table (issue 27, items
// 8 and 5), in Debian's headless Chromium with playwright-core against a real daemon on a real
// PostgreSQL (tests/js/lib/daemon.mjs), each at 1280 x 800 and at the 390 x 844 phone, axe-clean:
// the lobby's heading and texts name the game chosen; Create is in sight without scrolling (on
// a phone whose list comes first, through the button above it); a new form starts from one
// person and the rest bots, says what it kept from the last game and resets it; finished games
// are hidden until asked and More pages the list; the host's Force step is not offered solo
// against bots, Cancel is styled as a danger apart from Leave and asks in players' words, and
// Hand to a bot appears only for a person who missed a turn, named, its refusal in players' words.
//
//   make && CITY_ROOT=$PWD CITYD=$PWD/build/cityd scripts/with-postgres.sh node --test tests/js/lobby.test.mjs

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { startDaemon } from './lib/daemon.mjs';
import { watchErrors, launchChromium, callApi, noHorizontalScroll, axeSerious } from './browser-helpers.mjs';

const VIEWPORTS = [
  ['desktop', { viewport: { width: 1280, height: 800 } }],
  ['phone', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 }],
];

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

const api = (method, path, opts) => callApi(daemon.base, method, path, opts);

/** Creates a game through the API with `body`; resolves to the 201 answer. */
async function create(body) {
  const r = await api('POST', '/games', { body });
  assert.equal(r.status, 201, JSON.stringify(r.json));
  return r.json;
}

/** Forces game `g`'s steps as its host until it is over (bots play their seats). */
async function finishByForce(g) {
  for (let i = 0; i < 3000; i++) {
    const v = (await api('GET', `/games/${g.id}`)).json;
    if (v.status === 'finished') return;
    await api('POST', `/games/${g.id}/resolve`, { token: g.host_token, body: { round: v.round, step: v.step, ...(v.turn === undefined ? {} : { turn: v.turn }) } });
  }
  throw new Error(`game ${g.id} did not finish`);
}

/** A fresh browser context at viewport `ctx` (CSP bypassed for axe), with its page and errors. */
async function open(ctx) {
  const context = await browser.newContext({ ...ctx, bypassCSP: true });
  const page = await context.newPage();
  return { context, page, errors: watchErrors(page) };
}

/** Console errors other than the browser's own line for an expected 409 answer. */
const unexpected = (errors) => errors.filter((e) => !/status of 409/.test(e));

/** Opens the lobby and waits until the form is drawn from the server's games. */
async function lobby(page) {
  await page.goto(`${daemon.base}/`);
  await page.waitForSelector('#game option[value="simcity"]', { state: 'attached' });
  await page.waitForSelector('#games :is(.game-list, p:not(.loading))');
}

/** True when `sel` is wholly inside the viewport, at the scroll position now, and not covered. */
function inSight(page, sel) {
  return page.evaluate((s) => {
    const el = document.querySelector(s);
    if (!el || !el.getClientRects().length) return false;
    const r = el.getBoundingClientRect();
    if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) return false;
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return !!hit && el.contains(hit);
  }, sel);
}

const text = (page, sel) => page.locator(sel).innerText();

/** Opens game `g`'s table as the holder of `seat` (with `token`) and, when given, of `host`. */
async function openTable(ctx, id, { seat = null, token = null, host = null } = {}) {
  const s = await open(ctx);
  await s.context.addInitScript(([gid, se, t, hst]) => {
    if (t) localStorage.setItem(`city.seat.${gid}`, JSON.stringify({ seat: se, token: t }));
    if (hst) localStorage.setItem(`city.host.${gid}`, JSON.stringify(hst));
  }, [id, seat, token, host]);
  await s.page.goto(`${daemon.base}/#/game/${id}`);
  return s;
}

for (const [width, ctx] of VIEWPORTS) {
  test(`${width}: the heading names the game chosen; Create is in sight without scrolling`, { timeout: 60_000 }, async () => {
    await create({ seats: 2, bots: [], name: 'Olu' }); // an open game: a phone lists it first
    const { context, page, errors } = await open(ctx);
    try {
      await lobby(page);
      assert.equal(await text(page, 'h1'), 'The City');
      for (const [id, title] of [['tech_city', 'Tech City'], ['simcity', 'SimCity: The Card Game'], ['the_city', 'The City']]) {
        await page.selectOption('#game', id);
        assert.equal(await text(page, 'h1'), title);
        assert.match(await page.title(), new RegExp(`^${title}`));
        assert.match(await text(page, '#create-title'), new RegExp(`${title}$`));
        await page.waitForFunction((t) => document.querySelector('#game-lead')?.textContent && !/Loading/.test(document.querySelector('#game-lead').textContent), title);
        if (id !== 'the_city') assert.doesNotMatch(await text(page, '.intro'), /The City/, `${title}: the intro never says The City`);
      }
      assert.equal(await page.evaluate(() => window.scrollY), 0);
      if (width === 'desktop') {
        assert.ok(await inSight(page, '#create'), 'Create game is in sight at 1280 x 800');
        assert.ok(!(await page.isVisible('#to-create')), 'no button to the form: the form is there');
      } else {
        // The list comes first (a game is open): the button above it leads to the form.
        assert.ok(await inSight(page, '#to-create'), 'the button to the form is in sight at 390 x 844');
        assert.match(await text(page, '#to-create'), /Create a game/);
        await page.click('#to-create');
        await page.waitForFunction(() => document.activeElement?.id === 'name');
        assert.ok(await inSight(page, '#create'), 'Create game is in sight once the button led to the form');
        assert.ok(await noHorizontalScroll(page), 'the lobby fits 390 px');
      }
      assert.deepEqual(await axeSerious(page), [], 'the lobby is axe-clean');
      // With nothing open to join, a phone shows the form first, its Create in sight too.
      await page.route(/\/api\/v1\/games(\?.*)?$/, (route) => (route.request().method() === 'GET'
        ? route.fulfill({ json: { games: [], next: null } }) : route.continue()));
      await lobby(page);
      assert.ok(await inSight(page, '#create'), 'Create game is in sight with an empty list');
      assert.ok(!(await page.isVisible('#to-create')));
      assert.match(await text(page, '#games'), /No games yet/);
      assert.deepEqual(errors, [], 'no console or page errors');
    } finally {
      await context.close();
    }
  });

  test(`${width}: a new form starts from one person and bots, says what it kept from the last game, and resets`, { timeout: 60_000 }, async () => {
    const { context, page, errors } = await open(ctx);
    try {
      await lobby(page);
      assert.ok(!(await page.isVisible('#kept-note')), 'a first visit keeps nothing');
      // Each clock's words fit their select (only "Real-time:" showed at 1280 px).
      for (const value of await page.$$eval('#turn option', (os) => os.map((o) => o.value))) {
        await page.selectOption('#turn', value);
        const room = await page.$eval('#turn', (sel) => {
          const c = document.createElement('canvas').getContext('2d');
          const cs = getComputedStyle(sel);
          c.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
          return sel.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 20 - c.measureText(sel.selectedOptions[0].textContent).width;
        });
        assert.ok(room >= 0, `the clock "${value}" fits its select beside the arrow (${room} px to spare)`);
      }
      await page.selectOption('#turn', 'auto');
      await page.fill('#name', 'Kit');
      await page.selectOption('#game', 'tech_city');
      await page.selectOption('#seats', '3');
      await page.selectOption('#seat-kind-1', 'person');
      await page.click('#create');
      await page.waitForSelector('.waiting-room');
      const id = /#\/game\/([0-9a-f]+)$/.exec(page.url())[1];
      assert.deepEqual((await api('GET', `/games/${id}`)).json.seats.map((s) => !!s.bot), [false, false, true]);

      await lobby(page);
      // The game and its seat count come back, said so; the seats are bots again.
      assert.equal(await page.inputValue('#game'), 'tech_city');
      assert.equal(await page.inputValue('#seats'), '3');
      assert.equal(await page.inputValue('#seat-kind-1'), 'greedy', 'the person seat of the last game is a bot again');
      assert.equal(await page.inputValue('#seat-kind-2'), 'greedy');
      assert.match(await text(page, '#kept-note'), /Set up like your last game \(Tech City, 3 players\); the seats start as bots again\./);
      assert.equal(await text(page, 'h1'), 'Tech City');
      assert.deepEqual(await axeSerious(page), [], 'axe-clean with the note');
      // Another game chosen: the note no longer describes the form, so it goes; back, it returns.
      await page.selectOption('#game', 'simcity');
      await page.waitForSelector('#kept-note', { state: 'hidden' });
      await page.selectOption('#game', 'tech_city');
      await page.waitForSelector('#kept-note', { state: 'visible' });

      await page.click('#reset-form');
      assert.equal(await page.inputValue('#game'), 'the_city');
      assert.equal(await page.inputValue('#seats'), '4');
      assert.ok(!(await page.isVisible('#kept-note')));
      assert.equal(await text(page, 'h1'), 'The City');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'game', 'focus stays in the form');
      await lobby(page);
      assert.equal(await page.inputValue('#game'), 'the_city', 'Reset is remembered');
      assert.ok(!(await page.isVisible('#kept-note')));
      assert.deepEqual(errors, [], 'no console or page errors');
    } finally {
      await context.close();
    }
  });
}

test('finished games are hidden until asked; More pages the list (both viewports)', { timeout: 180_000 }, async () => {
  // More than two pages (of 20): the finished game hidden on the first, the list fills up from
  // the second, and a third remains for More.
  for (let i = 0; i < 45; i++) await create({ seats: 2, bots: ['greedy'], name: `Pl${i}` });
  const done = await create({ seats: 2, bots: ['greedy'], name: 'Fin', target_vp: 8 });
  await finishByForce(done);
  const row = `.game-row[data-game="${done.id}"]`;
  for (const [width, ctx] of VIEWPORTS) {
    const { context, page, errors } = await open(ctx);
    try {
      await lobby(page);
      await page.waitForSelector('#games .game-row');
      assert.equal(await page.locator(row).count(), 0, `${width}: the finished game is not listed by default`);
      assert.equal(await page.locator('#games .game-row.status-finished').count(), 0);
      assert.ok(!(await page.isChecked('#show-finished')));
      const first = await page.locator('#games .game-row').count();
      assert.ok(first >= 20, `${width}: a page of games (${first})`);
      assert.ok(await page.isVisible('#more-games'), `${width}: More, the server has more`);
      await page.click('#more-games');
      await page.waitForFunction((n) => document.querySelectorAll('#games .game-row').length > n, first);

      await page.check('#show-finished');
      await page.locator(row).waitFor();
      assert.match(await page.locator(row).innerText(), /finished/i);
      assert.match(await page.locator(`${row} .game-actions a`).innerText(), /Results/);
      assert.ok(await noHorizontalScroll(page), `${width}: no sideways scroll`);
      assert.deepEqual(await axeSerious(page), [], `${width}: axe-clean with finished games shown`);
      await page.uncheck('#show-finished');
      await page.waitForFunction((s) => !document.querySelector(s), row);
      assert.deepEqual(errors, [], 'no console or page errors');
    } finally {
      await context.close();
    }
  }
});

for (const [width, ctx] of VIEWPORTS) {
  test(`${width}: solo against bots the host is offered no Force step and no host tools`, { timeout: 60_000 }, async () => {
    const g = await create({ seats: 3, bots: ['greedy', 'random'], name: 'Sol' });
    const { context, page, errors } = await openTable(ctx, g.id, { seat: 0, token: g.token, host: g.host_token });
    // The views say the random bot is still deciding (an expert may think for seconds): still
    // nothing for the host to force.
    await page.route(/\/api\/v1\/games\/[0-9a-f]+$/, async (route) => {
      try {
        const r = await route.fetch();
        const v = await r.json();
        if (v.status === 'playing' && v.seats?.[2]) {
          v.seats[2] = { ...v.seats[2], pending: true, submitted: false };
          if (Array.isArray(v.pending) && !v.pending.includes(2)) v.pending.push(2);
        }
        await route.fulfill({ response: r, json: v });
      } catch { /* the page closed meanwhile */ }
    });
    try {
      await page.waitForSelector('#action[data-state="keep"]');
      assert.equal(await page.locator('#force').count(), 0, 'nothing to force while only bots wait');
      await page.locator('#hand .card').nth(0).click();
      await page.locator('#hand .card').nth(1).click();
      await page.click('#confirm');
      await page.waitForSelector('#action[data-state="build"]');
      for (let i = 0; i < 10; i++) { // watched a while: bots may still be thinking
        assert.equal(await page.locator('#force').count(), 0, 'no Force step against bots');
        await page.waitForTimeout(100);
      }
      assert.equal(await page.locator('#host-tools').count(), 0, 'no host tools in a game of one person');
      assert.ok(await page.isVisible('#leave'));
      assert.deepEqual(await axeSerious(page), []);
      assert.deepEqual(errors, [], 'no console or page errors');
    } finally {
      await context.close();
    }
  });

  test(`${width}: Cancel is the host's, styled as a danger apart from Leave, asked in players' words`, { timeout: 60_000 }, async () => {
    const g = await create({ seats: 3, bots: ['greedy'], name: 'Ada' });
    const { context, page, errors } = await openTable(ctx, g.id, { seat: 0, token: g.token, host: g.host_token });
    try {
      await page.waitForSelector('.waiting-room #host-tools #cancel-game');
      assert.match(await text(page, '#host-tools'), /Host tools/);
      assert.equal(await page.locator('#host-tools #leave').count(), 0, 'Leave is not a host tool');
      const look = (sel) => page.locator(sel).evaluate((el) => { const s = getComputedStyle(el); return [s.color, s.borderColor]; });
      const [cancelColor] = await look('#cancel-game');
      const [leaveColor] = await look('#leave');
      assert.equal(cancelColor, 'rgb(179, 38, 30)', 'Cancel is in the danger colour');
      assert.notEqual(cancelColor, leaveColor, 'Cancel does not look like Leave');
      assert.equal(await text(page, '#cancel-game'), 'Cancel this game');
      await page.click('#cancel-game');
      const ask = page.locator('#cancel-game-ask');
      assert.match(await ask.innerText(), /Cancel this game for everyone\? Nobody will be able to join or play it, and it cannot be undone\./);
      assert.equal(await text(page, '#cancel-game-yes'), 'Yes, cancel the game');
      assert.equal(await text(page, '#cancel-game-no'), 'Keep the game');
      assert.deepEqual(await axeSerious(page), [], 'axe-clean while asking');
      await page.click('#cancel-game-no');
      await page.waitForSelector('#cancel-game');
      assert.equal((await api('GET', `/games/${g.id}`)).json.status, 'open');
      assert.deepEqual(errors, [], 'no console or page errors');
    } finally {
      await context.close();
    }
  });

  test(`${width}: Hand to a bot appears for a person who missed a turn, by name; its refusal is in players' words`, { timeout: 90_000 }, async () => {
    const g = await create({ seats: 3, bots: ['greedy'], name: 'Ada' });
    const bea = (await api('POST', `/games/${g.id}/join`, { body: { name: 'Bea' } })).json;
    const { context, page, errors } = await openTable(ctx, g.id, { seat: 0, token: g.token, host: g.host_token });
    try {
      await page.waitForSelector('#action[data-state="keep"]');
      assert.equal(await page.locator('.handover-row').count(), 0, 'nobody has missed a turn yet');
      await page.locator('#hand .card').nth(0).click();
      await page.locator('#hand .card').nth(1).click();
      await page.click('#confirm');
      await page.waitForSelector('#action[data-submitted="true"]');
      // Bea keeps the step waiting: Force step is offered, and forced she misses a turn.
      await page.click('#force');
      await page.click('#force-yes');
      const rowOf = page.locator('.handover-row[data-seat="1"]');
      await rowOf.waitFor();
      // Bea shows a sign of life: online, her seat goes to a bot only by the host's rule.
      await api('GET', `/games/${g.id}/hand`, { token: bea.token });
      await page.waitForSelector('.player[data-seat="1"] .tag.presence[data-presence="online"]', { timeout: 15_000 });
      assert.equal(await page.locator('.handover-row').count(), 1, 'only Bea: not the host, not the bot');
      assert.match(await rowOf.innerText(), /Bea[\s\S]*missed 1 turn/);
      assert.equal(await page.getAttribute('#handover-1', 'aria-label'), 'Hand to a bot: Bea\'s seat');
      await page.click('#handover-1');
      const err = page.locator('#handover-error');
      await err.waitFor();
      const said = await err.innerText();
      assert.match(said, /^Bea's seat cannot go to a bot yet: Bea has missed 1 turn, and a seat can go to a bot once its player has missed 2\./);
      assert.doesNotMatch(said, /POST|\/resolve|\.\.\.|[Ss]eat \d|deadline/, 'no API words, no seat index');
      assert.deepEqual(await axeSerious(page), [], 'axe-clean with the host tools and the refusal');
      assert.ok(bea.token, 'Bea holds her seat');
      assert.deepEqual(unexpected(errors), [], 'no console or page errors');
    } finally {
      await context.close();
    }
  });
}
