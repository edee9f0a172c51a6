// generic.js: the module of a game this page has no module for (games/index.js gives it out),
// so that a new ruleset is playable on its first day: its table shows a summary of the public
// view, the seats and their figures, this seat's hand by the names of its catalog, what is
// pending (its options as the server sends them) and a Suggest button that sends the expert's
// suggestion as it is (POST /hint; the greedy pending.suggestion once the hints are used up); its
// log and its replay say each event's fields in words.

import { api, loadRulesets } from '../api.js';
import { h, replace } from '../dom.js';
import { seatDot, joinNames, logList } from '../ui.js';
import { botMark, seatLogLine, isClosed, presenceMark, bankMark } from '../seats.js';
import { t } from '../i18n.js';

const SKIP = new Set(['seats', 'hand', 'pending', 'id', 'game', 'status', 'order', 'defaulted', 'seat', 'last_seq', 'seed']);

/** A position for people: "Round 2 · build · turn 5". */
function position(p) {
  return [p.round !== undefined ? `Round ${p.round}` : null, p.step, p.turn !== undefined ? `turn ${p.turn}` : null].filter(Boolean).join(' · ');
}

/** An event of the log in words: its seat, its type and its other fields. */
function describe(e, nameOf, cardName) {
  const seatLine = seatLogLine(e, nameOf);
  if (seatLine) return seatLine.text;
  const who = e.seat !== undefined ? `${nameOf(e.seat)}: ` : '';
  const rest = Object.entries(e).filter(([k]) => !['seq', 'type', 'seat', 'round', 'step', 'turn'].includes(k))
    .map(([k, x]) => `${k} ${k === 'card' ? cardName(x) : typeof x === 'object' ? JSON.stringify(x) : x}`).join(', ');
  return `${who}${e.type.replaceAll('_', ' ')}${rest ? ` (${rest})` : ''}`;
}

/** The log lines of `events`: one line an event. */
function logLines(events, nameOf, cardName = String) {
  return events.map((e) => ({ kind: 'line', seq: e.seq, text: describe(e, nameOf, cardName) }));
}

/** The generic part of the table for the shell's context `ctx` (see web/table.js). */
function genericTable(ctx) {
  const { st } = ctx;
  const summary = h('section', { class: 'panel', id: 'summary', 'aria-label': t('The game') });
  let names = new Map(); // card id (slug) → name, from the game's catalog when it serves one
  let catalogAsked = false;

  function cardName(c) {
    const slug = typeof c === 'object' && c ? c.card ?? c.id : c;
    return names.get(slug) ?? String(slug);
  }

  function draw() {
    const v = st.view;
    if (v && !catalogAsked) {
      catalogAsked = true;
      // Only a game the server lists has a catalog to ask for (anything else answers 400).
      loadRulesets().then((r) => (r.byId.has(v.game) ? api.cards(v.game) : null))
        .then((d) => { if (d) { names = new Map((d.cards ?? []).map((c) => [c.id, c.name ?? c.id])); ctx.render(); } }).catch(() => null);
    }
    summary.hidden = !v || isClosed(v);
    if (summary.hidden) return;
    const facts = Object.entries(v).filter(([k, x]) => !SKIP.has(k) && (typeof x !== 'object' || x === null || Array.isArray(x)));
    replace(summary, h('h2', {}, t('The game')),
      h('dl', { class: 'facts' }, facts.map(([k, x]) => h('div', {}, h('dt', {}, k.replaceAll('_', ' ')), h('dd', {}, show(x))))),
      h('h3', {}, t('Seats')),
      h('ul', { class: 'seat-list' }, (v.seats ?? []).map((s, i) => h('li', { class: 'seat-row', 'data-seat': i },
        seatDot(i), h('strong', {}, ctx.nameOf(i) ?? t('open seat')),
        ctx.me() === i ? h('span', { class: 'tag you' }, t('you')) : null,
        botMark(s.bot),
        presenceMark(s, { status: v.status, mine: ctx.me() === i }),
        bankMark(s, v, i),
        h('span', { class: 'muted' }, Object.entries(s).filter(([k, x]) => !['seat', 'name', 'bot', 'presence', 'bank_seconds'].includes(k) && typeof x !== 'object')
          .map(([k, x]) => `${k.replaceAll('_', ' ')} ${x}`).join(' · '))))));
  }

  function show(x) {
    if (Array.isArray(x)) return x.length > 12 ? `${x.length} items` : x.map((e) => (typeof e === 'object' && e ? cardName(e) : String(e))).join(', ') || '—';
    return x === null ? '—' : String(x);
  }

  /** Sends the expert's (or the quick) suggestion for point `p` if it is still pending when it comes. */
  async function suggest(p) {
    const got = await ctx.hints.ask(p);
    const now = ctx.pending();
    if (!ctx.alive() || !got?.suggestion || !ctx.samePoint(p, now) || st.hand.order) return;
    ctx.send(got.suggestion);
  }

  function action(p) {
    return {
      head: [h('h2', { id: 'action-title' }, t('Your move: {what}', { what: position(p) })),
        h('p', {}, st.hand.order ? t('Your choice is in; waiting for the others.') : t('Press Suggest to send the choice the server suggests for you.'))],
      extra: p.options && Object.keys(p.options).length ? h('details', { class: 'options' }, h('summary', {}, t('What you may choose')),
        h('pre', { class: 'json' }, JSON.stringify(p.options, null, 1))) : null,
      buttons: [ctx.hints.button({
        cls: 'primary', disabled: st.busy || !!st.hand.order || (!p.suggestion && ctx.hints.left() === 0), onclick: () => suggest(p),
        title: t('Send the choice the server suggests for you'),
      })],
      handClass: 'plain-hand',
      cardOpts: () => ({}),
    };
  }

  return {
    main: [summary],
    opening: [t('Your hand'), t('The game starts when every seat is taken.')],
    watching: t('You are watching this game.'),
    stepLabel: position,
    pointText: position,
    stats: () => [],
    forceText: (v, who) => t('Resolve this decision now? {who} will get the default.', { who }),
    endLead: (v, who) => (who.length ? t('Won by {names}.', { names: joinNames(who) }) : t('Nobody won.')),
    rankExtra: (v, seat) => {
      const s = v.seats[seat];
      return typeof s.score === 'number' ? [h('span', { class: 'r-vp' }, String(s.score))] : [];
    },
    action,
    actionSig: () => [names.size],
    card: (c) => h('span', { class: 'chip', 'data-card-id': c.id ?? '' }, cardName(c)),
    draw,
    logLines: (events, nameOf) => logLines(events, nameOf, cardName),
  };
}

export default {
  lead: null, // the lobby says the ruleset's title and seats instead
  credit: null,
  styles: [],
  className: 'generic',
  table: async () => genericTable,
  replay: async (nameOf) => ({
    title: t('Seats'),
    draw: () => null,
    log: (events) => logList(logLines(events, nameOf)),
  }),
};
