// chat.test.mjs: table talk (issue 27, item 10) in Debian's headless Chromium with playwright-core
// against a real daemon on a real PostgreSQL (tests/js/lib/daemon.mjs): two people at a table
// talk, each in a tab of their own (Enter sends, the other sees it live), markup shows as typed,
// an anonymous watcher reads the players' talk but has no box to write in, a signed-in watcher
// talks on the watchers' channel that the players do not see, a mute hides a person's messages
// (and is remembered after a reload), a report reaches the server; axe-clean, and at 390 x 844
// the box is reachable by keyboard with 44 px targets and no sideways scroll; a finished game's
// replay viewer shows its talk, both channels, as typed.
//
//   make && CITY_ROOT=$PWD CITYD=$PWD/build/cityd scripts/with-postgres.sh node --test tests/js/chat.test.mjs

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { startDaemon } from './lib/daemon.mjs';
import { launchChromium, callApi, axeSerious, openTableAs, smallTargets, noHorizontalScroll, tabTo } from './browser-helpers.mjs';

const DESKTOP = { viewport: { width: 1280, height: 800 }, bypassCSP: true };
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, bypassCSP: true };

let daemon;
let browser;

before(async () => {
  daemon = await startDaemon({ extraArgs: ['--signin-burst', '100'] });
  browser = await launchChromium(chromium);
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
});

const api = (method, path, opts) => callApi(daemon.base, method, path, opts);

/** The texts of the messages `page` shows in list `list` (players or watchers). */
const texts = (page, list = 'players') => page.locator(`#chat-${list} .chat-text`).allInnerTexts();

/** Waits until `page` shows a message with text `text` in list `list`. */
const shows = (page, text, list = 'players') => page.locator(`#chat-${list} .chat-text`, { hasText: text }).first().waitFor({ timeout: 30_000 });

test('desktop: two people talk, markup shows as typed, watchers apart, mute and report', { timeout: 120_000 }, async () => {
  const g = (await api('POST', '/games', { body: { seats: 2, bots: [], name: 'Ada' } })).json;
  const bea = (await api('POST', `/games/${g.id}/join`, { body: { name: 'Bea' } })).json;
  await api('POST', '/accounts', { body: { name: 'Rail', password: 'correct horse battery' } });
  const session = (await api('POST', '/sessions', { body: { name: 'Rail', password: 'correct horse battery' } })).json;
  const ada = await openTableAs(browser, daemon.base, g.id, { seat: 0, token: g.token, host: g.host_token }, DESKTOP);
  const beaTab = await openTableAs(browser, daemon.base, g.id, { seat: 1, token: bea.token }, DESKTOP);
  const anon = await openTableAs(browser, daemon.base, g.id, {}, DESKTOP);
  const railCtx = await browser.newContext(DESKTOP);
  await railCtx.addInitScript((s) => localStorage.setItem('city.session', JSON.stringify(s)), session);
  const rail = await railCtx.newPage();
  await rail.goto(`${daemon.base}/#/game/${g.id}`);
  try {
    const typed = '<b>hi</b> & <img src=x onerror=alert(1)>';
    await ada.page.fill('#chat-input', typed);
    await ada.page.press('#chat-input', 'Enter');
    await shows(beaTab.page, '<b>hi</b>');
    assert.deepEqual(await texts(beaTab.page), [typed], 'shown as typed, live');
    assert.equal(await beaTab.page.locator('#chat b, #chat img').count(), 0, 'no markup made from it');
    await beaTab.page.fill('#chat-input', 'gl hf');
    await beaTab.page.click('#chat-send');
    await shows(ada.page, 'gl hf');
    assert.deepEqual(await texts(ada.page), [typed, 'gl hf']);
    // An anonymous watcher reads the players' talk and is told how to talk.
    await shows(anon.page, 'gl hf');
    assert.equal(await anon.page.locator('#chat-input').count(), 0, 'no box for an anonymous watcher');
    assert.match(await anon.page.locator('#chat').innerText(), /sign in to talk/i);
    // A signed-in watcher talks with the watchers; the players do not see it.
    await shows(rail, 'gl hf');
    await rail.fill('#chat-input', 'Ada should build the farm');
    await rail.click('#chat-send');
    await shows(rail, 'Ada should build the farm', 'watchers');
    await ada.page.waitForTimeout(1500);
    assert.equal(await ada.page.locator('#chat-watchers .chat-text').count(), 0, 'hidden from the players');
    assert.ok(await ada.page.locator('.chat-watchers').isHidden());
    // Ada reports Bea's message, then mutes her: Bea's messages go, and stay gone after a reload.
    await ada.page.click('#chat-players .chat-msg:has-text("gl hf") .chat-report');
    await ada.page.waitForSelector('#chat-players .chat-msg:has-text("gl hf") .chat-report:disabled');
    const metrics = await (await fetch(`${daemon.base}/metrics`)).text();
    assert.match(metrics, /^city_chat_reports_total 1$/m, 'the report reached the server');
    assert.equal(await ada.page.locator('#chat-players .chat-msg:has-text("Ada") .chat-mute').count(), 0, 'no mute for oneself');
    assert.deepEqual(await axeSerious(ada.page), [], 'axe-clean with messages');
    await ada.page.click('#chat-players .chat-msg:has-text("gl hf") button[aria-label="Mute Bea"]');
    assert.deepEqual(await texts(ada.page), [typed], 'Bea is muted');
    await ada.page.reload();
    await shows(ada.page, '<b>hi</b>');
    await ada.page.waitForTimeout(500);
    assert.deepEqual(await texts(ada.page), [typed], 'still muted after a reload');
    await ada.page.click('button[aria-label="Unmute Bea"]');
    assert.deepEqual(await texts(ada.page), [typed, 'gl hf'], 'unmuted');
    assert.deepEqual(await axeSerious(rail), [], 'axe-clean for a signed-in watcher');
    for (const t of [ada, beaTab, anon]) assert.deepEqual(t.errors, [], 'no console or page errors');
  } finally {
    await Promise.all([ada.context.close(), beaTab.context.close(), anon.context.close(), railCtx.close()]);
  }
});

/** Forces game `g`'s steps as its host until it is finished. */
async function finishByForce(g) {
  for (let i = 0; i < 3000; i++) {
    const v = (await api('GET', `/games/${g.id}`)).json;
    if (v.status === 'finished') return v;
    const body = { round: v.round, step: v.step, ...(v.turn === undefined ? {} : { turn: v.turn }) };
    await api('POST', `/games/${g.id}/resolve`, { token: g.host_token, body });
  }
  throw new Error(`game ${g.id} did not finish`);
}

test('the replay viewer shows the table talk of both channels, as typed', { timeout: 90_000 }, async () => {
  const g = (await api('POST', '/games', { body: { seats: 2, bots: ['greedy'], name: 'Eve', target_vp: 8 } })).json;
  await api('POST', '/accounts', { body: { name: 'Rail Two', password: 'correct horse battery' } });
  const s = (await api('POST', '/sessions', { body: { name: 'Rail Two', password: 'correct horse battery' } })).json;
  assert.equal((await api('POST', `/games/${g.id}/chat`, { token: g.token, body: { text: 'gl <b>bot</b>' } })).status, 201);
  assert.equal((await api('POST', `/games/${g.id}/chat`, { token: s.token, body: { text: 'from the rail' } })).status, 201);
  await finishByForce(g);
  const context = await browser.newContext(DESKTOP);
  const page = await context.newPage();
  try {
    await page.goto(`${daemon.base}/#/replay/${g.id}`);
    await page.waitForSelector('#replay-chat .chat-text');
    assert.deepEqual(await page.locator('#replay-chat .chat-text').allInnerTexts(), ['gl <b>bot</b>', 'from the rail']);
    assert.equal(await page.locator('#replay-chat b').count(), 0);
    assert.deepEqual(await axeSerious(page), [], 'axe-clean');
  } finally {
    await context.close();
  }
});

test('phone: the chat box by keyboard, 44 px targets, no sideways scroll', { timeout: 90_000 }, async () => {
  const g = (await api('POST', '/games', { body: { seats: 2, bots: [], name: 'Cy' } })).json;
  const dee = (await api('POST', `/games/${g.id}/join`, { body: { name: 'Dee' } })).json;
  await api('POST', `/games/${g.id}/chat`, { token: dee.token, body: { text: 'a long word: ' + 'x'.repeat(120) } });
  const cy = await openTableAs(browser, daemon.base, g.id, { seat: 0, token: g.token, host: g.host_token }, PHONE);
  try {
    await shows(cy.page, 'a long word');
    await cy.page.locator('#chat').scrollIntoViewIfNeeded();
    await tabTo(cy.page, 'chat-input');
    await cy.page.keyboard.type('typed on a phone');
    await cy.page.keyboard.press('Enter');
    await shows(cy.page, 'typed on a phone');
    assert.deepEqual(await smallTargets(cy.page, '#chat'), [], 'every control of the chat is 44 px or more');
    assert.ok(await noHorizontalScroll(cy.page), 'no sideways scroll');
    assert.deepEqual(await axeSerious(cy.page), [], 'axe-clean on a phone');
    assert.deepEqual(cy.errors, [], 'no console or page errors');
  } finally {
    await cy.context.close();
  }
});
