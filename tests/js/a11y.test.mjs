// a11y.test.mjs: browser tests of the page's accessibility, phone layout, notices and weight
// (issue 11), in Debian's headless Chromium with playwright-core against a real daemon on a real
// PostgreSQL (tests/js/lib/daemon.mjs): axe-core with no serious or critical violation on every
// page (PAGES: one line a page, SimCity's table, end screen, rules and cards among them), the 390 x 844 phone (no horizontal scroll, no card name broken
// inside a word, 44 px tap targets, the table's sections in order), the sound and notification
// of a decision pending in a hidden tab (and the "your turn" tone in view, when asked), a new
// card's placement animation only without prefers-reduced-motion, a whole round played with the keyboard alone,
// screenshots, and the bytes a first and a repeat visit transfer.
//
//   cd tests/js && CITY_ROOT=$PWD/../.. CITYD=$PWD/../../build/cityd \
//     ../../scripts/with-postgres.sh node --test --test-concurrency=1 a11y.test.mjs
//
// Screenshots go to build/screenshots/ (lobby-, city-table-, tech-table- × desktop, phone).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { startDaemon } from './lib/daemon.mjs';
import { watchErrors, nextTurn, noHorizontalScroll, launchChromium, smallTargets, chooseQuick, firstScreenShowsTheHand, brokenNames } from './browser-helpers.mjs';

const ROOT = resolve(process.env.CITY_ROOT ?? join(import.meta.dirname, '..', '..'));
const SHOTS = join(ROOT, 'build', 'screenshots');
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const DESKTOP = { viewport: { width: 1280, height: 800 } };
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

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

/** POST /api/v1/games with `body`; resolves to the answer (id, token, seat, host_token). */
async function createGame(body) {
  const r = await fetch(`${daemon.base}/api/v1/games`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  });
  const g = await r.json();
  if (r.status !== 201) throw new Error(`create: ${r.status} ${JSON.stringify(g)}`);
  return g;
}

/** Opens game `g`'s table in `page` as its creator (the seat token put where the page keeps it). */
async function openAsSeat(page, g) {
  await page.goto(`${daemon.base}/`);
  await page.evaluate(({ id, seat, token }) => {
    localStorage.setItem(`city.seat.${id}`, JSON.stringify({ seat, token }));
  }, g);
  await page.goto(`${daemon.base}/#/game/${g.id}`);
}

/** Forces game `g`'s steps as its host until it is over (bots play their seats); its final view. */
async function finishByForce(g) {
  for (let i = 0; i < 3000; i++) {
    const v = await (await fetch(`${daemon.base}/api/v1/games/${g.id}`)).json();
    if (v.status === 'finished') return v;
    const body = { round: v.round, step: v.step, ...(v.turn === undefined ? {} : { turn: v.turn }) };
    await fetch(`${daemon.base}/api/v1/games/${g.id}/resolve`, {
      method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${g.host_token}` }, body: JSON.stringify(body),
    });
  }
  throw new Error(`game ${g.id} did not finish`);
}

/** Sends game `g`'s creator's first decision (the setup keep) as the hand view suggests. */
async function keepAsSuggested(g) {
  const hand = await (await fetch(`${daemon.base}/api/v1/games/${g.id}/hand`, { headers: { Authorization: `Bearer ${g.token}` } })).json();
  const p = hand.pending;
  await fetch(`${daemon.base}/api/v1/games/${g.id}/orders`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${g.token}` }, body: JSON.stringify({ round: p.round, step: p.step, ...p.suggestion }),
  });
}

/**
 * The games the pages below are opened on, made once and shared by both widths (the set-ups that
 * play a game to its end are most of this file's time): `make()` runs on the first call for `key`.
 */
const games = new Map();
function made(key, make) {
  if (!games.has(key)) games.set(key, make());
  return games.get(key);
}

/**
 * The pages axe checks, one line each: a name and how to open it in a fresh page.
 */
const PAGES = [
  ['lobby', async (p) => { await p.goto(`${daemon.base}/`); await p.waitForSelector('#games .game-list, #games p:not(.loading)'); }],
  ['city waiting room', async (p) => { await openAsSeat(p, await made('city waiting room', () => createGame({ name: 'Wen', seats: 3, bots: ['greedy'] }))); await p.waitForSelector('.waiting-room'); }],
  ['city playing', async (p) => { await openAsSeat(p, await made('city playing', () => createGame({ name: 'Pat', seats: 3, bots: ['greedy', 'random'] }))); await p.waitForSelector('#action[data-state="keep"]'); await p.locator('#hand .card').first().click(); }],
  ['city build', async (p) => { const g = await made('city build', async () => { const g = await createGame({ name: 'Bo', seats: 3, bots: ['greedy', 'random'] }); await keepAsSuggested(g); return g; }); await openAsSeat(p, g); await p.waitForSelector('#action[data-state="build"] #survey .quick-score'); }],
  ['tech table', async (p) => { await openAsSeat(p, await made('tech table', () => createGame({ game: 'tech_city', name: 'Tia', seats: 2, bots: ['greedy'] }))); await p.waitForSelector('#action h2'); }],
  ['tech build picked', async (p) => { await openAsSeat(p, await made('tech build picked', () => createGame({ game: 'tech_city', name: 'Tib', seats: 1 }))); await p.waitForSelector('#action[data-state="build"]'); await p.locator('#hand .tcard:not(.dim)').first().click(); await p.waitForSelector('#city .cell-score'); }],
  ['city end screen', async (p) => { const g = await made('city end screen', async () => { const g = await createGame({ name: 'Eve', seats: 3, bots: ['greedy', 'random'], target_vp: 8 }); await finishByForce(g); return g; }); await openAsSeat(p, g); await p.waitForSelector('#end-screen'); }],
  ['tech end screen', async (p) => { const g = await made('tech end screen', async () => { const g = await createGame({ game: 'tech_city', name: 'Ede', seats: 2, bots: ['greedy'] }); await finishByForce(g); return g; }); await openAsSeat(p, g); await p.waitForSelector('#end-screen'); }],
  ['rules page', async (p) => { await p.goto(`${daemon.base}/#/rules/the_city`); await p.waitForSelector('#app h1'); await p.waitForLoadState('networkidle'); }],
  ['tech rules page', async (p) => { await p.goto(`${daemon.base}/#/rules/tech_city`); await p.waitForSelector('#app h1'); await p.waitForLoadState('networkidle'); }],
  ['card reference', async (p) => { await p.goto(`${daemon.base}/#/cards/the_city`); await p.waitForSelector('#app h1'); await p.waitForLoadState('networkidle'); }],
  ['simcity play picked', async (p) => { await openAsSeat(p, await made('simcity play picked', () => createGame({ game: 'simcity', name: 'Sim', seats: 3, bots: ['greedy', 'greedy'] }))); await p.waitForSelector('#action[data-state="play"]'); await pickShowsScores(p, '#hand .sccard:not(.dim):not(.k-event):not(.k-council)'); }],
  ['simcity end screen', async (p) => { const g = await made('simcity end screen', async () => { const g = await createGame({ game: 'simcity', name: 'Sie', seats: 3, bots: ['greedy', 'greedy'], target: 30 }); await finishByForce(g); return g; }); await openAsSeat(p, g); await p.waitForSelector('#breakdown .bd-player'); }],
  ['simcity rules page', async (p) => { await p.goto(`${daemon.base}/#/rules/simcity`); await p.waitForSelector('#rules-text h1'); await p.waitForLoadState('networkidle'); }],
  ['simcity cards', async (p) => { await p.goto(`${daemon.base}/#/cards/simcity`); await p.waitForSelector('.ref-card'); await p.waitForLoadState('networkidle'); }],
  ['replay viewer', async (p) => { const g = await made('replay viewer', async () => { const g = await createGame({ name: 'Rey', seats: 2, bots: ['greedy'], target_vp: 8 }); await finishByForce(g); return g; }); await p.goto(`${daemon.base}/#/replay/${g.id}`); await p.waitForSelector('#app h1, #app h2'); await p.waitForLoadState('networkidle'); }],
];

/**
 * Clicks the first hand card matching `pick` (a block: an event's cells show no score) and
 * waits for a cell that shows what it scores.
 * When none comes, the failure says which card was clicked and what the page showed then (a
 * flake seen once in four CI runs, not reproduced here).
 */
async function pickShowsScores(page, pick) {
  const card = page.locator(pick).first();
  const slug = await card.getAttribute('data-slug');
  await card.click();
  try {
    await page.waitForSelector('#city .cell-score', { timeout: 30_000 });
  } catch (e) {
    const seen = await page.evaluate(() => ({
      action: { ...document.querySelector('#action')?.dataset },
      panel: document.querySelector('#action')?.innerText.slice(0, 400),
      pressed: [...document.querySelectorAll('#hand .sccard[aria-pressed="true"]')].map((c) => c.dataset.slug),
      targets: document.querySelectorAll('#city .cell.target').length,
      hand: [...document.querySelectorAll('#hand .sccard')].map((c) => `${c.dataset.slug}${c.classList.contains('dim') ? '(dim)' : ''}${c.disabled ? '(disabled)' : ''}`),
    }));
    throw new Error(`no cell shows a score after picking ${slug}: ${JSON.stringify(seen)}: ${e.message}`);
  }
}

/** Runs axe-core in `page`; resolves to its serious and critical violations, one line each. */
async function axeProblems(page) {
  await page.addScriptTag({ path: AXE });
  const res = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')}: ${n.html.slice(0, 400)}: ${n.failureSummary?.split('\n').slice(0, 3).join(' ')}`));
}

for (const [width, ctx] of [['desktop', DESKTOP], ['phone', PHONE]]) {
  test(`axe-core finds no serious or critical violation at ${width} width`, { timeout: 180_000 }, async () => {
    // The page's CSP (script-src 'self') would refuse the injected axe script tag.
    const context = await browser.newContext({ ...ctx, bypassCSP: true });
    try {
      const found = [];
      for (const [name, open] of PAGES) {
        const page = await context.newPage();
        const errors = watchErrors(page);
        await open(page);
        found.push(...(await axeProblems(page)).map((x) => `${name}: ${x}`));
        // axe's page-has-heading-one is "moderate", below the filter: every page names itself in one h1.
        const h1 = await page.locator('h1').allInnerTexts();
        if (h1.length !== 1) found.push(`${name}: ${h1.length} h1 headings (${h1.join(' | ')}), not one`);
        assert.deepEqual(errors, [], `${name}: no console or page errors`);
        await page.close();
      }
      assert.deepEqual(found, [], 'no serious or critical violation');
    } finally {
      await context.close();
    }
  });
}


/** In the page: the top of the first element matching each selector (null when none shows). */
function tops(page, selectors) {
  return page.evaluate((sels) => sels.map((s) => {
    const el = document.querySelector(s);
    return el && el.getClientRects().length ? el.getBoundingClientRect().top + window.scrollY : null;
  }), selectors);
}

/** Plays by clicking (browser-helpers' way) until the page offers a decision of round `round`. */
async function playUntilRound(page, round) {
  const { playTurn } = await import('./browser-helpers.mjs');
  let last = null;
  for (;;) {
    const turn = await nextTurn(page, last);
    assert.notEqual(turn, 'over', 'the game lasts long enough');
    const [state, key] = turn.split('|');
    if (Number(key.split('-')[0]) >= round) return state;
    await playTurn(page, state);
    last = key;
  }
}

test('phone: lobby list first, the table in order, 44 px targets, names whole, no sideways scroll', { timeout: 90_000 }, async () => {
  const context = await browser.newContext(PHONE);
  const page = await context.newPage();
  const errors = watchErrors(page);
  try {
    // An open game: the lobby's list comes before the form.
    await createGame({ name: 'Olu', seats: 2, bots: [] });
    await page.goto(`${daemon.base}/`);
    await page.waitForSelector('#games .game-row.status-open');
    const [list, form] = await tops(page, ['#games-panel', '#create-form']);
    assert.ok(list < form, `the games list (${list}) is above the form (${form})`);
    assert.ok(await noHorizontalScroll(page), 'the lobby fits 390 px');
    assert.deepEqual(await smallTargets(page, '#app, .site-head'), [], 'the lobby\'s and the header\'s targets are 44 px');

    // A table in round 2, with tableaux.
    const g = await createGame({ name: 'Pim', seats: 4, bots: ['greedy', 'greedy', 'random'] });
    await openAsSeat(page, g);
    // The first screen (issue 27, item 6): a whole row of the hand above the held buttons, and
    // nothing of the cards (their "i" buttons) drawn over those buttons.
    await page.waitForSelector('#action[data-state="keep"] #hand .card');
    await firstScreenShowsTheHand(page);
    const state = await playUntilRound(page, 2);
    assert.ok(await noHorizontalScroll(page), 'the table fits 390 px');
    const [action, me, other, log] = await tops(page, ['#action', '.player.me', '.player:not(.me)', '#log-box']);
    assert.ok(action < me && me < other && other < log, `decision ${action}, your tableau ${me}, the others ${other}, the log ${log}`);
    assert.deepEqual(await smallTargets(page), [], 'the table\'s targets are 44 px');
    assert.deepEqual(await brokenNames(page, '.card-name, .chip-name'), [], 'no card name is broken inside a word');

    // Every card of the catalog as a hand card at this width: the names still fit whole.
    await page.evaluate(async () => {
      const { card, cardButton } = await import('/games/the_city/cards.js');
      const { fitNames } = await import('/access.js');
      const { api } = await import('/api.js');
      const all = (await api.cards()).cards;
      const box = document.createElement('div');
      box.className = 'hand';
      box.id = 'all-cards';
      for (const c of all) box.append(cardButton({ id: c.id, slug: card(c.id).id }));
      document.querySelector('#action').append(box);
      fitNames(box);
    });
    assert.deepEqual(await brokenNames(page, '#all-cards .card-name'), [], 'no catalog name is broken inside a word');
    await page.evaluate(() => document.querySelector('#all-cards').remove());

    // The log is one tap away.
    await page.tap('#jump-log');
    await page.waitForFunction(() => {
      const r = document.querySelector('#log-box').getBoundingClientRect();
      return r.top >= 0 && r.top < window.innerHeight / 2 && document.activeElement?.id === 'log';
    });
    assert.ok(['build', 'survey', 'hand_limit'].includes(state));
    assert.deepEqual(errors, [], 'no console or page errors');
  } finally {
    await context.close();
  }
});

test('phone: Tech City\'s table fits, its targets are 44 px and its card names are whole', { timeout: 60_000 }, async () => {
  const context = await browser.newContext(PHONE);
  const page = await context.newPage();
  const errors = watchErrors(page);
  try {
    await openAsSeat(page, await createGame({ game: 'tech_city', name: 'Tove', seats: 3, bots: ['greedy', 'greedy'] }));
    await page.waitForSelector('#action h2');
    await page.waitForSelector('#city .card-cell');
    await page.waitForSelector('#action #hand > *');
    await firstScreenShowsTheHand(page); // under a bar of three low rows
    assert.ok(await noHorizontalScroll(page), 'the table fits 390 px');
    assert.deepEqual(await smallTargets(page), [], 'the table\'s targets are 44 px');
    assert.deepEqual(await brokenNames(page, '.tc-name, .ghost-card'), [], 'no card name is broken inside a word');
    // Every card of the catalog as a hand card at this width (a deal shows only a few): the names
    // still fit whole ("Dark Matter Observatory" broke inside "Observatory" in CI).
    await page.evaluate(async () => {
      const { loadTechCatalog, techCard } = await import('/games/tech_city/data.js');
      const cat = await loadTechCatalog();
      const box = document.createElement('div');
      box.className = 'hand';
      box.id = 'all-tech';
      let i = 0;
      for (const slug of cat.keys()) box.append(techCard(1000 + i++, slug, {}));
      document.querySelector('#action #hand').after(box);
    });
    assert.deepEqual(await brokenNames(page, '#all-tech .tc-name'), [], 'no catalog name is broken inside a word');
    // The page may have drawn the panel anew meanwhile (a bot moved), which took the box with it.
    await page.evaluate(() => document.querySelector('#all-tech')?.remove());
    const [whose, action, city, log] = await tops(page, ['#whose', '#action', '.city-box', '#log-box']);
    const mine = await page.$eval('#whose', (e) => e.classList.contains('mine'));
    assert.ok((mine ? await page.$eval('#whose', (e) => getComputedStyle(e).display === 'none') : whose < action) && action < city && city < log,
      `whose ${whose} (${mine ? 'mine: hidden on a phone, the panel says it' : 'above the panel'}), decision ${action}, city ${city}, log ${log}`);
    await page.tap('#jump-log');
    await page.waitForFunction(() => document.activeElement?.id === 'log');
    assert.deepEqual(errors, [], 'no console or page errors');
  } finally {
    await context.close();
  }
});

test('a decision pending in a hidden tab rings and notifies, once switched on; off by default', { timeout: 60_000 }, async () => {
  const context = await browser.newContext(DESKTOP);
  await context.grantPermissions(['notifications'], { origin: daemon.base });
  await context.addInitScript(() => {
    // Records every Notification made and every tone, and lets the test hide the tab.
    window.__notes = [];
    window.__tones = 0;
    const Real = window.Notification;
    window.Notification = new Proxy(Real, {
      construct(target, args) { window.__notes.push({ title: args[0], body: args[1]?.body }); return Reflect.construct(target, args); },
    });
    const osc = AudioContext.prototype.createOscillator;
    AudioContext.prototype.createOscillator = function createOscillator() { window.__tones++; return osc.call(this); };
    let hidden = false;
    Object.defineProperty(Document.prototype, 'visibilityState', { configurable: true, get: () => (hidden ? 'hidden' : 'visible') });
    Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get: () => hidden });
    window.__hide = (h) => { hidden = h; document.dispatchEvent(new Event('visibilitychange')); };
  });
  const page = await context.newPage();
  const errors = watchErrors(page);
  try {
    const g = await createGame({ name: 'Noa', seats: 2, bots: ['greedy'] });
    await openAsSeat(page, g);
    await page.waitForSelector('#action[data-state="keep"]');
    assert.equal(await page.isChecked('#notice-sound'), false, 'the sound is off by default');
    assert.equal(await page.isChecked('#notice-notify'), false, 'notifications are off by default');

    // Hidden with the switches off: nothing.
    await page.evaluate(() => window.__hide(true));
    await page.locator('#hand .card').nth(0).click();
    await page.locator('#hand .card').nth(1).click();
    await page.click('#confirm');
    await page.waitForSelector('#action[data-state="build"]');
    assert.deepEqual(await page.evaluate(() => [window.__notes.length, window.__tones]), [0, 0]);
    await page.evaluate(() => window.__hide(false));

    // On, remembered across a reload.
    await page.check('#notice-notify');
    await page.check('#notice-sound');
    await page.reload();
    await page.waitForSelector('#action[data-state="build"]');
    assert.equal(await page.isChecked('#notice-sound'), true, 'the sound switch is remembered');
    assert.equal(await page.isChecked('#notice-notify'), true, 'the notification switch is remembered');
    await page.keyboard.press('Tab'); // a gesture, which readies the audio

    // Visible: a new decision rings nothing (the in-view tone is off by default).
    assert.equal(await page.isChecked('#notice-open'), false, 'no tone in view by default');
    const quiet = await page.evaluate(() => window.__tones);
    await chooseQuick(page, 'survey');
    await page.waitForSelector('#action[data-state="survey"]');
    assert.deepEqual(await page.evaluate(() => window.__notes.length), 0, 'no notification while the tab is seen');
    assert.equal(await page.evaluate(() => window.__tones), quiet, 'no tone while the tab is seen');
    // Hidden: the next decision rings and notifies.
    await page.evaluate(() => window.__hide(true));
    const need = Number(await page.getAttribute('#action', 'data-need'));
    for (let i = 0; i < need; i++) await page.locator('#hand .card').nth(i).click();
    await page.click('#confirm');
    await page.waitForFunction(() => window.__notes.length > 0, null, { timeout: 15_000 });
    const [notes, tones] = await page.evaluate(() => [window.__notes, window.__tones]);
    assert.equal(notes[0].title, 'The City: your move');
    assert.match(notes[0].body, /round 2, build/);
    assert.ok(tones >= 1, 'a tone was played');
    // The live regions said the move and the new log lines.
    assert.match(await page.locator('#announce').textContent(), /Your move: round 2, build/);
    assert.match(await page.locator('#log-news').textContent(), /\S/);
    // In view, with "also while this tab is open" on: "your turn" rings too.
    await page.evaluate(() => window.__hide(false));
    await page.check('#notice-open');
    await chooseQuick(page, 'survey');
    await page.waitForFunction((n) => window.__tones > n, tones, { timeout: 15_000 });
    assert.deepEqual(errors, [], 'no console or page errors');
  } finally {
    await context.close();
  }
});

/** Presses Tab until the focused element matches `sel` (at most 80 presses); keyboard only. */
async function tabToMatch(page, sel) {
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((s) => !!document.activeElement?.matches(s), sel)) return;
  }
  throw new Error(`Tab never reached ${sel}`);
}

/** Plays the decision the page shows with Tab, Enter and Space alone; resolves to what it did. */
async function playByKeys(page, state) {
  if (state !== 'build') {
    const need = Number(await page.getAttribute('#action', 'data-need'));
    for (let i = 0; i < need; i++) {
      await tabToMatch(page, '#hand .card:not(.is-discard)');
      await page.keyboard.press(i % 2 ? 'Enter' : 'Space');
    }
    await page.waitForSelector(`#counter:text("${need} of ${need}")`);
    await tabToMatch(page, '#confirm');
    await page.keyboard.press('Enter');
    return state;
  }
  if (await page.locator('#hand .card.buildable').count()) {
    await tabToMatch(page, '#hand .card.buildable');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
    assert.notEqual(outline, 'none', 'the focused card shows its focus');
    await page.keyboard.press('Space');
    await page.waitForSelector('#hand .card.is-build');
    await tabToMatch(page, '#confirm:not([disabled])');
    await page.keyboard.press('Enter');
    return 'build';
  }
  await tabToMatch(page, '#survey');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#survey[aria-pressed="true"]');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'confirm', 'picking Survey moves focus to Confirm');
  await page.keyboard.press('Enter');
  return 'survey';
}

for (const motion of ['no-preference', 'reduce']) {
  test(`a card just built on the table drops into place, unless motion is reduced (${motion})`, { timeout: 60_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, reducedMotion: motion });
    // Records each card that is marked as just placed, with the animation it runs then.
    await context.addInitScript(() => {
      window.__placed = [];
      new MutationObserver((list) => {
        for (const m of list) {
          if (m.target.classList?.contains('placed') && !(m.oldValue ?? '').split(' ').includes('placed')) {
            window.__placed.push({ seat: m.target.closest('.player')?.dataset.seat ?? null, animation: getComputedStyle(m.target).animationName });
          }
        }
      }).observe(document, { subtree: true, attributes: true, attributeFilter: ['class'], attributeOldValue: true });
    });
    const page = await context.newPage();
    const errors = watchErrors(page);
    try {
      const g = await createGame({ name: 'Mo', seats: 2, bots: ['greedy'] });
      await openAsSeat(page, g);
      await page.waitForSelector('#action[data-state="keep"]');
      assert.equal(await page.locator('.placed').count(), 0, 'nothing moves at first');
      // The host forces steps (the person surveys by default) until the bot builds: its chip is
      // new on the table.
      for (let i = 0; i < 12; i++) {
        const v = await (await fetch(`${daemon.base}/api/v1/games/${g.id}`)).json();
        if (v.seats[1].tableau.length) break;
        await fetch(`${daemon.base}/api/v1/games/${g.id}/resolve`, {
          method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${g.host_token}` }, body: JSON.stringify({ round: v.round, step: v.step }),
        });
      }
      await page.waitForFunction(() => window.__placed.some((p) => p.seat === '1'), null, { timeout: 15_000 });
      const placed = await page.evaluate(() => window.__placed);
      assert.ok(placed.every((p) => p.seat === '1'), `only the bot's new chip: ${JSON.stringify(placed)}`);
      assert.equal(placed[0].animation, motion === 'reduce' ? 'none' : 'card-place');
      assert.deepEqual(errors, [], 'no console or page errors');
    } finally {
      await context.close();
    }
  });
}

test('a whole round of The City is played with the keyboard alone', { timeout: 90_000 }, async () => {
  const context = await browser.newContext(DESKTOP);
  const page = await context.newPage();
  const errors = watchErrors(page);
  try {
    await page.goto(`${daemon.base}/`);
    await page.waitForSelector('#create-form');
    await tabToMatch(page, '#name');
    await page.keyboard.type('Kai');
    await tabToMatch(page, '#create');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#action[data-state="keep"]');
    const done = [];
    let last = null;
    for (;;) {
      const turn = await nextTurn(page, last);
      assert.notEqual(turn, 'over');
      const [state, key] = turn.split('|');
      if (key.startsWith('2-')) break; // round 1 is over: its build, survey and hand limit
      done.push(await playByKeys(page, state));
      last = key;
    }
    assert.equal(done[0], 'keep');
    assert.ok(['build', 'survey'].includes(done[1]), `round 1 was played (${done})`);
    assert.match(await page.locator('#step').textContent(), /Round 2/);
    assert.deepEqual(errors, [], 'no console or page errors');
  } finally {
    await context.close();
  }
});

test('screenshots of the lobby and both tables at desktop and phone width', { timeout: 90_000 }, async () => {
  const city = await createGame({ name: 'Ines', seats: 4, bots: ['greedy', 'greedy', 'random'] });
  const tech = await createGame({ game: 'tech_city', name: 'Theo', seats: 3, bots: ['greedy', 'greedy'] });
  for (const [width, ctx] of [['desktop', DESKTOP], ['phone', PHONE]]) {
    const context = await browser.newContext(ctx);
    const page = await context.newPage();
    const errors = watchErrors(page);
    try {
      await page.goto(`${daemon.base}/`);
      await page.waitForSelector('#games .game-list');
      await page.screenshot({ path: join(SHOTS, `lobby-${width}.png`), fullPage: true });
      await openAsSeat(page, city);
      if (width === 'desktop') await playUntilRound(page, 3); else await nextTurn(page, null);
      await page.screenshot({ path: join(SHOTS, `city-table-${width}.png`), fullPage: true });
      await openAsSeat(page, tech);
      await page.waitForSelector('#city .card-cell');
      await page.waitForSelector('#action h2');
      await page.screenshot({ path: join(SHOTS, `tech-table-${width}.png`), fullPage: true });
      assert.deepEqual(errors, [], 'no console or page errors');
    } finally {
      await context.close();
    }
  }
});

/** Loads `page` with `go` and sums the bytes of every response as sent (gzipped, headers too). */
async function transferred(page, cdp, go) {
  const sizes = new Map();
  const onDone = (e) => sizes.set(e.requestId, e.encodedDataLength);
  const urls = new Map();
  const onResp = (e) => urls.set(e.requestId, `${e.response.status} ${new URL(e.response.url).pathname}`);
  cdp.on('Network.loadingFinished', onDone);
  cdp.on('Network.responseReceived', onResp);
  await go();
  await page.waitForLoadState('networkidle');
  cdp.off('Network.loadingFinished', onDone);
  cdp.off('Network.responseReceived', onResp);
  const total = [...sizes.values()].reduce((a, b) => a + b, 0);
  return { total, each: [...sizes].map(([id, n]) => `${urls.get(id)} ${n}`) };
}

test('weight: a first visit to the lobby transfers under 150 KB, a repeat visit under 10 KB', { timeout: 30_000 }, async () => {
  // A daemon of its own: the lobby a newcomer sees, its list not swollen by the other tests' games.
  const fresh = await startDaemon();
  const context = await browser.newContext(DESKTOP);
  const page = await context.newPage();
  try {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    const first = await transferred(page, cdp, () => page.goto(`${fresh.base}/`));
    const again = await transferred(page, cdp, () => page.reload());
    console.log(`# first visit ${first.total} bytes, repeat visit ${again.total} bytes`);
    console.log(`# first: ${first.each.join(', ')}`);
    console.log(`# repeat: ${again.each.join(', ')}`);
    assert.ok(first.total < 150 * 1024, `first visit: ${first.total} bytes`);
    assert.ok(again.total < 10 * 1024, `repeat visit: ${again.total} bytes`);
  } finally {
    await context.close();
    await fresh.stop();
  }
});
