// hint.test.mjs: browser tests of Suggest asking the expert (POST /games/{id}/hint), in real
// Chromium against a real daemon: the button says how many expert hints are left, shows
// "Thinking…" with focus kept while it waits, pre-selects the expert's choice, which the game
// accepts, and counts down; once the hints are used up (a daemon with --hints-per-game 1) it
// gives the quick greedy suggestion and says so, also when the server answers 429 or stays busy
// (503 twice); a hint that comes back after its point passed is not applied; a click on Suggest
// whose press a redraw straddles still counts; and a game of The
// City with an expert bot chosen in the lobby, at the level chosen in the select that an expert
// seat shows (labelled from GET /rulesets), plays to its end with Suggest; on a phone the button
// is a 44 px target.
//
//   make && CITY_ROOT=$PWD scripts/with-postgres.sh node --test tests/js/hint.test.mjs

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { startDaemon } from './lib/daemon.mjs';
import { watchErrors, launchChromium, nextTurn, seatOf, suggestAndWait, hintsLeft, noHorizontalScroll, callApi } from './browser-helpers.mjs';

let daemon;
let scarce; // a daemon with one hint per seat and game
let browser;

before(async () => {
  daemon = await startDaemon();
  scarce = await startDaemon({ extraArgs: ['--hints-per-game', '1'] });
  browser = await launchChromium(chromium);
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
  await scarce?.stop();
});

const api = (d, method, path, opts) => callApi(d.base, method, path, opts);

/** A page of daemon `d` holding seat `seat` of game `id`, as the lobby would have stored it. */
async function openAs(d, id, seat, token) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  await context.addInitScript(([gid, s, t]) => localStorage.setItem(`city.seat.${gid}`, JSON.stringify({ seat: s, token: t })), [id, seat, token]);
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(`${d.base}/#/game/${id}`);
  return { context, page, errors };
}

/** The card ids the page shows as chosen (to discard, build or pay), sorted. */
const marked = (page) => page.locator('#hand .card[aria-pressed="true"]')
  .evaluateAll((els) => els.map((e) => Number(e.dataset.cardId)).sort((a, b) => a - b));

/** The cards an order of The City names, sorted. */
function cardsOf(o) {
  const ids = o.discard ?? (o.build ? [o.build.card, ...o.build.pay] : o.builds ? o.builds.flatMap((b) => [b.card, ...b.pay]) : []);
  return [...ids].sort((a, b) => a - b);
}

/** Console errors other than the browser's own line for an answer the test provoked. */
const unexpected = (errors, re) => errors.filter((e) => !re.test(e));

test('Suggest asks the expert: Thinking… with focus kept, the choice pre-selected and accepted, the count goes down', { timeout: 60_000 }, async () => {
  const g = (await api(daemon, 'POST', '/games', { body: { seats: 2, bots: ['greedy'], name: 'Ada', target_vp: 15 } })).json;
  const { context, page, errors } = await openAs(daemon, g.id, 0, g.token);
  try {
    await page.waitForSelector('#action[data-state="keep"]');
    const btn = page.locator('#suggest');
    assert.equal(await hintsLeft(page), 5);
    assert.equal(await btn.innerText(), 'Suggest (expert · 5 left)');
    // Hold the hint a moment so the waiting state can be seen.
    let release;
    const held = new Promise((ok) => { release = ok; });
    await page.route('**/api/v1/games/*/hint', async (route) => { await held; await route.continue(); });
    const answer = page.waitForResponse((r) => r.url().endsWith('/hint'));
    await page.focus('#suggest');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#suggest[data-thinking="true"]');
    assert.equal(await btn.innerText(), 'Thinking…');
    assert.equal(await btn.getAttribute('aria-disabled'), 'true');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'suggest', 'focus stays on the button while the expert thinks');
    release();
    const hint = await (await answer).json();
    assert.equal(hint.by, 'expert');
    assert.equal(hint.hints_left, 4);
    await page.waitForSelector('#suggest[data-thinking="false"]');
    await page.unroute('**/api/v1/games/*/hint');
    assert.equal(await btn.innerText(), 'Suggest (expert · 4 left)');
    assert.deepEqual(await marked(page), cardsOf(hint.suggestion), 'the expert\'s discards are pre-selected');
    // The explanation names the cards the expert would discard, not only how many.
    const names = [];
    for (const id of hint.suggestion.discard) names.push(await page.locator(`#hand .card[data-card-id="${id}"] .card-name`).innerText());
    const said = await page.locator('#action').innerText();
    assert.ok(said.includes(`The expert suggests: discard ${names.join(' and ')}.`), said);
    assert.doesNotMatch(said, /discard \d/);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'confirm', 'focus goes to Confirm');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#action[data-state="build"]');
    const hand = (await api(daemon, 'GET', `/games/${g.id}/hand`, { token: g.token })).json;
    assert.equal(hand.hand.length, 5, 'the expert\'s keep was accepted');
    // A reload remembers the count.
    await page.reload();
    await page.waitForSelector('#action[data-state="build"]');
    assert.equal(await hintsLeft(page), 4);
    assert.equal(await btn.innerText(), 'Suggest (expert · 4 left)');
    // The next one is the expert's too, and accepted.
    const next = page.waitForResponse((r) => r.url().endsWith('/hint'));
    await suggestAndWait(page);
    const h2 = await (await next).json();
    assert.equal(h2.hints_left, 3);
    assert.equal(await btn.innerText(), 'Suggest (expert · 3 left)');
    const s = h2.suggestion;
    if (s.survey || s.contractor) {
      assert.equal(await page.getAttribute(s.survey ? '#survey' : '#contractor', 'aria-pressed'), 'true', 'the suggested choice is picked');
      await page.click('#confirm');
    }
    else {
      assert.deepEqual(await marked(page), cardsOf(s));
      await page.click('#confirm');
    }
    await page.waitForFunction(() => document.querySelector('#action')?.dataset.turn !== '1-build' || document.querySelector('#action')?.dataset.submitted === 'true');
    const v = (await api(daemon, 'GET', `/games/${g.id}`)).json;
    assert.ok(v.round > 1 || v.seats[0].submitted || !v.pending.includes(0), 'the expert\'s build was accepted');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('no hints left: Suggest gives the quick suggestion and says so, after the count, a 429 or a busy server', { timeout: 60_000 }, async () => {
  const g = (await api(scarce, 'POST', '/games', { body: { seats: 2, bots: ['greedy'], name: 'Bea', target_vp: 15 } })).json;
  const A = await openAs(scarce, g.id, 0, g.token);
  let B = null;
  try {
    const { page } = A;
    await page.waitForSelector('#action[data-state="keep"]');
    assert.equal(await hintsLeft(page), 1);
    assert.equal(await page.locator('#suggest').innerText(), 'Suggest (expert · 1 left)', 'the count starts from /rulesets\' hints_per_game');
    const hints = [];
    page.on('request', (r) => { if (r.url().endsWith('/hint')) hints.push(r.url()); });
    await suggestAndWait(page);
    assert.equal(hints.length, 1);
    assert.equal(await page.locator('#suggest').innerText(), 'Suggest (quick)');
    await page.click('#confirm:not([disabled])');
    await page.waitForSelector('#action[data-state="build"]');
    // No hint left: no request, the greedy bot's choice, and a note.
    const pend = (await api(scarce, 'GET', `/games/${g.id}/hand`, { token: g.token })).json.pending;
    await suggestAndWait(page);
    assert.equal(hints.length, 1, 'no hint is asked for once none is left');
    assert.match(await page.locator('#hint-note').innerText(), /No expert hints left in this game/);
    if (pend.suggestion.build || pend.suggestion.builds) assert.deepEqual(await marked(page), cardsOf(pend.suggestion));
    else assert.ok(await page.locator('#action .quick.suggested').count(), 'the quick suggestion is pointed at');

    // A second browser on the seat does not know the count: the server's 429 tells it.
    B = await openAs(scarce, g.id, 0, g.token);
    await B.page.waitForSelector('#action[data-state="build"]');
    assert.equal(await hintsLeft(B.page), 1);
    assert.equal(await B.page.locator('#suggest').innerText(), 'Suggest (expert · 1 left)');
    const refused = B.page.waitForResponse((r) => r.url().endsWith('/hint'));
    await suggestAndWait(B.page);
    assert.equal((await refused).status(), 429);
    assert.equal(await B.page.locator('#suggest').innerText(), 'Suggest (quick)');
    assert.match(await B.page.locator('#hint-note').innerText(), /No expert hints left in this game/);
    assert.deepEqual(unexpected(B.errors, /status of 429/), []);
    assert.deepEqual(A.errors, []);
  } finally {
    await A.context.close();
    await B?.context.close();
  }
});

test('a busy server (503 twice) gets one retry, then the quick suggestion', { timeout: 60_000 }, async () => {
  const g = (await api(daemon, 'POST', '/games', { body: { seats: 2, bots: ['greedy'], name: 'Cy', target_vp: 15 } })).json;
  const { context, page, errors } = await openAs(daemon, g.id, 0, g.token);
  try {
    await page.waitForSelector('#action[data-state="keep"]');
    await hintsLeft(page);
    // The daemon's busy answer needs a crowd of hints; here the network stands in for it.
    let asked = 0;
    await page.route('**/api/v1/games/*/hint', (route) => {
      asked++;
      return route.fulfill({ status: 503, headers: { 'Retry-After': '1', 'Content-Type': 'application/problem+json' }, body: JSON.stringify({ code: 'busy', status: 503, title: 'Busy', detail: 'The server is thinking about 4 hints already; ask again in a second.' }) });
    });
    const pend = (await api(daemon, 'GET', `/games/${g.id}/hand`, { token: g.token })).json.pending;
    await suggestAndWait(page);
    assert.equal(asked, 2, 'one retry after Retry-After');
    assert.match(await page.locator('#hint-note').innerText(), /busy/);
    assert.deepEqual(await marked(page), cardsOf(pend.suggestion), 'the quick suggestion is pre-selected');
    assert.equal(await page.locator('#suggest').innerText(), 'Suggest (expert · 5 left)', 'a busy server used no hint');
    assert.deepEqual(unexpected(errors, /status of 503/), []);
  } finally {
    await context.close();
  }
});

test('a hint that comes back after its point passed is not applied', { timeout: 60_000 }, async () => {
  const g = (await api(daemon, 'POST', '/games', { body: { seats: 2, bots: ['greedy'], name: 'Dee', target_vp: 15 } })).json;
  const { context, page, errors } = await openAs(daemon, g.id, 0, g.token);
  try {
    await page.waitForSelector('#action[data-state="keep"]');
    await hintsLeft(page);
    let release;
    const held = new Promise((ok) => { release = ok; });
    await page.route('**/api/v1/games/*/hint', async (route) => { await held; await route.continue(); });
    const answer = page.waitForResponse((r) => r.url().endsWith('/hint'));
    await page.click('#suggest');
    await page.waitForSelector('#suggest[data-thinking="true"]');
    // Meanwhile the keep is decided elsewhere (another tab): the game moves on to round 1.
    const hand = (await api(daemon, 'GET', `/games/${g.id}/hand`, { token: g.token })).json;
    const r = await api(daemon, 'POST', `/games/${g.id}/orders`, { token: g.token, body: { round: hand.pending.round, step: 'keep', ...hand.pending.suggestion } });
    assert.equal(r.status, 202);
    await page.waitForSelector('#action[data-state="build"]');
    release();
    const late = await answer;
    assert.equal(late.status(), 200, 'the server answered for the point now pending');
    await page.waitForSelector('#suggest[data-thinking="false"]');
    assert.deepEqual(await marked(page), [], 'the late hint is not applied');
    assert.equal(await page.locator('#action .quick.suggested').count(), 0);
    assert.equal(await page.locator('#action .hint-line').count(), 0);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a click on Suggest is not lost when news redraws the table between its press and its release', { timeout: 60_000 }, async () => {
  // Ada holds the mouse down on Suggest; Bea's order arrives meanwhile and the table is drawn
  // anew (Bea shows "chosen"); Ada lets go. Before, the redraw had replaced the button under the
  // press, the release made no click, and Suggest did nothing (CI's hint test, once in ten runs).
  const g = (await api(daemon, 'POST', '/games', { body: { seats: 2, name: 'Ada' } })).json;
  const bea = (await api(daemon, 'POST', `/games/${g.id}/join`, { body: { name: 'Bea' } })).json;
  const { context, page, errors } = await openAs(daemon, g.id, 0, g.token);
  try {
    await page.waitForSelector('#action[data-state="keep"]');
    await hintsLeft(page);
    let asked = 0;
    page.on('request', (r) => { if (r.url().endsWith('/hint')) asked++; });
    const box = await page.locator('#suggest').boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    const hand = (await api(daemon, 'GET', `/games/${g.id}/hand`, { token: bea.token })).json;
    const r = await api(daemon, 'POST', `/games/${g.id}/orders`, { token: bea.token, body: { round: hand.pending.round, step: 'keep', ...hand.pending.suggestion } });
    assert.equal(r.status, 202);
    await page.waitForSelector('article.player[data-seat="1"] .tag.ok', { timeout: 10_000 }); // drawn anew
    await page.mouse.up();
    // The expert's choice comes back pre-selected, with the focus on Confirm.
    await page.waitForFunction(() => document.activeElement?.id === 'confirm', null, { timeout: 10_000 })
      .catch(() => {});
    assert.equal(asked, 1, 'the release made a click: Suggest asked the expert once');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'confirm', 'the suggestion was applied');
    assert.ok((await marked(page)).length > 0, 'its discards are chosen');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('The City with an expert bot chosen in the lobby plays to its end, the person by Suggest', { timeout: 180_000 }, async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const errors = watchErrors(page);
  try {
    await page.goto(`${daemon.base}/`);
    await page.fill('#name', 'Eve');
    await page.selectOption('#seats', '2');
    const label = await page.locator('#seat-kind-1 option[value="expert"]').innerText();
    assert.equal(label, 'Expert bot');
    // The level select appears with an expert seat, labelled from the server's levels.
    await page.selectOption('#seat-kind-1', 'greedy');
    assert.ok(await page.locator('#bot-level-field').isHidden(), 'no level to choose without an expert seat');
    await page.selectOption('#seat-kind-1', 'expert');
    await page.locator('#bot-level').waitFor();
    const served = (await api(daemon, 'GET', '/rulesets')).json;
    assert.deepEqual(await page.locator('#bot-level option').allInnerTexts(),
      served.bot_levels.map((l) => `${l.title}: thinks up to ${l.think_ms} ms a move`));
    assert.equal(await page.inputValue('#bot-level'), served.default_bot_level, 'the server\'s default level first');
    await page.selectOption('#bot-level', 'normal');
    await page.fill('#opt-target_vp', '15');
    await page.click('#create');
    await page.waitForSelector('#action[data-state="keep"]');
    await hintsLeft(page);
    const me = await seatOf(page);
    const v0 = (await api(daemon, 'GET', `/games/${me.id}`)).json;
    assert.equal(v0.seats[1].bot, 'expert');
    assert.equal(v0.bot_level, 'normal', 'the game plays at the level chosen');
    assert.match(await page.locator('#players').innerText(), /expert bot/i);
    let last = null;
    let steps = 0;
    let expert = 0;
    page.on('request', (r) => { if (r.url().endsWith('/hint')) expert++; });
    // What the page was answered at the last Suggest, for the message of a failure.
    let lastHint = '';
    page.on('response', async (r) => {
      if (r.url().endsWith('/hint')) lastHint = `${r.status()} ${await r.text().catch(() => '')}`;
    });
    for (;;) {
      const turn = await nextTurn(page, last);
      if (turn === 'over') break;
      last = turn.split('|')[1];
      lastHint = '(no hint asked: the quick suggestion)';
      await suggestAndWait(page);
      // (CI once saw a click on Suggest come to nothing here: the expert's move redrew the
      // panel between the press and the release; a press now holds the panel's redraws.)
      const next = await page.evaluate(() => document.activeElement?.id);
      const shown = next === 'confirm' ? '' : await page.locator('#action').innerText();
      assert.equal(next, 'confirm', `Suggest picks its choice and points at Confirm, a survey or a contractor too (at ${turn}; hint: ${lastHint}; the panel: ${shown})`);
      await page.keyboard.press('Enter');
      assert.ok(++steps < 200, 'the game ends');
    }
    await page.locator('#end-screen').waitFor();
    assert.equal((await api(daemon, 'GET', `/games/${me.id}`)).json.status, 'finished');
    assert.equal(expert, 5, 'five expert hints, then the quick suggestion');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('on a phone the Suggest button is a 44 px target and its longer label does not widen the page', { timeout: 30_000 }, async () => {
  const g = (await api(daemon, 'POST', '/games', { body: { seats: 2, bots: ['greedy'], name: 'Fay', target_vp: 15 } })).json;
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await context.addInitScript(([gid, t]) => localStorage.setItem(`city.seat.${gid}`, JSON.stringify({ seat: 0, token: t })), [g.id, g.token]);
  const page = await context.newPage();
  const errors = watchErrors(page);
  try {
    await page.goto(`${daemon.base}/#/game/${g.id}`);
    await page.waitForSelector('#action[data-state="keep"]');
    assert.equal(await hintsLeft(page), 5);
    const box = await page.locator('#suggest').boundingBox();
    assert.ok(box.height >= 44 && box.width >= 44, `Suggest is ${box.width}×${box.height}`);
    assert.ok(await noHorizontalScroll(page), 'no horizontal scroll at 390 px');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
