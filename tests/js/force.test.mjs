// force.test.mjs: browser tests of forcing a step from the page in web/, driving Debian's headless
// Chromium with playwright-core against a real daemon (as browser.test.mjs does): the host's Force
// asks first and names the step it forces; a Force that arrives after the step moved on is
// refused and the page shows the server's sentence; a player whose choice lost the race with a
// force is told so, and every defaulted player sees what was chosen for them and why; the log
// says who forced, never "ran out of time" for a forced step; a seat without a timer is not
// offered Force. Any console error or page error fails a test (the 409s it provokes aside).
//
//   make && CITY_ROOT=$PWD scripts/with-postgres.sh node --test tests/js/force.test.mjs

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { startDaemon } from './lib/daemon.mjs';
import { watchErrors, launchChromium, callApi, chooseQuick } from './browser-helpers.mjs';


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

/** A game of Ada (seat 0, whose browser is also the host's), Bea (seat 1) and a greedy bot. */
async function newGame(extra = {}) {
  const g = await api('POST', '/games', { body: { seats: 3, bots: ['greedy'], name: 'Ada', ...extra } });
  assert.equal(g.status, 201);
  const b = await api('POST', `/games/${g.json.id}/join`, { body: { name: 'Bea' } });
  assert.equal(b.status, 201);
  return { id: g.json.id, host: g.json.host_token, ada: g.json.token, bea: b.json.token };
}

/** A page that holds the given tokens for game `id` (as the lobby would have stored them). */
async function openAs(game, { seat, token, host }) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  await context.addInitScript(([id, s, t, h]) => {
    localStorage.setItem(`city.seat.${id}`, JSON.stringify({ seat: s, token: t }));
    if (h) localStorage.setItem(`city.host.${id}`, JSON.stringify(h));
  }, [game.id, seat, token, host ?? null]);
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(`${daemon.base}/#/game/${game.id}`);
  return { context, page, errors };
}

/** Console errors other than the browser's own line for an expected 409 answer. */
const unexpected = (errors) => errors.filter((e) => !/status of 409/.test(e));

async function step(id) {
  const v = (await api('GET', `/games/${id}`)).json;
  return { round: v.round, step: v.step };
}

test('the host forces only after confirming; the defaulted player is told what was chosen and why', { timeout: 90_000 }, async () => {
  const game = await newGame();
  const A = await openAs(game, { seat: 0, token: game.ada, host: game.host });
  const B = await openAs(game, { seat: 1, token: game.bea });
  try {
    await A.page.waitForSelector('#action[data-state="keep"]');
    await B.page.waitForSelector('#action[data-state="keep"]');
    // Ada keeps; Bea does not decide.
    await A.page.locator('#hand .card').nth(0).click();
    await A.page.locator('#hand .card').nth(1).click();
    await A.page.click('#confirm');
    await A.page.waitForSelector('#action[data-submitted="true"]');
    assert.equal(await B.page.locator('#force').count(), 0, 'a seat without a timer is not offered Force');

    // The first click only asks, naming who will get a default; Cancel forces nothing.
    await A.page.click('#force');
    const ask = A.page.locator('#force-ask');
    await ask.waitFor();
    assert.match(await ask.innerText(), /Bea has not chosen and will get the default/);
    await A.page.click('#force-no');
    await A.page.waitForSelector('#force');
    assert.equal(await A.page.locator('#force-ask').count(), 0);
    assert.deepEqual(await step(game.id), { round: 0, step: 'keep' }, 'Cancel forced nothing');

    // Confirmed: the keep resolves.
    const handBefore = (await api('GET', `/games/${game.id}/hand`, { token: game.bea })).json.hand;
    await A.page.click('#force');
    await A.page.click('#force-yes');
    await A.page.waitForSelector('#action[data-state="build"]');
    assert.deepEqual(await step(game.id), { round: 1, step: 'build' });

    // Bea's page says the host forced the keep and names the two cards discarded for her.
    const note = B.page.locator('#defaulted');
    await note.waitFor();
    assert.equal(await note.getAttribute('data-reason'), 'forced_by_host');
    const text = await note.innerText();
    assert.match(text, /The host forced the setup keep before you had chosen/);
    const hand = (await api('GET', `/games/${game.id}/hand`, { token: game.bea })).json;
    const gone = hand.defaulted.cards.map((c) => c.card);
    assert.equal(gone.length, 2);
    assert.ok(handBefore.some((c) => c.id === hand.defaulted.cards[0].id), 'the cards were hers');
    const names = await B.page.evaluate(async (slugs) => {
      const { card } = await import('/games/the_city/cards.js');
      return slugs.map((s) => card(s).name);
    }, gone);
    for (const n of names) assert.ok(text.includes(n), `the notice names ${n}: ${text}`);
    // Ada's page shows no such notice: it is Bea's alone.
    assert.equal(await A.page.locator('#defaulted').count(), 0);

    // The log says who forced; nobody "ran out of time".
    await A.page.waitForFunction(() => /The host forced the setup keep/.test(document.querySelector('#log')?.innerText ?? ''));
    const log = await A.page.locator('#log').innerText();
    assert.match(log, /The host forced the setup keep: Bea gets the default\./);
    assert.match(log, /Bea had not chosen when the host forced the step: discards by default\./);
    assert.doesNotMatch(log, /ran out of time/);

    // Her own next decision replaces the notice.
    await chooseQuick(B.page, 'survey');
    await B.page.waitForSelector('#action[data-submitted="true"]');
    await B.page.waitForFunction(() => !document.querySelector('#defaulted'));
    assert.deepEqual(unexpected(A.errors), []);
    assert.deepEqual(unexpected(B.errors), []);
  } finally {
    await A.context.close();
    await B.context.close();
  }
});

test('a late Force is refused with the server\'s sentence; a choice that lost to a force says so', { timeout: 90_000 }, async () => {
  const game = await newGame();
  // Through the keep by the API: both people keep their first two cards.
  for (const token of [game.ada, game.bea]) {
    const h = (await api('GET', `/games/${game.id}/hand`, { token })).json;
    assert.equal((await api('POST', `/games/${game.id}/orders`, { token, body: { round: 0, step: 'keep', discard: h.hand.slice(0, 2).map((c) => c.id) } })).status, 202);
  }
  const A = await openAs(game, { seat: 0, token: game.ada, host: game.host });
  const B = await openAs(game, { seat: 1, token: game.bea });
  try {
    await A.page.waitForSelector('#action[data-state="build"]');
    await B.page.waitForSelector('#action[data-state="build"]');

    // Ada's Force for round 1's build reaches the server after both people have decided and
    // the step has resolved: 409 stale_step, nothing forced, and the page says so.
    await A.page.click('#force');
    await A.page.locator('#force-ask').waitFor();
    await A.page.route('**/api/v1/games/*/resolve', async (route) => {
      for (const token of [game.ada, game.bea]) {
        await api('POST', `/games/${game.id}/orders`, { token, body: { round: 1, step: 'build', survey: true } });
      }
      await route.continue();
    });
    await A.page.click('#force-yes');
    const err = A.page.locator('#force-error');
    await err.waitFor();
    assert.match(await err.innerText(), /moved on to round 1, step survey; nothing was forced/);
    await A.page.unroute('**/api/v1/games/*/resolve');
    assert.deepEqual(await step(game.id), { round: 1, step: 'survey' }, 'the survey step was not forced');
    const events = (await api('GET', `/games/${game.id}/events`)).json.events;
    assert.equal(events.filter((e) => e.type === 'forced').length, 0);

    // Bea's discard for the survey step reaches the server after the host forced that step:
    // her page shows the refusal and what was chosen for her instead.
    await B.page.waitForSelector('#action[data-state="survey"]');
    const need = Number(await B.page.getAttribute('#action', 'data-need'));
    for (let i = 0; i < need; i++) await B.page.locator('#hand .card').nth(i).click();
    await B.page.route('**/api/v1/games/*/orders', async (route) => {
      const r = await api('POST', `/games/${game.id}/resolve`, { token: game.host, body: { round: 1, step: 'survey' } });
      assert.equal(r.status, 200);
      await route.continue();
    });
    await B.page.click('#confirm');
    const refused = B.page.locator('#action-error');
    await refused.waitFor();
    assert.match(await refused.innerText(), /^Your choice was not counted\. It was for round 1, step survey, but the game had already moved on to .+\.$/);
    const note = B.page.locator('#defaulted');
    await note.waitFor();
    assert.match(await note.innerText(), /The host forced round 1, survey before you had chosen, so the game chose for you: you discarded /);
    await B.page.unroute('**/api/v1/games/*/orders');
    assert.deepEqual(unexpected(A.errors), []);
    assert.deepEqual(unexpected(B.errors), []);
  } finally {
    await A.context.close();
    await B.context.close();
  }
});
