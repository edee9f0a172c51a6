// i18n.test.mjs: the page's languages (issue 27 item 12, web/i18n.js): the German catalogue is
// complete (every sentence the page says through t() has a German entry, with the same
// placeholders, none unused, every card of every game a German name), a browser whose language
// is German gets the lobby, each game's table, the rules and the cards in German with
// <html lang="de">, the header's switch brings English back and it sticks after a reload, and
// axe-core finds no serious violation in German at both viewports. In Debian's headless Chromium
// with playwright-core against a real daemon on a real PostgreSQL (tests/js/lib/daemon.mjs).
//
//   CITY_ROOT=$PWD CITYD=$PWD/build/cityd ./scripts/with-postgres.sh node --test tests/js/i18n.test.mjs

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { startDaemon } from './lib/daemon.mjs';
import { pageMessages, placeholders } from './lib/messages.mjs';
import { watchErrors, launchChromium, axeSerious, callApi, brokenNames } from './browser-helpers.mjs';

const ROOT = resolve(process.env.CITY_ROOT ?? join(import.meta.dirname, '..', '..'));
const DE = JSON.parse(readFileSync(join(ROOT, 'web', 'i18n', 'de.json'), 'utf8'));
/** The card files of the games and the game each is the catalog of. */
const CATALOGS = [['the_city', 'cards.json'], ['tech_city', 'tech_city.json'], ['simcity', 'simcity.json']];
const GERMAN = { locale: 'de-DE' };
const DESKTOP = { viewport: { width: 1280, height: 800 } };
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

// ---- the catalogue, without a browser ---------------------------------------------------------

test('every sentence the page says has a German entry, with the same placeholders, and none is unused', () => {
  const said = pageMessages(join(ROOT, 'web'));
  assert.ok(said.size > 300, `the page's sentences are found (${said.size})`);
  const missing = [...said].filter(([k]) => !DE.messages[k]).map(([k, files]) => `${[...files].join(',')}: ${k}`);
  assert.deepEqual(missing, [], 'no sentence without a German entry');
  const unused = Object.keys(DE.messages).filter((k) => !said.has(k));
  assert.deepEqual(unused, [], 'no German entry the page does not say');
  const differ = Object.entries(DE.messages).filter(([k, v]) => placeholders(k) !== placeholders(v)).map(([k, v]) => `${k} -> ${v}`);
  assert.deepEqual(differ, [], 'each entry has its key\'s placeholders');
});

test('every card of every game has a German name, and a German text where it has one', () => {
  for (const [game, file] of CATALOGS) {
    const cards = JSON.parse(readFileSync(join(ROOT, 'cards', file), 'utf8')).cards;
    const de = DE.cards[game] ?? {};
    const bad = cards.filter((c) => !de[c.id]?.name || (c.text && !de[c.id].text)).map((c) => c.id);
    assert.deepEqual(bad, [], `${game}: cards without a German name or text`);
    const unknown = Object.keys(de).filter((id) => !cards.some((c) => c.id === id));
    assert.deepEqual(unknown, [], `${game}: German entries for no card`);
  }
});

// ---- the page in German ------------------------------------------------------------------------

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

/** POST /api/v1/games with `body`; resolves to the answer (id, token, seat, host_token). */
async function createGame(body) {
  const r = await callApi(daemon.base, 'POST', '/games', { body });
  if (r.status !== 201) throw new Error(`create: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json;
}

/** Opens game `g`'s table in `page` as its creator (the seat token where the page keeps it). */
async function openAsSeat(page, g) {
  await page.goto(`${daemon.base}/`);
  await page.evaluate(({ id, seat, token }) => localStorage.setItem(`city.seat.${id}`, JSON.stringify({ seat, token })), g);
  await page.goto(`${daemon.base}/#/game/${g.id}`);
}

/** The German name of card `slug` of `game`. */
const deName = (game, slug) => DE.cards[game][slug].name;

test('each game\'s rule for ties, which the end screen shows, has a German entry (the server says it in English)', async () => {
  const rulesets = (await callApi(daemon.base, 'GET', '/rulesets')).json.rulesets;
  assert.equal(rulesets.length, 3);
  for (const r of rulesets) assert.ok(DE.messages[r.rank.text], `${r.id}: ${r.rank.text}`);
});

test('a German browser gets the lobby in German, with <html lang="de">', { timeout: 60_000 }, async () => {
  const context = await browser.newContext({ ...GERMAN, ...DESKTOP });
  try {
    const page = await context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${daemon.base}/`);
    await page.waitForSelector('#create-title:has-text("Neue Partie")');
    assert.equal(await page.getAttribute('html', 'lang'), 'de');
    assert.equal((await page.textContent('#create')).trim(), 'Partie anlegen');
    assert.equal((await page.textContent('#games-title')).trim(), 'Partien');
    assert.match(await page.textContent('label:has(#turn)'), /Zeit pro Entscheidung/);
    assert.match(await page.textContent('#seat-list'), /Gieriger Bot/);
    assert.equal(await page.inputValue('#language'), 'de');
    assert.equal((await page.textContent('.skip')).trim(), 'Zum Inhalt springen');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('The City\'s table in German: step, action panel, log and German card names', { timeout: 60_000 }, async () => {
  const g = await createGame({ name: 'Ute', seats: 3, bots: ['greedy', 'random'] });
  const hand = (await callApi(daemon.base, 'GET', `/games/${g.id}/hand`, { token: g.token })).json.hand;
  const context = await browser.newContext({ ...GERMAN, ...DESKTOP });
  try {
    const page = await context.newPage();
    const errors = watchErrors(page);
    await openAsSeat(page, g);
    await page.waitForSelector('#action[data-state="keep"]');
    assert.equal(await page.getAttribute('html', 'lang'), 'de');
    assert.match(await page.textContent('#action-title'), /^Behalte 5 deiner 7 Karten$/);
    assert.equal((await page.textContent('#step')).trim(), 'Vorbereitung: 5 behalten');
    assert.equal((await page.textContent('#log-title')).trim(), 'Protokoll');
    const names = await page.locator('#hand .card .card-name').allInnerTexts();
    assert.deepEqual(names.sort(), hand.map((c) => deName('the_city', c.card)).sort(), 'the hand shows the cards\' German names');
    assert.match(await page.textContent('#bar'), /Stapel/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('Tech City\'s and SimCity\'s tables in German', { timeout: 90_000 }, async () => {
  const tech = await createGame({ game: 'tech_city', name: 'Tom', seats: 2, bots: ['greedy'] });
  const sim = await createGame({ game: 'simcity', name: 'Sina', seats: 3, bots: ['greedy', 'greedy'] });
  const context = await browser.newContext({ ...GERMAN, ...DESKTOP });
  try {
    for (const [g, game] of [[tech, 'tech_city'], [sim, 'simcity']]) {
      const page = await context.newPage();
      const errors = watchErrors(page);
      const hand = (await callApi(daemon.base, 'GET', `/games/${g.id}/hand`, { token: g.token })).json.hand;
      await openAsSeat(page, g);
      await page.waitForSelector('#action h2');
      assert.equal(await page.getAttribute('html', 'lang'), 'de');
      assert.equal((await page.textContent('#log-title')).trim(), 'Protokoll', game);
      const shown = await page.locator('#hand').innerText();
      const first = deName(game, hand[0].card);
      assert.ok(shown.includes(first), `${game}: the hand shows ${first}: ${shown.slice(0, 200)}`);
      assert.deepEqual(errors, [], game);
      await page.close();
    }
  } finally {
    await context.close();
  }
});

test('the rules and the card reference in German', { timeout: 60_000 }, async () => {
  const context = await browser.newContext({ ...GERMAN, ...DESKTOP });
  try {
    const page = await context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${daemon.base}/#/cards/the_city`);
    await page.waitForSelector('.ref-card');
    assert.match(await page.textContent('#app h1'), /alle Karten/);
    assert.ok((await page.locator('.ref-name').allInnerTexts()).includes('Generalunternehmer'));
    await page.goto(`${daemon.base}/#/rules/the_city`);
    await page.waitForSelector('#rules-text h1');
    assert.equal((await page.textContent('#toc-title')).trim(), 'Inhalt');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('the switch brings English back, and the choice sticks after a reload', { timeout: 60_000 }, async () => {
  const g = await createGame({ name: 'Uwe', seats: 2, bots: ['greedy'] });
  const context = await browser.newContext({ ...GERMAN, ...PHONE });
  try {
    const page = await context.newPage();
    const errors = watchErrors(page);
    await openAsSeat(page, g);
    await page.waitForSelector('#action[data-state="keep"]');
    assert.equal(await page.getAttribute('html', 'lang'), 'de');
    const box = await page.locator('#language').boundingBox();
    assert.ok(box.height >= 44, `the switch is a 44 px target on a phone (${box.height})`);
    await Promise.all([page.waitForEvent('load'), page.selectOption('#language', 'en')]);
    await page.waitForSelector('#action[data-state="keep"]');
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    assert.match(new URL(page.url()).hash, new RegExp(`#/game/${g.id}`), 'the table stays open');
    assert.equal((await page.textContent('#log-title')).trim(), 'Log');
    await page.reload();
    await page.waitForSelector('#action[data-state="keep"]');
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    assert.match(await page.textContent('#action-title'), /^Keep 5 of your 7 cards$/);
    await Promise.all([page.waitForEvent('load'), page.selectOption('#language', 'de')]);
    await page.waitForSelector('#action[data-state="keep"]');
    assert.equal(await page.getAttribute('html', 'lang'), 'de');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});


test('every German card name fits whole on a hand card of a phone', { timeout: 90_000 }, async () => {
  const context = await browser.newContext({ ...GERMAN, ...PHONE });
  try {
    const page = await context.newPage();
    const errors = watchErrors(page);
    for (const game of ['the_city', 'tech_city', 'simcity']) {
      await openAsSeat(page, await createGame({ game, name: 'Ina', seats: 2, bots: ['greedy'] }));
      await page.waitForSelector('#action h2');
      await page.evaluate(async (g) => {
        const box = document.createElement('div');
        box.className = 'hand';
        box.id = 'all-cards';
        if (g === 'the_city') {
          const { card, cardButton, loadCatalog } = await import('/games/the_city/cards.js');
          for (const slug of (await loadCatalog()).keys()) box.append(cardButton({ id: slug, slug: card(slug).id }));
        } else if (g === 'tech_city') {
          const { loadTechCatalog, techCard } = await import('/games/tech_city/data.js');
          let i = 0;
          for (const slug of (await loadTechCatalog()).keys()) box.append(techCard(1000 + i++, slug, {}));
        } else {
          const { loadScCatalog, scCard } = await import('/games/simcity/data.js');
          let i = 0;
          for (const slug of (await loadScCatalog()).keys()) box.append(scCard(1000 + i++, slug, {}));
        }
        document.querySelector('#app section.table .col-main').append(box); // not redrawn by the table
        (await import('/access.js')).fitNames(box);
      }, game);
      if (process.env.I18N_SHOT) await page.locator('#all-cards').screenshot({ path: `/tmp/i18n27/all-${game}.png` });
      assert.deepEqual(await brokenNames(page, '#all-cards .card-name, #all-cards .tc-name, #all-cards .sc-name', { hyphens: true }), [], `${game}: no German name broken or too wide`);
    }
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

/** The pages axe checks in German: a name and how to open it. */
const PAGES = [
  ['lobby', async (p) => { await p.goto(`${daemon.base}/`); await p.waitForSelector('#games .game-list, #games p:not(.loading)'); }],
  ['city table', async (p) => { await openAsSeat(p, await createGame({ name: 'Axel', seats: 3, bots: ['greedy', 'random'] })); await p.waitForSelector('#action[data-state="keep"]'); await p.locator('#hand .card').first().click(); }],
  ['tech table', async (p) => { await openAsSeat(p, await createGame({ game: 'tech_city', name: 'Tina', seats: 2, bots: ['greedy'] })); await p.waitForSelector('#action h2'); }],
  ['simcity table', async (p) => { await openAsSeat(p, await createGame({ game: 'simcity', name: 'Simon', seats: 3, bots: ['greedy', 'greedy'] })); await p.waitForSelector('#action h2'); }],
  ['rules', async (p) => { await p.goto(`${daemon.base}/#/rules/the_city`); await p.waitForSelector('#rules-text h1'); await p.waitForSelector('#toc'); }],
  ['cards', async (p) => { await p.goto(`${daemon.base}/#/cards/tech_city`); await p.waitForSelector('.ref-card'); }],
];

for (const [width, viewport] of [['desktop', DESKTOP], ['phone', PHONE]]) {
  test(`axe-core finds no serious or critical violation in German at ${width} width`, { timeout: 120_000 }, async () => {
    const context = await browser.newContext({ ...GERMAN, ...viewport, bypassCSP: true });
    try {
      const found = [];
      for (const [name, open] of PAGES) {
        const page = await context.newPage();
        const errors = watchErrors(page);
        await open(page);
        assert.equal(await page.getAttribute('html', 'lang'), 'de', name);
        found.push(...(await axeSerious(page)).map((x) => `${name}: ${x}`));
        assert.deepEqual(errors, [], `${name}: no console or page errors`);
        await page.close();
      }
      assert.deepEqual(found, [], 'no serious or critical violation');
    } finally {
      await context.close();
    }
  });
}
