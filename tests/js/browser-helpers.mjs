// browser-helpers.mjs: helpers of the browser tests: launching chromium, error watching, opening a
// table as a seat's holder, reading the page's seat
// token from localStorage, comparing the hand shown with the API's, playing one step of a game
// by clicking, keyboard focus moves, calls of the API, axe-core's serious findings, tap
// targets under 44 px, and a phone's first screen.

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

/** Collects console errors and page errors of `page` into the returned array. */
export function watchErrors(page) {
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  return errors;
}

/**
 * The table of game `id` at `base` in a fresh context of `browser` (`options`: its viewport and
 * the like), holding the seat and host tokens given as the lobby would have stored them:
 * {context, page, errors}.
 */
export async function openTableAs(browser, base, id, { seat = null, token = null, host = null } = {}, options = {}) {
  const context = await browser.newContext(options);
  await context.addInitScript(([gid, s, t, hst]) => {
    if (t) localStorage.setItem(`city.seat.${gid}`, JSON.stringify({ seat: s, token: t }));
    if (hst) localStorage.setItem(`city.host.${gid}`, JSON.stringify(hst));
  }, [id, seat, token, host]);
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(`${base}/#/game/${id}`);
  return { context, page, errors };
}

/** {id, seat, token} of the game the page shows, from the page's localStorage. */
export async function seatOf(page) {
  return page.evaluate(() => {
    const m = /#\/game\/([^/]+)/.exec(location.hash);
    if (!m) return null;
    const s = JSON.parse(localStorage.getItem(`city.seat.${m[1]}`) ?? 'null');
    return s ? { id: m[1], seat: s.seat, token: s.token } : { id: m[1], seat: null, token: null };
  });
}

/** The sorted card instance ids of a seat's hand, from the API. */
export async function apiHand(base, { id, token }) {
  const r = await fetch(`${base}/api/v1/games/${id}/hand`, { headers: { Authorization: `Bearer ${token}` } });
  if (r.status !== 200) throw new Error(`hand: ${r.status} ${await r.text()}`);
  const h = await r.json();
  return h.hand.map((c) => c.id).sort((x, y) => x - y);
}

/** The sorted card ids the page shows as its hand. */
export async function shownHandIds(page) {
  const ids = await page.locator('#hand .card').evaluateAll((els) => els.map((e) => Number(e.dataset.cardId)));
  return ids.sort((x, y) => x - y);
}

/**
 * Waits until the page has something new to decide (not `last`), or the end screen.
 * Resolves to 'over' or "state|round-step".
 */
export async function nextTurn(page, last) {
  const h = await page.waitForFunction((prev) => {
    if (document.querySelector('#end-screen')) return 'over';
    const a = document.querySelector('#action');
    if (!a || a.hidden) return false;
    const { state, turn, busy, submitted } = a.dataset;
    if (!state || state === 'waiting' || turn === prev || busy === 'true' || submitted === 'true') return false;
    return `${state}|${turn}`;
  }, last, { timeout: 20_000, polling: 50 });
  return h.jsonValue();
}

/**
 * Plays the current step by clicking, like a person would. Resolves to what it did.
 * beforeConfirm(): awaited after a single build is picked (payment pre-selected), before confirm.
 * tally ({extra}), when given, counts the clicks that are not the page's cost of a decision: the
 * second and later cards a discard asks for (the rules' count, not the page's), and the clicks
 * this helper spends trying a double build that then is not possible.
 */
export async function playTurn(page, state, { beforeConfirm, tally = { extra: 0 } } = {}) {
  if (state !== 'build') {
    const need = Number(await page.getAttribute('#action', 'data-need'));
    const cards = page.locator('#hand .card');
    for (let i = 0; i < need; i++) await cards.nth(i).click();
    tally.extra += Math.max(0, need - 1);
    await page.locator('#confirm:not([disabled])').click();
    return state;
  }
  // A double build when the Construction Gang allows it and two eligible cards are there.
  if (await page.locator('#double').count()) {
    await page.click('#double');
    let tried = 1;
    const first = page.locator('#hand .card.buildable').first();
    if (await first.count()) {
      await first.click();
      tried++;
      const second = page.locator('#hand .card.buildable:not(.is-build)').first();
      if (await second.count()) {
        await second.click();
        tried++;
        const confirm = page.locator('#confirm:not([disabled])');
        if (await confirm.count()) {
          if (beforeConfirm) await beforeConfirm();
          await confirm.click();
          tally.extra += 1; // two cards: the second is the one beyond a decision's pick
          return 'double';
        }
      }
    }
    await page.click('#cancel');
    tally.extra += tried + 1;
  }
  const costs = await page.locator('#hand .card.buildable').evaluateAll((els) => els.map((e) => Number(e.dataset.cost)));
  if (costs.length) {
    const best = costs.indexOf(Math.max(...costs));
    await page.locator('#hand .card.buildable').nth(best).click();
    await page.waitForSelector('#hand .card.is-build');
    if (beforeConfirm) await beforeConfirm();
    await page.locator('#confirm:not([disabled])').click();
    return 'build';
  }
  if (await page.locator('#contractor').count()) {
    await chooseQuick(page, 'contractor');
    return 'contractor';
  }
  await chooseQuick(page, 'survey');
  return 'survey';
}

/**
 * The City: picks Survey or General Contractor (`which`, the quick button's id) and confirms it,
 * as every choice is made (picked, the panel says what it brings, then confirmed).
 */
export async function chooseQuick(page, which) {
  await page.click(`#${which}`);
  await page.waitForSelector(`#${which}[aria-pressed="true"]`);
  await page.locator('#confirm:not([disabled])').click();
}

/**
 * Clicks Suggest (or presses Enter on it when `key`) and waits until the expert's answer (or the
 * quick suggestion) is applied: the button no longer reads "Thinking…".
 */
export async function suggestAndWait(page, { key = false } = {}) {
  if (key) await page.keyboard.press('Enter');
  else await page.click('#suggest');
  // An expert hint shows "Thinking…" first (the quick suggestion does not): wait for it to
  // start, or the wait below could pass before the page had redrawn the button (seen in CI).
  await page.waitForFunction(() => document.querySelector('#suggest[data-thinking="true"]')
    || document.activeElement?.id !== 'suggest', null, { timeout: 3_000, polling: 20 }).catch(() => {});
  await page.waitForFunction(() => !document.querySelector('#suggest[data-thinking="true"]'), null, { timeout: 20_000, polling: 50 });
  // then the suggestion applied: focus on what to press (it stays on Suggest only when there
  // is nothing to suggest)
  await page.waitForFunction(() => document.activeElement?.id !== 'suggest', null, { timeout: 3_000, polling: 20 }).catch(() => {});
}

/** Waits until Suggest knows how many expert hints are left (hints.js loaded); resolves to that number. */
export async function hintsLeft(page) {
  const el = await page.waitForSelector('#suggest[data-hints-left]:not([data-hints-left=""])', { timeout: 10_000 });
  return Number(await el.getAttribute('data-hints-left'));
}

/**
 * In the page: every visible control under `scope` (a selector; #app by default) smaller than
 * 44 x 44 px (a checkbox or radio by its label), one line each.
 */
export function smallTargets(page, scope = '#app') {
  return page.evaluate((sc) => [...document.querySelectorAll(`:is(${sc}) :is(button, a[href], select, input, [role="button"])`)]
    .map((el) => (el.matches('input[type="checkbox"], input[type="radio"]') ? el.closest('label') ?? el : el))
    .filter((el) => el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden')
    .map((el) => [el, el.getBoundingClientRect()])
    .filter(([, r]) => r.width < 43.5 || r.height < 43.5)
    .map(([el, r]) => `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}.${[...el.classList].join('.')} "${el.textContent.trim().slice(0, 30)}" ${Math.round(r.width)}x${Math.round(r.height)}`), scope);
}

/**
 * Asserts the first screen of a phone's table (issue 27, item 6): a whole row of the hand above
 * the held buttons, those buttons in one low row, and nothing of the cards (their "i" buttons)
 * drawn over them.
 */
export async function firstScreenShowsTheHand(page) {
  const first = await page.evaluate(() => {
    scrollTo(0, 0);
    const card = document.querySelector('#action #hand > *').getBoundingClientRect();
    const bar = document.querySelector('#action .actions.sticky').getBoundingClientRect();
    const covered = [...document.querySelectorAll('#action .actions.sticky button')].filter((b) => {
      const r = b.getBoundingClientRect();
      const at = document.elementFromPoint(r.left + r.width / 2, Math.min(r.top + r.height / 2, innerHeight - 2));
      return !b.contains(at);
    }).map((b) => b.id || b.textContent);
    return { cardBottom: card.bottom, barTop: bar.top, height: innerHeight, covered };
  });
  assert.ok(first.cardBottom <= first.barTop, `the hand's first row (to ${first.cardBottom}) is above the held buttons (from ${first.barTop})`);
  assert.ok(first.barTop >= first.height - 80, `the held buttons take one low row (from ${first.barTop} of ${first.height})`);
  assert.deepEqual(first.covered, [], 'no card is drawn over the held buttons');
}

/**
 * Counts a person's clicks in every page of `context` from now on (mouse, tap, and Enter or
 * Space on a button: each is a trusted click event); clicksSoFar(page) reads the count, which a
 * page keeps while it moves between its views (#/...), since they are one document.
 */
export function countClicks(context) {
  return context.addInitScript(() => {
    window.__clicks = 0;
    addEventListener('click', (e) => { if (e.isTrusted) window.__clicks++; }, true);
  });
}

/** The clicks countClicks() has counted in `page`. */
export function clicksSoFar(page) {
  return page.evaluate(() => window.__clicks ?? 0);
}

/**
 * In the page: the names of `selector`'s elements that overflow their box, or whose words are
 * split over two lines; with `hyphens`, words are split at hyphens too (where German compounds
 * may break); with `whole`, the whole of each text is one word (a name that takes two lines
 * counts); elements whose font is at most `floorPx` are left out (the size below which a page
 * lets a long word break rather than shrink further).
 */
export function brokenNames(page, selector, { hyphens = false, whole = false, floorPx = 0 } = {}) {
  return page.evaluate(([sel, word, floor]) => {
    const bad = [];
    for (const el of document.querySelectorAll(sel)) {
      if (!el.getClientRects().length || parseFloat(getComputedStyle(el).fontSize) <= floor) continue;
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        for (const m of n.data.matchAll(new RegExp(word, 'g'))) {
          const r = document.createRange();
          r.setStart(n, m.index);
          r.setEnd(n, m.index + m[0].length);
          const tops = new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top)));
          if (tops.size > 1) bad.push(`"${m[0]}" broken in "${el.textContent}"`);
        }
      }
      if (el.scrollWidth > el.clientWidth + 1) bad.push(`"${el.textContent}" wider than its box`);
    }
    return bad;
  }, [selector, whole ? '[^\\n]+' : hyphens ? '[^\\s-]+' : '\\S+', floorPx]);
}

/** True when the document is no wider than the viewport. */
export function noHorizontalScroll(page) {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth
    && document.body.scrollWidth <= window.innerWidth);
}

/**
 * Presses Tab until the focused element has id `target` (a string) or passes `target` (a
 * function run in the page); throws after 60 presses.
 */
export async function tabTo(page, target) {
  const fn = typeof target === 'string' ? `(el) => el.id === ${JSON.stringify(target)}` : target.toString();
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    const ok = await page.evaluate((src) => {
      const el = document.activeElement;
      // eslint-disable-next-line no-new-func
      return !!el && new Function(`return (${src})`)()(el);
    }, fn);
    if (ok) return;
  }
  throw new Error(`Tab never reached ${fn}`);
}

/** Debian's chromium with the flags every browser test uses (CHROMIUM overrides the path). */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-dev-shm-usage'];

export function launchChromium(chromium) {
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

/**
 * Calls the API of the daemon at `base` (e.g. daemon.base): method, a path under /api/v1, an
 * optional bearer token and JSON body. Resolves to {status, json} (json null for an empty body).
 */
export async function callApi(base, method, path, { token, body } = {}) {
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const r = await fetch(`${base}/api/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : null };
}

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/**
 * Runs axe-core in `page` (its context made with bypassCSP: the page's CSP refuses the injected
 * script otherwise); resolves to its serious and critical violations, one line each.
 */
export async function axeSerious(page) {
  await page.addScriptTag({ path: AXE });
  const res = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')}: ${n.html.slice(0, 300)}`));
}
