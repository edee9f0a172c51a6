// browser.test.mjs: browser tests of the page in web/, driving Debian's headless Chromium with
// playwright-core against a real daemon (tests/js/lib/daemon.mjs): a whole game against three
// bots played by clicking only, two people in one game who each see only their own hand, and the
// phone-width layout with a keyboard-only create. Any console error or page error fails a test.
//
//   cd /work/main && make && CITY_ROOT=$PWD scripts/with-postgres.sh node --test tests/js/browser.test.mjs
//
// Screenshots go to tests/js/out/ (final-table.png, mid-game.png, two-players.png, phone-*.png).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startDaemon } from './lib/daemon.mjs';
import { watchErrors, seatOf, apiHand, shownHandIds, nextTurn, playTurn, noHorizontalScroll, tabTo, launchChromium, countClicks, clicksSoFar } from './browser-helpers.mjs';

const OUT = join(import.meta.dirname, 'out');

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

test('one person plays a whole game against three bots by clicking', { timeout: 90_000 }, async (t) => {
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
  await countClicks(context);
  const page = await context.newPage();
  const errors = watchErrors(page);
  try {
    await page.goto(`${daemon.base}/`);
    await page.fill('#name', 'Alice');
    await page.selectOption('#seats', '4');
    await page.selectOption('#seat-kind-1', 'greedy');
    await page.selectOption('#seat-kind-2', 'greedy');
    await page.selectOption('#seat-kind-3', 'random');
    await page.click('#create');
    await page.waitForSelector('#action[data-state="keep"]');
    assert.match(page.url(), /#\/game\/[0-9a-f]+$/);
    const { id, token } = await seatOf(page);
    assert.ok(id && token, 'the seat token is kept in localStorage');

    let last = null;
    let steps = 0;
    let midShot = false;
    const kinds = new Set();
    const clicks0 = await clicksSoFar(page);
    const tally = { extra: 0 }; // clicks beyond a decision's own (more cards to discard; a double tried)
    for (;;) {
      const turn = await nextTurn(page, last);
      if (turn === 'over') break;
      const [state, key] = turn.split('|');
      const round = Number(key.split('-')[0]);
      const shoot = async () => {
        await page.screenshot({ path: join(OUT, 'mid-game.png'), fullPage: true });
        midShot = true;
      };
      // The mid-game picture shows a build picked with its pre-selected payment when it can.
      if (!midShot && round >= 6 && state === 'build') await shoot();
      const wantShot = !midShot && round >= 3 && state === 'build';
      kinds.add(await playTurn(page, state, { beforeConfirm: wantShot ? shoot : undefined, tally }));
      last = key;
      steps++;
      assert.ok(steps < 200, 'the game ends');
      assert.deepEqual(errors, [], 'no console or page errors');
    }
    // Issue 27: the clicks a whole game costs (a pick and a confirm a decision, cards to keep).
    // A discard of three cards takes three clicks for them whatever the page does, and a short
    // game with two such discards went over 3 a decision: those cards, and the helper's tries of
    // an impossible double build, are counted apart.
    const clicks = (await clicksSoFar(page)) - clicks0;
    t.diagnostic(`clicks: ${clicks} for a whole game of The City, ${steps} decisions (${tally.extra} of them more cards or a double tried)`);
    assert.ok(clicks - tally.extra <= 3 * steps, `3 clicks a decision or fewer on average: ${clicks} - ${tally.extra} for ${steps}`);

    // The end screen: winners, the final tableaux, the chart and a way to play again.
    const end = page.locator('#end-screen');
    await end.waitFor();
    const view = await (await fetch(`${daemon.base}/api/v1/games/${id}`)).json();
    assert.equal(view.status, 'finished');
    assert.ok(view.winners.length >= 1);
    const winnerNames = view.winners.map((w) => view.seats[w].name);
    const text = await page.locator('#winners').innerText();
    for (const n of winnerNames) assert.ok(text.includes(n), `the end screen names winner ${n}`);
    assert.equal(await page.locator('.player').count(), 4);
    assert.equal(await page.locator('.player.won').count(), view.winners.length);
    const chips = await page.locator('.player .tableau .chip').count();
    assert.equal(chips, view.seats.reduce((a, s) => a + s.tableau.length, 0), 'every final tableau is shown');
    assert.equal(await page.locator('.chart svg polyline').count(), 4);
    assert.ok(await page.locator('#play-again').isVisible());
    assert.ok(midShot, 'the game reached round 3');
    assert.ok(kinds.has('keep') && kinds.has('build'), `played keep and build (${[...kinds]})`);
    // The log follows the stream: wait for its last lines rather than reading it at once.
    await page.waitForFunction(() => /Game over/.test(document.querySelector('#log')?.innerText ?? ''), null, { timeout: 15_000 });
    const log = await page.locator('#log').innerText();
    assert.match(log, /Game over/);
    assert.match(log, /Scores:/);
    await page.screenshot({ path: join(OUT, 'final-table.png'), fullPage: true });

    // Play again: a new game with the same settings, Alice in seat 1 again.
    await page.click('#play-again');
    await page.waitForFunction((old) => !location.hash.endsWith(old) && /#\/game\//.test(location.hash), id);
    await page.waitForSelector('#action[data-state="keep"]');
    const again = await seatOf(page);
    const v2 = await (await fetch(`${daemon.base}/api/v1/games/${again.id}`)).json();
    assert.equal(v2.players, 4);
    assert.deepEqual(v2.seats.map((s) => s.bot), [null, 'greedy', 'greedy', 'random']);
    assert.equal(v2.seats[0].name, 'Alice');
    assert.deepEqual(errors, [], 'no console or page errors');
  } finally {
    await context.close();
  }
});

test('two people in one game each see only their own hand; a reload keeps the seat', { timeout: 45_000 }, async () => {
  const ctxA = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const ctxB = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const a = await ctxA.newPage();
  const b = await ctxB.newPage();
  const errors = [...[a, b].map(watchErrors)];
  try {
    await a.goto(`${daemon.base}/`);
    await a.fill('#name', 'Ada');
    await a.selectOption('#seats', '3');
    await a.selectOption('#seat-kind-1', 'person');
    await a.selectOption('#seat-kind-2', 'greedy');
    await a.click('#create');
    await a.waitForSelector('.waiting-room');
    const link = await a.inputValue('#share-link');
    assert.match(link, /#\/game\/[0-9a-f]+$/);

    // B opens the share link; joining asks only for a name, one not taken at the table.
    await b.goto(link);
    await b.waitForSelector('#join-form');
    await b.fill('#join-name', 'ada');
    await b.click('#join');
    await b.waitForSelector('.waiting-room .error');
    assert.equal(await b.textContent('.waiting-room .error'), 'Someone at this table already has that name: choose another one.');
    // the refused join is the browser's logged 409, and nothing else
    const refused = errors[1].splice(0);
    assert.ok(refused.every((m) => /status of 409/.test(m)), refused.join('\n'));
    await b.fill('#join-name', 'Bea');
    await b.click('#join');
    for (const p of [a, b]) await p.waitForSelector('#action[data-state="keep"]');

    const seatA = await seatOf(a);
    const seatB = await seatOf(b);
    assert.equal(seatA.id, seatB.id);
    assert.deepEqual([seatA.seat, seatB.seat], [0, 1]);

    async function checkHands() {
      const handA = await apiHand(daemon.base, seatA);
      const handB = await apiHand(daemon.base, seatB);
      const shownA = await shownHandIds(a);
      const shownB = await shownHandIds(b);
      assert.deepEqual(shownA, handA, 'A sees exactly A\'s hand');
      assert.deepEqual(shownB, handB, 'B sees exactly B\'s hand');
      for (const idB of handB) assert.ok(!shownA.includes(idB), 'A never sees a card of B\'s hand');
      for (const idA of handA) assert.ok(!shownB.includes(idA), 'B never sees a card of A\'s hand');
      const htmlA = await a.locator('#app').innerHTML();
      for (const idB of handB) assert.ok(!htmlA.includes(`data-card-id="${idB}"`));
    }
    await checkHands();

    // A decides first: B's page shows it live (SSE), then B decides and both move on.
    await a.locator('#hand .card').nth(0).click();
    await a.locator('#hand .card').nth(1).click();
    await a.click('#confirm');
    await a.waitForSelector('#action[data-submitted="true"]');
    await b.waitForSelector('.player[data-seat="0"] .tag.ok');
    await b.locator('#hand .card').nth(2).click();
    await b.locator('#hand .card').nth(3).click();
    await b.click('#confirm');
    for (const p of [a, b]) await p.waitForSelector('#action[data-state="build"]');
    await checkHands();
    assert.equal(await a.locator('#hand .card').count(), 5);
    await a.screenshot({ path: join(OUT, 'two-players.png'), fullPage: true });

    // A reload (and a second tab) goes on in the same seat.
    await b.reload();
    await b.waitForSelector('#action[data-state="build"]');
    assert.equal(await b.getAttribute('.player.me', 'data-seat'), '1');
    assert.deepEqual(await seatOf(b), seatB);
    const b2 = await ctxB.newPage();
    errors.push(watchErrors(b2));
    await b2.goto(link);
    await b2.waitForSelector('#action[data-state="build"]');
    assert.equal(await b2.getAttribute('.player.me', 'data-seat'), '1');
    await checkHands();
    assert.deepEqual(await shownHandIds(b2), await apiHand(daemon.base, seatB));
    await b2.close();
    assert.deepEqual(errors.flat(), [], 'no console or page errors');
  } finally {
    await ctxA.close();
    await ctxB.close();
  }
});

test('phone width: no horizontal scrolling; a keyboard-only flow creates a game and plays', { timeout: 40_000 }, async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  const page = await context.newPage();
  const errors = watchErrors(page);
  try {
    await page.goto(`${daemon.base}/`);
    await page.waitForSelector('#games :is(.game-list, p)');
    assert.ok(await noHorizontalScroll(page), 'the lobby fits 390 px');
    await page.screenshot({ path: join(OUT, 'phone-lobby.png'), fullPage: true });

    // Keyboard only: Tab to the name, type it, Tab to "Create game", Enter.
    await page.evaluate(() => { localStorage.removeItem('city.name'); });
    await page.reload();
    await page.waitForSelector('#create-form');
    await tabTo(page, 'name');
    await page.keyboard.type('Kim');
    await tabTo(page, 'create');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#action[data-state="keep"]');
    assert.ok(await noHorizontalScroll(page), 'the table fits 390 px');

    // The keep dialog by keyboard: Tab to cards, Space and Enter mark them, then confirm.
    await tabTo(page, (el) => el.matches('#hand .card'));
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    assert.equal(await page.locator('#hand .card.is-discard').count(), 2);
    assert.match(await page.locator('#counter').innerText(), /2 of 2/);
    await tabTo(page, 'confirm');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#action[data-state="build"]');
    assert.ok(await noHorizontalScroll(page), 'the build step fits 390 px');
    // A card's text shows five lines at most, with nothing of a sixth under the ellipsis.
    const tall = await page.$$eval('#hand .card-text', (els) => els
      .filter((e) => { const c = getComputedStyle(e); return e.clientHeight - parseFloat(c.paddingTop) - parseFloat(c.paddingBottom) > 5 * parseFloat(c.lineHeight) + 1; })
      .map((e) => `${e.textContent.slice(0, 30)}: ${e.getBoundingClientRect().height} px`));
    assert.deepEqual(tall, [], 'no card text box taller than five lines');
    await page.screenshot({ path: join(OUT, 'phone-table.png'), fullPage: true });
    // The survey button is reachable and works from the keyboard too.
    await tabTo(page, 'survey');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#survey[aria-pressed="true"]');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'confirm', 'picking Survey moves focus to Confirm');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('#action')?.dataset.turn !== '1-build');
    assert.ok(await noHorizontalScroll(page));
    assert.deepEqual(errors, [], 'no console or page errors');
  } finally {
    await context.close();
  }
});

test('a link to no game says so, with the way back and no empty table around it', { timeout: 30_000 }, async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  try {
    for (const id of ['0000000000000000', 'xyz']) {
      await page.goto(`${daemon.base}/#/game/${id}`);
      await page.waitForSelector('#banner h2');
      assert.equal(await page.textContent('#banner h2'), 'No such game');
      assert.match(await page.textContent('#banner p'), /There is no game at this address: the link may be mistyped/);
      assert.ok(await page.isVisible('#banner a[href="#/"]'), 'the way back to the lobby');
      for (const sel of ['#log-box', '#action', '#jump']) assert.ok(!(await page.isVisible(sel)), `${sel} is not shown`);
      assert.equal(await page.locator('#bar a[href^="#/rules"]').count(), 0, 'no rules of a game that is not there');
      await page.goto(`${daemon.base}/#/`); // the next id is a new table
    }
  } finally {
    await context.close();
  }
});
