// contract.test.mjs: checks the HTTP API of `cityd serve` against openapi/openapi.yaml, both
// ways. It starts a daemon (with --allow-seed), plays whole games through the API (one person
// and bots at 2..5 seats, driven only by the hand view; three people; deals searched for
// particular illegal orders; Tech City and SimCity at 1..6 seats, SimCity's refusals, and its
// ballots and bids checked as cast, in seat order), calls every operation and provokes every
// error it can, and validates every response: the status must be documented for the operation,
// the content type too, and the body must match the documented schema (objects are closed with
// additionalProperties: false, so an undocumented field fails). A reply of a game (view, hand,
// replay) is held to its own game's branch of the union, by the discriminator on `game`, and
// must fail every other game's branch; each game's events to that game's `Event`. Then the
// reverse: every operation was exercised and every documented (status, code) was produced,
// except a short list of codes that cannot be provoked from outside (each with its reason).
// Run: cd /work/main && make && CITY_ROOT=$PWD scripts/with-postgres.sh node --test tests/js/contract.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import YAML from 'yaml';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { startDaemon } from './lib/daemon.mjs';

const root = resolve(process.env.CITY_ROOT ?? join(import.meta.dirname, '..', '..'));
const cityd = process.env.CITYD ?? join(root, 'build', 'cityd');
const cardsFile = join(root, 'cards', 'cards.json');
const specText = readFileSync(join(root, 'openapi', 'openapi.yaml'), 'utf8');
const spec = YAML.parse(specText);

// ---- the spec as JSON Schema ------------------------------------------------------------------

// Ajv's discriminator picks a union's branch by its tag (each branch's const or enum of the
// tag, which Ajv insists on) and reports that branch's errors alone. It takes no `mapping`:
// 'the spec: unions by game...' below checks each mapping against the branches instead.
const ajv = new Ajv2020({ allErrors: true, strictTypes: false, allowUnionTypes: true, discriminator: true });
addFormats(ajv);

/** A deep copy of `schema` whose component refs point into the registered "spec" schema. */
function rewriteRefs(schema) {
  if (Array.isArray(schema)) return schema.map(rewriteRefs);
  if (schema === null || typeof schema !== 'object') return schema;
  const out = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')) {
      out[k] = `spec#/$defs/${v.slice('#/components/schemas/'.length)}`;
    } else if (k === 'discriminator') {
      out[k] = { propertyName: v.propertyName };
    } else {
      out[k] = rewriteRefs(v);
    }
  }
  return out;
}
ajv.addSchema({ $id: 'spec', $defs: rewriteRefs(spec.components.schemas) });

const validators = new Map();
function validatorOf(schema) {
  if (!validators.has(schema)) validators.set(schema, ajv.compile(rewriteRefs(schema)));
  return validators.get(schema);
}
function assertValid(schema, value, what) {
  const v = validatorOf(schema);
  if (!v(value)) {
    const errors = v.errors.slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message}` +
      (e.params?.additionalProperty ? ` "${e.params.additionalProperty}"` : '') +
      (e.params?.allowedValues ? ` ${JSON.stringify(e.params.allowedValues)}` : ''));
    assert.fail(`${what} does not match the spec: ${errors.join('; ')}\n` +
      JSON.stringify(value).slice(0, 1500));
  }
}

/** Follows a local $ref ("#/components/...") to its target. */
function deref(obj) {
  while (obj && obj.$ref) {
    obj = obj.$ref.slice(2).split('/').reduce((o, k) => o[k.replace(/~1/g, '/').replace(/~0/g, '~')], spec);
  }
  return obj;
}

/** The schema of component `name` ("the_city.Order"), as a ref the validators know. */
const schemaOf = (name) => {
  assert.ok(spec.components.schemas[name], `the spec has a schema ${name}`);
  return { $ref: `#/components/schemas/${name}` };
};
const bySchemaName = new Map(); // component name -> its ref, one object each, so validatorOf caches it
const componentRef = (name) => {
  if (!bySchemaName.has(name)) bySchemaName.set(name, schemaOf(name));
  return bySchemaName.get(name);
};

/** Every value of an enum schema, once, through refs and unions (IllegalDecisionCode). */
function enumOf(schema) {
  const s = deref(schema);
  if (!s) return [];
  return [...new Set([...(s.enum ?? []), ...[...(s.anyOf ?? []), ...(s.oneOf ?? [])].flatMap(enumOf)])];
}

/**
 * When `schema` is a union by `game` with a discriminator (PublicView, HandView, Replay,
 * ReplayRounds), checks `body` against its own game's branch, and that with its `game` set to
 * another game's it passes no other branch: the branches differ in shape, not only by the tag.
 */
function assertOwnGameBranch(schema, body, what) {
  const d = deref(schema)?.discriminator;
  if (d?.propertyName !== 'game' || typeof body?.game !== 'string') return;
  const own = d.mapping[body.game];
  assert.ok(own, `${what}: the union has a branch for ${body.game}`);
  const name = (ref) => ref.slice('#/components/schemas/'.length);
  assertValid(componentRef(name(own)), body, `${what} as ${name(own)}`);
  for (const [game, ref] of Object.entries(d.mapping)) {
    if (game === body.game) continue;
    assert.ok(!validatorOf(componentRef(name(ref)))({ ...body, game }),
      `${what}: a ${body.game} reply must not pass as ${name(ref)}, even with "game": "${game}"`);
  }
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
const pathTemplates = Object.keys(spec.paths).map((template) => ({
  template,
  re: new RegExp('^' + template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+') + '$'),
  item: spec.paths[template],
}));
const operations = pathTemplates.flatMap(({ template, item }) =>
  METHODS.filter((m) => item[m]).map((m) => ({ key: `${m.toUpperCase()} ${template}`, op: item[m] })));

/** The (status, code) pairs an operation documents, from its problem schemas' code enums. */
function documentedPairs(op) {
  const pairs = [];
  for (const [status, ref] of Object.entries(op.responses)) {
    const media = deref(ref).content?.['application/problem+json'];
    if (!media) { pairs.push(status); continue; }
    const codes = enumOf(media.schema.allOf?.[1]?.properties?.code);
    for (const c of codes) pairs.push(`${status} ${c}`);
  }
  return pairs;
}

// ---- calling the API and checking every answer ------------------------------------------------

let base;
let daemon;
const problemsSeen = new Map(); // "code detail" -> the problem body, every one the server sent
const produced = new Set(); // "GET /api/v1/games/{id} 404 game_not_found", "POST /api/v1/games 201"
const exercised = new Set();
const eventTypesSeen = new Set();
let validated = 0;

/** Checks one response against the spec; records coverage; returns the parsed body. */
function check(method, url, r, requestBody) {
  const pathname = new URL(url, base).pathname;
  const ctype = (r.headers.get('content-type') ?? '').split(';')[0].trim();
  const found = pathTemplates.find((p) => p.re.test(pathname));
  const op = found?.item[method.toLowerCase()];
  let response;
  let key;
  if (op) {
    key = `${method} ${found.template}`;
    response = op.responses[String(r.status)];
    assert.ok(response, `${key} answered ${r.status}, which it does not document: ${r.text.slice(0, 300)}`);
    response = deref(response);
    exercised.add(key);
  } else if (found) {
    key = `${method} ${found.template} (no such operation)`;
    assert.equal(r.status, 405, `${key} answered ${r.status}`);
    response = deref(spec['x-unrouted-responses']['405']);
    const allow = (r.headers.get('allow') ?? '').split(',').map((s) => s.trim()).sort();
    const documented = METHODS.filter((m) => found.item[m]).map((m) => m.toUpperCase()).sort();
    assert.deepEqual(allow, documented, `Allow of ${pathname} lists what the spec documents`);
  } else {
    key = `${method} (unknown path)`;
    assert.equal(r.status, 404, `${method} ${pathname} answered ${r.status}`);
    response = deref(spec['x-unrouted-responses']['404']);
  }
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    const value = r.headers.get(name);
    if (value !== null && header.schema) assertValid(header.schema, value, `${key} ${r.status} header ${name}`);
  }
  const media = response.content?.[ctype];
  assert.ok(media, `${key} ${r.status} answered ${ctype || 'no content type'}, which is not documented`);
  let body = r.text;
  if (ctype === 'application/json' || ctype === 'application/problem+json') {
    body = JSON.parse(r.text);
    assertValid(media.schema, body, `${key} ${r.status} body`);
    assertOwnGameBranch(media.schema, body, `${key} ${r.status} body`);
  } else {
    assertValid(media.schema, r.text, `${key} ${r.status} body`);
  }
  let code = '';
  if (ctype === 'application/problem+json') {
    assert.equal(body.status, r.status, 'a problem repeats its status');
    assert.equal(body.type, `/problems/${body.code}`, 'a problem type names its code');
    code = ` ${body.code}`;
    problemsSeen.set(`${body.code} ${body.detail}`, body);
  }
  if (key === 'GET /api/v1/games/{id}/events' && r.status === 200) {
    // One snapshot: the page's last_seq is the game's newest seq, never behind its own events.
    for (const e of body.events) assert.ok(e.seq <= body.last_seq, `event ${e.seq} is past last_seq ${body.last_seq}`);
  }
  if (op && r.status < 300 && requestBody !== undefined && op.requestBody) {
    const reqMedia = deref(op.requestBody).content['application/json'];
    assertValid(reqMedia.schema, requestBody, `${key} request body (accepted by the server)`);
  }
  produced.add(`${key} ${r.status}${code}`);
  validated++;
  return body;
}

/** One request through fetch: `body` is sent as JSON, `raw` as is. Returns {status, headers, text, json}. */
async function call(method, path, { body, raw, token, headers = {} } = {}) {
  const h = { ...headers };
  if (token) h.authorization = `Bearer ${token}`;
  let payload;
  if (raw !== undefined) { payload = raw; h['content-type'] ??= 'application/json'; }
  else if (body !== undefined) { payload = JSON.stringify(body); h['content-type'] = 'application/json'; }
  let res;
  try {
    res = await fetch(base + path, { method, headers: h, body: payload });
  } catch (e) {
    // fetch says only "fetch failed": name the request and undici's cause (a reset, a refusal)
    throw new Error(`${method} ${path}: ${e.message}: ${e.cause?.code ?? ''} ${e.cause?.message ?? e.cause ?? ''}`, { cause: e });
  }
  const r = { status: res.status, headers: res.headers, text: await res.text() };
  r.json = check(method, path, r, body);
  return r;
}

/** Like call(), but asserts the status (and the problem code, when given). */
async function expect(status, code, method, path, opts) {
  const r = await call(method, path, opts);
  assert.equal(r.status, status, `${method} ${path}: ${r.text.slice(0, 400)}`);
  if (code) assert.equal(r.json.code, code, `${method} ${path}: ${r.text.slice(0, 400)}`);
  return r.json;
}

/** A request through node:http, for what fetch will not send (a GET with a body). */
function rawRequest(method, path, headers, body) {
  return new Promise((ok, fail) => {
    let done = false;
    const req = http.request(base + path, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { text += c; });
      res.on('end', () => {
        done = true;
        const r = { status: res.statusCode, headers: { get: (n) => res.headers[n.toLowerCase()] ?? null }, text };
        try { r.json = check(method, path, r); ok(r); } catch (e) { fail(e); }
      });
    });
    req.on('error', (e) => { if (!done) fail(e); }); // the server may close before reading the body
    req.end(body);
  });
}

/** Parses a text/event-stream into messages and checks each event against the spec. */
function parseStream(text, eventSchema) {
  const messages = [];
  const chat = [];
  let retry = null;
  for (const block of text.split('\n\n')) {
    if (!block) continue;
    const m = {};
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) { m.comment = line.slice(1).trim(); continue; }
      const i = line.indexOf(':');
      const field = line.slice(0, i);
      const value = line.slice(i + 1).replace(/^ /, '');
      if (field === 'data') m.data = (m.data === undefined ? '' : m.data + '\n') + value;
      else m[field] = value;
    }
    if (m.retry !== undefined) { retry = Number(m.retry); continue; }
    if (m.data === undefined) continue;
    const data = JSON.parse(m.data);
    if (m.event === 'chat') { // table talk: a ChatMessage, with no id (Last-Event-ID stays the log's)
      assertValid(chatSchema, data, 'SSE chat message');
      assert.equal(m.id, undefined, 'a chat message on the stream has no id');
      chat.push(data);
      continue;
    }
    assertValid(eventSchema, data, `SSE event ${m.id}`);
    assert.equal(m.event, data.type, 'an SSE message is named by its event type');
    assert.equal(m.id, String(data.seq), 'an SSE message id is the event seq');
    eventTypesSeen.add(data.type);
    messages.push(data);
  }
  return { retry, events: messages, chat };
}

/** Reads the SSE stream of a game until `until(events)` holds, the stream ends, or `ms` pass. */
const eventSchemaOf = (game) => componentRef(`${game}.Event`);
const chatSchema = componentRef('ChatMessage');

async function readStream(id, { headers = {}, query = '', until = () => false, ms = 5000, started, game } = {}) {
  const path = `/api/v1/games/${id}/stream${query}`;
  const ac = new AbortController();
  const res = await fetch(base + path, { headers, signal: ac.signal });
  const r = { status: res.status, headers: res.headers, text: '' };
  if (res.status !== 200) {
    r.text = await res.text();
    r.json = check('GET', path, r);
    return r;
  }
  assert.equal(res.headers.get('x-accel-buffering'), 'no', 'SSE asks proxies not to buffer');
  started?.();
  // The documented x-event-data (any game's event), or, when the caller knows the game, exactly
  // that game's event schema.
  const schema = game ? eventSchemaOf(game)
    : deref(spec.paths['/api/v1/games/{id}/stream'].get.responses['200']).content['text/event-stream']['x-event-data'];
  const decoder = new TextDecoder();
  const timer = setTimeout(() => ac.abort(), ms);
  r.ended = false;
  // The messages so far, each parsed and checked once as its block completes (a whole game's
  // stream arrives in thousands of reads: parsing all of it again at each read was quadratic,
  // most of the contract test's CPU); the whole text is parsed once more at the end.
  const events = [];
  const chat = [];
  let parsedTo = 0;
  try {
    const reader = res.body.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) { r.ended = true; break; }
      r.text += decoder.decode(value, { stream: true });
      const end = r.text.lastIndexOf('\n\n') + 2;
      if (end <= parsedTo) continue;
      const parsed = parseStream(r.text.slice(parsedTo, end), schema);
      parsedTo = end;
      events.push(...parsed.events);
      chat.push(...parsed.chat);
      if (until(events, chat)) break;
    }
  } catch (e) {
    if (e.name !== 'AbortError') throw e;
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  r.text = r.text.slice(0, r.text.lastIndexOf('\n\n') + 2);
  check('GET', path, r);
  Object.assign(r, parseStream(r.text, schema));
  return r;
}

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

// ---- a client that plays from the hand view only ---------------------------------------------

const orderSchema = deref(spec.paths['/api/v1/games/{id}/orders'].post.requestBody).content['application/json'].schema;
const cityOrder = componentRef('the_city.Order');

/** Orders to try for a hand view's pending decision, best first; the last one is always legal. */
function candidateOrders(hand) {
  const p = hand.pending;
  const base0 = { round: p.round, step: p.step };
  const ids = hand.hand.map((c) => c.id);
  if ('discard' in p.options) return [{ ...base0, discard: ids.slice(0, p.options.discard) }];
  const out = [];
  const builds = [...p.options.builds].sort((a, b) => b.cost - a.cost);
  if (p.options.double) {
    for (let i = 0; i < builds.length && out.length < 3; i++) {
      for (let j = 0; j < builds.length && out.length < 3; j++) {
        const a = builds[i];
        const b = builds[j];
        if (i === j || a.cost + b.cost > ids.length - 2) continue;
        const rest = ids.filter((x) => x !== a.id && x !== b.id);
        out.push({ ...base0, builds: [{ card: a.id, pay: rest.slice(0, a.cost) },
          { card: b.id, pay: rest.slice(a.cost, a.cost + b.cost) }] });
      }
    }
  }
  if (builds.length) {
    const b = builds[0];
    out.push({ ...base0, build: { card: b.id, pay: ids.filter((x) => x !== b.id).slice(0, b.cost) } });
  }
  if (p.options.contractor) out.push({ ...base0, contractor: true });
  out.push({ ...base0, survey: true });
  return out;
}

/** Plays one seat to the end of the game, reading only the hand view. Returns orders accepted. */
async function playSeat(id, token) {
  let accepted = 0;
  for (let i = 0; i < 20000; i++) {
    const hand = (await expect(200, null, 'GET', `/api/v1/games/${id}/hand`, { token }));
    if (hand.status === 'finished') {
      assert.equal(hand.pending, null, 'nothing to decide once the game is over');
      return accepted;
    }
    if (!hand.pending || hand.order) { await sleep(5); continue; } // others must decide first
    for (const order of candidateOrders(hand)) {
      assertValid(orderSchema, order, 'an order the client builds from the hand view');
      assertValid(cityOrder, order, 'an order of The City');
      const r = await call('POST', `/api/v1/games/${id}/orders`, { token, body: order });
      if (r.status === 202) { accepted++; break; }
      if (r.status === 409) { assert.equal(r.json.code, 'stale_step'); break; } // the game moved on: re-read
      assert.equal(r.status, 422, r.text);
    }
  }
  throw new Error(`game ${id} did not end`);
}

/** Every event of a game through /events, paged; checks seq is 1..n without gaps. With `events`
 * (what an earlier call returned), reads on from its last event and appends to it: a reader that
 * follows a game being played checks each new page as one snapshot without fetching and
 * validating the whole log again each time (that made the contract test's CPU quadratic). */
async function allEvents(id, game, events = []) {
  const from = events.length;
  let last = from ? events.at(-1).seq : 0;
  for (;;) {
    const page = await expect(200, null, 'GET', `/api/v1/games/${id}/events?after=${last}`);
    if (game) for (const e of page.events) assertValid(eventSchemaOf(game), e, `a ${game} event ${e.seq}`);
    events.push(...page.events);
    for (const e of page.events) eventTypesSeen.add(e.type);
    if (!page.events.length || page.events.at(-1).seq >= page.last_seq) {
      assert.equal(events.length ? events.at(-1).seq : 0, page.last_seq, 'the log reaches last_seq');
      break;
    }
    last = page.events.at(-1).seq;
  }
  for (let i = from; i < events.length; i++) assert.equal(events[i].seq, i + 1, 'event sequence numbers have no gaps');
  return events;
}

/** Checks a finished game: its view, log, stream, replay (replayed with cityd), hand views. */
async function verifyFinished(id, tokens) {
  const view = await expect(200, null, 'GET', `/api/v1/games/${id}`);
  assert.equal(view.status, 'finished');
  assert.equal(view.step, 'over');
  assert.ok(view.winners.length > 0 && view.ended_by !== null && view.seed, 'a finished game names winners and seed');
  const events = await allEvents(id, view.game);
  checkDescriptor(view, events);
  assert.equal(events[0].type, 'created');
  assert.equal(events.at(-1).type, 'game_over');
  assert.deepEqual(events.at(-1).winners, view.winners);
  assert.equal(events.at(-1).seq, view.last_seq);

  const whole = await readStream(id, { ms: 5000, game: view.game });
  assert.equal(whole.status, 200);
  assert.ok(whole.ended, 'the stream of a finished game ends after game_over');
  assert.equal(whole.retry, 2000);
  assert.deepEqual(whole.events, events, 'the stream carries the same events as /events');
  const k = Math.max(0, events.length - 3);
  const resumed = await readStream(id, { headers: { 'last-event-id': String(k) }, ms: 5000 });
  assert.deepEqual(resumed.events, events.slice(k), 'Last-Event-ID resumes after that event');

  const replay = await expect(200, null, 'GET', `/api/v1/games/${id}/replay`);
  const rounds = await expect(200, null, 'GET', `/api/v1/games/${id}/replay/rounds`);
  assert.equal(rounds.game, view.game);
  assert.deepEqual(rounds.rounds.at(-1).view.seats.map((s) => s.vp), view.seats.map((s) => s.vp), 'the last round is the final score');
  assert.deepEqual(rounds.seats.map((s) => s.name), view.seats.map((s) => s.name));
  assert.equal(replay.seed, view.seed);
  assert.equal(replay.players, view.players);
  const dir = mkdtempSync(join(tmpdir(), 'city-replay-'));
  try {
    writeFileSync(join(dir, 'replay.json'), JSON.stringify(replay));
    const replayed = JSON.parse(execFileSync(cityd, ['replay', join(dir, 'replay.json'), '--cards', cardsFile]));
    for (const [key, value] of Object.entries(replayed)) {
      if (key === 'seats') continue;
      assert.deepEqual(view[key], value, `the replay reproduces ${key}`);
    }
    replayed.seats.forEach((seat, i) => {
      for (const [key, value] of Object.entries(seat)) assert.deepEqual(view.seats[i][key], value, `the replay reproduces seats[${i}].${key}`);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const token of tokens) {
    const hand = await expect(200, null, 'GET', `/api/v1/games/${id}/hand`, { token });
    assert.equal(hand.status, 'finished');
    assert.equal(hand.pending, null);
  }
  return { view, events };
}

// ---- fixtures ---------------------------------------------------------------------------------

let catalog; // design id -> card
const cardOf = (name) => catalog.get(name);
let other; // a game whose tokens belong to "another game"
const longId = 'a'.repeat(70); // longer than the router takes for {id}
const noGame = 'ffffffffffffffff';
const fakeToken = '0'.repeat(64);
let limitFound = false;
let descriptors = new Map(); // GET /api/v1/rulesets by game id, once read

/** Checks what a finished game shows against its ruleset's descriptor: every event type it
 * logged is declared, and the score and rank keys are fields of every seat. */
function checkDescriptor(view, events) {
  const r = descriptors.get(view.game ?? 'the_city');
  if (!r) return;
  for (const e of events) assert.ok(r.event_types.includes(e.type), `${r.id} logged ${e.type}, which its descriptor does not list`);
  for (const seat of view.seats) for (const k of r.rank.keys) assert.equal(typeof seat[k], 'number', `${r.id}: seats[].${k}`);
}

before(async () => {
  daemon = await startDaemon({ extraArgs: ['--allow-seed'] });
  base = daemon.base;
});

after(async () => {
  await daemon?.stop();
});

// ---- the tests --------------------------------------------------------------------------------

test('every example in the spec matches its schema', () => {
  let n = 0;
  const media = [];
  for (const { key, op } of operations) {
    if (op.requestBody) for (const [t, m] of Object.entries(deref(op.requestBody).content)) media.push([`${key} request ${t}`, t, m]);
    for (const [s, r] of Object.entries(op.responses)) {
      for (const [t, m] of Object.entries(deref(r).content ?? {})) media.push([`${key} ${s} ${t}`, t, m]);
    }
  }
  for (const [s, r] of Object.entries(spec['x-unrouted-responses'])) {
    for (const [t, m] of Object.entries(deref(r).content)) media.push([`unrouted ${s} ${t}`, t, m]);
  }
  for (const [what, type, m] of media) {
    for (const [name, ex] of Object.entries(m.examples ?? {})) {
      const value = deref(ex).value;
      if (type === 'text/event-stream') parseStream(value, m['x-event-data']);
      else assertValid(m.schema, value, `example ${name} of ${what}`);
      n++;
    }
  }
  assert.ok(n > 50, `${n} examples checked`);
});

test('the spec reads the same to a YAML 1.1 parser (PyYAML, Go\'s yaml.v2): no bare yes, no or y that one reads as a boolean', () => {
  // YAML 1.2 (this file's reader, Redocly's) reads yes, no and y as strings; 1.1 as booleans,
  // so a client generated from the spec would send "ballots": [true] and lose the "y" field.
  const old = YAML.parse(specText, { version: '1.1', uniqueKeys: false });
  assert.deepEqual(old, spec);
});

test('the spec: unions by game have one branch per game, named by it; discriminators map each tag to its branch', () => {
  const games = spec.components.schemas.GameKind.enum;
  const schemas = spec.components.schemas;
  const refName = (b) => b?.$ref?.startsWith('#/components/schemas/') ? b.$ref.slice('#/components/schemas/'.length) : null;
  for (const name of Object.keys(schemas)) {
    const dot = name.indexOf('.');
    if (dot > 0) assert.ok(games.includes(name.slice(0, dot)), `${name} is named by a game of GameKind`);
  }
  // A union by game: every branch is GAME.Same, one GAME each (PublicView: the_city.PublicView, ...).
  const unions = [];
  for (const [name, s] of Object.entries(schemas)) {
    const branches = (s.oneOf ?? s.anyOf ?? []).map(refName);
    const parts = branches.map((b) => b && /^([a-z0-9_]+)\.(.+)$/.exec(b));
    if (!branches.length || !parts.every(Boolean)) continue;
    if (new Set(parts.map((m) => m[2])).size !== 1 || new Set(parts.map((m) => m[1])).size !== parts.length) continue;
    unions.push(name);
    assert.deepEqual(parts.map((m) => m[1]).sort(), [...games].sort(), `${name} has one branch per game`);
  }
  assert.ok(unions.length >= 9, `unions by game: ${unions}`);
  // docs/rulesets.md's "Adding a game" lists every union a new game adds a line to.
  const docs = readFileSync(join(root, 'docs', 'rulesets.md'), 'utf8');
  const adding = docs.slice(docs.indexOf('## Adding a game'));
  for (const name of unions) assert.ok(adding.includes(`\`${name}\``), `docs/rulesets.md, Adding a game, names the union ${name}`);
  // Each discriminator's mapping names, for every tag value, the branch that holds it.
  let mapped = 0;
  for (const [name, s] of Object.entries(schemas)) {
    if (!s.discriminator) continue;
    const tag = s.discriminator.propertyName;
    const want = {};
    for (const b of s.oneOf) {
      const p = deref(b).properties[tag];
      for (const v of p.enum ?? [p.const]) want[v] = b.$ref;
    }
    assert.deepEqual(s.discriminator.mapping, want, `${name}: the mapping of ${tag} follows the branches`);
    if (tag === 'game') assert.deepEqual(Object.keys(want).sort(), [...games].sort(), `${name} has a branch for every game`);
    mapped++;
  }
  assert.ok(mapped >= 9, `${mapped} discriminators checked`);
});

test('operations: health, metrics, cards, this spec, the page', async () => {
  const health = await expect(200, null, 'GET', '/healthz');
  assert.deepEqual(health, { status: 'ok', database: 'ok' });
  const metrics = await expect(200, null, 'GET', '/metrics');
  assert.match(metrics, /^city_http_requests_total\{route="healthz",status="200"\} \d+$/m);
  assert.match(metrics, /^city_games\{status="open"\} \d+$/m);
  assert.match(metrics, /^city_store_conflicts_total \d+$/m, 'the retry policy counts its conflicts');
  const cards = await call('GET', '/api/v1/cards');
  assert.equal(cards.status, 200);
  assert.equal(cards.headers.get('cache-control'), 'public, max-age=300');
  catalog = new Map(cards.json.cards.map((c) => [c.id, c]));
  assert.equal(cards.json.designs, cards.json.cards.length);
  assert.equal(cards.json.total, cards.json.cards.reduce((s, c) => s + c.count, 0));
  const named = await expect(200, null, 'GET', '/api/v1/cards?game=the_city');
  assert.deepEqual(named, cards.json, 'The City is the default catalog');
  await expect(400, 'bad_query', 'GET', '/api/v1/cards?game=chess');
  const rulesets = await expect(200, null, 'GET', '/api/v1/rulesets');
  descriptors = new Map(rulesets.rulesets.map((r) => [r.id, r]));
  assert.equal(rulesets.default, 'the_city');
  assert.ok(rulesets.rulesets.some((r) => r.id === 'the_city' && r.min_players === 2 && r.max_players === 5));
  // The expert's levels, weakest first, none thinking longer than the top one.
  assert.deepEqual(rulesets.bot_levels.map((l) => l.id), ['easy', 'normal', 'expert']);
  assert.equal(rulesets.default_bot_level, 'expert');
  const top = rulesets.bot_levels.at(-1).think_ms;
  assert.ok(rulesets.bot_levels.every((l) => l.think_ms <= top), 'no level thinks longer than the top one');
  // The descriptor's score and rank name fields every seat of the game's public view has, its
  // event types hold the service's, and each decision step has a clock share.
  for (const r of rulesets.rulesets) {
    assert.equal(r.rank.keys[0], r.score.field, `${r.id}: the score ranks first`);
    for (const t of ['created', 'joined', 'started', 'submitted', 'step', 'forced', 'default', 'game_over']) {
      assert.ok(r.event_types.includes(t), `${r.id} lists ${t}`);
    }
    assert.deepEqual(r.deadlines.map((d) => d.step), r.steps.filter((x) => x !== 'over'));
  }
  // The descriptor's options: a game created without them gets each one's default at its seat
  // count, and says so in `options`.
  for (const r of rulesets.rulesets) {
    for (const seats of [r.min_players, r.max_players]) {
      const made = await expect(201, null, 'POST', '/api/v1/games', { body: { game: r.id, seats } });
      const want = Object.fromEntries(r.options.map((o) => [o.name, o.by_players.find((b) => b.players === seats).default]));
      assert.deepEqual(made.options, want, `${r.id} at ${seats} seats takes its declared defaults`);
      for (const o of r.options) {
        assert.deepEqual(o.by_players.map((b) => b.players), Array.from({ length: r.max_players - r.min_players + 1 }, (_, i) => r.min_players + i));
      }
    }
  }
  const leveled = await expect(201, null, 'POST', '/api/v1/games', { body: { seats: 2, bots: ['expert'], bot_level: 'normal' } });
  assert.equal(leveled.bot_level, 'normal');
  assert.equal((await expect(200, null, 'GET', `/api/v1/games/${leveled.id}`)).bot_level, 'normal');
  const served = await expect(200, null, 'GET', '/openapi.yaml');
  assert.deepEqual(YAML.parse(served), spec, '/openapi.yaml serves this file');
  const page = await call('GET', '/');
  assert.equal(page.status, existsSync(join(root, 'web', 'index.html')) ? 200 : 404);
});

test('creating, listing and joining games, and their errors', async () => {
  const create = (opts) => call('POST', '/api/v1/games', opts);
  for (const [raw, code] of [['{"seats":', 'malformed_json'], ['', 'malformed_json'], ['[1]', 'not_an_object'], ['"x"', 'not_an_object']]) {
    assert.equal((await create({ raw })).json.code, code, `create with ${JSON.stringify(raw)}`);
  }
  const bad = [
    [{}, 'missing_field'], [{ seats: 2, colour: 'red' }, 'unknown_field'], [{ seats: '2' }, 'wrong_type'],
    [{ seats: 2.5 }, 'wrong_type'], [{ seats: 9 }, 'bad_value'], [{ seats: 1 }, 'bad_value'],
    [{ seats: 2, bots: ['greedy', 'greedy'] }, 'bad_value'], [{ seats: 3, bots: ['smart'] }, 'bad_value'],
    [{ seats: 2, bots: 'greedy' }, 'wrong_type'], [{ seats: 2, name: 'x'.repeat(41) }, 'bad_value'],
    [{ seats: 2, name: 7 }, 'wrong_type'], [{ seats: 2, seed: -1 }, 'bad_value'], [{ seats: 2, seed: '12a' }, 'bad_value'],
    [{ seats: 2, target_vp: 0 }, 'bad_value'], [{ seats: 2, turn_seconds: 2 }, 'bad_value'],
    [{ seats: 2, bots: ['expert'], bot_level: 'hard' }, 'bad_value'], [{ seats: 2, bot_level: 2 }, 'wrong_type'],
  ];
  for (const [body, code] of bad) await expect(400, code, 'POST', '/api/v1/games', { body });

  // A server without --allow-seed refuses seeds.
  const strict = await startDaemon();
  try {
    const res = await fetch(`${strict.base}/api/v1/games`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seats: 2, seed: 1 }) });
    const r = { status: res.status, headers: res.headers, text: await res.text() };
    r.json = check('POST', '/api/v1/games', r);
    assert.equal(r.json.code, 'seed_not_allowed');
  } finally {
    await strict.stop();
  }

  // A server that keeps one stream per game answers a second with 503 too_many_streams.
  const capped = await startDaemon({ extraArgs: ['--max-streams-per-game', '1'] });
  try {
    const made = await fetch(`${capped.base}/api/v1/games`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seats: 2 }),
    });
    const { id } = await made.json();
    const first = new AbortController();
    const open = await fetch(`${capped.base}/api/v1/games/${id}/stream`, { signal: first.signal });
    assert.equal(open.status, 200);
    const res = await fetch(`${capped.base}/api/v1/games/${id}/stream`);
    const r = { status: res.status, headers: res.headers, text: await res.text() };
    r.json = check('GET', `/api/v1/games/${id}/stream`, r);
    assert.equal(r.json.code, 'too_many_streams');
    assert.ok(Number(res.headers.get('retry-after')) > 0, 'a refused stream says when to retry');
    first.abort();
  } finally {
    await capped.stop();
  }

  const g = await expect(201, null, 'POST', '/api/v1/games', { body: { seats: 2, target_vp: 30, seed: '12345' } });
  assert.equal(g.status, 'open');
  assert.equal(g.join, `/api/v1/games/${g.id}/join`);
  assert.ok(!('token' in g), 'no seat token without name');
  const list = await expect(200, null, 'GET', '/api/v1/games');
  const listed = list.games.find((x) => x.id === g.id);
  assert.ok(listed && listed.status === 'open' && listed.seats_free === 2);
  assert.equal(list.games[0].status, 'open', 'open games come first');
  // Pages: one game at a time, the same order as the whole list; filters; a bad query is 400.
  const first = await expect(200, null, 'GET', '/api/v1/games?limit=1');
  assert.deepEqual(first.games.map((x) => x.id), list.games.slice(0, 1).map((x) => x.id));
  if (list.games.length > 1) {
    assert.equal(typeof first.next, 'string');
    const second = await expect(200, null, 'GET', `/api/v1/games?limit=1&after=${encodeURIComponent(first.next)}`);
    assert.deepEqual(second.games.map((x) => x.id), list.games.slice(1, 2).map((x) => x.id));
  }
  const twos = await expect(200, null, 'GET', '/api/v1/games?seats=2&game=the_city');
  assert.ok(twos.games.some((x) => x.id === g.id) && twos.games.every((x) => x.players === 2 && x.game === 'the_city'));
  for (const q of ['limit=0', 'seats=7', 'game=chess', 'after=nonsense']) await expect(400, 'bad_query', 'GET', `/api/v1/games?${q}`);
  const view = await expect(200, null, 'GET', `/api/v1/games/${g.id}`);
  assert.deepEqual(view.seats.map((s) => s.name), [null, null]);
  assert.ok(!('seed' in view), 'the seed is secret while the game is not finished');

  const join = (opts) => call('POST', `/api/v1/games/${g.id}/join`, opts);
  for (const [raw, code] of [['{"name"', 'malformed_json'], ['', 'malformed_json'], ['["Ada"]', 'not_an_object']]) {
    assert.equal((await join({ raw })).json.code, code);
  }
  for (const [body, code] of [[{}, 'missing_field'], [{ name: 'Ada', seat: 1 }, 'unknown_field'], [{ name: 5 }, 'wrong_type'],
    [{ name: '  ' }, 'bad_value'], [{ name: 'a\u0001b' }, 'bad_value'], [{ name: 'é'.repeat(41) }, 'bad_value']]) {
    await expect(400, code, 'POST', `/api/v1/games/${g.id}/join`, { body });
  }
  await expect(404, 'game_not_found', 'POST', `/api/v1/games/${noGame}/join`, { body: { name: 'Ada' } });
  const a = await expect(201, null, 'POST', `/api/v1/games/${g.id}/join`, { body: { name: ' Ada ' } });
  assert.deepEqual([a.seat, a.status], [0, 'open']);
  await expect(409, 'name_taken', 'POST', `/api/v1/games/${g.id}/join`, { body: { name: 'ADA' } });
  const b = await expect(201, null, 'POST', `/api/v1/games/${g.id}/join`, { body: { name: 'Bob' } });
  assert.deepEqual([b.seat, b.status], [1, 'playing']);
  await expect(409, 'game_full', 'POST', `/api/v1/games/${g.id}/join`, { body: { name: 'Cy' } });
  const started = await expect(200, null, 'GET', `/api/v1/games/${g.id}`);
  assert.deepEqual(started.seats.map((s) => s.name), ['Ada', 'Bob'], 'names are trimmed');
  other = { id: g.id, tokens: [a.token, b.token], host: g.host_token };
});

test('one person and bots at 2..5 seats, played from the hand view only', async (t) => {
  const kinds = ['greedy', 'random', 'greedy', 'random'];
  await Promise.all([2, 3, 4, 5].map(async (seats) => {
    const g = await expect(201, null, 'POST', '/api/v1/games',
      { body: { seats, bots: kinds.slice(0, seats - 1), name: `Solo ${seats}`, seed: 500 + seats } });
    assert.deepEqual([g.status, g.seat, g.bots], ['playing', 0, seats - 1]);
    const accepted = await playSeat(g.id, g.token);
    assert.ok(accepted > 3, `the person decided ${accepted} times`);
    const { view, events } = await verifyFinished(g.id, [g.token]);
    t.diagnostic(`${seats} seats: ${view.round} rounds, ${events.length} events, ${accepted} orders, ended by ${view.ended_by}, vp ${view.seats.map((s) => s.vp).join('/')}`);
    assert.deepEqual(view.seats.map((s) => s.bot), [null, ...kinds.slice(0, seats - 1)]);
  }));
});

test('three people: live stream, replaced orders, stale and idle orders, a forced step', async () => {
  const g = await expect(201, null, 'POST', '/api/v1/games', { body: { seats: 3, target_vp: 25, turn_seconds: 3600, seed: 77 } });
  const made = await call('POST', '/api/v1/games', { body: { seats: 2 } });
  assert.equal(made.headers.get('location'), `/api/v1/games/${made.json.id}`, 'a 201 says where the new game is');
  let streamOpen;
  const opened = new Promise((ok) => { streamOpen = ok; });
  const live = readStream(g.id, { until: (ev) => ev.some((e) => e.type === 'started'), ms: 8000, started: streamOpen });
  await opened;
  const joins = [];
  joins.push(await expect(201, null, 'POST', `/api/v1/games/${g.id}/join`, { body: { name: 'Ana' } }));
  joins.push(await expect(201, null, 'POST', `/api/v1/games/${g.id}/join`, { body: { name: 'Ben' } }));
  const [A, B] = joins.map((j) => j.token);
  const id = g.id;
  const hand = (token) => expect(200, null, 'GET', `/api/v1/games/${id}/hand`, { token });
  const order = (token, body) => call('POST', `/api/v1/games/${id}/orders`, { token, body });

  // Open: nothing to decide yet.
  const early = await hand(A);
  assert.deepEqual([early.status, early.pending], ['open', null]);
  await expect(409, 'game_not_started', 'POST', `/api/v1/games/${id}/orders`, { token: A, body: { round: 0, step: 'keep', discard: early.hand.slice(0, 2).map((c) => c.id) } });
  const keepStep = { round: 0, step: 'keep' };
  await expect(409, 'game_not_started', 'POST', `/api/v1/games/${id}/resolve`, { token: g.host_token, body: keepStep });
  await expect(409, 'game_not_started', 'POST', `/api/v1/games/${id}/resolve`, { token: A, body: keepStep });

  joins.push(await expect(201, null, 'POST', `/api/v1/games/${id}/join`, { body: { name: 'Cleo' } }));
  const C = joins[2].token;
  assert.equal(joins[2].status, 'playing');
  const stream = await live;
  assert.deepEqual(stream.events.map((e) => e.type), ['created', 'joined', 'joined', 'joined', 'started'], 'the stream delivers events live');

  const view = await expect(200, null, 'GET', `/api/v1/games/${id}`);
  assert.equal(typeof view.deadline, 'number', 'a game with turn_seconds has a deadline');
  assert.ok(!('seed' in view));

  // Keep: A sends, then replaces its order; the hand view shows the latest.
  const ha = await hand(A);
  const { suggestion, ...asked } = ha.pending;
  assert.deepEqual(asked, { round: 0, step: 'keep', options: { discard: 2 } });
  assert.equal(suggestion.discard.length, 2, 'the suggestion is a complete keep order');
  assert.ok(suggestion.discard.every((c) => ha.hand.some((h) => h.id === c)), 'it discards cards of the hand');
  const ids = ha.hand.map((c) => c.id);
  let r = await order(A, { round: 0, step: 'keep', discard: [ids[0], ids[1]] });
  assert.equal(r.status, 202);
  r = await order(A, { round: 0, step: 'keep', discard: [ids[2], ids[3]] });
  assert.deepEqual([r.status, r.json.resolved], [202, false]);
  assert.deepEqual((await hand(A)).order, { round: 0, step: 'keep', discard: [ids[2], ids[3]] });
  for (const t of [B, C]) {
    const h = await hand(t);
    r = await order(t, { round: 0, step: 'keep', discard: h.hand.slice(0, 2).map((c) => c.id) });
    assert.equal(r.status, 202);
  }
  assert.deepEqual([r.json.resolved, r.json.game.round, r.json.game.step], [true, 1, 'build']);
  const afterKeep = await hand(A);
  assert.deepEqual(afterKeep.hand.map((c) => c.id).sort(), ids.filter((x) => x !== ids[2] && x !== ids[3]).sort(), 'the replacing order took effect');
  await expect(409, 'stale_step', 'POST', `/api/v1/games/${id}/orders`, { token: A, body: { round: 0, step: 'keep', discard: [ids[0], ids[1]] } });

  // Round 1: A surveys, B and C take contractors; then only A has a survey step to decide.
  assert.equal((await order(A, { round: 1, step: 'build', survey: true })).status, 202);
  assert.equal((await order(B, { round: 1, step: 'build', contractor: true })).status, 202);
  r = await order(C, { round: 1, step: 'build', contractor: true });
  assert.deepEqual([r.status, r.json.resolved, r.json.game.step], [202, true, 'survey']);
  const hb = await hand(B);
  assert.equal(hb.pending, null, 'B did not survey');
  await expect(409, 'nothing_to_decide', 'POST', `/api/v1/games/${id}/orders`, { token: B, body: { round: 1, step: 'survey', discard: [hb.hand[0].id] } });
  const hs = await hand(A);
  assert.equal(hs.pending.step, 'survey');
  r = await order(A, { round: 1, step: 'survey', discard: hs.hand.slice(0, hs.pending.options.discard).map((c) => c.id) });
  assert.equal(r.status, 202);
  const pub = await expect(200, null, 'GET', `/api/v1/games/${id}`);
  assert.deepEqual(pub.seats.map((s) => s.last.action), ['survey', 'contractor', 'contractor']);
  assert.equal(pub.contractors_left, 1);

  // Round 2: the host forces the build step, named in the body; everyone gets the default
  // (survey). Another game's tokens (a seat's or the host's) are 403; a stale step is 409.
  const resolvePath = `/api/v1/games/${id}/resolve`;
  const build2 = { round: 2, step: 'build' };
  await expect(403, 'wrong_game', 'POST', resolvePath, { token: other.tokens[0], body: build2 });
  await expect(403, 'wrong_game', 'POST', resolvePath, { token: other.host, body: build2 });
  await expect(409, 'not_overdue', 'POST', resolvePath, { token: A, body: build2 });
  for (const [raw, code] of [['{"round":2,', 'malformed_json'], ['[2, "build"]', 'not_an_object']]) {
    await expect(400, code, 'POST', resolvePath, { token: g.host_token, raw });
  }
  for (const [body, code] of [[undefined, 'missing_field'], [{}, 'missing_field'], [{ round: 2 }, 'missing_field'],
    [{ ...build2, all: true }, 'unknown_field'], [{ round: '2', step: 'build' }, 'wrong_type'],
    [{ round: 2, step: 'over' }, 'bad_value']]) {
    await expect(400, code, 'POST', resolvePath, { token: g.host_token, body });
  }
  const unnamed = await expect(400, 'missing_field', 'POST', resolvePath, { token: g.host_token });
  assert.match(unnamed.detail, /send \{"round": 2, "step": "build"\} for the current one/, 'the detail names the step to force');
  const stale = await expect(409, 'stale_step', 'POST', resolvePath, { token: g.host_token, body: { round: 1, step: 'survey' } });
  assert.match(stale.detail, /round 2, step build/, 'the detail names the current step');
  const before = (await allEvents(id)).length;
  const forced = await expect(200, null, 'POST', resolvePath, { token: g.host_token, body: build2 });
  assert.equal(forced.step, 'survey');
  assert.ok(forced.seats.every((s) => s.last.action === 'survey' && s.last.default), 'defaults are public');
  await expect(409, 'stale_step', 'POST', resolvePath, { token: g.host_token, body: build2 });
  const log = await allEvents(id);
  const news = log.slice(before);
  assert.deepEqual(news.filter((e) => e.type === 'forced').map((e) => [e.round, e.step, e.by, e.seats]), [[2, 'build', 'host', [0, 1, 2]]]);
  assert.deepEqual(news.filter((e) => e.type === 'default').map((e) => [e.seat, e.by]), [[0, 'host'], [1, 'host'], [2, 'host']]);
  assert.equal(log.filter((e) => e.type === 'default' && e.round === 2).length, 3);
  const told = await hand(A);
  assert.deepEqual(told.defaulted, { round: 2, step: 'build', reason: 'forced_by_host', by: 'host', chosen: { round: 2, step: 'build', survey: true }, cards: [] });

  // The rest, each person on their own, concurrently.
  await Promise.all([A, B, C].map((t) => playSeat(id, t)));
  await verifyFinished(id, [A, B, C]);
  await expect(409, 'game_over', 'POST', `/api/v1/games/${id}/orders`, { token: A, body: { round: 3, step: 'build', survey: true } });
  await expect(409, 'game_over', 'POST', `/api/v1/games/${id}/resolve`, { token: g.host_token, body: { round: 3, step: 'build' } });
  await expect(409, 'game_full', 'POST', `/api/v1/games/${id}/join`, { body: { name: 'Late' } });
  const replay = await expect(200, null, 'GET', `/api/v1/games/${id}/replay`);
  assert.equal(replay.decisions.filter((d) => d.default).length, 3, 'the replay marks the defaults');
});

test('hand and order errors, and engine reasons (422)', async () => {
  const g = await expect(201, null, 'POST', '/api/v1/games', { body: { seats: 2, bots: ['greedy'], name: 'Lab', seed: 9 } });
  const { id, token } = g;
  const handPath = `/api/v1/games/${id}/hand`;
  const ordersPath = `/api/v1/games/${id}/orders`;
  await expect(401, 'token_required', 'GET', handPath);
  await expect(401, 'token_required', 'GET', handPath, { headers: { authorization: 'Bearer ' } });
  await expect(401, 'bad_token', 'GET', handPath, { token: fakeToken });
  await expect(403, 'wrong_game', 'GET', handPath, { token: other.tokens[1] });
  await expect(403, 'not_a_seat_token', 'GET', handPath, { token: g.host_token });
  await expect(404, 'game_not_found', 'GET', `/api/v1/games/${noGame}/hand`, { token });
  await expect(404, 'not_found', 'GET', `/api/v1/games/${longId}/hand`, { token });

  const hand = await expect(200, null, 'GET', handPath, { token });
  const ids = hand.hand.map((c) => c.id);
  const notMine = [...Array(110).keys()].find((x) => !ids.includes(x));
  const keep = { round: 0, step: 'keep', discard: ids.slice(0, 2) };
  for (const [raw, code] of [['{"round":0,', 'malformed_json'], ['', 'malformed_json'], ['[0]', 'not_an_object']]) {
    await expect(400, code, 'POST', ordersPath, { token, raw });
  }
  const bad400 = [
    [{ step: 'keep', discard: ids.slice(0, 2) }, 'missing_field'], [{ round: 0, discard: [] }, 'missing_field'],
    [{ ...keep, pass: true }, 'unknown_field'], [{ round: 0, step: 'build', build: { card: ids[0], pay: [], extra: 1 } }, 'unknown_field'],
    [{ ...keep, round: '0' }, 'wrong_type'], [{ round: 0, step: 'keep', discard: 'all' }, 'wrong_type'],
    [{ round: 0, step: 'over', discard: [] }, 'bad_value'], [{ round: 0, step: 'keep', discard: [110, 0] }, 'bad_value'],
    [{ round: 0, step: 'build', survey: false }, 'bad_value'], [{ round: 61, step: 'build', survey: true }, 'bad_value'],
    [{ ...keep, survey: true }, 'conflicting_fields'], [{ round: 0, step: 'keep' }, 'conflicting_fields'],
    [{ round: 1, step: 'build', build: { card: ids[0], pay: Array(12).fill(ids[1]) } }, 'too_many_cards'],
    [{ round: 1, step: 'build', builds: [{ card: ids[0], pay: [] }] }, 'too_many_cards'],
  ];
  for (const [body, code] of bad400) await expect(400, code, 'POST', ordersPath, { token, body });
  await expect(401, 'token_required', 'POST', ordersPath, { body: keep });
  await expect(401, 'bad_token', 'POST', ordersPath, { token: fakeToken, body: keep });
  await expect(403, 'wrong_game', 'POST', ordersPath, { token: other.tokens[0], body: keep });
  await expect(403, 'not_a_seat_token', 'POST', ordersPath, { token: g.host_token, body: keep });
  await expect(404, 'game_not_found', 'POST', `/api/v1/games/${noGame}/orders`, { token, body: keep });
  await expect(409, 'stale_step', 'POST', ordersPath, { token, body: { round: 3, step: 'build', survey: true } });
  await expect(409, 'stale_step', 'POST', ordersPath, { token, body: { round: 0, step: 'survey', discard: [] } });

  await expect(422, 'discard_count', 'POST', ordersPath, { token, body: { round: 0, step: 'keep', discard: [ids[0]] } });
  await expect(422, 'duplicate_card', 'POST', ordersPath, { token, body: { round: 0, step: 'keep', discard: [ids[0], ids[0]] } });
  await expect(422, 'not_in_hand', 'POST', ordersPath, { token, body: { round: 0, step: 'keep', discard: [notMine, ids[0]] } });
  await expect(422, 'wrong_decision', 'POST', ordersPath, { token, body: { round: 0, step: 'keep', survey: true } });
  const kept = await expect(202, null, 'POST', ordersPath, { token, body: keep });
  assert.deepEqual([kept.resolved, kept.game.step], [true, 'build'], 'a bot game resolves when its person decides');

  // Round 1: a payment that is not the cost, two builds without a Construction Gang, a contractor.
  const h1 = await expect(200, null, 'GET', handPath, { token });
  assert.deepEqual([h1.pending.round, h1.pending.step], [1, 'build']);
  const cards1 = h1.hand.map((c) => ({ ...c, design: cardOf(c.card) }));
  const plain = cards1.find((c) => c.design.cost >= 1 && !c.design.requires);
  assert.ok(plain, 'a card without prerequisites to try a wrong payment with');
  await expect(422, 'payment_count', 'POST', ordersPath, { token, body: { round: 1, step: 'build', build: { card: plain.id, pay: [] } } });
  await expect(422, 'duplicate_card', 'POST', ordersPath, { token, body: { round: 1, step: 'build', build: { card: plain.id, pay: [plain.id] } } });
  await expect(422, 'wrong_decision', 'POST', ordersPath, { token, body: { round: 1, step: 'build', discard: [plain.id] } });
  const [x, y] = cards1.filter((c) => !c.design.construction_gang);
  await expect(422, 'no_construction_gang', 'POST', ordersPath, { token, body: { round: 1, step: 'build', builds: [{ card: x.id, pay: [] }, { card: y.id, pay: [] }] } });
  await expect(202, null, 'POST', ordersPath, { token, body: { round: 1, step: 'build', contractor: true } });
  const h2 = await expect(200, null, 'GET', handPath, { token });
  if (h2.pending?.step === 'build') {
    assert.equal(h2.pending.options.contractor, false, 'one contractor per player');
    await expect(422, 'contractor_taken', 'POST', ordersPath, { token, body: { round: h2.pending.round, step: 'build', contractor: true } });
  } else {
    assert.fail(`expected a build step after round 1, got ${JSON.stringify(h2.pending)}`);
  }

  // Resolve errors, then the end of the game.
  const now = { round: h2.pending.round, step: 'build' };
  await expect(404, 'game_not_found', 'POST', `/api/v1/games/${noGame}/resolve`, { token: g.host_token, body: now });
  await expect(401, 'token_required', 'POST', `/api/v1/games/${id}/resolve`);
  await expect(401, 'bad_token', 'POST', `/api/v1/games/${id}/resolve`, { token: fakeToken, body: now });
  await expect(409, 'not_overdue', 'POST', `/api/v1/games/${id}/resolve`, { token, body: now });
  await expect(409, 'game_not_finished', 'GET', `/api/v1/games/${id}/replay`);
  await playSeat(id, token);
  await verifyFinished(id, [token]);
  await expect(409, 'game_over', 'POST', ordersPath, { token, body: { round: 1, step: 'build', survey: true } });
});

test('engine reasons that need particular deals: prerequisites, double builds, limits', async () => {
  // Deals are searched by seed (the server takes seeds with --allow-seed), so they are the
  // same on every run with the same card file.
  const needs = {
    prerequisite_missing: (hand) => {
      const needy = hand.find((c) => cardOf(c.card).requires);
      return needy && { keepIds: [needy.id], order: (r) => ({ round: r, step: 'build', build: { card: needy.id, pay: [] } }) };
    },
    double_cost_over_4: (hand) => {
      const gang = hand.find((c) => cardOf(c.card).construction_gang);
      const big = hand.find((c) => cardOf(c.card).cost > 4);
      return gang && big && { keepIds: [gang.id, big.id], order: (r) => ({ round: r, step: 'build', builds: [{ card: gang.id, pay: [] }, { card: big.id, pay: [] }] }) };
    },
  };
  const left = new Set(Object.keys(needs));
  for (let seed = 1000; left.size && seed < 1400; seed++) {
    const g = await expect(201, null, 'POST', '/api/v1/games', { body: { seats: 2, bots: ['greedy'], name: 'Seeker', seed } });
    const h = await expect(200, null, 'GET', `/api/v1/games/${g.id}/hand`, { token: g.token });
    for (const code of [...left]) {
      const plan = needs[code](h.hand);
      if (!plan) continue;
      left.delete(code);
      const discard = h.hand.map((c) => c.id).filter((i) => !plan.keepIds.includes(i)).slice(0, 2);
      await expect(202, null, 'POST', `/api/v1/games/${g.id}/orders`, { token: g.token, body: { round: 0, step: 'keep', discard } });
      await expect(422, code, 'POST', `/api/v1/games/${g.id}/orders`, { token: g.token, body: plan.order(1) });
      break;
    }
  }
  assert.equal(left.size, 0, `found deals for every reason (missing: ${[...left]})`);

  // limit_reached: a seat dealt both copies of a card with a limit of 1 builds one, then the
  // other. Five people survey until that seat can pay for it.
  const limited = [...catalog.values()].find((c) => c.limit === 1 && c.count >= 2);
  if (!limited) return;
  let game = null;
  for (let seed = 1; !game && seed < 200; seed++) {
    const g = await expect(201, null, 'POST', '/api/v1/games', { body: { seats: 5, name: 'P0', seed } });
    const tokens = [g.token];
    for (let i = 1; i < 5; i++) tokens.push((await expect(201, null, 'POST', `/api/v1/games/${g.id}/join`, { body: { name: `P${i}` } })).token);
    for (let s = 0; s < 5 && !game; s++) {
      const h = await expect(200, null, 'GET', `/api/v1/games/${g.id}/hand`, { token: tokens[s] });
      const copies = h.hand.filter((c) => c.card === limited.id).map((c) => c.id);
      if (copies.length === 2) game = { id: g.id, tokens, seat: s, copies };
    }
  }
  if (!game) return; // reported as not produced by the coverage test
  let built = false;
  for (let step = 0; step < 80 && !limitFound; step++) {
    for (let s = 0; s < 5 && !limitFound; s++) {
      const token = game.tokens[s];
      const h = await expect(200, null, 'GET', `/api/v1/games/${game.id}/hand`, { token });
      const p = h.pending;
      if (!p || h.order) continue;
      const ids = h.hand.map((c) => c.id);
      const spare = ids.filter((i) => s !== game.seat || !game.copies.includes(i));
      let body;
      if ('discard' in p.options) {
        body = { round: p.round, step: p.step, discard: spare.slice(-p.options.discard) };
      } else if (s === game.seat && built) {
        const second = game.copies.find((c) => ids.includes(c));
        await expect(422, 'limit_reached', 'POST', `/api/v1/games/${game.id}/orders`, { token, body: { round: p.round, step: 'build', build: { card: second, pay: [] } } });
        limitFound = true;
        break;
      } else {
        const option = s === game.seat && p.options.builds.find((b) => b.card === limited.id && b.cost <= ids.length - 2);
        if (option) {
          body = { round: p.round, step: 'build', build: { card: option.id, pay: spare.slice(0, option.cost) } };
          built = true;
        } else {
          body = { round: p.round, step: 'build', survey: true };
        }
      }
      await expect(202, null, 'POST', `/api/v1/games/${game.id}/orders`, { token, body });
    }
  }
  await allEvents(game.id);
});

test('events, stream and replay: reads and errors', async () => {
  const { id } = other;
  const page = await expect(200, null, 'GET', `/api/v1/games/${id}/events`);
  assert.ok(page.events.length > 0 && page.events[0].seq === 1);
  const after2 = await expect(200, null, 'GET', `/api/v1/games/${id}/events?after=2`);
  assert.equal(after2.events[0].seq, 3);
  const beyond = await expect(200, null, 'GET', `/api/v1/games/${id}/events?after=100000`);
  assert.deepEqual(beyond.events, []);
  for (const q of ['-1', 'x', '', '1.5']) await expect(400, 'bad_query', 'GET', `/api/v1/games/${id}/events?after=${q}`);
  await expect(404, 'game_not_found', 'GET', `/api/v1/games/${noGame}/events`);
  await expect(404, 'not_found', 'GET', `/api/v1/games/${longId}/events`);

  // A stream of a game in play: the log so far, then it stays open (read for a moment).
  const s = await readStream(id, { query: '?after=1', ms: 700 });
  assert.equal(s.status, 200);
  assert.ok(!s.ended, 'the stream of a game in play stays open');
  assert.equal(s.events[0].seq, 2, '"after" works like Last-Event-ID');
  const bad = await readStream(id, { headers: { 'last-event-id': 'abc' } });
  assert.deepEqual([bad.status, bad.json.code], [400, 'bad_query']);
  const bad2 = await readStream(id, { query: '?after=-3' });
  assert.deepEqual([bad2.status, bad2.json.code], [400, 'bad_query']);
  const none = await readStream(noGame);
  assert.deepEqual([none.status, none.json.code], [404, 'game_not_found']);
  const long = await readStream(longId);
  assert.deepEqual([long.status, long.json.code], [404, 'not_found']);

  await expect(409, 'game_not_finished', 'GET', `/api/v1/games/${id}/replay`);
  await expect(404, 'game_not_found', 'GET', `/api/v1/games/${noGame}/replay`);
  await expect(404, 'not_found', 'GET', `/api/v1/games/${longId}/replay`);
  await expect(409, 'game_not_finished', 'GET', `/api/v1/games/${id}/replay/rounds`);
  await expect(404, 'game_not_found', 'GET', `/api/v1/games/${noGame}/replay/rounds`);
  await expect(404, 'not_found', 'GET', `/api/v1/games/${longId}/replay/rounds`);
  await expect(404, 'game_not_found', 'GET', `/api/v1/games/${noGame}`);
  await expect(404, 'not_found', 'GET', `/api/v1/games/${longId}`);
});

test('methods, unknown paths and big bodies: 405, 404, 413', async () => {
  const id = other.id;
  for (const [method, path] of [['DELETE', '/api/v1/games'], ['PUT', `/api/v1/games/${id}`], ['GET', `/api/v1/games/${id}/join`],
    ['POST', `/api/v1/games/${id}/hand`], ['GET', `/api/v1/games/${id}/orders`], ['GET', `/api/v1/games/${id}/resolve`],
    ['DELETE', `/api/v1/games/${id}/events`], ['POST', `/api/v1/games/${id}/stream`], ['PATCH', `/api/v1/games/${id}/replay`],
    ['POST', '/api/v1/cards'], ['POST', '/healthz'], ['PUT', '/metrics'], ['POST', '/openapi.yaml'], ['POST', '/']]) {
    await expect(405, 'method_not_allowed', method, path);
  }
  for (const path of ['/api/v1/nothing', '/api/v2/games', '/api/v1/games/', `/api/v1/games/${id}/nothing`, '/no-such-file.txt']) {
    await expect(404, 'not_found', 'GET', path);
  }
  const big = JSON.stringify({ name: 'x'.repeat(70000) });
  for (const path of ['/api/v1/games', `/api/v1/games/${id}/join`, `/api/v1/games/${id}/orders`, `/api/v1/games/${id}/resolve`,
    `/api/v1/games/${id}/leave`, `/api/v1/games/${id}/takeover`, `/api/v1/games/${id}/reclaim`, `/api/v1/games/${id}/cancel`, `/api/v1/games/${id}/hint`,
    `/api/v1/games/${id}/chat`, `/api/v1/games/${id}/chat/1/report`]) {
    await expect(413, 'body_too_large', 'POST', path, { raw: big, token: other.tokens[0] });
    // A body that is not declared as JSON changes nothing: 415 (a form, a "simple" fetch()).
    for (const type of ['text/plain;charset=UTF-8', 'application/x-www-form-urlencoded']) {
      await expect(415, 'unsupported_media_type', 'POST', path, { raw: '{}', token: other.tokens[0], headers: { 'content-type': type } });
    }
  }
  for (const { key } of operations.filter((o) => o.key.startsWith('GET '))) {
    const path = key.slice(4).replace('{id}', id);
    const r = await rawRequest('GET', path, { 'content-length': String(big.length) }, big);
    assert.deepEqual([r.status, r.json.code], [413, 'body_too_large'], `GET ${path} with a big body`);
  }
});

test('POST to an unknown path answers 404', async () => {
  const res = await fetch(`${base}/api/v1/nothing`, { method: 'POST', body: '{}' });
  await res.text();
  assert.equal(res.status, 404);
});

test('the database out of reach: 503 database_unavailable, then recovery', async () => {
  const admin = process.env.DATABASE_URL;
  const dbName = new URL(daemon.database).pathname.slice(1);
  const psql = (sql) => execFileSync('psql', [admin, '-qAtc', sql], { stdio: 'pipe' });
  const { id, tokens, host } = other;
  const pw = 'correct horse battery';
  await expect(201, null, 'POST', '/api/v1/accounts', { body: { name: 'Dora', password: pw } });
  const dora = (await expect(201, null, 'POST', '/api/v1/sessions', { body: { name: 'Dora', password: pw } })).token;
  psql(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS false`);
  try {
    psql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${dbName}'`);
    const down = (method, path, opts) => expect(503, 'database_unavailable', method, path, opts);
    await down('GET', '/healthz');
    await down('POST', '/api/v1/games', { body: { seats: 2 } });
    await down('GET', '/api/v1/games');
    await down('GET', `/api/v1/games/${id}`);
    await down('POST', `/api/v1/games/${id}/join`, { body: { name: 'Dee' } });
    await down('GET', `/api/v1/games/${id}/hand`, { token: tokens[0] });
    await down('POST', `/api/v1/games/${id}/orders`, { token: tokens[0], body: { round: 0, step: 'keep', discard: [0, 1] } });
    await down('POST', `/api/v1/games/${id}/resolve`, { token: host });
    await down('POST', `/api/v1/games/${id}/leave`, { token: tokens[0] });
    await down('POST', `/api/v1/games/${id}/takeover`, { token: host, body: { seat: 0 } });
    await down('POST', `/api/v1/games/${id}/reclaim`, { token: tokens[0] });
    await down('POST', `/api/v1/games/${id}/cancel`, { token: host });
    await down('POST', `/api/v1/games/${id}/hint`, { token: tokens[0] });
    await down('GET', `/api/v1/games/${id}/events`);
    await down('POST', `/api/v1/games/${id}/chat`, { token: tokens[0], body: { text: 'hello?' } });
    await down('GET', `/api/v1/games/${id}/chat`);
    await down('POST', `/api/v1/games/${id}/chat/1/report`);
    await down('GET', `/api/v1/games/${id}/replay`);
    await down('GET', `/api/v1/games/${id}/replay/rounds`);
    await down('POST', '/api/v1/accounts', { body: { name: 'Dot', password: pw } });
    await down('POST', '/api/v1/sessions', { body: { name: 'Dora', password: pw } });
    await down('DELETE', '/api/v1/sessions/current', { token: dora });
    await down('DELETE', '/api/v1/sessions', { token: dora });
    await down('GET', '/api/v1/me', { token: dora });
    await down('GET', '/api/v1/me/games', { token: dora });
    await down('PUT', '/api/v1/me/password', { token: dora, body: { old: pw, new: 'a new passphrase' } });
    await down('DELETE', '/api/v1/me', { token: dora, body: { password: pw } });
    await down('GET', '/api/v1/players/Dora');
    await down('GET', '/api/v1/leaderboard');
    const s = await readStream(id);
    assert.deepEqual([s.status, s.json.code], [503, 'database_unavailable']);
    const metrics = await expect(200, null, 'GET', '/metrics');
    assert.doesNotMatch(metrics, /^city_games/m, 'games metrics are left out without a database');
  } finally {
    psql(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`);
  }
  let status = 0;
  for (let i = 0; i < 50 && status !== 200; i++) {
    status = (await call('GET', '/healthz')).status;
    if (status !== 200) await sleep(100);
  }
  assert.equal(status, 200, 'the daemon reconnects by itself');
});

test('quotas: 429 rate_limited with Retry-After, amendments capped, expired games 409', async () => {
  const saved = base;
  const limited = await startDaemon({ extraArgs: ['--create-rate', '1', '--create-burst', '2',
    '--join-rate', '1', '--join-burst', '1', '--max-amendments', '1', '--read-rate', '1', '--read-burst', '2', '--metrics-allow', 'none'] });
  const expiring = await startDaemon({ extraArgs: ['--open-ttl', '1', '--idle-game-seconds', '1'] });
  try {
    base = limited.base;
    const g = await expect(201, null, 'POST', '/api/v1/games', { body: { seats: 3, bots: ['greedy'], name: 'Ada' } });
    const b = await expect(201, null, 'POST', `/api/v1/games/${g.id}/join`, { body: { name: 'Bob' } });
    assert.equal(b.status, 'playing');
    const open = await expect(201, null, 'POST', '/api/v1/games', { body: { seats: 2 } });
    const r = await call('POST', '/api/v1/games', { body: { seats: 2 } });
    assert.deepEqual([r.status, r.json.code], [429, 'rate_limited']);
    assert.ok(Number(r.headers.get('retry-after')) >= 1, 'Retry-After in seconds');
    await expect(429, 'rate_limited', 'POST', `/api/v1/games/${open.id}/join`, { body: { name: 'Cy' } });
    // /metrics to an address outside --metrics-allow, without the token.
    await expect(403, 'metrics_forbidden', 'GET', '/metrics');
    // Costly reads: a burst of 2, then 429 for the lobby, a log, a replay and its rounds.
    for (let i = 0; i < 2; i++) await expect(200, null, 'GET', '/api/v1/games');
    for (const p of ['/api/v1/games', `/api/v1/games/${g.id}/events`, `/api/v1/games/${g.id}/replay`,
      `/api/v1/games/${g.id}/replay/rounds`, '/api/v1/players/Nobody', '/api/v1/leaderboard']) {
      await expect(429, 'rate_limited', 'GET', p);
    }
    // Seat 0 decides, replaces its decision once, and is refused a second replacement.
    const hand = await expect(200, null, 'GET', `/api/v1/games/${g.id}/hand`, { token: g.token });
    const { round, step, options } = hand.pending;
    const ids = hand.hand.map((c) => c.id);
    const n = options.discard;
    const first = { round, step, discard: ids.slice(0, n) };
    const second = { round, step, discard: ids.slice(ids.length - n) };
    await expect(202, null, 'POST', `/api/v1/games/${g.id}/orders`, { token: g.token, body: first });
    await expect(202, null, 'POST', `/api/v1/games/${g.id}/orders`, { token: g.token, body: second });
    await expect(429, 'too_many_amendments', 'POST', `/api/v1/games/${g.id}/orders`, { token: g.token, body: first });

    base = expiring.base;
    const lonely = await expect(201, null, 'POST', '/api/v1/games', { body: { seats: 2, name: 'Dee' } });
    let status = 'open';
    for (let i = 0; i < 150 && status === 'open'; i++) {
      await new Promise((ok) => setTimeout(ok, 100));
      status = (await expect(200, null, 'GET', `/api/v1/games/${lonely.id}`)).status;
    }
    assert.equal(status, 'expired');
    await expect(409, 'game_expired', 'POST', `/api/v1/games/${lonely.id}/join`, { body: { name: 'Eve' } });
    await expect(409, 'game_expired', 'POST', `/api/v1/games/${lonely.id}/orders`,
      { token: lonely.token, body: { round: 0, step: 'keep', discard: [0, 1] } });
    await expect(409, 'game_expired', 'POST', `/api/v1/games/${lonely.id}/resolve`,
      { token: lonely.host_token, body: { round: 0, step: 'keep' } });
    await expect(409, 'game_expired', 'POST', `/api/v1/games/${lonely.id}/leave`, { token: lonely.token });
    await expect(409, 'game_expired', 'POST', `/api/v1/games/${lonely.id}/takeover`, { token: lonely.host_token, body: { seat: 1 } });
    await expect(409, 'game_expired', 'POST', `/api/v1/games/${lonely.id}/reclaim`, { token: lonely.token });
    await expect(409, 'game_expired', 'POST', `/api/v1/games/${lonely.id}/cancel`, { token: lonely.host_token });
    await expect(409, 'game_expired', 'POST', `/api/v1/games/${lonely.id}/hint`, { token: lonely.token });
    // A started game nobody moves for the idle limit ends as abandoned: its view, its hand and
    // its log say so, and what needs a game in play is 409 game_over.
    const idle = await expect(201, null, 'POST', '/api/v1/games', { body: { seats: 2, bots: ['greedy'], name: 'Fay' } });
    const hand0 = await expect(200, null, 'GET', `/api/v1/games/${idle.id}/hand`, { token: idle.token });
    for (let i = 0; i < 150 && status !== 'abandoned'; i++) {
      await new Promise((ok) => setTimeout(ok, 100));
      status = (await expect(200, null, 'GET', `/api/v1/games/${idle.id}`)).status;
    }
    assert.equal(status, 'abandoned');
    const log = await expect(200, null, 'GET', `/api/v1/games/${idle.id}/events?after=0`);
    assert.deepEqual(log.events.at(-1), { seq: log.last_seq, type: 'abandoned', idle_seconds: 1 });
    const handAfter = await expect(200, null, 'GET', `/api/v1/games/${idle.id}/hand`, { token: idle.token });
    assert.equal(handAfter.pending, null);
    const { round: r0, step: s0 } = hand0.pending;
    await expect(409, 'game_over', 'POST', `/api/v1/games/${idle.id}/orders`,
      { token: idle.token, body: { round: r0, step: s0, discard: hand0.hand.slice(0, hand0.pending.options.discard).map((c) => c.id) } });
    await expect(409, 'game_over', 'POST', `/api/v1/games/${idle.id}/hint`, { token: idle.token });
    await expect(409, 'game_over', 'POST', `/api/v1/games/${idle.id}/leave`, { token: idle.token });
  } finally {
    base = saved;
    await limited.stop();
    await expiring.stop();
  }
});

test('Tech City: create, play to the end with the suggestion, engine reasons, events, replay', async () => {
  const cards = await expect(200, null, 'GET', '/api/v1/cards?game=tech_city');
  assert.equal(cards.game, 'tech_city');
  assert.equal(cards.cards.reduce((n, c) => n + c.count, 0), cards.deck_size);
  // Each game takes its own options (GET /api/v1/rulesets): Tech City has no target, and two
  // decks only at 5-6 seats.
  const noTarget = await expect(400, 'unknown_field', 'POST', '/api/v1/games', { body: { game: 'tech_city', seats: 3, target_vp: 40 } });
  assert.match(noTarget.detail, /Tech City takes only .*decks/);
  await expect(400, 'bad_value', 'POST', '/api/v1/games', { body: { game: 'tech_city', seats: 3, decks: 2 } });
  const two = await expect(201, null, 'POST', '/api/v1/games', { body: { game: 'tech_city', seats: 5, decks: 1 } });
  assert.deepEqual(two.options, { decks: 1 });
  assert.equal(two.target_vp, null);
  await expect(400, 'bad_value', 'POST', '/api/v1/games', { body: { game: 'tech_city', seats: 7 } });
  const made = await expect(201, null, 'POST', '/api/v1/games',
    { body: { game: 'tech_city', seats: 3, bots: ['greedy', 'random'], name: 'Ada' } });
  // A private table: created, left out of the lobby, watched through its id.
  const hidden = await expect(201, null, 'POST', '/api/v1/games', { body: { seats: 2, private: true } });
  assert.equal(hidden.private, true);
  assert.equal((await expect(200, null, 'GET', `/api/v1/games/${hidden.id}`)).private, true);
  assert.ok(!(await expect(200, null, 'GET', '/api/v1/games')).games.some((g) => g.id === hidden.id));
  await expect(400, 'wrong_type', 'POST', '/api/v1/games', { body: { seats: 2, private: 'yes' } });
  assert.equal(made.game, 'tech_city');
  assert.equal(made.target_vp, null);
  const { id, token, host_token: host } = made;
  const lobby = await expect(200, null, 'GET', '/api/v1/games');
  assert.equal(lobby.games.find((g) => g.id === id).target_vp, null);
  let reasons = 0;
  for (let n = 0; n < 400; n++) {
    const h = await expect(200, null, 'GET', `/api/v1/games/${id}/hand`, { token });
    assert.equal(h.game, 'tech_city');
    if (h.status === 'finished') break;
    const p = h.pending;
    if (!p) {
      // Not our turn: an order at the game's position is stale.
      await expect(409, 'stale_step', 'POST', `/api/v1/games/${id}/orders`,
        { token, body: { round: h.round, step: h.step, turn: h.turn, pass: true } });
      continue;
    }
    const at = { round: p.round, step: p.step, turn: p.turn };
    if (p.step === 'build' && reasons < 3 && h.hand.length >= 2) {
      // Engine reasons at a build: a taken cell, a cell off the city, a card not in the hand,
      // a card paying for itself.
      const [a, b] = h.hand;
      const bad = [
        [{ ...at, card: a.id, x: 0, y: 0, pay: [b.id] }, 'cell_taken'],
        [{ ...at, card: a.id, x: 60, y: 60, pay: [b.id] }, 'not_adjacent'],
        [{ ...at, card: 107, x: p.options.cells[0].x, y: p.options.cells[0].y, pay: [] }, 'not_in_hand'],
        [{ ...at, card: a.id, x: p.options.cells[0].x, y: p.options.cells[0].y, pay: [a.id] }, 'duplicate_card'],
      ];
      for (const [body, code] of bad) await expect(422, code, 'POST', `/api/v1/games/${id}/orders`, { token, body });
      // A field of another step's decision: 422 wrong_kind, naming the step the order is for.
      const wrong = await expect(422, 'wrong_kind', 'POST', `/api/v1/games/${id}/orders`, { token, body: { ...at, draw: true } });
      assert.match(wrong.detail, /step build/);
      reasons++;
    }
    if (p.step === 'effect' && reasons < 6) {
      await expect(422, 'no_card_there', 'POST', `/api/v1/games/${id}/orders`, { token, body: { ...at, use: { x: 90, y: 90 } } });
      reasons++;
    }
    if (n === 3) {
      // The host forces the current point, naming it; the same force again is stale.
      await expect(200, null, 'POST', `/api/v1/games/${id}/resolve`, { token: host, body: at });
      await expect(409, 'stale_step', 'POST', `/api/v1/games/${id}/resolve`, { token: host, body: at });
      continue;
    }
    const ok = await expect(202, null, 'POST', `/api/v1/games/${id}/orders`, { token, body: p.suggestion });
    assert.equal(ok.turn, p.turn);
  }
  const view = await expect(200, null, 'GET', `/api/v1/games/${id}`);
  assert.equal(view.status, 'finished');
  assert.equal(view.round, 6);
  const events = await expect(200, null, 'GET', `/api/v1/games/${id}/events?after=0`);
  const types = new Set(events.events.map((e) => e.type));
  for (const t of ['created', 'started', 'step', 'built', 'scored', 'forced', 'game_over']) assert.ok(types.has(t), `a ${t} event`);
  const replay = await expect(200, null, 'GET', `/api/v1/games/${id}/replay`);
  assert.equal(replay.game, 'tech_city');
  assert.ok(replay.decisions.length > 20);
  const rounds = await expect(200, null, 'GET', `/api/v1/games/${id}/replay/rounds`);
  assert.deepEqual(rounds.rounds.map((r) => r.round), [0, 1, 2, 3, 4, 5, 6], 'Tech City round by round');
  assert.deepEqual(rounds.rounds.at(-1).view.seats.map((s) => s.score), view.seats.map((s) => s.score), 'the last round is the final score');
  assert.ok(replay.decisions.every((d) => Number.isInteger(d.turn)));
});

/** Plays a Tech City seat to the end by sending its suggestion; returns orders accepted. */
async function playTechSeat(id, token) {
  let accepted = 0;
  for (let n = 0; n < 2000; n++) {
    const h = await expect(200, null, 'GET', `/api/v1/games/${id}/hand`, { token });
    if (h.status === 'finished') return accepted;
    if (!h.pending || h.order) { await sleep(5); continue; }
    const r = await call('POST', `/api/v1/games/${id}/orders`, { token, body: h.pending.suggestion });
    if (r.status === 202) accepted++;
    else assert.equal(r.json.code, 'stale_step', r.text);
  }
  throw new Error(`Tech City game ${id} did not end`);
}

test('Tech City at every seat count, 1 to 6: every event on /events and the stream is a tech_city.Event', async () => {
  const kinds = ['greedy', 'random'];
  for (let seats = 1; seats <= 6; seats++) {
    const bots = Array.from({ length: seats - 1 }, (_, i) => kinds[i % 2]);
    const g = await expect(201, null, 'POST', '/api/v1/games', { body: { game: 'tech_city', seats, bots, name: 'Ada' } });
    assert.equal(g.status, 'playing');
    // A reader pages /events while the game is played (check() holds every page to one snapshot).
    let playing = true;
    const reader = (async () => {
      let pages = 0;
      const seen = [];
      while (playing) { await allEvents(g.id, 'tech_city', seen); pages++; }
      return pages;
    })();
    const live = readStream(g.id, { game: 'tech_city', ms: 240_000, until: (ev) => ev.some((e) => e.type === 'game_over') });
    const accepted = await playTechSeat(g.id, g.token);
    playing = false;
    assert.ok((await reader) > 0);
    assert.ok(accepted > 0, `${seats} seats: the person played`);
    const streamed = await live;
    const events = await allEvents(g.id, 'tech_city');
    assert.deepEqual(streamed.events, events, `${seats} seats: the stream carries the log`);
    const started = events.find((e) => e.type === 'started');
    assert.equal(started.players, seats, 'the started event counts the seats');
    const view = await expect(200, null, 'GET', `/api/v1/games/${g.id}`);
    assert.equal(view.status, 'finished');
    assert.equal(view.players, seats);
    checkDescriptor(view, events);
  }
});

// ---- SimCity ------------------------------------------------------------------------------------

const scRefused = new Set(); // SimCity's refusals produced over HTTP: "422 bad_ballots", "409 stale_step", ...
let scKinds; // SimCity design id -> kind (block, event, council)

/** A pending option of SimCity as the order body it stands for (its `mode` and `score` are not sent). */
function scOrderOf(p, option) {
  const { mode, score, ...fields } = option;
  return { round: p.round, step: p.step, turn: p.turn, ...fields };
}

/** Sends bad orders at a SimCity point (each refusal once): wrong step, wrong kind, bad cells,
 * cards, ballots and bids. None of them changes the game. */
async function scRefusals(id, token, h) {
  const p = h.pending;
  const at = { round: p.round, step: p.step, turn: p.turn };
  const kindOf = (c) => scKinds.get(c.card);
  const block = h.hand.find((c) => kindOf(c) === 'block');
  // a block some cell takes now (its phase reached, its power there): only the cell is wrong
  const playable = p.step === 'play' ? p.options.find((o) => o.mode && o.mode !== 'event') : undefined;
  const tries = [];
  const other = p.step === 'play' ? 'vote' : 'play';
  tries.push([{ ...at, step: other, pass: true }, 409, 'stale_step', 'wrong step']);
  tries.push([{ ...at, [p.step === 'mayor_pay' ? 'from' : 'vacate']: p.step === 'mayor_pay' ? 'deck' : true }, 422, 'wrong_kind', 'a field of another step']);
  if (p.step === 'target') tries.push([{ ...at, x: 20, y: 0 }, 400, 'bad_value', 'a cell off every surface']);
  if (p.step === 'play' && h.hand.length) tries.push([{ ...at, card: h.hand[0].id, x: 20, y: 0 }, 400, 'bad_value', 'a cell off every surface']);
  if (p.step === 'play') {
    tries.push([{ ...at, card: 239, x: 6, y: 6 }, 422, 'not_in_hand', 'a card not in hand']);
    if (playable && h.side === 12) tries.push([{ ...at, card: playable.card, x: 13, y: 13 }, 422, 'off_grid', 'a cell off the surface']);
    if (playable && h.city.length === 0) tries.push([{ ...at, card: playable.card, x: 0, y: 0 }, 422, 'first_cell', 'the first block off the centre']);
  }
  if (p.step === 'council' && block) tries.push([{ ...at, card: block.id }, 422, 'wrong_card', 'a block bought as a member']);
  if (p.step === 'vote' && p.ballots) tries.push([{ ...at, ballots: Array(p.ballots + 1).fill('yes') }, 422, 'bad_ballots', 'a ballot too many']);
  if (p.step === 'vote' && p.mayor) tries.push([{ ...at, mayor: 'maybe' }, 400, 'bad_value', 'a ballot that is none']);
  if (p.step === 'election') {
    tries.push([{ ...at, votes: p.max_votes + 1, candidate: 0 }, 422, 'cannot_afford', 'more votes than money']);
    if (h.players < 6) tries.push([{ ...at, votes: 1, candidate: 5 }, 422, 'bad_candidate', 'a candidate who is no seat']);
    tries.push([{ ...at, votes: 0, candidate: 0 }, 400, 'bad_value', 'no votes']);
  }
  if (p.step === 'target') {
    const cell = [...Array(196).keys()].map((i) => ({ x: i % 14, y: Math.floor(i / 14) }))
      .find((c) => c.x < h.side && c.y < h.side && !p.options.some((o) => o.x === c.x && o.y === c.y));
    if (cell) tries.push([{ ...at, ...cell }, 422, 'bad_target', 'a cell the effect may not choose']);
  }
  if (p.step === 'discard') tries.push([{ ...at, card: 239 }, 422, 'not_in_hand', 'a discard not in hand']);
  for (const [body, status, code, what] of tries) {
    const key = `${p.step} ${status} ${code}`;
    if (scRefused.has(key)) continue;
    const r = await call('POST', `/api/v1/games/${id}/orders`, { token, body });
    assert.equal(r.status, status, `SimCity ${p.step}, ${what}: ${r.text.slice(0, 300)}`);
    assert.equal(r.json.code, code, `SimCity ${p.step}, ${what}: ${r.text.slice(0, 300)}`);
    scRefused.add(key);
  }
}

/** Ballots and bids as the log shows them: each logged at the point that cast it, in seat order
 * (ballots clockwise from the proposer, the Mayor last; bids clockwise from the outgoing Mayor's
 * left, each by the seat whose point it was). Returns how many votes and elections it saw. */
function checkScPolitics(events, players) {
  let votes = 0;
  let elections = 0;
  const engine = events.filter((e) => !['submitted', 'money', 'created', 'joined', 'started'].includes(e.type));
  for (let i = 0; i < engine.length; i++) {
    const e = engine[i];
    if (e.type === 'proposed') {
      votes++;
      let last = -1;
      let mayor = false;
      let j = i + 1;
      for (; j < engine.length && engine[j].type !== 'vote_result'; j++) {
        const b = engine[j];
        if (b.type === 'ballot') {
          assert.ok(!mayor, `seq ${b.seq}: no member ballot after the Mayor's`);
          const d = (b.seat - e.seat + players) % players;
          assert.ok(d >= last, `seq ${b.seq}: ballots are cast clockwise from the proposer (seat ${e.seat})`);
          last = d;
        }
        if (b.type === 'mayor_vote') mayor = true;
        if (b.type === 'step') assert.equal(b.step, 'vote', `seq ${b.seq}: a vote runs to its result`);
      }
      assert.ok(j < engine.length, `the vote proposed at seq ${e.seq} has a result`);
      assert.equal(engine[j].seat, e.seat, 'the result names the proposer');
    }
    if (e.type === 'vacated') {
      elections++;
      // Each seat's money as the log has it, from the start: a seat with $0 is not asked.
      const money = Array(players).fill(0);
      for (const m of events) {
        if (m.seq > e.seq) break;
        if (m.type === 'money') money[m.seat] = m.money;
      }
      let asked = e.seat;
      for (let j = events.findIndex((x) => x.seq === e.seq) + 1; j < events.length && events[j].type !== 'elected'; j++) {
        const b = events[j];
        if (b.type === 'money') money[b.seat] = b.money;
        if (b.type === 'step' && b.step === 'election') {
          assert.equal(b.seats.length, 1, `seq ${b.seq}: one seat bids at a time`);
          for (let s = (asked + 1) % players; s !== b.seats[0]; s = (s + 1) % players) {
            assert.equal(money[s], 0, `seq ${b.seq}: the election asks each seat in turn from the outgoing Mayor's left (seat ${s}, with $${money[s]}, was skipped)`);
          }
          asked = b.seats[0];
        }
        if (b.type === 'bid') assert.equal(b.seat, asked, `seq ${b.seq}: a bid is logged as its seat casts it`);
      }
    }
  }
  return { votes, elections };
}

/** Plays a SimCity seat to the end from its hand view: every option must be a simcity.Order (with
 * the point's round, step and turn), the suggestion one of them; it sends the suggestion, after
 * the refusals each kind of point allows. While a vote or an election asks this seat, the public
 * view's tally must be what the log has shown so far. With `host` (one game: the expert thinks
 * a while), it asks the expert for a hint at its first point (a simcity.Order of that point),
 * and at its third the host forces the point and the hand view says what the rules chose.
 * Returns orders accepted, steps seen and the plays it sent with the score their option said. */
async function playScSeat(id, token, host) {
  let accepted = 0;
  let points = 0;
  const steps = new Set();
  const plays = [];
  for (let n = 0; n < 5000; n++) {
    const h = await expect(200, null, 'GET', `/api/v1/games/${id}/hand`, { token });
    if (h.status === 'finished') {
      assert.equal(h.pending, null);
      return { accepted, steps, plays };
    }
    if (!h.pending || h.order) { await sleep(5); continue; }
    const p = h.pending;
    steps.add(p.step + (p.mayor ? ' (Mayor)' : ''));
    assert.deepEqual([p.round, p.step, p.turn], [h.round, h.step, h.turn], 'the pending point is the view\'s');
    const orders = p.options.map((o) => scOrderOf(p, o));
    for (const o of orders) assertValid(componentRef('simcity.Order'), o, `a SimCity ${p.step} option as an order`);
    if (p.step === 'play') {
      for (const o of p.options) if (o.card !== undefined) assert.equal(o.mode === 'event', o.score === undefined, 'a block play says what it scores, an event does not');
    }
    if (p.step !== 'election') assert.ok(orders.some((o) => JSON.stringify(o) === JSON.stringify(p.suggestion)), `the ${p.step} suggestion is one of the options`);
    if (p.step === 'vote' || p.step === 'election') {
      const view = await expect(200, null, 'GET', `/api/v1/games/${id}`);
      const events = await allEvents(id, 'simcity');
      if (p.step === 'vote') {
        const from = events.findLastIndex((e) => e.type === 'proposed');
        const cast = events.slice(from).filter((e) => e.type === 'ballot');
        const sum = (b) => cast.filter((e) => e.ballot === b).reduce((s, e) => s + e.votes, 0);
        assert.deepEqual([view.vote.yes, view.vote.no], [sum('yes'), sum('no')], 'the public tally is the ballots logged so far');
      } else {
        const from = events.findLastIndex((e) => e.type === 'vacated');
        const bids = events.slice(from).filter((e) => e.type === 'bid');
        const per = Array(view.players).fill(0);
        for (const b of bids) per[b.candidate] += b.votes;
        assert.deepEqual(view.election.votes, per, 'the public votes are the bids logged so far');
      }
    }
    await scRefusals(id, token, h);
    points++;
    if (points === 1 && host) {
      const hint = await expect(200, null, 'POST', `/api/v1/games/${id}/hint`, { token });
      assertValid(componentRef('simcity.Order'), hint.suggestion, 'a hint in SimCity is a simcity.Order');
      assert.deepEqual([hint.suggestion.round, hint.suggestion.step, hint.suggestion.turn], [p.round, p.step, p.turn]);
    }
    if (points === 3 && host) {
      const at = { round: p.round, step: p.step, turn: p.turn };
      await expect(200, null, 'POST', `/api/v1/games/${id}/resolve`, { token: host, body: at });
      const after = await expect(200, null, 'GET', `/api/v1/games/${id}/hand`, { token });
      assert.ok(after.defaulted, 'a forced seat is told what was chosen for it');
      assert.deepEqual([after.defaulted.round, after.defaulted.step, after.defaulted.reason], [p.round, p.step, 'forced_by_host']);
      assertValid(componentRef('simcity.Order'), after.defaulted.chosen, 'the default is a simcity.Order');
      steps.add('forced');
      continue;
    }
    const r = await call('POST', `/api/v1/games/${id}/orders`, { token, body: p.suggestion });
    if (r.status === 202) {
      accepted++;
      const s = p.suggestion;
      const option = p.options.find((o) => o.card === s.card && o.x === s.x && o.y === s.y);
      if (p.step === 'play' && option && ['new', 'upgrade', 'rezone'].includes(option.mode)) plays.push({ turn: p.turn, id: s.card, score: option.score });
    } else assert.equal(r.json.code, 'stale_step', r.text);
  }
  throw new Error(`SimCity game ${id} did not end`);
}

test('SimCity: options, create errors, catalog', async () => {
  const cards = await expect(200, null, 'GET', '/api/v1/cards?game=simcity');
  assert.equal(cards.game, 'simcity');
  scKinds = new Map(cards.cards.map((c) => [c.id, c.kind]));
  const noDecks = await expect(400, 'unknown_field', 'POST', '/api/v1/games', { body: { game: 'simcity', seats: 3, decks: 1 } });
  assert.match(noDecks.detail, /target/);
  await expect(400, 'bad_value', 'POST', '/api/v1/games', { body: { game: 'simcity', seats: 3, target: 10 } });
  await expect(400, 'bad_value', 'POST', '/api/v1/games', { body: { game: 'simcity', seats: 1, target: 100 } });
  await expect(400, 'wrong_type', 'POST', '/api/v1/games', { body: { game: 'simcity', seats: 3, target: '100' } });
  await expect(400, 'bad_value', 'POST', '/api/v1/games', { body: { game: 'simcity', seats: 7 } });
  const set = await expect(201, null, 'POST', '/api/v1/games', { body: { game: 'simcity', seats: 4, target: 99 } });
  assert.deepEqual(set.options, { target: 99 });
  const rulesets = await expect(200, null, 'GET', '/api/v1/rulesets');
  const sc = rulesets.rulesets.find((r) => r.id === 'simcity');
  for (let seats = 1; seats <= 6; seats++) {
    const g = await expect(201, null, 'POST', '/api/v1/games', { body: { game: 'simcity', seats } });
    const want = sc.options[0].by_players.find((b) => b.players === seats).default;
    assert.deepEqual(g.options, { target: want }, `${seats} seats: the default target`);
    const view = await expect(200, null, 'GET', `/api/v1/games/${g.id}`);
    assert.equal(view.target, seats === 1 ? null : want);
  }
});

test('SimCity at every seat count, 1 to 6, from the hand view only: options, refusals, votes and bids as cast, events, replay', async () => {
  assert.ok(scKinds, 'the catalog test ran first');
  const kinds = ['greedy', 'random'];
  const steps = new Set();
  let votes = 0;
  let elections = 0;
  // the six tables play at once (each its own game, stream and reader): the suite's time
  const table = async (seats) => {
    const bots = Array.from({ length: seats - 1 }, (_, i) => kinds[i % 2]);
    const g = await expect(201, null, 'POST', '/api/v1/games', { body: { game: 'simcity', seats, bots, name: 'Ada', seed: 17 + seats } });
    assert.equal(g.status, 'playing');
    // a force that names no step is told the current one, in this game's words
    const v0 = await expect(200, null, 'GET', `/api/v1/games/${g.id}`);
    const unnamed = await expect(400, 'missing_field', 'POST', `/api/v1/games/${g.id}/resolve`, { token: g.host_token });
    assert.ok(unnamed.detail.includes(`send {"round": ${v0.round}, "step": "${v0.step}", "turn": ${v0.turn}} for the current one`), unnamed.detail);
    let playing = true;
    const reader = (async () => {
      let pages = 0;
      const seen = [];
      while (playing) { await allEvents(g.id, 'simcity', seen); pages++; await sleep(20); }
      return pages;
    })();
    const live = readStream(g.id, { game: 'simcity', ms: 300_000, until: (ev) => ev.some((e) => e.type === 'game_over') });
    const played = await playScSeat(g.id, g.token, seats === 4 ? g.host_token : undefined);
    playing = false;
    assert.ok((await reader) > 0);
    assert.ok(played.accepted > 0, `${seats} seats: the person played`);
    for (const s of played.steps) steps.add(s);
    const streamed = await live;
    const { view, events } = await verifyFinished(g.id, [g.token]);
    assert.deepEqual(streamed.events, events, `${seats} seats: the stream carries the log`);
    assert.equal(events.find((e) => e.type === 'started').players, seats);
    assert.equal(view.players, seats);
    assert.deepEqual(events.at(-1).money, view.seats.map((s) => s.money), 'game_over carries every seat\'s money');
    const rounds = await expect(200, null, 'GET', `/api/v1/games/${g.id}/replay/rounds`);
    assert.deepEqual(rounds.rounds.at(-1).view.seats.map((s) => s.money), view.seats.map((s) => s.money), 'the last round is the final money');
    assert.deepEqual(rounds.rounds.map((r) => r.round), [...Array(rounds.rounds.length).keys()], 'SimCity round by round from 0');
    for (const play of played.plays) {
      const e = events.find((x) => x.type === 'played' && x.turn === play.turn && x.id === play.id);
      assert.ok(e, `${seats} seats: the play of card ${play.id} at turn ${play.turn} is logged`);
      assert.equal(e.scored, play.score, `${seats} seats: card ${play.id} at turn ${play.turn} scored what its option said`);
    }
    assert.ok(played.plays.length > 0, `${seats} seats: the person played blocks`);
    const seen = checkScPolitics(events, seats);
    votes += seen.votes;
    elections += seen.elections;
  };
  // every table to its end before a failure is thrown: one left playing would load the tests after
  const failed = (await Promise.allSettled([1, 2, 3, 4, 5, 6].map(table))).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  for (const s of ['play', 'draw', 'discard', 'council', 'target', 'vote', 'vote (Mayor)', 'mayor_pay', 'election', 'forced']) {
    assert.ok(steps.has(s), `the person decided at a SimCity ${s} point (seen: ${[...steps]})`);
  }
  assert.ok(votes > 0 && elections > 0, `votes ${votes}, elections ${elections}`);
  for (const k of ['play 409 stale_step', 'play 422 wrong_kind', 'play 422 not_in_hand', 'play 422 first_cell', 'play 422 off_grid',
    'vote 422 bad_ballots', 'election 422 cannot_afford', 'election 422 bad_candidate', 'council 422 wrong_card', 'target 422 bad_target']) {
    assert.ok(scRefused.has(k), `SimCity refused over HTTP: ${k} (produced: ${[...scRefused].join(', ')})`);
  }
});

test('presence: each seat of the view online or away, from its own signs of life', async () => {
  const act = (what, g) => `/api/v1/games/${g}/${what}`;
  const g = await expect(201, null, 'POST', '/api/v1/games', { body: { seats: 3, bots: ['greedy'], name: 'Ann' } });
  const bea = await expect(201, null, 'POST', act('join', g.id), { body: { name: 'Bea' } });
  const presence = async () => (await expect(200, null, 'GET', `/api/v1/games/${g.id}`)).seats.map((s) => s.presence);
  // A sign of life is written by the server's presence writer moments after the request that
  // showed it (within about 50 ms): look again for up to 2 s.
  const presenceSoon = async (want) => {
    let got = await presence();
    for (const until = Date.now() + 2000; JSON.stringify(got) !== JSON.stringify(want) && Date.now() < until;) {
      await new Promise((r) => setTimeout(r, 20));
      got = await presence();
    }
    return got;
  };
  assert.deepEqual(await presence(), ['away', 'away', 'online'], 'seated but not seen yet; a bot is always here');
  await expect(200, null, 'GET', act('hand', g.id), { token: bea.token });
  assert.deepEqual(await presenceSoon(['away', 'online', 'online']), ['away', 'online', 'online'], 'a hand view is a sign of life (the cached view is dropped)');
  const hand = await expect(200, null, 'GET', act('hand', g.id), { token: g.token });
  await expect(202, null, 'POST', act('orders', g.id), { token: g.token, body: hand.pending.suggestion });
  assert.deepEqual(await presenceSoon(['online', 'online', 'online']), ['online', 'online', 'online']);
  const forced = await expect(200, null, 'POST', act('resolve', g.id), { token: g.host_token, body: { round: hand.pending.round, step: hand.pending.step } });
  assert.deepEqual(forced.seats.map((s) => s.presence), ['online', 'online', 'online'], 'the view a forced step answers has it too');
});

test('time bank: a seat that decides after its step\'s own time pays from its bank; the view and a "bank" event say what is left', async () => {
  const act = (what, g) => `/api/v1/games/${g}/${what}`;
  const g = await expect(201, null, 'POST', '/api/v1/games', { body: { seats: 2, bots: [], name: 'Ann', turn_seconds: 5, time_bank_seconds: 20 } });
  assert.equal(g.time_bank_seconds, 20);
  const bea = await expect(201, null, 'POST', act('join', g.id), { body: { name: 'Bea' } });
  let v = await expect(200, null, 'GET', `/api/v1/games/${g.id}`);
  assert.equal(v.time_bank_seconds, 20);
  assert.deepEqual(v.seats.map((s) => s.bank_seconds), [20, 20]);
  assert.ok(Math.abs(v.deadline - v.step_deadline - 20) < 1, 'forced once the largest bank still deciding is spent too');
  const ann = await expect(200, null, 'GET', act('hand', g.id), { token: g.token });
  await expect(202, null, 'POST', act('orders', g.id), { token: g.token, body: ann.pending.suggestion });
  await new Promise((r) => setTimeout(r, Math.max(0, v.step_deadline * 1000 - Date.now()) + 1500));
  const h = await expect(200, null, 'GET', act('hand', g.id), { token: bea.token });
  await expect(202, null, 'POST', act('orders', g.id), { token: bea.token, body: h.pending.suggestion });
  v = await expect(200, null, 'GET', `/api/v1/games/${g.id}`);
  assert.equal(v.seats[0].bank_seconds, 20, 'Ann decided in time');
  assert.ok(v.seats[1].bank_seconds >= 14 && v.seats[1].bank_seconds <= 19, `Bea paid a few seconds: ${v.seats[1].bank_seconds} left`);
  const bank = (await allEvents(g.id, 'the_city')).filter((e) => e.type === 'bank');
  assert.equal(bank.length, 1);
  assert.equal(bank[0].seat, 1);
  assert.equal(bank[0].bank_seconds, v.seats[1].bank_seconds);
  assert.equal(bank[0].used, 20 - v.seats[1].bank_seconds);
  assert.equal(bank[0].step, 'keep');
});

test('seats: leave, takeover and cancel, and their errors', async () => {
  const act = (what, g) => `/api/v1/games/${g}/${what}`;
  // A running game: Ann and Bea, and a bot.
  const g1 = await expect(201, null, 'POST', '/api/v1/games', { body: { seats: 3, bots: ['greedy'], name: 'Ann' } });
  const bea = await expect(201, null, 'POST', act('join', g1.id), { body: { name: 'Bea' } });
  const take = act('takeover', g1.id);
  await expect(401, 'token_required', 'POST', take, { body: { seat: 1 } });
  await expect(401, 'bad_token', 'POST', take, { token: fakeToken, body: { seat: 1 } });
  // Another person may hand over only a seat away past its time: Bea is away but has missed nothing.
  await expect(409, 'seat_not_absent', 'POST', take, { token: g1.token, body: { seat: 1 } });
  await expect(403, 'wrong_game', 'POST', take, { token: other.host, body: { seat: 1 } });
  for (const [raw, code] of [['{"seat":', 'malformed_json'], ['[1]', 'not_an_object'], ['{}', 'missing_field'],
    ['{"seat": 1, "bot": "expert"}', 'unknown_field'], ['{"seat": "1"}', 'wrong_type'], ['{"seat": 9}', 'bad_value']]) {
    await expect(400, code, 'POST', take, { token: g1.host_token, raw });
  }
  await expect(409, 'seat_is_bot', 'POST', take, { token: g1.host_token, body: { seat: 2 } });
  await expect(409, 'seat_not_absent', 'POST', take, { token: g1.host_token, body: { seat: 1 } });
  await expect(404, 'game_not_found', 'POST', act('takeover', noGame), { token: g1.host_token, body: { seat: 1 } });
  // Bea misses two steps: Ann decides, the host forces.
  for (let k = 0; k < 2; k++) {
    const hand = await expect(200, null, 'GET', act('hand', g1.id), { token: g1.token });
    await expect(202, null, 'POST', act('orders', g1.id), { token: g1.token, body: hand.pending.suggestion });
    await expect(200, null, 'POST', act('resolve', g1.id), { token: g1.host_token, body: { round: hand.pending.round, step: hand.pending.step } });
  }
  const taken = await expect(200, null, 'POST', take, { token: g1.host_token, body: { seat: 1 } });
  assert.deepEqual([taken.bot, taken.missed, taken.status], ['greedy', 2, 'playing']);
  await expect(409, 'seat_is_bot', 'POST', take, { token: g1.host_token, body: { seat: 1 } });
  await expect(401, 'bad_token', 'GET', act('hand', g1.id), { token: bea.token });
  const v1 = await expect(200, null, 'GET', `/api/v1/games/${g1.id}`);
  assert.deepEqual([v1.seats[1].name, v1.seats[1].bot], ['Bea', 'greedy'], 'the seat keeps its name and shows its bot');
  // Bea takes her seat back with the token it had; then the host hands it to the bot again.
  const reclaim = act('reclaim', g1.id);
  await expect(401, 'token_required', 'POST', reclaim);
  await expect(401, 'bad_token', 'POST', reclaim, { token: g1.token });
  for (const [raw, code] of [['{"x":', 'malformed_json'], ['[1]', 'not_an_object'], ['{"x": 1}', 'unknown_field']]) {
    await expect(400, code, 'POST', reclaim, { token: bea.token, raw });
  }
  await expect(404, 'game_not_found', 'POST', act('reclaim', noGame), { token: bea.token });
  const back = await expect(200, null, 'POST', reclaim, { token: bea.token });
  assert.deepEqual([back.seat, back.status], [1, 'playing']);
  assert.equal((await expect(200, null, 'GET', `/api/v1/games/${g1.id}`)).seats[1].bot, null, 'a person plays the seat again');
  await expect(200, null, 'GET', act('hand', g1.id), { token: bea.token });
  await expect(200, null, 'POST', take, { token: g1.host_token, body: { seat: 1 } });
  // Leaving: the errors first.
  const leave = act('leave', g1.id);
  await expect(401, 'token_required', 'POST', leave);
  await expect(401, 'bad_token', 'POST', leave, { token: fakeToken });
  await expect(403, 'not_a_seat_token', 'POST', leave, { token: g1.host_token });
  await expect(403, 'wrong_game', 'POST', leave, { token: other.tokens[0] });
  for (const [raw, code] of [['{"now":', 'malformed_json'], ['[1]', 'not_an_object'], ['{"now": true}', 'unknown_field']]) {
    await expect(400, code, 'POST', leave, { token: g1.token, raw });
  }
  await expect(404, 'game_not_found', 'POST', act('leave', noGame), { token: g1.token });
  // Hints: the expert's suggestion, legal as it is, a few per game.
  const hint = act('hint', g1.id);
  const h1 = await expect(200, null, 'POST', hint, { token: g1.token });
  assert.equal(h1.by, 'expert');
  assertValid(cityOrder, h1.suggestion, 'a hint in a game of The City is a the_city.Order');
  // Why: the estimate of the suggestion and of the runner-up, another legal order of the point.
  if (h1.estimate?.runner_up) {
    assertValid(cityOrder, h1.estimate.runner_up.suggestion, 'the runner-up is a the_city.Order');
    assert.notDeepEqual(h1.estimate.runner_up.suggestion, h1.suggestion, 'the runner-up is another choice');
  }
  await expect(202, null, 'POST', act('orders', g1.id), { token: g1.token, body: h1.suggestion });
  for (let k = h1.hints_used; k < 5; k++) await expect(200, null, 'POST', hint, { token: g1.token, body: {} });
  await expect(429, 'too_many_hints', 'POST', hint, { token: g1.token });
  await expect(401, 'token_required', 'POST', hint);
  await expect(401, 'bad_token', 'POST', hint, { token: fakeToken });
  await expect(403, 'not_a_seat_token', 'POST', hint, { token: g1.host_token });
  await expect(403, 'wrong_game', 'POST', hint, { token: other.tokens[0] });
  for (const [raw, code] of [['{"x":', 'malformed_json'], ['[1]', 'not_an_object'], ['{"x": 1}', 'unknown_field']]) {
    await expect(400, code, 'POST', hint, { token: g1.token, raw });
  }
  await expect(404, 'game_not_found', 'POST', act('hint', noGame), { token: g1.token });
  await playSeat(g1.id, g1.token); // Ann plays on with two bots to the end
  await expect(409, 'game_over', 'POST', hint, { token: g1.token });
  await expect(409, 'game_over', 'POST', leave, { token: g1.token });
  await expect(409, 'game_over', 'POST', take, { token: g1.host_token, body: { seat: 0 } });
  await expect(409, 'game_over', 'POST', reclaim, { token: bea.token });
  await expect(409, 'game_started', 'POST', act('cancel', g1.id), { token: g1.host_token });
  const e1 = await allEvents(g1.id);
  assert.equal(e1.filter((e) => e.type === 'taken_over').length, 2);
  assert.equal(e1.filter((e) => e.type === 'reclaimed').length, 1);

  // A player leaves a running game: the bot that takes the seat plays it to the end at once.
  const g2 = await expect(201, null, 'POST', '/api/v1/games', { body: { seats: 2, bots: ['greedy'], name: 'Dee' } });
  const left = await expect(200, null, 'POST', act('leave', g2.id), { token: g2.token, body: {} });
  assert.deepEqual([left.seat, left.bot], [0, 'greedy']);
  assert.equal((await expect(200, null, 'GET', `/api/v1/games/${g2.id}`)).status, 'finished', 'two bots finish the game');
  assert.equal((await allEvents(g2.id)).filter((e) => e.type === 'left').length, 1);

  // An open game: a seat left is free again; the host cancels; nobody joins any more.
  const g4 = await expect(201, null, 'POST', '/api/v1/games', { body: { seats: 3, name: 'Eve' } });
  const open = await expect(200, null, 'POST', act('leave', g4.id), { token: g4.token });
  assert.deepEqual([open.status, open.bot], ['open', undefined]);
  const fay = await expect(201, null, 'POST', act('join', g4.id), { body: { name: 'Fay' } });
  assert.equal(fay.seat, 0, 'the freed seat is taken next');
  await expect(409, 'game_not_started', 'POST', act('hint', g4.id), { token: fay.token });
  await expect(409, 'game_not_started', 'POST', act('takeover', g4.id), { token: g4.host_token, body: { seat: 0 } });
  await expect(409, 'game_not_started', 'POST', act('reclaim', g4.id), { token: fay.token });
  const cancel = act('cancel', g4.id);
  await expect(401, 'token_required', 'POST', cancel);
  await expect(401, 'bad_token', 'POST', cancel, { token: fakeToken });
  await expect(403, 'not_host', 'POST', cancel, { token: fay.token });
  await expect(403, 'wrong_game', 'POST', cancel, { token: other.host });
  for (const [raw, code] of [['{"why":', 'malformed_json'], ['"x"', 'not_an_object'], ['{"why": 1}', 'unknown_field']]) {
    await expect(400, code, 'POST', cancel, { token: g4.host_token, raw });
  }
  await expect(404, 'game_not_found', 'POST', act('cancel', noGame), { token: g4.host_token });
  assert.equal((await expect(200, null, 'POST', cancel, { token: g4.host_token })).status, 'cancelled');
  await expect(409, 'game_cancelled', 'POST', cancel, { token: g4.host_token });
  await expect(409, 'game_cancelled', 'POST', act('leave', g4.id), { token: fay.token });
  await expect(409, 'game_cancelled', 'POST', act('takeover', g4.id), { token: g4.host_token, body: { seat: 0 } });
  await expect(409, 'game_cancelled', 'POST', act('reclaim', g4.id), { token: fay.token });
  await expect(409, 'game_cancelled', 'POST', act('hint', g4.id), { token: fay.token });

  // Tech City takes turns: the seat whose turn it is not has nothing to decide.
  const tc = await expect(201, null, 'POST', '/api/v1/games', { body: { game: 'tech_city', seats: 2, name: 'Hal' } });
  const ivy = await expect(201, null, 'POST', act('join', tc.id), { body: { name: 'Ivy' } });
  const answers = [];
  for (const token of [tc.token, ivy.token]) {
    const r = await call('POST', act('hint', tc.id), { token });
    answers.push(r.status);
    if (r.status === 200) assertValid(componentRef('tech_city.Order'), r.json.suggestion, 'a hint in Tech City is a tech_city.Order');
  }
  assert.deepEqual(answers.sort(), [200, 409], 'one seat has a turn, the other nothing to decide');
  // Many hints at once: past CITY_HINT_THREADS they are 503 busy with Retry-After. A daemon of
  // its own thinks for 1.5 s a hint with one thread, so the others surely arrive meanwhile; it
  // allows an address one hint a minute, so the next one is 429 rate_limited.
  const slow = await startDaemon({ extraArgs: ['--expert-ms', '1500', '--hint-threads', '1',
    '--hint-rate', '1', '--hint-burst', '1'] });
  const saved = base;
  base = slow.base;
  try {
    const g = await expect(201, null, 'POST', '/api/v1/games', { body: { seats: 4, name: 'Pia' } });
    const crowd = [g.token];
    for (const name of ['Qed', 'Ray', 'Sal']) crowd.push((await expect(201, null, 'POST', act('join', g.id), { body: { name } })).token);
    const rs = await Promise.all(crowd.map((token) => call('POST', act('hint', g.id), { token })));
    const busy = rs.filter((r) => r.status === 503);
    assert.ok(rs.some((r) => r.status === 200), 'the first hint is thought about');
    assert.ok(busy.length > 0 && busy.every((r) => r.json.code === 'busy' && r.headers.get('retry-after') === '1'),
      `hints past the cap are 503 busy: ${rs.map((r) => r.status)}`);
    const limited = await call('POST', act('hint', g.id), { token: crowd[1] });
    assert.equal(limited.status, 429, 'a hint past the address\'s rate');
    assert.equal(limited.json.code, 'rate_limited');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1, 'with Retry-After');
  } finally {
    base = saved;
    await slow.stop();
  }
  await expect(409, 'game_cancelled', 'POST', act('join', g4.id), { body: { name: 'Gus' } });
  await expect(409, 'game_cancelled', 'POST', act('orders', g4.id), { token: fay.token, body: { round: 0, step: 'keep', discard: [0, 1] } });
  await expect(409, 'game_cancelled', 'POST', act('resolve', g4.id), { token: g4.host_token, body: { round: 0, step: 'keep' } });
  assert.equal((await expect(200, null, 'GET', `/api/v1/games/${g4.id}`)).status, 'cancelled');
  assert.ok(!(await expect(200, null, 'GET', '/api/v1/games')).games.some((g) => g.id === g4.id), 'a cancelled game leaves the lobby');
  assert.equal((await allEvents(g4.id)).at(-1).type, 'cancelled');
});

test('chat: the players\' and the watchers\' channels, live on the stream, reports, and their errors', async () => {
  const pw = 'correct horse battery';
  const talk = await startDaemon({ extraArgs: ['--allow-seed', '--signin-burst', '1000', '--chat-rate', '1', '--chat-burst', '3'] });
  const saved = base;
  base = talk.base;
  try {
    const g = await expect(201, null, 'POST', '/api/v1/games', { body: { seats: 3, bots: ['greedy'], name: 'Ada' } });
    const bea = await expect(201, null, 'POST', `/api/v1/games/${g.id}/join`, { body: { name: 'Bea' } });
    const g2 = await expect(201, null, 'POST', '/api/v1/games', { body: { seats: 2, name: 'Cy' } });
    await expect(201, null, 'POST', '/api/v1/accounts', { body: { name: 'Rail', password: pw } });
    const rail = (await expect(201, null, 'POST', '/api/v1/sessions', { body: { name: 'Rail', password: pw } })).token;
    const path = `/api/v1/games/${g.id}/chat`;
    // A seat's stream and a signed-in watcher's, open while the watcher and then Ada talk.
    let ready = 0;
    let go;
    const both = new Promise((ok) => { go = ok; });
    const started = () => { if (++ready === 2) go(); };
    const seatStream = readStream(g.id, { headers: { authorization: `Bearer ${bea.token}` }, ms: 4000, started,
      until: (e, c) => c.length >= 1 });
    const railStream = readStream(g.id, { headers: { authorization: `Bearer ${rail}` }, ms: 4000, started,
      until: (e, c) => c.length >= 2 });
    await both;
    const w = await expect(201, null, 'POST', path, { token: rail, body: { text: 'build the farm, Ada' } });
    assert.deepEqual([w.channel, w.seat, w.name], ['watchers', null, 'Rail']);
    const typed = '<b>hi</b> & <script>alert(1)</script>';
    const m = await expect(201, null, 'POST', path, { token: g.token, body: { text: typed } });
    assert.deepEqual([m.channel, m.seat, m.name, m.text], ['players', 0, 'Ada', typed]);
    const [ss, rs] = await Promise.all([seatStream, railStream]);
    assert.deepEqual(ss.chat.map((c) => c.text), [typed], 'a seat\'s stream has the players\' channel only');
    assert.deepEqual(rs.chat.map((c) => c.text), ['build the farm, Ada', typed]);
    // Reading: everyone the players' channel; a signed-in watcher both.
    const anon = await expect(200, null, 'GET', path);
    assert.deepEqual([anon.messages.map((x) => x.id), anon.watchers, anon.last], [[m.id], false, m.id]);
    const seat = await expect(200, null, 'GET', path, { token: bea.token });
    assert.equal(seat.messages.length, 1);
    const watcher = await expect(200, null, 'GET', `${path}?after=0&limit=1`, { token: rail });
    assert.deepEqual([watcher.messages[0].id, watcher.more, watcher.watchers], [w.id, true, true]);
    assert.deepEqual((await expect(200, null, 'GET', `${path}?after=${m.id}`)).messages, []);
    for (const q of ['after=-1', 'after=x', 'limit=0', 'limit=101']) await expect(400, 'bad_query', 'GET', `${path}?${q}`);
    await expect(404, 'game_not_found', 'GET', `/api/v1/games/${noGame}/chat`);
    await expect(404, 'not_found', 'GET', `/api/v1/games/${longId}/chat`);
    // Writing: refusals.
    for (const [raw, code] of [['{"text":', 'malformed_json'], ['[1]', 'not_an_object'], ['{}', 'missing_field'],
      ['{"text": "a", "to": 1}', 'unknown_field'], ['{"text": 1}', 'wrong_type'], ['{"text": " \\n "}', 'chat_empty'],
      [JSON.stringify({ text: 'x'.repeat(501) }), 'chat_too_long']]) {
      await expect(400, code, 'POST', path, { token: bea.token, raw });
    }
    await expect(401, 'token_required', 'POST', path, { body: { text: 'anonymous' } });
    await expect(401, 'bad_token', 'POST', path, { token: fakeToken, body: { text: 'a' } });
    await expect(403, 'wrong_game', 'POST', path, { token: g2.token, body: { text: 'a' } });
    await expect(403, 'not_a_seat_token', 'POST', path, { token: g.host_token, body: { text: 'a' } });
    await expect(404, 'game_not_found', 'POST', `/api/v1/games/${noGame}/chat`, { token: bea.token, body: { text: 'a' } });
    // A key makes sending again safe: stored once, 200 with the stored message; the key with
    // another text is 409.
    const keyed = { text: 'sent twice', key: 'c0ffee00-1234-4abc-8def-0123456789ab' };
    const k1 = await expect(201, null, 'POST', path, { token: bea.token, body: keyed });
    const k2 = await expect(200, null, 'POST', path, { token: bea.token, body: keyed });
    assert.equal(k2.id, k1.id);
    await expect(409, 'chat_key_reused', 'POST', path, { token: bea.token, body: { ...keyed, text: 'other' } });
    for (const key of ['', 'a b', 'x'.repeat(65)]) {
      await expect(400, 'bad_value', 'POST', path, { token: bea.token, body: { text: 'a', key } });
    }
    // Reports.
    const report = (id) => `${path}/${id}/report`;
    const first = await expect(201, null, 'POST', report(m.id), { token: bea.token, body: { reason: 'markup' } });
    assert.deepEqual(first, { message: m.id, reported: true, first: true });
    assert.equal((await expect(200, null, 'POST', report(m.id), { token: bea.token })).first, false);
    for (const [raw, code] of [['{"reason":', 'malformed_json'], ['[1]', 'not_an_object'], ['{"why": "x"}', 'unknown_field'],
      ['{"reason": 1}', 'wrong_type'], [JSON.stringify({ reason: 'y'.repeat(201) }), 'bad_value']]) {
      await expect(400, code, 'POST', report(m.id), { token: bea.token, raw });
    }
    await expect(401, 'bad_token', 'POST', report(m.id), { token: fakeToken });
    await expect(403, 'wrong_game', 'POST', report(m.id), { token: g2.token });
    await expect(403, 'not_a_seat_token', 'POST', report(m.id), { token: g.host_token });
    await expect(404, 'no_such_message', 'POST', report(w.id), { token: bea.token }); // hidden from a seat
    await expect(404, 'no_such_message', 'POST', report(999999), { token: bea.token });
    await expect(404, 'game_not_found', 'POST', `/api/v1/games/${noGame}/chat/1/report`);
    const metrics = await expect(200, null, 'GET', '/metrics');
    assert.match(metrics, /^city_chat_reports_total 1$/m);
    assert.match(metrics, /^city_chat_messages_total\{channel="watchers"\} 1$/m);
    // The rate: a seat has 3 at once (Ada spent one), then 429; an address 12 (reports too).
    await expect(201, null, 'POST', path, { token: g.token, body: { text: 'two' } });
    await expect(201, null, 'POST', path, { token: g.token, body: { text: 'three' } });
    await expect(429, 'rate_limited', 'POST', path, { token: g.token, body: { text: 'four' } });
    let r;
    for (let i = 0; i < 13 && r?.status !== 429; i++) r = await call('POST', report(m.id));
    assert.deepEqual([r.status, r.json.code], [429, 'rate_limited'], 'the address\'s bucket runs out');
    assert.ok(Number(r.headers.get('retry-after')) >= 1);
  } finally {
    base = saved;
    await talk.stop();
  }
});

test('accounts: sign up, sessions, the seats of an account on any device, password, deletion, and their errors', async () => {
  const act = (what, g) => `/api/v1/games/${g}/${what}`;
  const pw = 'correct horse battery';
  const signUp = (name) => expect(201, null, 'POST', '/api/v1/accounts', { body: { name, password: pw } });
  const signIn = async (name) => (await expect(201, null, 'POST', '/api/v1/sessions', { body: { name, password: pw } })).token;
  const acc = await startDaemon({ extraArgs: ['--allow-seed', '--signin-burst', '1000', '--account-signin-burst', '1000'] });
  const saved = base;
  base = acc.base;
  try {
    const made = await signUp('Uma');
    assert.equal(made.name, 'Uma');
    await expect(409, 'name_taken', 'POST', '/api/v1/accounts', { body: { name: 'UMA', password: pw } });
    for (const [raw, code] of [['{"name":', 'malformed_json'], ['[1]', 'not_an_object'], ['{"name": "Vic"}', 'missing_field'],
      ['{"name": "Vic", "password": "long enough", "email": "x"}', 'unknown_field'], ['{"name": "Vic", "password": 12345678}', 'wrong_type'],
      ['{"name": "Vic", "password": "short"}', 'bad_value'], ['{"name": "Bot 3", "password": "long enough"}', 'bad_value']]) {
      await expect(400, code, 'POST', '/api/v1/accounts', { raw });
    }
    for (const [raw, code] of [['{"name":', 'malformed_json'], ['[1]', 'not_an_object'], ['{"name": "Uma"}', 'missing_field'],
      ['{"name": "Uma", "password": "x", "otp": 1}', 'unknown_field'], ['{"name": 1, "password": "x"}', 'wrong_type']]) {
      await expect(400, code, 'POST', '/api/v1/sessions', { raw });
    }
    await expect(401, 'bad_credentials', 'POST', '/api/v1/sessions', { body: { name: 'Uma', password: 'a wrong guess' } });
    await expect(401, 'bad_credentials', 'POST', '/api/v1/sessions', { body: { name: 'Nobody', password: pw } });
    const uma = await signIn('uma');
    const uma2 = await signIn('Uma');
    assert.match(uma, /^session_[0-9a-f]{64}$/);
    assert.equal((await expect(200, null, 'GET', '/api/v1/me', { token: uma })).name, 'Uma');
    assert.deepEqual((await expect(200, null, 'GET', '/api/v1/me/games', { token: uma })).games, []);
    for (const q of ['limit=0', 'after=nonsense']) await expect(400, 'bad_query', 'GET', `/api/v1/me/games?${q}`, { token: uma });
    for (const path of ['/api/v1/me', '/api/v1/me/games']) {
      await expect(401, 'token_required', 'GET', path);
      await expect(401, 'bad_token', 'GET', path, { token: fakeToken });
    }
    await signUp('Vic');
    const vic = await signIn('Vic');
    await signUp('Wes');
    const wes = await signIn('Wes');

    // Uma hosts under her name, Vic joins with no body; their session tokens act for their seats.
    await expect(400, 'conflicting_fields', 'POST', '/api/v1/games', { token: uma, body: { seats: 3, bots: ['greedy'], name: 'X' } });
    const g = await expect(201, null, 'POST', '/api/v1/games', { token: uma, body: { seats: 3, bots: ['greedy'] } });
    assert.equal(g.account, 'Uma');
    assert.equal(g.token, undefined, 'no seat token: the session acts for the seat');
    await expect(409, 'already_seated', 'POST', act('join', g.id), { token: uma });
    await expect(400, 'conflicting_fields', 'POST', act('join', g.id), { token: vic, body: { name: 'Vee' } });
    const j = await expect(201, null, 'POST', act('join', g.id), { token: vic });
    assert.deepEqual([j.seat, j.account, j.status, j.token], [1, 'Vic', 'playing', undefined]);
    const h0 = await expect(200, null, 'GET', act('hand', g.id), { token: uma2 });
    const h1 = await expect(200, null, 'GET', act('hand', g.id), { token: vic });
    assert.deepEqual([h0.seat, h1.seat], [0, 1], 'each account reads its own seat, from any of its sessions');
    await expect(403, 'not_seated', 'GET', act('hand', g.id), { token: wes });
    await expect(403, 'not_seated', 'POST', act('orders', g.id), { token: wes, body: { round: 0, step: 'keep', discard: [0, 1] } });
    await expect(403, 'not_seated', 'POST', act('hint', g.id), { token: wes });
    await expect(403, 'not_seated', 'POST', act('resolve', g.id), { token: wes, body: { round: 0, step: 'keep' } });
    await expect(403, 'not_seated', 'POST', act('leave', g.id), { token: wes });
    await expect(202, null, 'POST', act('orders', g.id), { token: uma, body: { round: 0, step: 'keep', discard: h0.hand.slice(0, 2).map((c) => c.id) } });
    const mine = await expect(200, null, 'GET', '/api/v1/me/games', { token: vic });
    assert.deepEqual(mine.games.map((x) => [x.id, x.seat, x.status]), [[g.id, 1, 'playing']]);
    const s = await readStream(g.id, { headers: { authorization: `Bearer ${vic}` }, ms: 300 });
    assert.equal(s.status, 200);

    // Signing out: here, then everywhere; an ended session is 401 on create and join too.
    assert.equal((await expect(200, null, 'DELETE', '/api/v1/sessions/current', { token: uma2 })).sessions_ended, 1);
    await expect(401, 'bad_token', 'DELETE', '/api/v1/sessions/current', { token: uma2 });
    await expect(401, 'token_required', 'DELETE', '/api/v1/sessions/current');
    await expect(401, 'bad_token', 'POST', '/api/v1/games', { token: uma2, body: { seats: 2 } });
    const open = await expect(201, null, 'POST', '/api/v1/games', { body: { seats: 3 } });
    await expect(401, 'bad_token', 'POST', act('join', open.id), { token: uma2 });
    const wes2 = await signIn('Wes');
    assert.equal((await expect(200, null, 'DELETE', '/api/v1/sessions', { token: wes2 })).sessions_ended, 2);
    await expect(401, 'bad_token', 'DELETE', '/api/v1/sessions', { token: wes });
    await expect(401, 'token_required', 'DELETE', '/api/v1/sessions');

    // The password: a change ends the other sessions.
    const vic2 = await signIn('Vic');
    for (const [raw, code] of [['{"old":', 'malformed_json'], ['[1]', 'not_an_object'], ['{"new": "a new passphrase"}', 'missing_field'],
      ['{"old": "x", "new": "a new passphrase", "again": 1}', 'unknown_field'], ['{"old": 1, "new": "a new passphrase"}', 'wrong_type'],
      [`{"old": "${pw}", "new": "short"}`, 'bad_value']]) {
      await expect(400, code, 'PUT', '/api/v1/me/password', { token: vic, raw });
    }
    const change = { old: pw, new: 'a new passphrase' };
    await expect(401, 'token_required', 'PUT', '/api/v1/me/password', { body: change });
    await expect(401, 'bad_token', 'PUT', '/api/v1/me/password', { token: fakeToken, body: change });
    await expect(403, 'wrong_password', 'PUT', '/api/v1/me/password', { token: vic, body: { old: 'not it at all', new: 'a new passphrase' } });
    assert.equal((await expect(200, null, 'PUT', '/api/v1/me/password', { token: vic, body: change })).sessions_ended, 1);
    await expect(401, 'bad_token', 'GET', '/api/v1/me', { token: vic2 });

    // Deleting the account: its seat keeps the game as "deleted player".
    for (const [raw, code] of [['{"password":', 'malformed_json'], ['[1]', 'not_an_object'], ['{}', 'missing_field'],
      ['{"password": "x", "why": "y"}', 'unknown_field'], ['{"password": 1}', 'wrong_type']]) {
      await expect(400, code, 'DELETE', '/api/v1/me', { token: vic, raw });
    }
    await expect(401, 'token_required', 'DELETE', '/api/v1/me', { body: { password: pw } });
    await expect(401, 'bad_token', 'DELETE', '/api/v1/me', { token: fakeToken, body: { password: pw } });
    await expect(403, 'wrong_password', 'DELETE', '/api/v1/me', { token: vic, body: { password: pw } });
    const gone = await expect(200, null, 'DELETE', '/api/v1/me', { token: vic, body: { password: 'a new passphrase' } });
    assert.equal(gone.shown_as, 'deleted player');
    const v = await expect(200, null, 'GET', `/api/v1/games/${g.id}`);
    assert.equal(v.seats[1].name, 'deleted player');
    assert.ok(!JSON.stringify(await allEvents(g.id)).includes('"Vic"'), 'the name is gone from the log');
    await expect(401, 'bad_token', 'GET', '/api/v1/me', { token: vic });

    // Bodies: too large, or not JSON.
    const big = JSON.stringify({ name: 'x'.repeat(70000) });
    for (const [method, path] of [['POST', '/api/v1/accounts'], ['POST', '/api/v1/sessions'], ['PUT', '/api/v1/me/password'],
      ['DELETE', '/api/v1/me'], ['DELETE', '/api/v1/sessions'], ['DELETE', '/api/v1/sessions/current']]) {
      await expect(413, 'body_too_large', method, path, { raw: big, token: uma });
      if (method === 'DELETE' && path !== '/api/v1/me') continue; // no body is read there
      await expect(415, 'unsupported_media_type', method, path, { raw: '{}', token: uma, headers: { 'content-type': 'text/plain' } });
    }
  } finally {
    base = saved;
    await acc.stop();
  }

  // Password attempts per account (2 at once) and per address (12 at once): 429 with Retry-After.
  const limited = await startDaemon({ extraArgs: ['--signin-rate', '1', '--signin-burst', '12',
    '--account-signin-rate', '1', '--account-signin-burst', '2'] });
  base = limited.base;
  try {
    await signUp('Xia');
    const xia = await signIn('Xia');
    await expect(403, 'wrong_password', 'PUT', '/api/v1/me/password', { token: xia, body: { old: 'not it at all', new: 'a new passphrase' } });
    const limitedTo = async (method, path, opts) => {
      const r = await call(method, path, opts);
      assert.deepEqual([r.status, r.json.code], [429, 'rate_limited'], `${method} ${path}: ${r.text}`);
      assert.ok(Number(r.headers.get('retry-after')) >= 1, 'with Retry-After');
    };
    await limitedTo('PUT', '/api/v1/me/password', { token: xia, body: { old: pw, new: 'a new passphrase' } });
    await limitedTo('DELETE', '/api/v1/me', { token: xia, body: { password: pw } });
    await limitedTo('POST', '/api/v1/sessions', { body: { name: 'XIA', password: pw } });
    let status = 201;
    for (let i = 0; i < 12 && status === 201; i++) {
      status = (await call('POST', '/api/v1/accounts', { body: { name: `Yan ${i}`, password: pw } })).status;
    }
    await limitedTo('POST', '/api/v1/accounts', { body: { name: 'Zed', password: pw } });
  } finally {
    base = saved;
    await limited.stop();
  }

  // One hash at a time: password calls at once beyond it are 503 busy with Retry-After: 1.
  const one = await startDaemon({ extraArgs: ['--hash-threads', '1', '--signin-burst', '100000', '--account-signin-burst', '100000'] });
  base = one.base;
  try {
    await signUp('Ola');
    const ola = await signIn('Ola');
    let n = 0;
    const busyAmong = async (what, make) => {
      for (let round = 0; round < 10; round++) {
        const rs = await Promise.all(Array.from({ length: 6 }, () => make()));
        const busy = rs.filter((r) => r.status === 503);
        if (busy.length > 0) {
          assert.ok(busy.every((r) => r.json.code === 'busy' && r.headers.get('retry-after') === '1'), `${what}: ${rs.map((r) => r.status)}`);
          return;
        }
      }
      assert.fail(`${what}: no call was busy`);
    };
    await busyAmong('sign-up', () => call('POST', '/api/v1/accounts', { body: { name: `Pat ${n++}`, password: pw } }));
    await busyAmong('sign-in', () => call('POST', '/api/v1/sessions', { body: { name: 'Ola', password: pw } }));
    await busyAmong('password change', () => call('PUT', '/api/v1/me/password', { token: ola, body: { old: 'not it at all', new: 'a new passphrase' } }));
    await busyAmong('deletion', () => call('DELETE', '/api/v1/me', { token: ola, body: { password: 'not it at all' } }));
  } finally {
    base = saved;
    await one.stop();
  }
});

test('ratings: rated games, their refusals, the ratings in the view, profiles and the leaderboard', async () => {
  const pw = 'correct horse battery';
  const acc = await startDaemon({ extraArgs: ['--allow-seed', '--signin-burst', '1000', '--account-signin-burst', '1000'] });
  const saved = base;
  base = acc.base;
  try {
    await expect(201, null, 'POST', '/api/v1/accounts', { body: { name: 'Rae', password: pw } });
    const rae = (await expect(201, null, 'POST', '/api/v1/sessions', { body: { name: 'Rae', password: pw } })).token;
    await expect(400, 'not_rateable', 'POST', '/api/v1/games', { body: { seats: 2, rated: true, name: 'Anon' } });
    await expect(400, 'wrong_type', 'POST', '/api/v1/games', { token: rae, body: { seats: 2, rated: 1 } });
    const open = await expect(201, null, 'POST', '/api/v1/games', { token: rae, body: { seats: 2, rated: true } });
    assert.equal(open.rated, true);
    await expect(403, 'account_required', 'POST', `/api/v1/games/${open.id}/join`, { body: { name: 'Anon' } });
    // Rae against a greedy bot, rated, played to the end from the hand view.
    const g = await expect(201, null, 'POST', '/api/v1/games', { token: rae, body: { seats: 2, bots: ['greedy'], rated: true, seed: 5 } });
    assert.equal(g.status, 'playing');
    await playSeat(g.id, rae);
    const v = await expect(200, null, 'GET', `/api/v1/games/${g.id}`);
    assert.equal(v.rated, true);
    assert.deepEqual(v.ratings.map((r) => [r.seat, r.player]), [[0, 'Rae'], [1, 'bot:greedy']]);
    for (const r of v.ratings) assert.ok(Math.abs(r.ordinal - (r.mu - 3 * r.sigma)) < 1e-9);
    const p = await expect(200, null, 'GET', '/api/v1/players/rae');
    assert.deepEqual([p.name, p.kind, p.played, p.ratings[0].games, p.recent[0].id], ['Rae', 'person', 1, 1, g.id]);
    const bot = await expect(200, null, 'GET', '/api/v1/players/bot%3Agreedy');
    assert.equal(bot.kind, 'bot');
    await expect(404, 'no_such_player', 'GET', '/api/v1/players/Nobody');
    const board = await expect(200, null, 'GET', '/api/v1/leaderboard?game=the_city&limit=1');
    assert.equal(board.players[0].rank, 1);
    assert.equal(typeof board.next, 'string');
    const second = await expect(200, null, 'GET', `/api/v1/leaderboard?game=the_city&limit=1&after=${encodeURIComponent(board.next)}`);
    assert.equal(second.players[0].rank, 2);
    assert.equal(second.next, null);
    assert.deepEqual(new Set([board.players[0].name, second.players[0].name]), new Set(['Rae', 'bot:greedy']));
    // Rae's games a page at a time: the open one and the finished one, newest first.
    const all = await expect(200, null, 'GET', '/api/v1/me/games', { token: rae });
    assert.deepEqual(all.games.map((x) => x.id), [g.id, open.id]);
    assert.equal(all.next, null);
    const page1 = await expect(200, null, 'GET', '/api/v1/me/games?limit=1', { token: rae });
    assert.deepEqual([page1.games[0].id, typeof page1.next], [g.id, 'string']);
    const page2 = await expect(200, null, 'GET', `/api/v1/me/games?limit=1&after=${encodeURIComponent(page1.next)}`, { token: rae });
    assert.deepEqual([page2.games.map((x) => x.id), page2.next], [[open.id], null]);
    await expect(400, 'bad_game', 'GET', '/api/v1/leaderboard?game=chess');
    for (const q of ['limit=0', 'limit=101', 'after=nonsense']) await expect(400, 'bad_query', 'GET', `/api/v1/leaderboard?${q}`);
  } finally {
    base = saved;
    await acc.stop();
  }
});

test('the page would tell every problem the server sent in players\' words: no paths, methods, tokens or hand views', async () => {
  const { inPlayersWords } = await import('../../web/ui.js');
  const apiWords = /\/api\/|\b(GET|POST|PUT|PATCH|DELETE)\b|\bhand view\b|\bpending\b|\btoken\b|[{}]|\bseat \d/i;
  const bad = [];
  const generic = new Set();
  for (const p of problemsSeen.values()) {
    const e = { status: p.status, code: p.code, message: p.detail || p.title, problem: p };
    const said = inPlayersWords(e);
    if (!said || apiWords.test(said)) bad.push(`${p.status} ${p.code}: "${p.detail}" -> "${said}"`);
    if (/^The server (refused this|could not do that)/.test(said)) generic.add(p.code);
    if (process.env.CITY_WORDS) console.log(`# ${p.status} ${p.code}: ${said}`);
  }
  console.log(`# ${problemsSeen.size} problems, the codes told only in general words: ${[...generic].sort().join(' ')}`);
  assert.ok(problemsSeen.size > 50, `the run met many problems (${problemsSeen.size})`);
  assert.deepEqual(bad, [], 'every problem reads in players\' words on the page');
});

test('a problem\'s title is its code\'s own, and the spec\'s examples show the titles the server sends', () => {
  // nothing_to_decide once carried stale_step's title, "The order is for a step that is not the
  // current one", at the current step (an API developer's try). A game's own refusal codes
  // (422) share illegal_decision's title.
  const titles = new Map();
  for (const p of problemsSeen.values()) {
    const key = p.status === 422 ? 'illegal_decision' : p.code;
    if (!titles.has(key)) titles.set(key, new Set());
    titles.get(key).add(p.title);
  }
  const several = [...titles].filter(([, set]) => set.size > 1).map(([code, set]) => `${code}: ${[...set].join(' | ')}`);
  assert.deepEqual(several, [], 'one title a code');
  const byTitle = new Map();
  for (const [code, set] of titles) byTitle.set([...set][0], [...(byTitle.get([...set][0]) ?? []), code]);
  const shared = [...byTitle].filter(([, codes]) => codes.length > 1).map(([title, codes]) => `${title}: ${codes.join(', ')}`);
  assert.deepEqual(shared, [], 'no two codes share a title');
  const wrong = [];
  for (const [name, ex] of Object.entries(spec.components.examples)) {
    const v = ex.value;
    if (!v || typeof v !== 'object' || !v.code || !v.title || !titles.has(v.status === 422 ? 'illegal_decision' : v.code)) continue;
    const sent = [...titles.get(v.status === 422 ? 'illegal_decision' : v.code)][0];
    if (v.title !== sent) wrong.push(`${name}: "${v.title}", the server says "${sent}"`);
  }
  assert.deepEqual(wrong, [], 'every example\'s title is the server\'s');
});

test('coverage: every operation exercised, every documented problem produced', (t) => {
  // What cannot be provoked from outside, and why.
  const cannot = new Map();
  for (const { key, op } of operations) {
    if (op.responses['500']) cannot.set(`${key} 500 internal_error`, 'needs a server failure');
  }
  for (const c of ['not_buildable', 'contractor_pool_empty', 'too_many_cards']) {
    cannot.set(`POST /api/v1/games/{id}/orders 422 ${c}`, 'the engine has it; the API cannot reach it');
  }
  if (!limitFound) cannot.set('POST /api/v1/games/{id}/orders 422 limit_reached', 'no deal found with both copies of a limited card');
  cannot.set('GET /openapi.yaml 404 not_found', 'the test daemon has the file');
  // Tech City's reasons that need a particular deal or point; tests/test_tech_rules.c has one
  // test for each.
  for (const c of ['bad_payment', 'bad_wild_name', 'tilted', 'no_free_use', 'already_used',
    'missing_choice', 'needless_choice', 'bad_target', 'seed_card', 'card_count', 'not_offered']) {
    cannot.set(`POST /api/v1/games/{id}/orders 422 ${c}`, 'a Tech City reason that needs a particular deal (test_tech_rules has each)');
  }
  // SimCity's reasons that need a particular city, hand or point (tests/test_simcity.c has
  // each); the draw point is asked only when the discard pile has a card, so empty_pile is the
  // engine's guard alone.
  for (const c of ['phase', 'power_plant', 'no_rezone', 'sims', 'restricted', 'limit', 'forbidden']) {
    cannot.set(`POST /api/v1/games/{id}/orders 422 ${c}`, 'a SimCity reason that needs a particular city (test_simcity has each)');
  }
  cannot.set('POST /api/v1/games/{id}/orders 422 empty_pile', 'SimCity asks to draw only when the discard pile has a card');
  const pagePresent = existsSync(join(root, 'web', 'index.html'));
  cannot.set(`GET / ${pagePresent ? '404 not_found' : '200'}`, pagePresent ? 'web/index.html exists' : 'web/index.html is missing');
  for (const key of ['GET /api/v1/cards', 'GET /api/v1/rulesets', 'GET /metrics', 'GET /openapi.yaml', 'GET /']) {
    cannot.set(`${key} 503 database_unavailable`, 'does not use the database');
  }
  // A COMMIT cut by a lost connection: tests/test_svc_ha.c makes one (and a cancelled wait for
  // the synchronous standby), and make ha-test meets them in failovers.
  for (const { key, op } of operations) {
    if (documentedPairs(op).includes('503 outcome_unknown')) {
      cannot.set(`${key} 503 outcome_unknown`, 'needs a connection cut during COMMIT (tests/test_svc_ha.c)');
    }
  }

  const missingOps = operations.filter(({ key }) => !exercised.has(key)).map(({ key }) => key);
  assert.deepEqual(missingOps, [], 'every operation of the spec is exercised');
  const missing = [];
  let documented = 0;
  for (const { key, op } of operations) {
    for (const pair of documentedPairs(op)) {
      documented++;
      const k = `${key} ${pair}`;
      if (!produced.has(k) && !cannot.has(k)) missing.push(k);
    }
  }
  assert.deepEqual(missing, [], 'every documented status and problem code is produced');
  const expectedTypes = ['created', 'joined', 'started', 'submitted', 'step', 'forced', 'default', 'discarded', 'built',
    'contractor', 'surveyed', 'reshuffled', 'scored', 'income', 'game_over', 'left', 'taken_over', 'cancelled',
    // SimCity's
    'drew', 'bought', 'played', 'money', 'passed', 'proposed', 'ballot', 'mayor_vote', 'vote_result', 'event',
    'destroyed', 'removed', 'doomed', 'phase', 'mayor', 'bill', 'vacated', 'bid', 'elected', 'timed', 'target_reached'];
  assert.deepEqual(expectedTypes.filter((x) => !eventTypesSeen.has(x)), [], 'every event type is seen');
  const notProduced = operations.flatMap(({ key, op }) => documentedPairs(op).map((p) => `${key} ${p}`)).filter((k) => !produced.has(k));
  t.diagnostic(`not provoked (by design): ${notProduced.join(', ')}`);
  t.diagnostic(`event types seen: ${[...eventTypesSeen].sort().join(' ')}`);
  const codes = new Set([...produced].map((k) => k.split(' ').at(-1)).filter((c) => /^[a-z_0-9]+$/.test(c)));
  console.log(`contract: ${validated} responses validated, ${exercised.size}/${operations.length} operations covered, ` +
    `${documented - missing.length - notProduced.length}/${documented} documented statuses and codes produced, ${codes.size} problem codes seen`);
});
