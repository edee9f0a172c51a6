// api.js: the page's only door to the server: JSON fetches of /api/v1 (problem+json errors
// become ApiError with the server's own sentence), the live event stream, and the seat and host
// tokens the page keeps in localStorage so a reload or a second tab goes on where it was, with
// the optional account's session token (which acts for the account's seats on any device).

import { t, localCard } from './i18n.js';

const BASE = '/api/v1';

/** An error answer of the API: `message` is the sentence the server sent (its `detail`). */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || t('The server answered {status}.', { status }));
    this.name = 'ApiError';
    this.status = status;
    this.code = problem?.code ?? null;
    this.problem = problem ?? null;
    this.retryAfter = null; // seconds, from a 429 or 503 answer's Retry-After
  }
}

async function request(method, path, { body, token, cache = 'no-store' } = {}) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;
  let res;
  try {
    res = await fetch(BASE + path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      cache,
    });
  } catch {
    throw new ApiError(0, { detail: t('The server cannot be reached; check your connection and try again.') });
  }
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!res.ok) {
    const err = new ApiError(res.status, data);
    const wait = Number(res.headers.get('Retry-After'));
    if (wait > 0) err.retryAfter = wait;
    throw err;
  }
  return data;
}

export const api = {
  /** The catalog of game `game` (the server's default game's when left out). */
  // The catalogs and the rulesets change only with the server; it lets them be cached a while,
  // so a repeat visit does not fetch them again.
  // Each card's name and text come in the page's language (i18n.js, by slug); the API's stay English.
  cards: (game) => request('GET', game ? `/cards?game=${enc(game)}` : '/cards', { cache: 'default' })
    .then((d) => ({ ...d, cards: (d.cards ?? []).map((c) => localCard(game ?? d.game, c)) })),
  /** The games ("rulesets") this server hosts: {default, rulesets: [{id, title, ...}]}. */
  rulesets: () => request('GET', '/rulesets', { cache: 'default' }),
  /**
   * A page of the lobby, newest first with open games ahead: {games, next}. `query` may hold
   * limit (1..100), after (the `next` of the page before), game and seats (filters).
   */
  listGames: (query = {}) => {
    const q = Object.entries(query).filter(([, v]) => v !== undefined && v !== null && v !== '')
      .map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
    return request('GET', q ? `/games?${q}` : '/games');
  },
  /** Creates a game; with session token `token` the account takes the first seat under its name. */
  createGame: (body, token) => request('POST', '/games', { body, token }),
  /** Joins game `id` as `name`, or, with session token `token`, as the account (no name then). */
  join: (id, name, token) => request('POST', `/games/${enc(id)}/join`, token ? { body: {}, token } : { body: { name } }),
  game: (id) => request('GET', `/games/${enc(id)}`),
  hand: (id, token) => request('GET', `/games/${enc(id)}/hand`, { token }),
  order: (id, token, body) => request('POST', `/games/${enc(id)}/orders`, { body, token }),
  /**
   * Forces step {round, step} (the one the player saw), with its `turn` in a game that has
   * turns; 409 stale_step once it has moved on.
   */
  resolve: (id, token, { round, step, turn }) => request('POST', `/games/${enc(id)}/resolve`, { body: turn === undefined ? { round, step } : { round, step, turn }, token }),
  events: (id, after = 0) => request('GET', `/games/${enc(id)}/events?after=${after}`),
  /** Leaves game `id` with seat token `token`: a bot takes a running game's seat; an open game's seat is free again. */
  leave: (id, token) => request('POST', `/games/${enc(id)}/leave`, { body: {}, token }),
  /** The host hands seat `seat` of a running game to a bot (409 seat_not_absent until it missed enough turns). */
  takeover: (id, token, seat) => request('POST', `/games/${enc(id)}/takeover`, { body: { seat }, token }),
  reclaim: (id, token) => request('POST', `/games/${enc(id)}/reclaim`, { body: {}, token }),
  /** The host cancels open game `id` (409 game_started once it has started). */
  cancel: (id, hostToken) => request('POST', `/games/${enc(id)}/cancel`, { body: {}, token: hostToken }),
  /**
   * The expert's suggestion for seat `token`'s pending point: {suggestion, by, hints_used,
   * hints_left}; 429 too_many_hints once the seat used its hints, 503 busy (see retryAfter).
   */
  hint: (id, token) => request('POST', `/games/${enc(id)}/hint`, { token }),
  /**
   * Table talk (chat.js): a page of game `id`'s chat after message `after` ({messages, last,
   * more, watchers}); with a signed-in watcher's session the watchers' channel too.
   */
  chat: (id, after = 0, token = null) => request('GET', `/games/${enc(id)}/chat?after=${after}`, { token }),
  /** Says `text` at game `id`'s table with a seat token (or session): the message as stored. */
  say: (id, token, text, key) => request('POST', `/games/${enc(id)}/chat`, { body: { text, key }, token }),
  /** Reports message `msg` of game `id` to the operator ({message, reported, first}). */
  reportChat: (id, msg, token, reason) => request('POST', `/games/${enc(id)}/chat/${enc(String(msg))}/report`, { body: { reason }, token }),
  /** A finished game's public view at the start and at the end of every round (409 before the end). */
  replayRounds: (id) => request('GET', `/games/${enc(id)}/replay/rounds`),

  // Accounts (optional): `token` is a session token from signIn().
  /** Makes account {name, password}: {name, created_at}; 409 name_taken. */
  signUp: (name, password) => request('POST', '/accounts', { body: { name, password } }),
  /** Signs in: {token, name, expires_at}; 401 bad_credentials, 429 rate_limited (retryAfter). */
  signIn: (name, password) => request('POST', '/sessions', { body: { name, password } }),
  /** Ends this session only. */
  signOut: (token) => request('DELETE', '/sessions/current', { token }),
  /** Ends every session of the account, this one too. */
  signOutEverywhere: (token) => request('DELETE', '/sessions', { token }),
  /** The account's games, most recently changed first: {name, games: [{id, game, status, seat, players, ...}]}. */
  myGames: (token) => request('GET', '/me/games', { token }),
  /** Replaces the password (403 wrong_password when `old` is not it); the other sessions end. */
  changePassword: (token, old, next) => request('PUT', '/me/password', { body: { old, new: next }, token }),
  /** Deletes the account after checking `password`; its seats show "deleted player". */
  deleteAccount: (token, password) => request('DELETE', '/me', { body: { password }, token }),
  /** Player `name`'s profile: {name, kind, ratings, played, won, recent}; 404 no_such_player. */
  player: (name) => request('GET', `/players/${enc(name)}`),
  /** A page of game `game`'s leaderboard: {game, players, next, best_solo}; `after` is the last page's `next`. */
  leaderboard: (game, after = null, limit = 50) => request('GET', `/leaderboard?game=${enc(game)}&limit=${limit}${after ? `&after=${enc(after)}` : ''}`),
};

function enc(id) { return encodeURIComponent(id); }

/** The URL of a game's Server-Sent Events stream. */
export function streamUrl(id, after = 0) { return `${BASE}/games/${enc(id)}/stream${after ? `?after=${after}` : ''}`; }

/** Every event of game `id`'s public log, oldest first (the API pages it by 500). */
export async function allEvents(id) {
  const out = [];
  let after = 0;
  for (let i = 0; i < 1000; i++) {
    const page = await api.events(id, after);
    out.push(...page.events);
    if (!page.events.length || page.events[page.events.length - 1].seq >= page.last_seq) break;
    after = page.events[page.events.length - 1].seq;
  }
  return out;
}

let rulesetsLoading = null;
let rulesetsKnown = null;

/** The server's rulesets, fetched once per page: resolves to {default, rulesets, byId: Map}. */
export function loadRulesets() {
  rulesetsLoading ??= api.rulesets().then((d) => {
    rulesetsKnown = { ...d, byId: new Map(d.rulesets.map((r) => [r.id, r])) };
    return rulesetsKnown;
  }).catch((e) => { rulesetsLoading = null; throw e; });
  return rulesetsLoading;
}

/**
 * Game `game`'s ruleset descriptor (GET /api/v1/rulesets: its score, rank, options, event
 * types), once loadRulesets() has resolved (the router waits for it before a table or a
 * replay); null before, or for a game the server does not list.
 */
export function rulesetOf(game) {
  return rulesetsKnown?.byId.get(game ?? rulesetsKnown.default) ?? null;
}

// ---- what this browser remembers -----------------------------------------------------------

function readJson(key) {
  try { return JSON.parse(localStorage.getItem(key) ?? 'null'); } catch { return null; }
}
function writeJson(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch { /* private mode: no memory */ }
}

/** Where the signed-in account's session is kept. */
const SESSION = 'city.session';

export const store = {
  /** {token, seat} of this browser's seat in game `id`, or null. */
  seat: (id) => readJson(`city.seat.${id}`),
  setSeat: (id, seat, token) => writeJson(`city.seat.${id}`, { seat, token }),
  forgetSeat: (id) => { try { localStorage.removeItem(`city.seat.${id}`); } catch { /* */ } },
  host: (id) => readJson(`city.host.${id}`),
  setHost: (id, token) => writeJson(`city.host.${id}`, token),
  /** The settings a game was created with here (for "Play again"). */
  settings: (id) => readJson(`city.settings.${id}`),
  setSettings: (id, s) => writeJson(`city.settings.${id}`, s),
  name: () => readJson('city.name') ?? '',
  setName: (n) => writeJson('city.name', n),
  lastSettings: () => readJson('city.lastSettings'),
  setLastSettings: (s) => writeJson('city.lastSettings', s),
  /** The signed-in account's {token, name, expires_at}, or null (none, or expired). */
  session: () => {
    const s = readJson(SESSION);
    return s?.token && s.name && !(Date.parse(s.expires_at) <= Date.now()) ? s : null;
  },
  /** Keeps session `s` ({token, name, expires_at}) and tells the page (the 'city-session' event). */
  setSession: (s) => { writeJson(SESSION, s); window.dispatchEvent(new Event('city-session')); },
  /** Forgets the session (signed out, or ended on the server) and tells the page. */
  forgetSession: () => {
    try { localStorage.removeItem(SESSION); } catch { /* */ }
    window.dispatchEvent(new Event('city-session'));
  },
};


/**
 * Creates a game from lobby settings {game, name, seats, bots, options: {name: value},
 * turn_seconds, time_bank_seconds, private, rated, bot_level (sent only with an expert among the bots)}, remembers
 * its tokens and settings, and resolves to the game id. Signed in (store.session()), the
 * account takes the first seat (no name, no seat token: the session acts for it) and `rated`
 * is sent when asked with two seats or more; a session the server no longer knows is forgotten. Settings saved before there were several
 * games have no `game`: the server's default game is created then.
 */
export async function createAndRemember(settings) {
  const body = { seats: settings.seats, bots: settings.bots };
  if (settings.game) body.game = settings.game;
  // The game's options by name (settings saved before options were declared carry target_vp).
  Object.assign(body, settings.options ?? (settings.target_vp ? { target_vp: settings.target_vp } : {}));
  if (settings.turn_seconds) body.turn_seconds = settings.turn_seconds;
  if (settings.turn_seconds && settings.time_bank_seconds) body.time_bank_seconds = settings.time_bank_seconds;
  // Signed in, the account takes the first seat under its own name: no name is sent then.
  const session = store.session();
  if (settings.name && !session) body.name = settings.name;
  if (settings.private) body.private = true;
  if (settings.rated && session && settings.seats >= 2) body.rated = true;
  if (settings.bot_level && settings.bots?.includes('expert')) body.bot_level = settings.bot_level;
  let g;
  try {
    g = await api.createGame(body, session?.token);
  } catch (e) {
    if (e.status === 401 && session) {
      store.forgetSession();
      e.message = t('Your sign-in has ended: sign in again, or play without an account.');
    }
    throw e;
  }
  store.setHost(g.id, g.host_token);
  if (g.token !== undefined) store.setSeat(g.id, g.seat, g.token);
  store.setSettings(g.id, settings);
  store.setLastSettings(settings);
  if (settings.name && !session) store.setName(settings.name);
  return g.id;
}

/**
 * Calls `fn` for every event of the log that EventSource `es` carries. Each SSE message is named
 * by its event type, so a listener per type is needed: the types come from the server's
 * rulesets (GET /api/v1/rulesets, event_types), so a game added to the server is followed with
 * no list here. Until they are known (a cached reply arrives at once), unnamed messages still
 * reach `fn`.
 */
/**
 * A player's live log of game `id` read with fetch(), so that it carries the seat's token
 * (EventSource cannot send headers): the server never refuses a player's stream for its caps,
 * it ends a watcher's instead. It starts after event `after` and offers what live.js uses of an
 * EventSource: readyState (0 connecting, 1 open, 2 closed), onopen, onerror (once, when it
 * ends or is refused: it does not reconnect by itself), onmessage, addEventListener(type, fn)
 * and close().
 */
export class SeatStream {
  constructor(id, token, after = 0) {
    this.readyState = 0;
    this.onopen = null;
    this.onerror = null;
    this.onmessage = null;
    this.listeners = new Map();
    this.abort = new AbortController();
    this.run(`${BASE}/games/${enc(id)}/stream?after=${after}`, token).catch(() => {}).finally(() => {
      if (this.readyState === 2) return;
      this.readyState = 2;
      this.onerror?.();
    });
  }

  addEventListener(type, fn) {
    if (!this.listeners.has(type)) this.listeners.set(type, []);
    this.listeners.get(type).push(fn);
  }

  close() {
    this.readyState = 2;
    this.abort.abort();
  }

  async run(url, token) {
    const r = await fetch(url, { headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' }, signal: this.abort.signal });
    if (!r.ok || !r.body) return;
    this.readyState = 1;
    this.onopen?.();
    const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done || this.readyState === 2) return;
      buf += value.replace(/\r\n?/g, '\n');
      let end;
      while ((end = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, end);
        buf = buf.slice(end + 2);
        let type = 'message';
        const data = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('event:')) type = line.slice(6).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        }
        if (!data.length) continue;
        const ev = { type, data: data.join('\n') };
        const fns = this.listeners.get(type);
        if (fns) for (const fn of fns) fn(ev);
        else this.onmessage?.(ev);
      }
    }
  }
}

export function listenToLog(es, fn) {
  es.onmessage = fn;
  loadRulesets().then((d) => {
    for (const r of d.rulesets) for (const t of r.event_types ?? []) es.addEventListener(t, fn);
  }).catch(() => { /* no rulesets: the page's refreshes still show the game */ });
}
