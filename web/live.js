// live.js: the live state of one game for its table (table.js): the public view, this browser's
// hand view, the event log (from the SSE stream, with gaps filled from GET /events), joining a
// seat, sending an order, and the waiting room. It knows no rules: an order is sent as the
// game's part of the table builds it, positions included. A seat is this browser's seat token,
// or, signed in, the account's seat (GET /api/v1/me/games), which the session token acts for.

import { api, store, streamUrl, listenToLog, SeatStream } from './api.js';
import { h } from './dom.js';
import { shareBox, seatDot, inPlayersWords } from './ui.js';
import { t } from './i18n.js';

/** How often a table read by several people reads the view again for its seats' presence. */
const PRESENCE_POLL_MS = 5000;

/** A refused join in players' words (the account's refusals have sentences of their own). */
function joinWords(e) {
  return inPlayersWords(e);
}

/**
 * Starts following game `id`; calls onChange() after every change, and onChat(message) for each
 * `chat` event of the stream (table talk, chat.js). Returns
 * {st, refresh(), send(body), join(name), nameOf(seat), reclaim(), close()}; st holds view,
 * hand, me ({seat, token, account (its name when the token is the account's session)} or null),
 * reclaim (the seat a bot took over while this browser was away, which reclaim() takes back, or
 * null), host, events (Map seq → event), conn, error, missing, busy, refused.
 */
export function liveGame(id, onChange, { onChat = null } = {}) {
  const st = {
    view: null, hand: null, me: store.seat(id), host: store.host(id), events: new Map(),
    conn: 'connecting', error: '', notice: '', missing: false, busy: false, refused: '',
    joining: false, joinError: '', reclaim: null,
  };
  let alive = true;
  let es = null;
  let gen = 0;
  let debounce = null;
  let firstScheduled = 0;
  let reopen = null;
  let poll = null; // while the stream is down: the view and the log read every few seconds
  let failures = 0; // streams refused or cut in a row: the next try waits longer

  const maxSeq = () => { let m = 0; for (const k of st.events.keys()) m = Math.max(m, k); return m; };

  async function refresh() {
    const g = ++gen;
    firstScheduled = 0;
    try {
      const me = st.me;
      let refused = '';
      const [v, hand] = await Promise.all([
        api.game(id),
        me ? api.hand(id, me.token).catch((e) => {
          if (e.status !== 401 && e.status !== 403) throw e;
          refused = inPlayersWords(e);
          return null;
        }) : null,
      ]);
      if (!alive || g !== gen) return;
      st.view = v;
      st.hand = hand;
      st.error = '';
      // Events the stream has not brought (types it has no listener for, or missed while down).
      if ((v.last_seq ?? 0) > maxSeq()) {
        let after = maxSeq();
        for (let i = 0; i < 20 && after < v.last_seq; i++) {
          const page = await api.events(id, after);
          for (const e of page.events ?? []) st.events.set(e.seq, e);
          const m = maxSeq();
          if (m <= after) break;
          after = m;
        }
      }
      // After the log is read: it tells whether a bot took the seat over.
      if (refused && st.me === me) {
        st.me = null;
        if (takenOver(me.seat)) {
          // A bot took the seat over while this browser was away: its key may take it back.
          st.reclaim = me;
          st.notice = t('A bot plays your seat now: your turns went by without you. Take it back to play on.');
        } else {
          if (!me.account) store.forgetSeat(id);
          st.notice = `${refused} ${t('You are watching this game instead.')}`;
        }
      }
    } catch (e) {
      if (!alive || g !== gen) return;
      if (e.status === 404) st.missing = true;
      st.error = inPlayersWords(e);
    }
    if (alive) onChange();
  }

  function scheduleRefresh() {
    const now = Date.now();
    if (!firstScheduled) firstScheduled = now;
    clearTimeout(debounce);
    debounce = setTimeout(refresh, now - firstScheduled > 600 ? 0 : 120);
  }

  /** True when the log's last change of seat `seat` is a takeover (not taken back since). */
  function takenOver(seat) {
    let last = null;
    for (const e of st.events.values()) if (e.seat === seat && (e.type === 'taken_over' || e.type === 'reclaimed')) last = e.type;
    return last === 'taken_over';
  }

  /** Takes back the seat st.reclaim held (a bot took it over): resolves once the table plays it again. */
  async function reclaim() {
    const me = st.reclaim;
    if (!me) return;
    await api.reclaim(id, me.token);
    st.reclaim = null;
    st.me = me;
    st.notice = '';
    if (es) { es.close(); es = null; openStream(); } // a player's stream again, with the key
    await refresh();
  }

  function gameOver() {
    for (const e of st.events.values()) if (e.type === 'game_over') return true;
    return false;
  }

  // A seat's stream carries its token (the server keeps a player's stream even at its caps);
  // a watcher's is a plain EventSource from the last event it has.
  function openStream() {
    if (!alive || (st.view?.status === 'finished' && gameOver()) || ['cancelled', 'expired', 'abandoned'].includes(st.view?.status)) return;
    es = st.me ? new SeatStream(id, st.me.token, maxSeq()) : new EventSource(streamUrl(id, maxSeq()));
    const onEvent = (ev) => {
      let data;
      try { data = JSON.parse(ev.data); } catch { return; }
      if (typeof data?.seq !== 'number') return;
      st.events.set(data.seq, data);
      if (['game_over', 'cancelled', 'expired', 'abandoned'].includes(data.type)) { es?.close(); es = null; setConn('closed'); }
      scheduleRefresh();
    };
    listenToLog(es, onEvent);
    es.addEventListener('chat', (ev) => { try { onChat?.(JSON.parse(ev.data)); } catch { /* not JSON */ } });
    es.onopen = () => { failures = 0; setConn('open'); };
    es.onerror = () => {
      if (!es) return;
      if (es.readyState === 2) { // closed: refused (a cap) or ended; try again later
        es.close();
        es = null;
        setConn('down');
        failures++;
        clearTimeout(reopen);
        reopen = setTimeout(() => { if (alive) { openStream(); scheduleRefresh(); } }, Math.min(30_000, 3000 * 2 ** Math.min(failures - 1, 4)));
      } else setConn('down');
    };
  }

  // While the stream is down (refused at a server's cap, or cut), the page polls: the view and
  // the log's new events every 5 s, so the game goes on being shown.
  function setConn(c) {
    if (st.conn === c) return;
    st.conn = c;
    if (c === 'open' && st.view) scheduleRefresh();
    clearInterval(poll);
    poll = c === 'down' && alive ? setInterval(() => { if (alive) refresh(); }, 5000) : null;
    onChange();
  }

  /**
   * POSTs `body` as this seat's order; a refusal is kept in st.refused with the server's
   * sentence. answered(ok) is called once the server has answered, before the refresh that
   * follows (which may show the next decision). Resolves to true when the order was taken.
   */
  async function send(body, answered = () => {}) {
    if (!st.me || st.busy) return false;
    st.busy = true;
    st.refused = '';
    onChange();
    let ok = true;
    try {
      await api.order(id, st.me.token, body);
    } catch (e) {
      ok = false;
      st.refused = `${t('Your choice was not counted.')} ${inPlayersWords(e)}`;
    }
    st.busy = false;
    answered(ok);
    await refresh();
    return ok;
  }

  /**
   * Signed in with no seat token of this game here: the account's seat, if it has one (the
   * account's games say which), played with the session token.
   */
  async function findAccountSeat() {
    const s = store.session();
    if (st.me || !s) return;
    try {
      const mine = await api.myGames(s.token);
      const g = mine.games.find((x) => x.id === id);
      if (g && alive && !st.me) st.me = { seat: g.seat, token: s.token, account: mine.name };
    } catch (e) {
      if (e.status === 401) store.forgetSession(); // the session ended elsewhere
    }
  }

  /** Joins as `name`, or signed in (`name` null), as the account under its own name. */
  async function join(name) {
    st.joining = true;
    st.joinError = '';
    onChange();
    const s = name === null ? store.session() : null;
    try {
      if (name === null && !s) throw new Error(t('Your sign-in has ended: sign in again, or join with a name.'));
      const r = await api.join(id, name, s?.token);
      if (s) st.me = { seat: r.seat, token: s.token, account: r.account ?? s.name };
      else {
        store.setSeat(id, r.seat, r.token);
        store.setName(name);
        st.me = { seat: r.seat, token: r.token };
      }
      if (es) { es.close(); es = null; openStream(); } // now a player's stream, with the token
    } catch (e) {
      st.joinError = joinWords(e);
    }
    st.joining = false;
    await refresh();
  }

  function nameOf(seat) {
    const n = st.view?.seats?.[seat]?.name;
    if (n) return n;
    for (const e of st.events.values()) if (e.type === 'joined' && e.seat === seat) return e.name;
    return seat === null || seat === undefined ? null : `Seat ${seat + 1}`;
  }

  // A seat's presence (online / away) changes with time alone, with no event: while a game is
  // played by more than one person and the stream is open, the view alone is read again every
  // few seconds (mostly from the server's cache); news found that way brings a full refresh.
  async function refreshView() {
    const g = gen;
    try {
      const v = await api.game(id);
      if (!alive || g !== gen) return;
      if ((v.last_seq ?? 0) !== (st.view?.last_seq ?? 0)) { scheduleRefresh(); return; }
      st.view = v;
      onChange();
    } catch { /* the next read, or the stream, tells */ }
  }
  const presencePoll = setInterval(() => {
    const people = (st.view?.seats ?? []).filter((x) => x.name && !x.bot).length;
    if (alive && st.conn === 'open' && st.view?.status === 'playing' && people > 1) refreshView();
  }, PRESENCE_POLL_MS);

  findAccountSeat().then(refresh).then(() => { if (alive && !st.missing) openStream(); });

  return {
    st, refresh, send, join, nameOf, reclaim,
    close() {
      alive = false;
      clearTimeout(debounce);
      clearTimeout(reopen);
      clearInterval(poll);
      clearInterval(presencePoll);
      es?.close();
      es = null;
    },
  };
}

/**
 * The waiting room of an open game: seats, the share link, and a join form for a visitor (signed
 * in: one button that joins as the account; a rated game asks a visitor to sign in first).
 */
export function waitingRoom(game, id, keep) {
  const { st } = game;
  const v = st.view;
  const taken = v.seats.filter((s) => s.name).length;
  const parts = [
    h('h2', {}, t('Waiting for players')),
    h('p', {}, t('{taken} of {n} seats taken. The game starts as soon as every seat is.', { taken, n: v.seats.length })),
    h('ol', { class: 'seat-list waiting' }, v.seats.map((s, i) => h('li', { class: `seat-row ${s.name ? '' : 'free'}` },
      seatDot(i), h('span', {}, s.name ?? t('open seat')),
      s.bot ? h('span', { class: 'tag' }, `${s.bot} bot`) : null,
      st.me?.seat === i ? h('span', { class: 'tag you' }, t('you')) : null))),
    shareBox(id),
  ];
  const session = st.me ? null : store.session();
  if (session) {
    parts.push(h('form', {
      class: 'join-form', id: 'join-form',
      onsubmit: (e) => { e.preventDefault(); game.join(null); },
    },
    h('p', { class: 'muted' }, t("You join under your account's name, {name}.", { name: session.name })),
    h('button', { type: 'submit', class: 'primary', id: 'join', disabled: st.joining }, t('Join as {name}', { name: session.name }))));
    if (st.joinError) parts.push(h('p', { class: 'error', role: 'alert' }, st.joinError));
  } else if (!st.me && v.rated) {
    parts.push(h('p', { class: 'rated-note', id: 'rated-join' }, t('This game is rated: only players signed in to an account can join it. '),
      h('a', { href: '#/signin', id: 'join-signin' }, t('Sign in to join'))));
  } else if (!st.me) {
    keep.joinInput ??= h('input', { id: 'join-name', type: 'text', required: true, maxlength: 40, placeholder: t('Your name'), value: store.name(), autocomplete: 'nickname' });
    const input = keep.joinInput;
    parts.push(h('form', {
      class: 'join-form', id: 'join-form',
      onsubmit: (e) => {
        e.preventDefault();
        const name = input.value.trim();
        if (!name) { st.joinError = t('Type your name first: it is what the other players see.'); keep.redraw(); return; }
        game.join(name);
      },
    },
    h('label', { class: 'field' }, h('span', {}, t('Your name')), input),
    h('button', { type: 'submit', class: 'primary', id: 'join', disabled: st.joining }, t('Join this game'))));
    if (st.joinError) parts.push(h('p', { class: 'error', role: 'alert' }, st.joinError));
  } else {
    parts.push(h('p', { class: 'muted' }, t('Send the link to the other players. This page updates by itself.')));
  }
  return h('div', { class: 'panel waiting-room' }, parts);
}
