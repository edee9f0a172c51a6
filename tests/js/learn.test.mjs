// learn.test.mjs: browser tests of "learn the game in the page" (issue 11) in real Chromium on a
// real daemon: the rules pages of The City and Tech City (reached from the lobby and from a
// table), the card reference (every card of the catalog, the icon and cost filters), the full
// text of a built card on tap, the hand's "new" marks after a survey, its sorting, badges that
// do not cover a card's name, "Change my choice" after submitting, and the log's "chose" said
// once per step and seat after an amendment.
//
//   cd tests/js && CITY_ROOT=$PWD/../.. CITYD=$PWD/../../build/cityd ../../scripts/with-postgres.sh node --test learn.test.mjs

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { startDaemon } from './lib/daemon.mjs';
import { watchErrors, launchChromium, noHorizontalScroll, callApi, chooseQuick } from './browser-helpers.mjs';

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

/** A game of Ada (seat 0, in the browser) and Bea (seat 1, played through the API). */
async function twoPeople() {
  const g = await api('POST', '/games', { body: { seats: 2, name: 'Ada' } });
  assert.equal(g.status, 201);
  const b = await api('POST', `/games/${g.json.id}/join`, { body: { name: 'Bea' } });
  assert.equal(b.status, 201);
  return { id: g.json.id, ada: g.json.token, bea: b.json.token };
}

async function openAs(id, seat, token, viewport = { width: 1280, height: 900 }) {
  const context = await browser.newContext({ viewport });
  await context.addInitScript(([gid, s, t]) => {
    localStorage.setItem(`city.seat.${gid}`, JSON.stringify({ seat: s, token: t }));
  }, [id, seat, token]);
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(`${daemon.base}/#/game/${id}`);
  return { context, page, errors };
}

const h2s = (page) => page.locator('#rules-text h2').allInnerTexts();

test('the rules pages of both games, from the lobby, with a table of contents', { timeout: 30_000 }, async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = watchErrors(page);
  try {
    await page.goto(`${daemon.base}/`);
    await page.click('#lobby-rules');
    await page.waitForSelector('#rules-text h2');
    assert.match(page.url(), /#\/rules\/the_city$/);
    const city = await h2s(page);
    for (const want of ['A round', 'Winning and ties', 'Timers and defaults', 'The cards']) {
      assert.ok(city.some((t) => t.includes(want)), `The City's rules have "${want}" (${city})`);
    }
    const h3 = await page.locator('#rules-text h3').allInnerTexts();
    for (const want of ['Survey', 'The General Contractor', 'The Construction Gang', 'hand_limit', 'target']) {
      assert.ok(h3.some((t) => t.includes(want)), `a section on ${want} (${h3})`);
    }
    // Rendered as text: no raw Markdown left in the headings or the table of contents.
    assert.ok(!city.some((t) => /[#*`]/.test(t)));
    // The table of contents jumps to a section without leaving the page.
    await page.locator('#toc a', { hasText: 'Timers and defaults' }).click();
    await page.waitForFunction(() => document.activeElement?.id === 'timers-and-defaults');
    assert.match(page.url(), /#\/rules\/the_city\/timers-and-defaults$/);
    // A shared link to a section opens the page there.
    await page.goto(`${daemon.base}/#/rules/the_city/winning-and-ties`);
    await page.waitForFunction(() => document.activeElement?.id === 'winning-and-ties');

    // The game switch: Tech City's rule book.
    await page.click('.game-switch a[data-game="tech_city"]');
    await page.waitForFunction(() => document.querySelector('#rules')?.dataset.game === 'tech_city' && document.querySelector('#rules-text h2'));
    const tech = await h2s(page);
    for (const want of ['A round', 'Setup', 'Winning and ties']) assert.ok(tech.some((t) => t.includes(want)), `Tech City's rules have "${want}" (${tech})`);
    assert.ok(await page.locator('#rules-text table').count() >= 1, 'its table of effects is a table');

    // A game the page does not know gets a sentence and the card reference link, not a crash.
    await page.goto(`${daemon.base}/#/rules/no_such_game`);
    await page.waitForSelector('#rules .panel p');
    assert.match(await page.locator('#rules').innerText(), /no rule book/);

    // Phone width: no horizontal scroll.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${daemon.base}/#/rules/the_city`);
    await page.waitForSelector('#rules-text h2');
    assert.ok(await noHorizontalScroll(page), 'no horizontal scroll at 390 px');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('the card reference lists every card and its filters narrow the list', { timeout: 30_000 }, async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = watchErrors(page);
  const visible = () => page.locator('#card-list .ref-card:not([hidden])').evaluateAll((els) => els.map((e) => e.dataset.slug).sort());
  try {
    // The City, from the lobby.
    await page.goto(`${daemon.base}/`);
    await page.click('#lobby-cards');
    await page.waitForSelector('#card-list .ref-card');
    const city = (await api('GET', '/cards')).json.cards;
    assert.deepEqual(await visible(), city.map((c) => c.id).sort(), 'every card of the catalog is listed');
    const text = await page.locator('#card-list').innerText();
    for (const c of city) assert.ok(text.includes(c.name) && text.includes(c.text), `${c.name} with its full text`);

    await page.selectOption('#card-icon', 'car');
    assert.deepEqual(await visible(), city.filter((c) => c.icons.includes('car')).map((c) => c.id).sort(), 'the icon filter');
    await page.selectOption('#card-cost', '3');
    assert.deepEqual(await visible(), city.filter((c) => c.icons.includes('car') && c.cost === 3).map((c) => c.id).sort(), 'icon and cost together');
    await page.selectOption('#card-icon', '');
    assert.deepEqual(await visible(), city.filter((c) => c.cost === 3).map((c) => c.id).sort(), 'the cost filter');
    await page.click('#card-reset');
    await page.waitForFunction((n) => document.querySelectorAll('#card-list .ref-card:not([hidden])').length === n, city.length);
    // The name search, by keyboard.
    await page.focus('#card-search');
    await page.keyboard.type('construction');
    assert.deepEqual(await visible(), city.filter((c) => /construction/i.test(`${c.name} ${c.text}`)).map((c) => c.id).sort());
    assert.match(await page.locator('#card-count').innerText(), /of \d+ cards/);
    await page.setViewportSize({ width: 390, height: 844 });
    assert.ok(await noHorizontalScroll(page), 'no horizontal scroll at 390 px');
    await page.setViewportSize({ width: 1280, height: 900 });

    // Tech City: domain and value.
    await page.click('.game-switch a[data-game="tech_city"]');
    await page.waitForFunction(() => document.querySelector('#cards-ref')?.dataset.game === 'tech_city' && document.querySelector('#card-list .ref-card'));
    const tech = (await api('GET', '/cards?game=tech_city')).json.cards;
    assert.deepEqual(await visible(), tech.map((c) => c.id).sort(), 'every Tech City card is listed');
    await page.selectOption('#card-icon', 'science');
    assert.deepEqual(await visible(), tech.filter((c) => c.domain === 'science').map((c) => c.id).sort());
    await page.selectOption('#card-cost', '7');
    assert.deepEqual(await visible(), tech.filter((c) => c.domain === 'science' && c.value === 7).map((c) => c.id).sort());
    // The rules page is one link away.
    await page.click('#rules-link');
    await page.waitForSelector('#rules-text h2');
    assert.match(page.url(), /#\/rules\/tech_city$/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('The City\'s hand: sorting, badges clear of names, Change my choice, "chose" once, new cards after a survey, built cards on tap', { timeout: 60_000 }, async () => {
  const g = await twoPeople();
  const A = await openAs(g.id, 0, g.ada);
  const { page } = A;
  const names = async () => page.locator('#hand .card .card-name').allInnerTexts();
  try {
    await page.waitForSelector('#action[data-state="keep"]');
    // Sorting by name, remembered across a reload.
    await page.selectOption('#hand-sort', 'name');
    await page.waitForFunction(() => {
      const n = [...document.querySelectorAll('#hand .card .card-name')].map((e) => e.textContent);
      return n.every((x, i) => i === 0 || n[i - 1].localeCompare(x) <= 0);
    });
    const byName = await names();
    assert.deepEqual(byName, [...byName].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    await page.reload();
    await page.waitForSelector('#action[data-state="keep"] #hand .card');
    assert.equal(await page.inputValue('#hand-sort'), 'name');
    assert.deepEqual(await names(), byName, 'the sort is remembered');
    await page.selectOption('#hand-sort', 'cost');
    const costs = await page.locator('#hand .card').evaluateAll((els) => els.map((e) => Number(e.querySelector('.cost').textContent)));
    assert.deepEqual(costs, [...costs].sort((a, b) => a - b), 'sorted by cost');

    // The "i" button shows a hand card's full text and selects nothing.
    const first = page.locator('#hand .card-slot').first();
    const slug = await first.locator('.card').getAttribute('data-slug');
    await first.locator('.card-info-btn').click();
    const pop = page.locator('#card-pop');
    await pop.waitFor();
    const catalog = new Map((await api('GET', '/cards')).json.cards.map((c) => [c.id, c]));
    assert.equal(await page.locator('#card-pop-title').innerText(), catalog.get(slug).name);
    assert.ok((await pop.innerText()).includes(catalog.get(slug).text));
    await page.keyboard.press('Escape');
    await pop.waitFor({ state: 'hidden' });
    assert.equal(await page.locator('#hand .card[aria-pressed="true"]').count(), 0, 'the info button selected nothing');

    // Two discards chosen: the DISCARD badges do not cover the cards' names.
    const cards = page.locator('#hand .card');
    await cards.nth(0).click();
    await cards.nth(1).click();
    for (const i of [0, 1]) {
      const badge = await cards.nth(i).locator('.badge').boundingBox();
      const name = await cards.nth(i).locator('.card-name').boundingBox();
      const text = await cards.nth(i).locator('.card-text').boundingBox();
      const apart = (a, b) => a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
      assert.ok(badge && apart(badge, name), 'the badge does not overlap the name');
      assert.ok(apart(badge, text), 'nor the text');
    }
    await page.click('#confirm');
    await page.waitForSelector('#action[data-submitted="true"]');
    // After submitting: an update, and the page says the choice may change until all have chosen.
    assert.equal((await page.locator('#confirm').innerText()).trim(), 'Change my choice');
    assert.ok(await page.locator('#confirm').isDisabled(), 'nothing to change yet');
    assert.match(await page.locator('#submitted').innerText(), /change it until everyone has chosen/);
    // An amendment: another card instead of the second.
    await cards.nth(1).click();
    await cards.nth(2).click();
    await page.locator('#confirm:not([disabled])').click();
    await page.waitForFunction(() => document.querySelector('#action')?.dataset.busy === 'false' && document.querySelector('#confirm')?.disabled);
    const hand0 = (await api('GET', `/games/${g.id}/hand`, { token: g.ada })).json;
    assert.equal(hand0.order.discard.length, 2);

    // Bea keeps through the API; round 1: Ada surveys, Bea takes a General Contractor.
    const bh = (await api('GET', `/games/${g.id}/hand`, { token: g.bea })).json;
    assert.equal((await api('POST', `/games/${g.id}/orders`, { token: g.bea, body: { round: 0, step: 'keep', discard: bh.hand.slice(0, 2).map((c) => c.id) } })).status, 202);
    await page.waitForSelector('#action[data-state="build"]');
    const before = (await api('GET', `/games/${g.id}/hand`, { token: g.ada })).json.hand.map((c) => c.id);
    await page.waitForFunction(() => /Ada chose\./.test(document.querySelector('#log')?.innerText ?? ''));
    const log = await page.locator('#log').innerText();
    assert.equal(log.match(/Ada chose\./g).length, 1, '"chose" once for the keep, its amendment not repeated');
    assert.equal(log.match(/Bea chose\./g).length, 1);
    assert.equal(await page.locator('#hand .new-tag').count(), 0, 'nothing is new at the first build');

    await chooseQuick(page, 'survey');
    await page.waitForSelector('#action[data-submitted="true"]');
    assert.equal((await api('POST', `/games/${g.id}/orders`, { token: g.bea, body: { round: 1, step: 'build', contractor: true } })).status, 202);
    await page.waitForSelector('#action[data-state="survey"]');
    const after = (await api('GET', `/games/${g.id}/hand`, { token: g.ada })).json.hand.map((c) => c.id);
    const drawn = after.filter((x) => !before.includes(x)).sort((a, b) => a - b);
    assert.ok(drawn.length >= 2, 'the survey drew cards');
    await page.waitForFunction((n) => document.querySelectorAll('#hand .new-tag').length === n, drawn.length);
    const marked = await page.locator('#hand .card:has(.new-tag)').evaluateAll((els) => els.map((e) => Number(e.dataset.cardId)).sort((a, b) => a - b));
    assert.deepEqual(marked, drawn, 'exactly the surveyed cards are marked new');
    assert.match(await page.locator('#new-count').innerText(), new RegExp(`${drawn.length} new cards`));
    // The card is named by its content (its offscreen words included), so the mark is said too.
    const newLabel = await page.locator('#hand .card:has(.new-tag) .offscreen').first().textContent();
    assert.match(newLabel, /New since the last step/, 'said in words to screen readers too');

    // Bea's General Contractor in her tableau: a tap shows its full text.
    const chip = page.locator('.player[data-seat="1"] .tableau .chip-open').first();
    await chip.click();
    await pop.waitFor();
    assert.equal(await page.locator('#card-pop-title').innerText(), 'General Contractor');
    assert.ok((await pop.innerText()).includes(catalog.get('general_contractor').text));
    // A tap outside closes it.
    await page.mouse.click(5, 5);
    await pop.waitFor({ state: 'hidden' });

    // The survey's discards: marks stay until the step after.
    const need = Number(await page.getAttribute('#action', 'data-need'));
    for (let i = 0; i < need; i++) await page.locator('#hand .card').nth(i).click();
    await page.click('#confirm');
    await page.waitForFunction(() => document.querySelector('#action')?.dataset.turn === '2-build');
    const fresh = await page.locator('#hand .card:has(.new-tag)').evaluateAll((els) => els.map((e) => Number(e.dataset.cardId)));
    for (const x of fresh) assert.ok(!drawn.includes(x), 'a survey card is no longer new a step later');

    // The table links to the rules in a new tab: the table stays.
    const [rules] = await Promise.all([A.context.waitForEvent('page'), page.click('#rules-link')]);
    await rules.waitForSelector('#rules-text h2');
    assert.match(rules.url(), /#\/rules\/the_city$/);
    assert.match(page.url(), new RegExp(`#/game/${g.id}$`));
    await rules.close();
    assert.deepEqual(A.errors, []);
  } finally {
    await A.context.close();
  }
});

test('Tech City: a tap on a card of the city shows its effect; the table links to its rules', { timeout: 30_000 }, async () => {
  const g = await api('POST', '/games', { body: { game: 'tech_city', seats: 2, bots: ['greedy'], name: 'Ada' } });
  assert.equal(g.status, 201);
  const A = await openAs(g.json.id, 0, g.json.token);
  try {
    const cell = A.page.locator('#city .card-cell').first();
    await cell.waitFor();
    const slug = await cell.getAttribute('data-slug');
    await cell.click();
    const tech = new Map((await api('GET', '/cards?game=tech_city')).json.cards.map((c) => [c.id, c]));
    await A.page.waitForFunction((t) => document.querySelector('#info-text')?.textContent === t, tech.get(slug).text);
    const [cards] = await Promise.all([A.context.waitForEvent('page'), A.page.click('#cards-link')]);
    await cards.waitForSelector('#card-list .ref-card');
    assert.match(cards.url(), /#\/cards\/tech_city$/);
    await cards.close();
    assert.deepEqual(A.errors, []);
  } finally {
    await A.context.close();
  }
});
