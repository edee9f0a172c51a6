// simcity.test.mjs: browser tests of SimCity's page (web/games/simcity.js and simcity/*), in
// Debian's headless Chromium with playwright-core against a real daemon on a real PostgreSQL
// (tests/js/lib/daemon.mjs): a newcomer creates a 3-player game (one person, two greedy bots) in
// the lobby and plays it to the end screen with the page's own controls only, clicking cards,
// highlighted cells and the prompts of every step (votes, bills, elections when they come); the
// highlighted cells carry the money the server's options say; names stay ≥ 12 px at 1280 × 800;
// zoom by buttons and wheel; a stack's cards on demand; money by source on the end screen; the
// rules page and the card reference; the phone at 390 × 844 without sideways scroll and with
// 44 px tap targets; the prompts of votes, bills and elections; a Solitaire game to its end.
//
//   CITY_ROOT=$PWD CITYD=$PWD/build/cityd ./scripts/with-postgres.sh node --test tests/js/simcity.test.mjs
//
// Screenshots go to tests/js/out/ (simcity-*.png).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startDaemon } from './lib/daemon.mjs';
import { watchErrors, seatOf, noHorizontalScroll, launchChromium, callApi, firstScreenShowsTheHand, countClicks, clicksSoFar, brokenNames } from './browser-helpers.mjs';

const OUT = join(import.meta.dirname, 'out');
const DESKTOP = { viewport: { width: 1280, height: 800 } };
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

let daemon;
let browser;

before(async () => {
  mkdirSync(OUT, { recursive: true });
  daemon = await startDaemon();
  browser = await launchChromium(chromium);
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
});

/** Creates a SimCity game in the lobby's form: seats, the other seats' kinds, the money target. */
async function createInLobby(page, { name, seats, kinds, target }) {
  await page.goto(`${daemon.base}/`);
  await page.waitForSelector('#game option[value="simcity"]', { state: 'attached' });
  await page.fill('#name', name);
  await page.selectOption('#game', 'simcity');
  await page.selectOption('#seats', String(seats));
  for (let i = 1; i < seats; i++) await page.selectOption(`#seat-kind-${i}`, kinds[i - 1]);
  if (target !== undefined) await page.fill('#opt-target', String(target));
  await page.click('#create');
  await page.waitForFunction(() => /#\/game\/[0-9a-f]+$/.test(location.hash));
  return seatOf(page);
}

/** Opens game `g`'s table in `page` as its creator (the seat token put where the page keeps it). */
async function openAsSeat(page, g) {
  await page.goto(`${daemon.base}/`);
  await page.evaluate(({ id, seat, token }) => localStorage.setItem(`city.seat.${id}`, JSON.stringify({ seat, token })), g);
  await page.goto(`${daemon.base}/#/game/${g.id}`);
}

/**
 * Waits until the page asks this seat something after event number `seq` (the action title's
 * data-seq, so a point asked again, as an election going round, counts), or shows the end
 * screen. Resolves to 'over' or {state, seq}.
 */
async function nextPoint(page, seq) {
  const h = await page.waitForFunction((prev) => {
    if (document.querySelector('#end-screen')) return 'over';
    const a = document.querySelector('#action');
    if (!a || a.hidden) return false;
    const { state, busy, submitted } = a.dataset;
    const at = Number(document.querySelector('#action-title')?.dataset.seq ?? -1);
    if (!state || state === 'waiting' || busy === 'true' || submitted === 'true' || at <= prev) return false;
    return { state, seq: at };
  }, seq, { timeout: 30_000, polling: 50 });
  return h.jsonValue();
}

/**
 * Clicks `selector` once it is enabled; when the panel was redrawn between finding it and the
 * click (a bot's move or the live stream refreshed the view), finds it again.
 */
async function press(page, selector) {
  for (let i = 0; ; i++) {
    const el = await page.waitForSelector(`${selector}:not([disabled])`, { timeout: 10_000 });
    try {
      await el.click({ timeout: 5_000 });
      return;
    } catch (e) {
      if (i >= 4 || !/not attached|detached/.test(e.message)) throw e;
    }
  }
}

/** The pending point of seat `s` from the API (its options, with what each play scores). */
async function apiPending(s) {
  const r = await callApi(daemon.base, 'GET', `/games/${s.id}/hand`, { token: s.token });
  return r.json.pending;
}

/**
 * Plays the play step with clicks: the first card of the hand that is not dimmed, then its
 * highlighted cell that scores most, then Build; Pass when no card can be played. Resolves to
 * what it did. `check` (once): compares the highlighted cells' money with the server's options.
 */
async function playStep(page, s, { check = false } = {}) {
  const card = await page.$('#hand .sccard:not(.dim):not([disabled])');
  if (!card) { await press(page, '#pass'); return 'pass'; }
  const cid = Number(await card.getAttribute('data-card-id'));
  // Clicked through locators: a refresh may redraw the hand and the city in between.
  await page.locator(`#hand .sccard[data-card-id="${cid}"]`).click();
  await page.waitForSelector(`#hand .sccard.is-build[data-card-id="${cid}"]`);
  const cells = await page.$$('#city .sc-cell.target');
  if (check && cells.length) {
    const p = await apiPending(s);
    const want = p.options.filter((o) => o.card === cid && o.x !== undefined).map((o) => `${o.x},${o.y}:${o.score ?? ''}`).sort();
    const shown = (await page.$$eval('#city .sc-cell.target', (els) => els.map((e) => `${e.dataset.x},${e.dataset.y}:${e.dataset.score}`))).sort();
    assert.deepEqual(shown, want, 'the highlighted cells and their money are the server\'s options for the card');
    // an empty cell that may be picked shows its column and row, as hints and the log name cells
    const xy = await page.$$eval('#city .sc-cell.open.target:not(.chosen)', (els) => els.map((e) => [getComputedStyle(e, '::before').content, `"${e.dataset.x}, ${e.dataset.y}"`]));
    assert.ok(xy.every(([a, b]) => a === b), JSON.stringify(xy));
  }
  if (cells.length) {
    let best = cells[0], most = -Infinity;
    for (const c of cells) {
      const n = Number((await c.getAttribute('data-score')) || 0);
      if (n > most) { most = n; best = c; }
    }
    const at = page.locator(`#city .sc-cell.target[data-x="${await best.getAttribute('data-x')}"][data-y="${await best.getAttribute('data-y')}"]`);
    await at.scrollIntoViewIfNeeded();
    await at.click();
    await page.waitForSelector('#city .sc-cell.chosen');
  }
  await press(page, '#confirm');
  return cells.length ? 'build' : 'event';
}

/** Answers the pending point of kind `state` with the page's controls; resolves to what it did. */
async function answer(page, s, state, opts) {
  switch (state) {
    case 'play': return playStep(page, s, opts);
    case 'council': await press(page, '#pass'); return 'no member';
    case 'target': {
      const c = await page.waitForSelector('#city .sc-cell.target');
      await c.click();
      await press(page, '#confirm');
      return 'target';
    }
    case 'vote': {
      if (await page.$('#vote-yes:not([disabled])')) { await press(page, '#vote-yes'); return 'vote yes'; }
      await press(page, '#vote-withhold');
      return 'withhold';
    }
    case 'mayor_pay': await press(page, '#pay-full'); return 'paid';
    case 'election': await press(page, '#pass'); return 'election pass';
    case 'discard': {
      await (await page.waitForSelector('#hand .sccard:not([disabled])')).click();
      await press(page, '#confirm');
      return 'discard';
    }
    case 'draw': {
      // The deck when it has cards (the button the options allow), else the top discard.
      const which = (await page.$('#draw-deck:not([disabled])')) ? '#draw-deck' : '#draw-discard';
      await press(page, which);
      return which === '#draw-deck' ? 'draw' : 'take discard';
    }
    default: throw new Error(`unexpected step ${state}`);
  }
}

test('a newcomer plays a whole 3-player game of SimCity against two bots with the page\'s controls only', { timeout: 420_000 }, async (t) => {
  const context = await browser.newContext(DESKTOP);
  await countClicks(context);
  const page = await context.newPage();
  const errors = watchErrors(page);
  try {
    // A money target of $80, not the default $170: every check below comes early in a game, and
    // the whole game at the default was most of this file's time (56 decisions; 113 s at load 26).
    const s = await createInLobby(page, { name: 'Nia', seats: 3, kinds: ['greedy', 'greedy'], target: 80 });
    const made = (await callApi(daemon.base, 'GET', `/games/${s.id}`)).json;
    assert.equal(made.game, 'simcity');
    assert.equal(made.target, 80, 'the lobby sent the money target typed in its field');
    await page.waitForSelector('#city-scroll');
    await page.waitForSelector('#sc-status #fact-phase');
    // A newcomer's guide is open in the first round.
    if (!(await page.$eval('#sc-guide', (d) => d.open))) {
      // Seen once in CI, not reproduced here: say what the page knew when it decided.
      const v = (await callApi(daemon.base, 'GET', `/games/${s.id}`)).json;
      const seen = await page.evaluate((id) => ({ seat: localStorage.getItem(`city.seat.${id}`), narrow: matchMedia('(max-width: 700px)').matches, guides: document.querySelectorAll('#sc-guide').length }), s.id);
      assert.fail(`the five-line guide is open in round 1 (now round ${v.round}, ${v.status}; ${JSON.stringify(seen)})`);
    }
    // At a glance: phase, Mayor, money for every seat.
    assert.match(await page.textContent('#fact-phase'), /Settlement/);
    assert.equal(await page.locator('#sc-status .score-row').count(), 3);
    const did = [];
    let seq = -1;
    let checked = false;
    let zoomed = false;
    const clicks0 = await clicksSoFar(page);
    for (let i = 0; i < 400; i++) {
      const at = await nextPoint(page, seq);
      if (at === 'over') break;
      seq = at.seq;
      if (at.state === 'play' && !zoomed && await page.locator('#city .sc-cell:not(.target)[data-slug]:not([data-slug=""])').count() >= 3) {
        zoomed = true;
        // At the zoom the page chose, no word of a card's name is broken across two lines, unless
        // its font is down to the 12 px that stays readable (a long word in a small cell).
        const broken = await brokenNames(page, '#city .sc-name', { floorPx: 12 });
        assert.deepEqual(broken, [], 'no name breaks inside a word above 12 px');
        // Card names stay readable at every zoom: ≥ 12 px, at the smallest zoom too.
        await press(page, '#zoom-fit');
        for (let k = 0; k < 6; k++) if (await page.$('#zoom-out:not([disabled])')) await press(page, '#zoom-out');
        const sizes = await page.$$eval('#city .sc-name', (els) => els.map((e) => parseFloat(getComputedStyle(e).fontSize)));
        assert.ok(sizes.length && Math.min(...sizes) >= 12, `names ≥ 12 px at the smallest zoom (${Math.min(...sizes)})`);
        const clipped = await page.$$eval('#city .sc-name', (els) => els.filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent));
        assert.deepEqual(clipped, [], 'no name is cut off at the smallest zoom');
        const z0 = Number(await page.getAttribute('#city-scroll', 'data-zoom'));
        await press(page, '#zoom-in');
        const z1 = Number(await page.getAttribute('#city-scroll', 'data-zoom'));
        assert.ok(z1 > z0, 'the + button zooms in');
        const box = await page.locator('#city-scroll').boundingBox();
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        await page.mouse.wheel(0, -300);
        await page.waitForFunction((z) => Number(document.querySelector('#city-scroll').dataset.zoom) > z, z1);
        const z2 = Number(await page.getAttribute('#city-scroll', 'data-zoom'));
        await page.focus('#city-scroll');
        await page.keyboard.press('-');
        assert.ok(Number(await page.getAttribute('#city-scroll', 'data-zoom')) < z2, 'the - key zooms out while the city has focus');
        // A stack's cards on demand: a tap on a block lists its stack in the info box.
        const cell = await page.$('#city .sc-cell[data-slug]:not([data-slug=""])');
        const slug = await cell.getAttribute('data-slug');
        await cell.click();
        await page.waitForSelector(`#stack .info-card[data-slug="${slug}"]`);
        await page.screenshot({ path: join(OUT, 'simcity-zoom.png') });
      }
      let what;
      try {
        if (at.state === 'play' && checked && !did.includes('suggested')) {
          // Suggest fills in the expert's play (a card and its cell), which Build then sends.
          await press(page, '#suggest');
          await page.waitForFunction(() => !document.querySelector('#suggest[data-thinking="true"]') && document.querySelector('.hint-line'), null, { timeout: 20_000 });
          if (await page.$('#city .sc-cell.chosen')) { await press(page, '#confirm'); what = 'suggested'; } else what = await answer(page, s, at.state);
          did.push(what);
          continue;
        }
        what = await answer(page, s, at.state, { check: at.state === 'play' && !checked });
      } catch (e) {
        // The view changed under a click (the point was redrawn): read the point again.
        if (!/not attached|detached/.test(e.message)) throw e;
        seq = at.seq - 1;
        continue;
      }
      if (at.state === 'play' && what === 'build') checked = true;
      did.push(what);
      if (did.length === 3) await page.screenshot({ path: join(OUT, 'simcity-table.png') });
    }
    // Issue 27: the clicks a whole game costs (a card and a cell, then Confirm, for a play; the
    // zoom checks above add about ten).
    const clicks = (await clicksSoFar(page)) - clicks0;
    t.diagnostic(`clicks: ${clicks} for a whole game of SimCity, ${did.length} decisions`);
    assert.ok(clicks <= 3 * did.length + 12, `3 clicks a decision or fewer on average: ${clicks} for ${did.length}`);
    await page.waitForSelector('#end-screen', { timeout: 30_000 });
    const tally = {};
    for (const w of did) tally[w] = (tally[w] ?? 0) + 1;
    t.diagnostic(`the person's decisions: ${JSON.stringify(tally)}`);
    assert.ok(did.includes('build'), `the person built blocks (${did.join(', ')})`);
    assert.ok(checked, 'the highlighted cells were compared with the server\'s options');
    assert.ok(did.includes('suggested'), 'a play was made with Suggest');
    const v = (await callApi(daemon.base, 'GET', `/games/${s.id}`)).json;
    assert.equal(v.status, 'finished');
    // The ranking keeps a bot's name on one line: "Bot 3 (expert" with ")" below was seen, beside
    // "2 council members · 14 in hand"; the counts wrap first. Every row is set up so.
    await page.$$eval('#final-ranking li', (lis) => lis.forEach((li) => {
      li.querySelector('.r-name').firstChild.textContent = 'Bot 3 (expert)';
      li.querySelector('.r-hand').textContent = '2 council members · 14 in hand';
    }));
    assert.deepEqual(await brokenNames(page, '#final-ranking .r-name', { whole: true }), [], 'a bot\'s name on one line');
    // The end screen: money by source for every seat, adding up to the money shown.
    await page.waitForSelector('#breakdown .bd-player');
    assert.equal(await page.locator('#breakdown .bd-player').count(), 3);
    const mine = page.locator(`#breakdown .bd-player[data-seat="${s.seat}"]`);
    assert.equal(Number(await mine.locator('.bd-total').textContent()), v.seats[s.seat].money);
    if (v.seats[s.seat].earned.value) assert.match(await mine.innerText(), /Blocks’ \$ value/);
    await page.screenshot({ path: join(OUT, 'simcity-end.png'), fullPage: true });
    // The replay shows the city round by round.
    await press(page, '#watch-replay');
    await page.waitForSelector('#replay[data-step]');
    await press(page, '#replay-next');
    await page.waitForFunction(() => document.querySelector('#replay')?.dataset.step === '1');
    await page.waitForSelector('#replay-city .sc-cell');
    assert.ok(await page.locator('#replay-log li').count() > 0, 'the round\'s log is shown');
    assert.deepEqual(errors, [], 'no console or page errors');
  } finally {
    await context.close();
  }
});

test('SimCity\'s rules page renders docs/simcity.md and the card reference lists its cards', { timeout: 60_000 }, async () => {
  const context = await browser.newContext(DESKTOP);
  const page = await context.newPage();
  const errors = watchErrors(page);
  try {
    await page.goto(`${daemon.base}/#/rules/simcity`);
    await page.waitForSelector('#rules-text h1');
    assert.match(await page.textContent('#rules-text h1'), /SimCity/);
    assert.ok(await page.locator('#toc a').count() >= 5, 'the rule book has its contents');
    await page.goto(`${daemon.base}/#/cards/simcity`);
    await page.waitForSelector('.ref-card[data-slug="log_cabin"]');
    const cards = (await callApi(daemon.base, 'GET', '/cards?game=simcity')).json.cards;
    assert.equal(await page.locator('.ref-card').count(), cards.length);
    await page.selectOption('#card-icon', 'event');
    await page.waitForFunction((n) => document.querySelectorAll('.ref-card:not([hidden])').length === n, cards.filter((c) => c.kind === 'event').length);
    assert.deepEqual(errors, [], 'no console or page errors');
  } finally {
    await context.close();
  }
});

test('SimCity\'s table on a phone: no sideways scroll, 44 px tap targets, a card played by taps', { timeout: 90_000 }, async () => {
  const g = (await callApi(daemon.base, 'POST', '/games', { body: { game: 'simcity', name: 'Pip', seats: 3, bots: ['greedy', 'greedy'] } })).json;
  const context = await browser.newContext(PHONE);
  const page = await context.newPage();
  const errors = watchErrors(page);
  try {
    await openAsSeat(page, g);
    const s = { id: g.id, seat: g.seat, token: g.token };
    let at = await nextPoint(page, -1);
    while (at !== 'over' && at.state !== 'play') at = await nextPoint(page, (await answer(page, s, at.state), at.seq));
    if (at !== 'over') await firstScreenShowsTheHand(page); // under a bar of three low rows
    // One count a newcomer reads: the bar's round; the panel says whose turn, with no number.
    if (at !== 'over') assert.equal(await page.textContent('#action-title'), 'Your turn: play a card');
    assert.ok(await noHorizontalScroll(page), 'no sideways scroll at 390 px');
    // Locators, not element handles: a refresh may redraw the hand between finding and tapping.
    const card = (await page.locator('#hand .sccard:not(.dim)').count()) > 0;
    if (card) {
      await page.locator('#hand .sccard:not(.dim)').first().tap();
      await page.waitForSelector('#city .sc-cell.target');
    }
    const small = await page.$$eval('#city .sc-cell, #hand .sccard, #action button, .zoom-btn', (els) => els
      .filter((e) => e.offsetParent !== null)
      .map((e) => { const r = e.getBoundingClientRect(); return { id: e.id || e.className, w: r.width, h: r.height }; })
      .filter((r) => r.w < 44 || r.h < 44));
    assert.deepEqual(small, [], 'every tap target is at least 44 × 44 px');
    if (card) {
      const cell = page.locator('#city .sc-cell.target').first();
      await cell.scrollIntoViewIfNeeded();
      await cell.tap();
      await press(page, '#confirm-here');
      await nextPoint(page, at.seq); // bots play at once: the next point may be a play again
    }
    assert.ok(await noHorizontalScroll(page), 'still no sideways scroll');
    await page.screenshot({ path: join(OUT, 'simcity-phone.png'), fullPage: true });
    assert.deepEqual(errors, [], 'no console or page errors');
  } finally {
    await context.close();
  }
});

/**
 * Shows `page` (the table of seat `s`) a decision point it rarely meets early: the answers of
 * GET .../hand and GET /games/ID carry `step`, `pending` and the view fields `patch` gives
 * (patch(view, isHand) changes a copy of each), then the page reloads. Nothing is sent.
 */
async function showPoint(page, s, patch) {
  await page.route(`**/api/v1/games/${s.id}**`, async (route) => {
    try {
      const url = new URL(route.request().url());
      const isHand = url.pathname.endsWith('/hand');
      if (!isHand && url.pathname !== `/api/v1/games/${s.id}`) return await route.continue();
      const r = await route.fetch();
      const v = await r.json();
      patch(v, isHand);
      return await route.fulfill({ response: r, json: v });
    } catch {
      return undefined; // the next point's route or the end of the test took over this request
    }
  });
  await page.reload();
}

test('votes, the Mayor\'s vote, bills and elections are prompts that say what is decided and offer each choice', { timeout: 90_000 }, async () => {
  const g = (await callApi(daemon.base, 'POST', '/games', { body: { game: 'simcity', name: 'Vic', seats: 3, bots: ['greedy', 'greedy'] } })).json;
  const cards = (await callApi(daemon.base, 'GET', '/cards?game=simcity')).json.cards;
  const member = cards.find((c) => c.kind === 'council' && !c.corrupt);
  const s = { id: g.id, seat: g.seat, token: g.token };
  const context = await browser.newContext(DESKTOP);
  const page = await context.newPage();
  const errors = watchErrors(page);
  try {
    await openAsSeat(page, g);
    await page.waitForSelector('#action[data-state="play"]');
    const point = (v, isHand, step, pending, extra = {}) => {
      Object.assign(v, { step, mayor: 1, power_played: true, ...extra });
      v.seats[s.seat].council = [{ id: 90, card: member.id, votes: member.votes }];
      v.pending = isHand ? { round: v.round, step, turn: v.turn, ...pending } : [s.seat];
    };
    const vote = { proposer: 1, card: { id: 5, card: 'log_cabin' }, x: 6, y: 6, yes: 1, no: 0 };
    // A seat holding two members votes on a rezoning: all one way, or member by member.
    const B = ['withhold', 'yes', 'no'];
    const pairs = B.flatMap((a) => B.map((b) => ({ ballots: [a, b] })));
    await showPoint(page, s, (v, isHand) => {
      point(v, isHand, 'vote', { ballots: 2, options: pairs }, { vote });
      v.seats[s.seat].council.push({ id: 91, card: member.id, votes: member.votes });
    });
    await page.waitForSelector('#action[data-state="vote"]');
    assert.match(await page.textContent('#action-title'), /Rezoning vote/);
    assert.match(await page.textContent('#action .action-head'), /proposes Log Cabin at 6, 6.*1 yes, 0 no/s);
    assert.match(await page.textContent('#whose'), /Rezoning vote: you vote/);
    for (const b of ['yes', 'no', 'withhold']) assert.ok(await page.isEnabled(`#vote-${b}`), `${b} can be voted`);
    await page.selectOption('#ballot-1', 'no');
    assert.ok(await page.isEnabled('#vote-split'), 'a split vote the options allow can be cast');
    assert.match(await page.textContent('#vote-state'), /Rezoning vote/);
    // The Mayor votes last and may break a tie.
    await page.unroute(`**/api/v1/games/${s.id}**`);
    const both = [];
    for (const m of ['withhold', 'yes', 'no']) for (const t of ['none', 'yes', 'no']) both.push({ mayor: m, tie: t });
    await showPoint(page, s, (v, isHand) => point(v, isHand, 'vote', { mayor: true, options: both }, { vote, mayor: s.seat }));
    await page.waitForSelector('#action[data-state="vote"] #tie');
    assert.match(await page.textContent('#action-title'), /you are the Mayor/);
    await page.selectOption('#tie', 'yes');
    assert.ok(await page.isEnabled('#vote-no'));
    // The Mayor's bill: in full, or half and leave office.
    await page.unroute(`**/api/v1/games/${s.id}**`);
    await showPoint(page, s, (v, isHand) => point(v, isHand, 'mayor_pay', { bill: 7, options: [{ vacate: false }, { vacate: true }] }, { mayor: s.seat, bills: [{ card: 'tornado', amount: 7 }] }));
    await page.waitForSelector('#action[data-state="mayor_pay"]');
    assert.equal(await page.textContent('#pay-full'), 'Pay $7');
    assert.equal(await page.textContent('#pay-half'), 'Pay $4 and leave office');
    // An election: a candidate and a number of $1 votes, or pass.
    await page.unroute(`**/api/v1/games/${s.id}**`);
    const bids = [{ pass: true }];
    for (let c = 0; c < 3; c++) for (const n of [1, 2, 3]) bids.push({ votes: n, candidate: c });
    await showPoint(page, s, (v, isHand) => point(v, isHand, 'election', { max_votes: 3, options: bids }, { mayor: null, election: { outgoing: 1, votes: [0, 2, 0], passes: 0 } }));
    await page.waitForSelector('#action[data-state="election"] #candidate');
    assert.match(await page.textContent('#tally'), /Bot 2 \(greedy\) 2/);
    assert.match(await page.textContent('#confirm'), /^Buy 1 vote for yourself$/);
    await page.selectOption('#votes', '3');
    assert.match(await page.textContent('#confirm'), /^Buy 3 votes for yourself$/);
    assert.ok(await page.isEnabled('#pass'));
    await page.screenshot({ path: join(OUT, 'simcity-election.png') });
    assert.deepEqual(errors, [], 'no console or page errors');
  } finally {
    await context.close();
  }
});

test('Solitaire with the page\'s controls: draws, builds and discards down to 7, then its end screen and money', { timeout: 300_000 }, async (t) => {
  const context = await browser.newContext(DESKTOP);
  const page = await context.newPage();
  const errors = watchErrors(page);
  try {
    const s = await createInLobby(page, { name: 'Sol', seats: 1, kinds: [] });
    const did = [];
    let seq = -1;
    // By clicks until the player has drawn, built and discarded down to 7 a few times (a whole
    // game by clicks is the 3-player test's; this one keeps the suite short), then the rest of
    // the game through the API with the server's suggestions, while the page follows it.
    const enough = () => did.filter((w) => w === 'discard').length >= 2 && did.filter((w) => w === 'build').length >= 8;
    for (let i = 0; i < 200 && !enough(); i++) {
      const at = await nextPoint(page, seq);
      if (at === 'over') break;
      seq = at.seq;
      try {
        did.push(await answer(page, s, at.state));
      } catch (e) {
        if (!/not attached|detached/.test(e.message)) throw e;
        seq = at.seq - 1;
      }
    }
    // The page's last order answered and its next point shown before the API takes over: else
    // the two may answer one point and one of them gets 409 stale_step (seen in CI under load).
    if (enough()) await nextPoint(page, seq);
    for (let i = 0; i < 2000; i++) {
      const hand = (await callApi(daemon.base, 'GET', `/games/${s.id}/hand`, { token: s.token })).json;
      if (hand.status === 'finished' || !hand.pending) break;
      await callApi(daemon.base, 'POST', `/games/${s.id}/orders`, { token: s.token, body: hand.pending.suggestion });
    }
    await page.waitForSelector('#end-screen', { timeout: 30_000 });
    const tally = {};
    for (const w of did) tally[w] = (tally[w] ?? 0) + 1;
    t.diagnostic(`Solitaire decisions: ${JSON.stringify(tally)}`);
    const v = (await callApi(daemon.base, 'GET', `/games/${s.id}`)).json;
    assert.equal(v.status, 'finished');
    assert.ok(!(await page.isVisible('#fact-target')), 'Solitaire has no money target');
    await page.waitForSelector('#breakdown .bd-player');
    assert.equal(Number(await page.textContent('#breakdown .bd-total')), v.seats[0].money);
    assert.deepEqual(errors, [], 'no console or page errors');
  } finally {
    await context.close();
  }
});

test('watching a SimCity game on a desktop, the city takes the column a move would have', { timeout: 60_000 }, async () => {
  const g = (await callApi(daemon.base, 'POST', '/games', { body: { game: 'simcity', name: 'Ada', seats: 2, bots: ['greedy'] } })).json;
  for (const width of [1280, 1100]) { // a fresh context: no seat of this game
    const context = await browser.newContext({ viewport: { width, height: 800 } });
    const page = await context.newPage();
    try {
      await page.goto(`${daemon.base}/#/game/${g.id}`);
      await page.waitForSelector('#city-scroll');
      assert.ok(!(await page.isVisible('#action')), 'a watcher has no move to make');
      const grid = await page.locator('.table-grid').boundingBox();
      const city = await page.locator('.city-box').boundingBox();
      assert.ok(Math.abs(city.x - grid.x) < 2, `${width} px: the city starts at the table's left edge (${city.x} against ${grid.x})`);
    } finally {
      await context.close();
    }
  }
});
