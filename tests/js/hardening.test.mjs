// hardening.test.mjs: the browser side of the server's hardening, in Debian's headless Chromium
// (playwright-core) against a real daemon: a page served from ANOTHER origin (a tiny node http
// server on another loopback port) plays through the API cross-origin with a bearer token (the
// CORS preflight succeeds and the order is accepted); the page's Content-Security-Policy blocks an
// injected inline script and inline event handler; another origin cannot frame the page; and no
// token ever sits in the page's DOM.
//
//   make && CITY_ROOT=$PWD scripts/with-postgres.sh node --test tests/js/hardening.test.mjs

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { startDaemon } from './lib/daemon.mjs';
import { watchErrors, seatOf, launchChromium } from './browser-helpers.mjs';


let daemon;
let browser;
let other; // the other origin: { server, base }

before(async () => {
  daemon = await startDaemon();
  browser = await launchChromium(chromium);
  // Another origin: another port on loopback (the origin is scheme, host and port). Its one page
  // frames cityd's page when asked to (?frame).
  const server = createServer((req, res) => {
    const frame = req.url.includes('frame')
      ? `<iframe id="f" src="${daemon.base}/" width="400" height="300"></iframe>` : '';
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><title>another origin</title></head><body>${frame}</body></html>`);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  other = { server, base: `http://localhost:${server.address().port}` };
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
  await new Promise((ok) => other?.server.close(ok) ?? ok());
});

test('a page on another origin creates, joins and sends an order through CORS', { timeout: 60_000 }, async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = watchErrors(page);
  try {
    await page.goto(`${other.base}/`);
    const result = await page.evaluate(async (api) => {
      const json = { 'Content-Type': 'application/json' };
      const call = async (method, path, { body, token } = {}) => {
        const headers = { ...(body ? json : {}), ...(token ? { Authorization: `Bearer ${token}` } : {}) };
        const res = await fetch(api + path, { method, headers, body: body && JSON.stringify(body) });
        return { status: res.status, data: await res.json(), retryAfter: res.headers.get('Retry-After') };
      };
      const created = await call('POST', '/api/v1/games', { body: { seats: 2, bots: ['random'] } });
      const id = created.data.id;
      const joined = await call('POST', `/api/v1/games/${id}/join`, { body: { name: 'Faraway' } });
      const token = joined.data.token;
      const hand = await call('GET', `/api/v1/games/${id}/hand`, { token });
      const p = hand.data.pending;
      const order = { round: p.round, step: p.step, discard: hand.data.hand.slice(0, p.options.discard).map((c) => c.id) };
      const sent = await call('POST', `/api/v1/games/${id}/orders`, { body: order, token });
      // A problem reply is readable cross-origin too: its detail says what to do.
      const refused = await call('POST', `/api/v1/games/${id}/orders`, { body: { round: 99 }, token: 'not-a-token' });
      return { origin: location.origin, created: created.status, joined: joined.status, hand: hand.status, step: p.step, sent: sent.status, accepted: sent.data.accepted, refused: refused.status, refusedCode: refused.data.code };
    }, daemon.base);
    assert.notEqual(result.origin, daemon.base, 'the page is on another origin');
    assert.equal(result.created, 201);
    assert.equal(result.joined, 201);
    assert.equal(result.hand, 200, 'a GET with Authorization passes its preflight');
    assert.equal(result.sent, 202, `the ${result.step} order is accepted`);
    assert.equal(result.accepted, true);
    assert.equal(result.refused, 401);
    assert.equal(result.refusedCode, 'bad_token');
    // The one error Chromium logs is the deliberate 401's; a CORS refusal would log others.
    assert.deepEqual(errors.filter((e) => !/status of 401/.test(e)), [], 'no CORS or page errors');
    // Chromium preflighted the calls that carry Authorization or a JSON body: the daemon logged
    // an OPTIONS for the orders path and answered it 204.
    await new Promise((ok) => setTimeout(ok, 800)); // the access log is flushed every 250 ms
    const log = readFileSync(daemon.log, 'utf8');
    assert.match(log, /^OPTIONS "\/api\/v1\/games\/[0-9a-f]+\/orders" 204 .*route=options/m);
    assert.match(log, /^OPTIONS "\/api\/v1\/games\/[0-9a-f]+\/hand" 204 /m);
  } finally {
    await context.close();
  }
});

test('a cross-origin text/plain POST, sent without a preflight, creates nothing', { timeout: 30_000 }, async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    await page.goto(`${other.base}/`);
    const count = async () => {
      const l = await (await fetch(`${daemon.base}/api/v1/games`)).json();
      return (Array.isArray(l) ? l : l.games).length;
    };
    const before = await count();
    const status = await page.evaluate(async (api) => {
      // A "simple" request: no preflight, so the server itself must refuse it.
      const res = await fetch(`${api}/api/v1/games`, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: '{"seats": 2, "bots": ["random"]}' });
      return res.status;
    }, daemon.base);
    assert.equal(status, 415);
    assert.equal(await count(), before, 'no game was created');
  } finally {
    await context.close();
  }
});

test('the page\'s CSP blocks an injected inline script and inline handler', { timeout: 30_000 }, async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    await page.goto(`${daemon.base}/`);
    await page.waitForSelector('#create');
    const r = await page.evaluate(async () => {
      const violations = [];
      document.addEventListener('securitypolicyviolation', (e) => violations.push(e.effectiveDirective));
      const s = document.createElement('script');
      s.textContent = 'window.__injected = true;';
      document.body.append(s);
      const img = document.createElement('img');
      img.setAttribute('onerror', 'window.__handler = true');
      img.src = 'data:,not-an-image';
      document.body.append(img);
      const d = document.createElement('div');
      d.setAttribute('style', 'color: red');
      document.body.append(d);
      await new Promise((ok) => setTimeout(ok, 500));
      return { violations, script: window.__injected === true, handler: window.__handler === true,
        styled: getComputedStyle(d).color === 'rgb(255, 0, 0)' };
    });
    assert.equal(r.script, false, 'the injected inline script did not run');
    assert.equal(r.handler, false, 'the inline event handler did not run');
    assert.equal(r.styled, false, 'a style attribute is not applied');
    assert.ok(r.violations.includes('script-src-elem'), `a script-src violation was reported: ${r.violations}`);
    assert.ok(r.violations.includes('script-src-attr'), `a script-src-attr violation was reported: ${r.violations}`);
    assert.ok(r.violations.includes('style-src-attr'), `a style-src-attr violation was reported: ${r.violations}`);
  } finally {
    await context.close();
  }
});

test('another origin cannot frame the page', { timeout: 30_000 }, async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    await page.goto(`${other.base}/?frame`);
    await page.waitForSelector('#f');
    await page.waitForTimeout(500);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    // A refused frame shows Chromium's error page, never the lobby.
    const lobby = frame ? await frame.$('#create').catch(() => null) : null;
    assert.equal(lobby, null, 'the lobby did not render inside another origin\'s frame');
  } finally {
    await context.close();
  }
});

test('no token sits in the page\'s DOM while a game is played', { timeout: 60_000 }, async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = watchErrors(page);
  try {
    await page.goto(`${daemon.base}/`);
    await page.fill('#name', 'Tess');
    await page.selectOption('#seats', '2');
    await page.selectOption('#seat-kind-1', 'random');
    await page.click('#create');
    await page.waitForSelector('#action[data-state="keep"]');
    const { id, token } = await seatOf(page);
    const host = await page.evaluate((gid) => JSON.parse(localStorage.getItem(`city.host.${gid}`)), id);
    assert.ok(token && host, 'the tokens are in localStorage');
    const html = await page.evaluate(() => document.documentElement.outerHTML);
    assert.ok(!html.includes(token), 'the seat token is not in the DOM');
    assert.ok(!html.includes(host), 'the host token is not in the DOM');
    assert.deepEqual(errors, [], 'no console or page errors (no CSP violation)');
  } finally {
    await context.close();
  }
});
