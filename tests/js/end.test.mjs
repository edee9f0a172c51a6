// end.test.mjs: browser tests of the end of a game and the replay viewer, in Debian's headless
// Chromium (playwright-core) against a real daemon (tests/js/lib/daemon.mjs). A person plays a
// game of The City (target 20 VP) and one of Tech City against three bots by sending each
// pending decision's `suggestion` through the API; the page then shows the end screen: the
// seat's place as the rules rank it (ties shared), a "you" marker, a points breakdown whose rows
// add up to every score; and the replay viewer (#/replay/ID) steps through every round of
// GET /replay/rounds, its last step equal to the final scores, with a score chart for every
// game, and move by move through every line of the log (both viewports, axe-clean). Any console
// or page error fails.
//
//   cd tests/js && CITY_ROOT=$PWD/../.. CITYD=$PWD/../../build/cityd ../../scripts/with-postgres.sh node --test end.test.mjs
//
// Screenshots go to build/screenshots/ (end-*.png, replay-*.png, desktop 1280×800, phone 390×844).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { startDaemon } from './lib/daemon.mjs';
import { watchErrors, noHorizontalScroll, launchChromium, axeSerious } from './browser-helpers.mjs';

const ROOT = resolve(process.env.CITY_ROOT ?? join(import.meta.dirname, '..', '..'));
const SHOTS = join(ROOT, 'build', 'screenshots');
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

let daemon;
let browser;

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  daemon = await startDaemon();
  browser = await launchChromium(chromium);
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
});

async function call(method, path, { body, token } = {}) {
  const headers = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;
  const r = await fetch(`${daemon.base}/api/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

/** Creates a game of `game` (Ada and three bots) and plays Ada's every decision by its suggestion. */
async function playOut(game, extra = {}) {
  const made = await call('POST', '/games', { body: { ...(game === 'the_city' ? {} : { game }), seats: 4, bots: ['greedy', 'greedy', 'random'], name: 'Ada', ...extra } });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const { id, token, seat } = made.body;
  for (let i = 0; i < 3000; i++) {
    const v = (await call('GET', `/games/${id}`)).body;
    if (v.status === 'finished') return { id, token, seat, view: v };
    const hand = (await call('GET', `/games/${id}/hand`, { token })).body;
    const p = hand.pending;
    if (!p || hand.order) { await new Promise((r) => setTimeout(r, 15)); continue; }
    const order = { round: p.round, step: p.step, ...(p.turn !== undefined ? { turn: p.turn } : {}), ...p.suggestion };
    const sent = await call('POST', `/games/${id}/orders`, { body: order, token });
    assert.ok(sent.status < 300 || sent.status === 409, `order ${JSON.stringify(order)}: ${sent.status} ${JSON.stringify(sent.body)}`);
  }
  throw new Error(`game ${id} did not finish`);
}

/** What the rules rank by (docs/rules.md, docs/tech_city.md), written again here on purpose. */
const KEYS = { the_city: ['vp', 'hand_count'], tech_city: ['score', 'companies', 'hand_count'] };

/** The place sentence the end screen must show for `seat` of finished view `v`. */
function expectedPlace(v, seat) {
  const keys = KEYS[v.game];
  const better = (a, b) => { for (const k of keys) if (a[k] !== b[k]) return a[k] > b[k]; return false; };
  const tied = (a, b) => keys.every((k) => a[k] === b[k]);
  const s = v.seats[seat];
  const place = 1 + v.seats.filter((o) => better(o, s)).length;
  const shared = v.seats.some((o) => o.seat !== seat && tied(o, s));
  const ord = (n) => `${n}${{ 1: 'st', 2: 'nd', 3: 'rd' }[n] ?? 'th'}`;
  return { text: shared ? `You share ${ord(place)} place` : `You finished ${ord(place)} of ${v.seats.length}`, place };
}

/** A context whose localStorage holds the seat token of game `id`, as the page keeps it. */
async function seatedPage(viewport, { id, seat, token }) {
  const context = await browser.newContext({ viewport, bypassCSP: true }); // bypassCSP: axe is injected
  await context.addInitScript(([gid, s, t]) => {
    localStorage.setItem(`city.seat.${gid}`, JSON.stringify({ seat: s, token: t }));
  }, [id, seat, token]);
  const page = await context.newPage();
  return { context, page, errors: watchErrors(page) };
}

/** Checks the end screen of finished view `v` for Ada's seat; returns nothing. */
async function checkEndScreen(page, v, seat) {
  const key = KEYS[v.game][0];
  await page.locator('#end-screen').waitFor();
  const want = expectedPlace(v, seat);
  assert.equal(await page.locator('#place').innerText(), `${want.text}.`);
  // The ranking: the rules' order, one "you" marker on this seat, shared places repeated.
  const rows = page.locator('#final-ranking li');
  assert.equal(await rows.count(), v.seats.length);
  assert.equal(await page.locator('#final-ranking .tag.you').count(), 1);
  assert.equal(await page.locator(`#final-ranking li[data-seat="${seat}"] .tag.you`).count(), 1);
  assert.equal(await page.locator(`#final-ranking li[data-seat="${seat}"]`).getAttribute('data-place'), String(want.place));
  const winners = await page.locator('#final-ranking li[data-place="1"]').evaluateAll((els) => els.map((e) => Number(e.dataset.seat)).sort());
  assert.deepEqual(winners, [...v.winners].sort(), 'first place is the winners');
  // The breakdown: one table per seat, its rows adding up to the seat's score.
  await page.locator('#breakdown .bd-player').first().waitFor({ timeout: 15_000 });
  assert.equal(await page.locator('#breakdown .bd-player').count(), v.seats.length);
  assert.equal(await page.locator('#breakdown .bd-gap').count(), 0, 'every point is traced to a card');
  assert.equal(await page.locator('#breakdown .bd-player.me .tag.you').count(), 1);
  for (const s of v.seats) {
    const box = page.locator(`#breakdown .bd-player[data-seat="${s.seat}"]`);
    const points = (await box.locator('.bd-points').allInnerTexts()).map(Number);
    const total = Number(await box.locator('.bd-total').innerText());
    assert.equal(total, s[key], `seat ${s.seat}'s total is its score`);
    assert.equal(points.reduce((a, b) => a + b, 0), s[key], `seat ${s.seat}'s rows add up to ${s[key]}`);
    if (s[key] > 0) assert.ok(points.length > 0);
  }
  assert.equal(await page.locator('#watch-replay').getAttribute('href'), `#/replay/${v.id}`);
}

/** Steps the replay viewer through every round with Next, the keys and the slider. */
async function checkReplay(page, v) {
  const key = KEYS[v.game][0];
  const rounds = (await call('GET', `/games/${v.id}/replay/rounds`)).body;
  assert.equal(rounds.game, v.game);
  const n = rounds.rounds.length;
  assert.ok(n >= 2, 'a round at least');
  await page.locator('#replay-scores .replay-seat').first().waitFor();
  const shown = () => page.locator('#replay-scores .replay-seat').evaluateAll((els) => els.map((e) => Number(e.dataset.score)));
  const step = () => page.locator('#replay').getAttribute('data-step');
  assert.equal(await step(), '0');
  assert.ok(await page.locator('#replay-prev').isDisabled());
  for (let k = 0; k < n; k++) {
    assert.equal(await step(), String(k));
    assert.deepEqual(await shown(), rounds.rounds[k].view.seats.map((s) => s[key]), `scores at step ${k}`);
    assert.equal(await page.locator('#replay-chart polyline').count(), v.seats.length, `the score chart at step ${k}`);
    if (v.game === 'the_city') {
      const chips = await page.locator('#replay-board .chip').count();
      assert.equal(chips, rounds.rounds[k].view.seats.reduce((a, s) => a + s.tableau.length, 0), `tableaux at step ${k}`);
    } else {
      assert.equal(await page.locator('#replay-city .cell').count(), rounds.rounds[k].view.city.length, `city at step ${k}`);
    }
    if (k < n - 1) await page.click('#replay-next');
  }
  assert.ok(await page.locator('#replay-next').isDisabled());
  assert.deepEqual(await shown(), v.seats.map((s) => s[key]), 'the last step is the final score');
  assert.match(await page.locator('#replay-pos').innerText(), /final scores/);
  assert.ok(await page.locator('#replay-log li').count() > 0, 'the last round has log lines');
  // Keys: Left steps back, Home to the start, End to the end; the slider jumps.
  await page.locator('#replay-board').click({ position: { x: 2, y: 2 } });
  await page.keyboard.press('ArrowLeft');
  assert.equal(await step(), String(n - 2));
  await page.keyboard.press('Home');
  assert.equal(await step(), '0');
  await page.keyboard.press('End');
  assert.equal(await step(), String(n - 1));
  await page.locator('#replay-slider').fill('1');
  assert.equal(await step(), '1');
  assert.deepEqual(await shown(), rounds.rounds[1].view.seats.map((s) => s[key]));
  await checkMoves(page, n);
  await page.keyboard.press('End');
}

/**
 * Walks the replay move by move from the start: Next move, then Shift+→ to the last move, each
 * marking exactly one line of the log shown, in order, the rounds never going back; Shift+←
 * steps back one move; a round step clears the mark. Axe-clean with a move marked.
 */
async function checkMoves(page, n) {
  await page.keyboard.press('Home');
  const move = () => page.locator('#replay').getAttribute('data-move');
  const step = async () => Number(await page.locator('#replay').getAttribute('data-step'));
  const marked = () => page.locator('#replay-log li.current');
  assert.equal(await move(), '', 'no move marked at first');
  assert.ok(await page.locator('#replay-prev-move').isDisabled());
  await page.click('#replay-next-move');
  assert.equal(await move(), '0');
  assert.equal(await marked().count(), 1, 'the first move is marked in the log');
  assert.equal(await marked().getAttribute('aria-current'), 'step');
  assert.deepEqual(await axeSerious(page), [], 'axe-clean with a move marked');
  const total = Number(/of (\d+)/.exec(await page.locator('#replay-move-pos').innerText())[1]);
  assert.ok(total > n, `more moves (${total}) than rounds (${n})`);
  let lastStep = await step();
  let lastSeq = Number(await marked().getAttribute('data-seq'));
  await page.locator('#replay-board').click({ position: { x: 2, y: 2 } });
  for (let i = 1; i < total; i++) {
    await page.keyboard.press('Shift+ArrowRight');
    assert.equal(await move(), String(i));
    assert.equal(await marked().count(), 1, `move ${i} is marked`);
    const now = await step();
    const seq = Number(await marked().getAttribute('data-seq'));
    assert.ok(now >= lastStep, `move ${i} is not in an earlier round`);
    assert.ok(now > lastStep || !(seq < lastSeq), `move ${i} follows move ${i - 1} in the log`);
    lastStep = now;
    lastSeq = seq;
  }
  assert.equal(lastStep, n - 1, 'the last move is in the last round');
  assert.ok(await page.locator('#replay-next-move').isDisabled(), 'no move after the last');
  await page.keyboard.press('Shift+ArrowLeft');
  assert.equal(await move(), String(total - 2));
  await page.keyboard.press('ArrowLeft');
  assert.equal(await move(), '', 'a round step clears the move');
  assert.equal(await marked().count(), 0);
}

for (const game of ['the_city', 'tech_city']) {
  test(`${game}: the end screen's place, "you" and breakdown, and the replay viewer to the final scores`, { timeout: 120_000 }, async () => {
    const played = await playOut(game, game === 'the_city' ? { target_vp: 20 } : {});
    const v = played.view;
    const tag = game === 'the_city' ? '' : '-tech';
    const { context, page, errors } = await seatedPage(DESKTOP, played);
    try {
      await page.goto(`${daemon.base}/#/game/${played.id}`);
      await checkEndScreen(page, v, played.seat);
      await page.screenshot({ path: join(SHOTS, `end${tag}-desktop.png`), fullPage: true });
      // "Copy link" copies the replay's shareable link.
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: daemon.base });
      await page.click('#end-screen button[aria-label="Copy link to the replay"]');
      await page.waitForFunction(() => /Copied/.test(document.querySelector('#end-screen button[aria-label="Copy link to the replay"]')?.textContent ?? ''));
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), `${daemon.base}/#/replay/${played.id}`);

      // The replay, as its link opens it: loaded only now.
      const before = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name).filter((u) => /replay\.(js|css)$/.test(u)));
      assert.deepEqual(before, [], 'the replay viewer is not loaded with the table');
      await page.click('#watch-replay');
      await page.waitForFunction((id) => location.hash === `#/replay/${id}`, played.id);
      await checkReplay(page, v);
      await page.screenshot({ path: join(SHOTS, `replay${tag}-desktop.png`), fullPage: true });
      assert.deepEqual(errors, [], 'no console or page errors');
    } finally {
      await context.close();
    }

    // A phone: the same screens with no horizontal scroll; the replay opened from its link.
    const phone = await seatedPage(PHONE, played);
    try {
      await phone.page.goto(`${daemon.base}/#/game/${played.id}`);
      await phone.page.locator('#breakdown .bd-player').first().waitFor({ timeout: 15_000 });
      assert.ok(await noHorizontalScroll(phone.page), 'no horizontal scroll on the end screen');
      await phone.page.screenshot({ path: join(SHOTS, `end${tag}-phone.png`), fullPage: true });
      await phone.page.goto(`${daemon.base}/#/replay/${played.id}`);
      await phone.page.locator('#replay-scores .replay-seat').first().waitFor();
      await phone.page.keyboard.press('End');
      assert.ok(await noHorizontalScroll(phone.page), 'no horizontal scroll in the replay viewer');
      assert.equal(await phone.page.locator('#replay-chart polyline').count(), v.seats.length, 'the score chart on a phone');
      await phone.page.click('#replay-next-move');
      assert.equal(await phone.page.locator('#replay-log li.current').count(), 1, 'a move marked on a phone');
      assert.ok(await noHorizontalScroll(phone.page), 'no horizontal scroll move by move');
      assert.deepEqual(await axeSerious(phone.page), [], 'axe-clean move by move on a phone');
      await phone.page.screenshot({ path: join(SHOTS, `replay${tag}-phone.png`), fullPage: true });
      assert.deepEqual(phone.errors, [], 'no console or page errors');
    } finally {
      await phone.context.close();
    }
  });
}

test('simcity: the replay draws every seat\'s money by round and walks it move by move, at both viewports', { timeout: 240_000 }, async () => {
  const played = await playOut('simcity');
  const n = (await call('GET', `/games/${played.id}/replay/rounds`)).body.rounds.length;
  for (const viewport of [DESKTOP, PHONE]) {
    const { context, page, errors } = await seatedPage(viewport, played);
    try {
      await page.goto(`${daemon.base}/#/replay/${played.id}`);
      await page.locator('#replay-scores .replay-seat').first().waitFor();
      await page.keyboard.press('End');
      assert.equal(await page.locator('#replay').getAttribute('data-step'), String(n - 1));
      assert.equal(await page.locator('#replay-chart polyline').count(), played.view.seats.length, 'a line a seat');
      assert.match(await page.locator('#replay-chart svg').getAttribute('aria-label'), /^Score by round: .*\$/);
      await page.keyboard.press('Home');
      await page.click('#replay-next-move');
      assert.equal(await page.locator('#replay-log li.current').count(), 1, 'the first move is marked');
      assert.ok(await noHorizontalScroll(page), 'no horizontal scroll');
      assert.deepEqual(await axeSerious(page), [], 'axe-clean');
      assert.deepEqual(errors, [], 'no console or page errors');
    } finally {
      await context.close();
    }
  }
});

test('the replay of a game still being played says so and links to the table', { timeout: 30_000 }, async () => {
  const made = await call('POST', '/games', { body: { seats: 2, bots: ['greedy'], name: 'Ada' } });
  assert.equal(made.status, 201);
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  try {
    await page.goto(`${daemon.base}/#/replay/${made.body.id}`);
    await page.locator('#replay-error').waitFor();
    assert.match(await page.locator('#replay-error').innerText(), /not over yet/);
    assert.equal(await page.locator('#replay-error a.primary').getAttribute('href'), `#/game/${made.body.id}`);
  } finally {
    await context.close();
  }
});
