// generic.js: the table of a game this page has no table for, so that a new ruleset is playable
// on its first day: a summary of the public view, the seats and their scores, this seat's hand,
// what is pending (its options as the server sends them), a Suggest button that sends the
// expert's suggestion as it is (POST /hint; the greedy pending.suggestion once the hints are used
// up), and the log, live over the game's event stream.

import { api, loadRulesets } from './api.js';
import { h, replace, keepFocus } from './dom.js';
import { liveGame, waitingRoom } from './live.js';
import { seatDot, helpLinks } from './ui.js';
import { seatTools, closedNotice, isClosed, botMark, seatLogLine } from './seats.js';
import { expertHints, samePoint } from './hints.js';

const SKIP = new Set(['seats', 'hand', 'pending', 'id', 'game', 'status', 'order', 'defaulted', 'seat', 'last_seq', 'seed']);

/** Mounts the generic table of game `id` in `root`; returns a teardown function. */
export function mountGeneric(root, id, navigate) {
  const bar = h('header', { class: 'table-bar', id: 'bar' });
  const banner = h('div', { id: 'banner' });
  const action = h('section', { class: 'panel action', id: 'action', 'aria-labelledby': 'action-title', tabindex: -1 });
  const summary = h('section', { class: 'panel', id: 'summary', 'aria-label': 'The game' });
  const logList = h('div', { class: 'log', id: 'log', tabindex: 0, 'aria-label': 'Game log' });
  const tools = seatTools({
    id, navigate, refresh: () => game.refresh(),
    read: () => ({ view: game.st.view, me: game.st.me, host: game.st.host, events: game.st.events.values(), nameOf: game.nameOf }),
    dropSeat: () => { Object.assign(game.st, { me: null, hand: null, notice: '' }); game.refresh(); },
  });
  replace(root, h('section', { class: 'table generic', 'data-game': id },
    bar, banner,
    h('div', { class: 'table-grid' },
      h('div', { class: 'col-main' }, action, summary),
      h('aside', { class: 'col-side' }, tools.el, h('section', { class: 'panel log-box', 'aria-labelledby': 'log-title' }, h('h2', { id: 'log-title' }, 'Log'), logList)))));

  const keep = { redraw: () => draw() };
  let names = new Map(); // card id (slug) → name, from the game's catalog when it serves one
  const game = liveGame(id, () => draw());
  let alive = true;
  const hints = expertHints(id, () => game.st.me, () => { if (alive) draw(); });
  let catalogAsked = false;
  let title = null; // the ruleset's title, once the server's list is read

  function cardName(c) {
    const slug = typeof c === 'object' && c ? c.card ?? c.id : c;
    return names.get(slug) ?? String(slug);
  }

  function draw() {
    const { st } = game;
    const v = st.view;
    if (v && !catalogAsked) {
      catalogAsked = true;
      // Only a game the server lists has a catalog to ask for (anything else answers 400).
      loadRulesets().then((r) => { title = r.byId.get(v.game)?.title ?? title; return r.byId.has(v.game) ? api.cards(v.game) : null; })
        .then((d) => { if (d) { names = new Map((d.cards ?? []).map((c) => [c.id, c.name ?? c.id])); draw(); } }).catch(() => null);
    }
    document.title = `${st.hand?.pending && !st.hand.order ? '● Your move · ' : ''}${title ?? v?.game ?? 'Game'}`;
    replace(bar, h('a', { href: '#/', class: 'back', 'aria-label': 'Back to the lobby' }, '← Lobby'),
      h('div', { class: 'bar-title' }, h('strong', {}, title ?? v?.game ?? 'Loading…'),
        v ? h('span', { class: 'step-pill', id: 'step' }, v.status === 'open' ? 'Waiting for players' : isClosed(v) ? (v.status === 'cancelled' ? 'Cancelled' : 'Expired') : v.status === 'finished' ? 'Game over' : position(v)) : null),
      v?.game ? helpLinks(v.game) : null);
    if (st.missing || (!v && st.error)) {
      replace(banner, h('div', { class: 'panel notice' }, h('h2', {}, 'No such game'), h('p', {}, st.error), h('a', { href: '#/', class: 'button primary' }, 'Back to the lobby')));
      return;
    }
    if (!v) return;
    summary.hidden = isClosed(v);
    // One keepFocus over the banner and the seat panel, which sits in the waiting room while open.
    keepFocus(root, () => {
      if (isClosed(v)) replace(banner, closedNotice(v));
      else if (v.status === 'open') replace(banner, waitingRoom(game, id, keep));
      else if (v.status === 'finished') {
        const w = (v.winners ?? []).map((s) => game.nameOf(s));
        replace(banner, h('div', { class: 'panel end-screen', id: 'end-screen' }, h('h2', { id: 'end-title' }, 'Game over'),
          h('p', { class: 'lead', id: 'winners' }, w.length ? `Won by ${w.join(' and ')}.` : 'Nobody won.'), h('a', { href: '#/', class: 'button' }, 'Lobby')));
      } else replace(banner, st.me ? null : h('div', { class: 'panel notice slim' }, h('p', {}, 'You are watching this game.')));
      tools.place(banner);
      tools.update();
    });
    keepFocus(action, drawAction, action);
    drawSummary(v);
    drawLog();
  }

  function position(p) {
    return [p.round !== undefined ? `Round ${p.round}` : null, p.step, p.turn !== undefined ? `turn ${p.turn}` : null].filter(Boolean).join(' · ');
  }

  function drawAction() {
    const { st } = game;
    const hand = st.hand;
    const p = hand?.pending ?? null;
    action.hidden = !hand || st.view.status === 'finished' || isClosed(st.view);
    if (action.hidden) return replace(action);
    const items = hand.hand ?? [];
    replace(action,
      h('h2', { id: 'action-title' }, p ? `Your move: ${position(p)}` : 'Your hand'),
      p ? h('p', {}, hand.order ? 'Your choice is in; waiting for the others.' : 'Press Suggest to send the choice the server suggests for you.')
        : h('p', { class: 'muted' }, 'Nothing to decide right now.'),
      p?.options && Object.keys(p.options).length ? h('details', { class: 'options' }, h('summary', {}, 'What you may choose'),
        h('pre', { class: 'json' }, JSON.stringify(p.options, null, 1))) : null,
      st.refused ? h('p', { class: 'error', role: 'alert', id: 'action-error' }, st.refused) : null,
      h('ul', { class: 'plain-hand', id: 'hand', 'aria-label': `Your hand, ${items.length} cards` },
        items.map((c) => h('li', { class: 'chip', 'data-card-id': c.id ?? '' }, cardName(c)))),
      p ? h('div', { class: 'actions' }, hints.button({
        cls: 'primary', disabled: st.busy || !!hand.order || (!p.suggestion && hints.left() === 0), onclick: () => suggest(p),
        title: 'Send the choice the server suggests for you',
      })) : null,
      p ? hints.note(p) : null);
    action.dataset.turn = p ? position(p) : 'none';
    action.dataset.state = p ? p.step : 'waiting';
    action.dataset.submitted = hand.order ? 'true' : 'false';
    action.dataset.busy = st.busy ? 'true' : 'false';
  }

  /** Sends the expert's (or the quick) suggestion for point `p` if it is still pending when it comes. */
  async function suggest(p) {
    const got = await hints.ask(p);
    const now = game.st.hand?.pending;
    if (!alive || !got?.suggestion || !samePoint(p, now) || game.st.hand.order) return;
    game.send(got.suggestion);
  }

  function drawSummary(v) {
    const facts = Object.entries(v).filter(([k, x]) => !SKIP.has(k) && (typeof x !== 'object' || x === null || Array.isArray(x)));
    replace(summary, h('h2', {}, 'The game'),
      h('dl', { class: 'facts' }, facts.map(([k, x]) => h('div', {}, h('dt', {}, k.replaceAll('_', ' ')), h('dd', {}, show(x))))),
      h('h3', {}, 'Seats'),
      h('ul', { class: 'seat-list' }, (v.seats ?? []).map((s, i) => h('li', { class: 'seat-row', 'data-seat': i },
        seatDot(i), h('strong', {}, game.nameOf(i) ?? 'open seat'),
        game.st.me?.seat === i ? h('span', { class: 'tag you' }, 'you') : null,
        botMark(s.bot),
        h('span', { class: 'muted' }, Object.entries(s).filter(([k, x]) => !['seat', 'name', 'bot'].includes(k) && typeof x !== 'object')
          .map(([k, x]) => `${k.replaceAll('_', ' ')} ${x}`).join(' · '))))));
  }

  function show(x) {
    if (Array.isArray(x)) return x.length > 12 ? `${x.length} items` : x.map((e) => (typeof e === 'object' && e ? cardName(e) : String(e))).join(', ') || '—';
    return x === null ? '—' : String(x);
  }

  let drawn = -1;
  function drawLog() {
    const ev = game.st.events;
    if (ev.size === drawn) return;
    drawn = ev.size;
    const list = [...ev.values()].sort((a, b) => a.seq - b.seq);
    replace(logList, h('ol', { class: 'log-list' }, list.map((e) => h('li', { 'data-seq': e.seq }, describe(e)))));
    logList.scrollTop = logList.scrollHeight;
  }

  function describe(e) {
    const seatLine = seatLogLine(e, game.nameOf);
    if (seatLine) return seatLine.text;
    const who = e.seat !== undefined ? `${game.nameOf(e.seat)}: ` : '';
    const rest = Object.entries(e).filter(([k]) => !['seq', 'type', 'seat', 'round', 'step', 'turn'].includes(k))
      .map(([k, x]) => `${k} ${k === 'card' ? cardName(x) : typeof x === 'object' ? JSON.stringify(x) : x}`).join(', ');
    return `${who}${e.type.replaceAll('_', ' ')}${rest ? ` (${rest})` : ''}`;
  }

  return () => { alive = false; game.close(); };
}
