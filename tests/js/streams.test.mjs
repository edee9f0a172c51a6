// streams.test.mjs: the page's live log when the server's stream caps are reached, in Debian's
// headless Chromium against a real daemon with one stream a game (--max-streams-per-game 1): a
// seat's page sends its token with its stream and gets it even though a watcher holds the only
// place (the watcher's stream is ended), and a watcher's page that is refused falls back to
// polling, so it still shows the game moving on.
//
//   cd /work/main && make && CITY_ROOT=$PWD scripts/with-postgres.sh node --test tests/js/streams.test.mjs

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { startDaemon } from './lib/daemon.mjs';
import { watchErrors, launchChromium, callApi } from './browser-helpers.mjs';

let daemon;
let browser;

before(async () => {
  daemon = await startDaemon({ extraArgs: ['--max-streams-per-game', '1'] });
  browser = await launchChromium(chromium);
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
});

/** Opens game `id`'s stream from Node with no token; resolves to {status, ended}: ended resolves once the server ends it. */
async function watcherStream(id) {
  const ac = new AbortController();
  const r = await fetch(`${daemon.base}/api/v1/games/${id}/stream`, { signal: ac.signal });
  if (r.status !== 200) return { status: r.status, ended: Promise.resolve(true), close: () => {} };
  const reader = r.body.getReader();
  const ended = (async () => {
    try { for (;;) { const { done } = await reader.read(); if (done) return true; } } catch { return false; }
  })();
  return { status: r.status, ended, close: () => ac.abort() };
}

/** A page that holds `seat` (with `token`) of game `id` in its localStorage, or none. */
async function pageOf(id, seat = null) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  if (seat) await ctx.addInitScript(([k, v]) => localStorage.setItem(k, v), [`city.seat.${id}`, JSON.stringify(seat)]);
  const page = await ctx.newPage();
  const errors = watchErrors(page);
  return { ctx, page, errors };
}

test('a seat gets its stream at the cap (a watcher is ended for it); a refused watcher polls', { timeout: 60_000 }, async () => {
  const g = await callApi(daemon.base, 'POST', '/games', { body: { seats: 2, bots: ['greedy'], name: 'Ada' } });
  assert.equal(g.status, 201);
  const { id, token, seat } = g.json;
  // A watcher from Node holds the game's only stream.
  const w = await watcherStream(id);
  assert.equal(w.status, 200, 'the watcher holds the only place');
  const refused = await watcherStream(id);
  assert.equal(refused.status, 503, 'a second watcher is refused');

  // Ada's page: its stream carries her seat token, and the server ends the watcher's for it.
  const ada = await pageOf(id, { seat, token });
  await ada.page.goto(`${daemon.base}/#/game/${id}`);
  // (20 s: the page loads and opens its stream first, which took over 10 s once in CI beside
  // two other browser test files)
  const gone = await Promise.race([w.ended, new Promise((ok) => setTimeout(() => ok('still open'), 20_000))]);
  assert.equal(gone, true, 'the watcher was ended to make room for the player');
  const metrics = await (await fetch(`${daemon.base}/metrics`)).text();
  assert.match(metrics, /^city_streams_evicted_total 1$/m);
  await ada.page.waitForFunction(() => document.querySelector('#conn')?.hidden === true, null, { timeout: 10_000 });

  // A watcher's page is refused its stream (Ada's holds the place) and polls instead.
  const bob = await pageOf(id);
  await bob.page.goto(`${daemon.base}/#/game/${id}`);
  await bob.page.waitForSelector('#log');
  await bob.page.waitForFunction(() => document.querySelector('#conn') && !document.querySelector('#conn').hidden, null, { timeout: 10_000 });
  const before = await bob.page.locator('#log').innerText();
  // Ada keeps her two cheapest cards' worth: her keep order resolves the step with the bot's.
  const hand = await callApi(daemon.base, 'GET', `/games/${id}/hand`, { token });
  const ids = hand.json.hand.map((c) => c.id);
  const { round, step, options } = hand.json.pending;
  const sent = await callApi(daemon.base, 'POST', `/games/${id}/orders`, { token, body: { round, step, discard: ids.slice(0, options.discard) } });
  assert.equal(sent.status, 202);
  await bob.page.waitForFunction((b) => document.querySelector('#log').innerText !== b, before, { timeout: 12_000, polling: 200 });
  assert.deepEqual(ada.errors.filter((e) => !/503|Service Unavailable/.test(e)), []);
  assert.deepEqual(bob.errors.filter((e) => !/503|Service Unavailable/.test(e)), []);
  refused.close();
  await ada.ctx.close();
  await bob.ctx.close();
});
