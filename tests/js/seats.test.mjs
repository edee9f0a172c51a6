// seats.test.mjs: browser tests of seats that change hands, in the page in web/, driving Debian's
// headless Chromium with playwright-core against a real daemon (as browser.test.mjs does): a
// player leaves through "Leave game" (asked first, by keyboard) and a bot plays the seat to the
// end; one of two people leaves and the other plays on to the end with Suggest; the host hands
// a seat that missed two forced steps to a bot (refused with the server's sentence before);
// the host cancels an open game and a second browser on its link sees it cancelled with no
// join form; a player who leaves an open game lands in the lobby with a notice; Tech City's
// and the generic tables leave the same way. Any console or page error fails a test (expected
// 409s and 401s aside).
//
//   make && CITY_ROOT=$PWD scripts/with-postgres.sh node --test tests/js/seats.test.mjs

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { startDaemon } from './lib/daemon.mjs';
import { watchErrors, launchChromium, nextTurn, suggestAndWait, callApi, openTableAs, chooseQuick } from './browser-helpers.mjs';

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

/** A page holding the given tokens of game `id`, as the lobby would have stored them. */
const openAs = (id, tokens = {}) => openTableAs(browser, daemon.base, id, tokens, { viewport: { width: 1280, height: 860 } });

/**
 * Console errors other than the browser's own line for an expected 409 answer, or a 401: a
 * refresh that the stream's news of a seat change starts may still carry the token it revoked.
 */
const unexpected = (errors) => errors.filter((e) => !/status of 40[19]/.test(e));

const logText = (page) => page.locator('#log').innerText();

async function waitLog(page, re) {
  await page.waitForFunction((src) => new RegExp(src).test(document.querySelector('#log')?.innerText ?? ''), re.source, { timeout: 20_000 });
}

/** The seat token this page keeps for game `id` (null once forgotten). */
const keptSeat = (page, id) => page.evaluate((gid) => localStorage.getItem(`city.seat.${gid}`), id);

test('a player leaves through the button, by keyboard; a bot plays the seat and the game finishes', { timeout: 90_000 }, async () => {
  const g = (await api('POST', '/games', { body: { seats: 2, bots: ['greedy'], name: 'Ada', target_vp: 15 } })).json;
  const A = await openAs(g.id, { seat: 0, token: g.token, host: g.host_token });
  try {
    const { page } = A;
    await page.waitForSelector('#action[data-state="keep"]');
    // Keyboard: focus Leave, Enter asks; focus is on the answer, Escape takes the question back.
    await page.focus('#leave');
    await page.keyboard.press('Enter');
    const ask = page.locator('#leave-ask');
    await ask.waitFor();
    assert.equal(await ask.getAttribute('role'), 'alertdialog');
    assert.match(await ask.innerText(), /A bot will play your seat for the rest of the game\. Leave\?/);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'leave-yes');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#leave');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'leave');
    assert.equal((await api('GET', `/games/${g.id}`)).json.seats[0].bot, null, 'Escape left nothing');

    await page.keyboard.press('Enter');
    await page.waitForSelector('#leave-yes:focus');
    await page.keyboard.press('Enter');

    // The bot plays on to the end; this page watches, with a notice and the seat forgotten.
    await page.locator('#end-screen').waitFor({ timeout: 30_000 });
    const notice = page.locator('#seat-notice');
    await notice.waitFor();
    assert.match(await notice.innerText(), /You left the game: a bot plays your seat/);
    assert.equal(await keptSeat(page, g.id), null, 'the seat token is forgotten');
    assert.equal(await page.locator('#leave').count(), 0);
    assert.equal(await page.locator('#action:not([hidden])').count(), 0, 'no hand: a spectator');
    const v = (await api('GET', `/games/${g.id}`)).json;
    assert.equal(v.status, 'finished');
    assert.deepEqual([v.seats[0].name, v.seats[0].bot], ['Ada', 'greedy']);
    const mark = page.locator('.player[data-seat="0"] .bot-mark');
    await mark.waitFor();
    assert.match(await mark.innerText(), /greedy bot/i);
    assert.match(await page.locator('.player[data-seat="0"] h3').innerText(), /^Ada$/, 'the seat keeps its name');
    await waitLog(page, /Game over/);
    assert.match(await logText(page), /Ada left; a bot plays the seat from now on\./);
    // After a reload the page is a spectator's, with no Leave button.
    await page.reload();
    await page.locator('#end-screen').waitFor();
    assert.equal(await page.locator('#leave').count(), 0);
    assert.deepEqual(unexpected(A.errors), []);
  } finally {
    await A.context.close();
  }
});

test('one of two people leaves a 3-seat game; the other plays on to the end with Suggest', { timeout: 150_000 }, async () => {
  const g = (await api('POST', '/games', { body: { seats: 3, bots: ['greedy'], name: 'Ada', target_vp: 15 } })).json;
  const bea = (await api('POST', `/games/${g.id}/join`, { body: { name: 'Bea' } })).json;
  const A = await openAs(g.id, { seat: 0, token: g.token, host: g.host_token });
  const B = await openAs(g.id, { seat: 1, token: bea.token });
  try {
    await B.page.waitForSelector('#action[data-state="keep"]');
    await B.page.click('#leave');
    await B.page.click('#leave-yes');
    await B.page.locator('#seat-notice').waitFor();
    assert.equal(await keptSeat(B.page, g.id), null);
    await B.page.waitForSelector('.player[data-seat="1"] .bot-mark');
    // Ada sees the bot in Bea's seat and the log line; no Hand to a bot for a bot's seat.
    await A.page.waitForSelector('.player[data-seat="1"] .bot-mark');
    await waitLog(A.page, /Bea left; a bot plays the seat from now on\./);
    assert.equal(await A.page.locator('#handover-1').count(), 0);

    let last = null;
    let steps = 0;
    for (;;) {
      const turn = await nextTurn(A.page, last);
      if (turn === 'over') break;
      last = turn.split('|')[1];
      await suggestAndWait(A.page);
      // Suggest picks its choice and puts focus on Confirm, whatever the choice.
      const next = await A.page.evaluate(() => document.activeElement?.id);
      assert.equal(next, 'confirm', 'Suggest picks its choice and points at Confirm, a survey or a contractor too');
      await A.page.keyboard.press('Enter');
      assert.ok(++steps < 200, 'the game ends');
    }
    await A.page.locator('#end-screen').waitFor();
    await B.page.locator('#end-screen').waitFor();
    const v = (await api('GET', `/games/${g.id}`)).json;
    assert.equal(v.status, 'finished');
    assert.deepEqual(v.seats.map((s) => s.bot), [null, 'greedy', 'greedy']);
    assert.ok(v.seats[1].tableau.length > 0, 'the bot built in Bea\'s seat');
    assert.deepEqual(unexpected(A.errors), []);
    assert.deepEqual(unexpected(B.errors), []);
  } finally {
    await A.context.close();
    await B.context.close();
  }
});

test('the host hands a seat that missed two forced steps to a bot, refused in players\' words before', { timeout: 90_000 }, async () => {
  const g = (await api('POST', '/games', { body: { seats: 3, bots: ['greedy'], name: 'Ada' } })).json;
  const bea = (await api('POST', `/games/${g.id}/join`, { body: { name: 'Bea' } })).json;
  const A = await openAs(g.id, { seat: 0, token: g.token, host: g.host_token });
  const B = await openAs(g.id, { seat: 1, token: bea.token });
  try {
    const { page } = A;
    await page.waitForSelector('#action[data-state="keep"]');
    await B.page.waitForSelector('#action[data-state="keep"]');
    // Bea has missed nothing yet: no Hand to a bot.
    assert.equal(await page.locator('.handover-row').count(), 0);
    const hand = page.locator('#handover-1');

    // Ada decides and forces twice through the page; Bea gets two defaults. After the first,
    // only the host sees Hand to a bot, only for Bea (not the host's own seat, not the bot),
    // and it is refused in players' words.
    for (const round of [0, 1]) {
      const state = round === 0 ? 'keep' : 'build';
      await page.waitForSelector(`#action[data-state="${state}"]`);
      if (state === 'keep') {
        await page.locator('#hand .card').nth(0).click();
        await page.locator('#hand .card').nth(1).click();
        await page.click('#confirm');
      } else {
        await chooseQuick(page, 'survey');
      }
      await page.waitForSelector('#action[data-submitted="true"]');
      await page.click('#force');
      await page.click('#force-yes');
      await page.waitForSelector(`.handover-row[data-seat="1"] .ho-missed:text("missed ${round + 1} turn")`);
      if (round > 0) continue;
      assert.equal(await page.locator('.handover-row button').count(), 1);
      assert.equal(await B.page.locator('.handover-row').count(), 0);
      assert.equal(await hand.getAttribute('aria-label'), 'Hand to a bot: Bea\'s seat');
      await hand.click();
      const err = page.locator('#handover-error');
      await err.waitFor();
      assert.match(await err.innerText(), /Bea's seat cannot go to a bot yet: Bea has missed 1 turn, and a seat can go to a bot once its player has missed 2\./);
    }
    await hand.click();
    await page.waitForSelector('.player[data-seat="1"] .bot-mark');
    assert.match(await page.locator('#seat-notice').innerText(), /Bea's seat is played by a bot from now on/);
    assert.equal(await page.locator('#handover-1').count(), 0, 'a bot\'s seat is not offered again');
    await waitLog(page, /The host handed Bea's seat to a bot after 2 missed turns\./);
    const v = (await api('GET', `/games/${g.id}`)).json;
    assert.deepEqual([v.seats[1].name, v.seats[1].bot], ['Bea', 'greedy']);
    // Bea's page lost its seat for now: it watches, says why, and keeps her key to take it back.
    await B.page.waitForSelector('.player[data-seat="1"] .bot-mark');
    await B.page.waitForFunction(() => document.querySelector('#action')?.hidden);
    assert.notEqual(await keptSeat(B.page, g.id), null, 'the key is kept: the seat can be taken back');
    assert.match(await B.page.locator('#page-error').innerText(), /A bot plays your seat now/);
    await B.page.waitForSelector('#reclaim');
    assert.deepEqual(unexpected(A.errors), []);
    assert.deepEqual(unexpected(B.errors), []);
  } finally {
    await A.context.close();
    await B.context.close();
  }
});

test('the host cancels an open game; a second browser on the link sees it cancelled, no join form', { timeout: 60_000 }, async () => {
  const g = (await api('POST', '/games', { body: { seats: 3, bots: ['greedy'], name: 'Ada' } })).json;
  const A = await openAs(g.id, { seat: 0, token: g.token, host: g.host_token });
  const C = await openAs(g.id);
  try {
    await A.page.waitForSelector('.waiting-room');
    await C.page.waitForSelector('#join-form');
    assert.equal(await C.page.locator('#cancel-game').count(), 0, 'only the host may cancel');
    assert.equal(await A.page.locator('.waiting-room #cancel-game').count(), 1, 'Cancel game is in the waiting room');
    await A.page.click('#cancel-game');
    assert.match(await A.page.locator('#cancel-game-ask').innerText(), /Cancel this game for everyone\?/);
    await A.page.click('#cancel-game-no');
    await A.page.waitForSelector('#cancel-game');
    assert.equal((await api('GET', `/games/${g.id}`)).json.status, 'open', '"Keep it" cancelled nothing');
    await A.page.click('#cancel-game');
    await A.page.click('#cancel-game-yes');

    for (const page of [A.page, C.page]) {
      const note = page.locator('#closed-notice');
      await note.waitFor();
      assert.match(await note.innerText(), /The host cancelled this game/);
      assert.equal(await page.locator('#closed-notice a[href="#/"]').count(), 1, 'a link to the lobby');
      assert.equal(await page.locator('#join-form').count(), 0);
      assert.equal(await page.locator('#step').innerText(), 'Cancelled');
      await waitLog(page, /The host cancelled the game\./);
    }
    assert.equal(await A.page.locator('#cancel-game, #leave').count(), 0);
    // A fresh visit to the link says the same.
    const D = await openAs(g.id);
    try {
      await D.page.locator('#closed-notice').waitFor();
      assert.equal(await D.page.locator('#join-form, #action:not([hidden])').count(), 0);
      assert.deepEqual(unexpected(D.errors), []);
    } finally { await D.context.close(); }
    assert.equal((await api('GET', `/games/${g.id}`)).json.status, 'cancelled');
    assert.deepEqual(unexpected(A.errors), []);
    assert.deepEqual(unexpected(C.errors), []);
  } finally {
    await A.context.close();
    await C.context.close();
  }
});

test('leaving an open game frees the seat and goes to the lobby with a notice', { timeout: 60_000 }, async () => {
  const g = (await api('POST', '/games', { body: { seats: 4, bots: ['greedy'], name: 'Ada' } })).json;
  const bea = (await api('POST', `/games/${g.id}/join`, { body: { name: 'Bea' } })).json;
  const B = await openAs(g.id, { seat: 1, token: bea.token });
  try {
    await B.page.waitForSelector('.waiting-room');
    assert.equal(await B.page.locator('#cancel-game').count(), 0, 'Bea is not the host');
    await B.page.click('#leave');
    assert.match(await B.page.locator('#leave-ask').innerText(), /Your seat will be free again for someone else\. Leave\?/);
    await B.page.click('#leave-yes');
    await B.page.waitForFunction(() => document.body.dataset.view === 'lobby');
    assert.match(await B.page.locator('#lobby-notice').innerText(), /You left the game; your seat is free again/);
    assert.equal(await keptSeat(B.page, g.id), null);
    const v = (await api('GET', `/games/${g.id}`)).json;
    assert.equal(v.status, 'open');
    assert.equal(v.seats[1].name, null);
    // Shown once: the lobby drawn again has no notice.
    await B.page.reload();
    await B.page.waitForSelector('#games');
    assert.equal(await B.page.locator('#lobby-notice').count(), 0);
    assert.deepEqual(unexpected(B.errors), []);
  } finally {
    await B.context.close();
  }
});

test('Tech City: a player leaves through the button and a bot plays the seat to the end', { timeout: 120_000 }, async () => {
  const g = (await api('POST', '/games', { body: { game: 'tech_city', seats: 2, bots: ['greedy'], name: 'Tia' } })).json;
  const A = await openAs(g.id, { seat: 0, token: g.token, host: g.host_token });
  try {
    const { page } = A;
    await page.waitForSelector('.table.tech #leave');
    await page.click('#leave');
    assert.match(await page.locator('#leave-ask').innerText(), /A bot will play your seat for the rest of the game/);
    await page.click('#leave-yes');
    await page.locator('#end-screen').waitFor({ timeout: 60_000 });
    await page.locator('#seat-notice').waitFor();
    assert.equal(await keptSeat(page, g.id), null);
    await page.waitForSelector('#players .score-row[data-seat="0"] .bot-mark');
    await waitLog(page, /Tia left; a bot plays the seat from now on\./);
    const v = (await api('GET', `/games/${g.id}`)).json;
    assert.equal(v.status, 'finished');
    assert.deepEqual([v.seats[0].name, v.seats[0].bot], ['Tia', 'greedy']);
    assert.deepEqual(unexpected(A.errors), []);
  } finally {
    await A.context.close();
  }
});

test('the generic table: a player leaves through the button and a bot plays the seat to the end', { timeout: 120_000 }, async () => {
  const g = (await api('POST', '/games', { body: { game: 'tech_city', seats: 2, bots: ['greedy'], name: 'Gen' } })).json;
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  await context.addInitScript(([gid, t, hst]) => {
    localStorage.setItem(`city.seat.${gid}`, JSON.stringify({ seat: 0, token: t }));
    localStorage.setItem(`city.host.${gid}`, JSON.stringify(hst));
  }, [g.id, g.token, g.host_token]);
  const page = await context.newPage();
  const errors = watchErrors(page);
  // A ruleset the page does not know: Tech City's game renamed in every view the page reads.
  await page.route(/\/api\/v1\/games\/[0-9a-f]+(\/hand)?$/, async (route) => {
    if (route.request().method() !== 'GET') return route.continue();
    try {
      const r = await route.fetch();
      const body = await r.json();
      if (body && typeof body === 'object' && body.game) body.game = 'mystery_game';
      await route.fulfill({ response: r, json: body });
    } catch { /* the page closed while the request was on its way */ }
  });
  try {
    await page.goto(`${daemon.base}/#/game/${g.id}`);
    await page.waitForSelector('.table.generic #leave');
    await page.click('#leave');
    await page.click('#leave-yes');
    await page.locator('#end-screen').waitFor({ timeout: 60_000 });
    await page.locator('#seat-notice').waitFor();
    assert.equal(await keptSeat(page, g.id), null);
    await page.waitForSelector('#summary .seat-row[data-seat="0"] .bot-mark');
    await waitLog(page, /Gen left; a bot plays the seat from now on\./);
    assert.equal((await api('GET', `/games/${g.id}`)).json.status, 'finished');
    assert.deepEqual(unexpected(errors), []);
  } finally {
    await context.close();
  }
});
