// simcity/data.js: what SimCity's page knows of the game apart from one table: the card catalog
// (GET /api/v1/cards?game=simcity) and its zones, phases, kinds and services in words, a card's
// face for the hand, the steps' titles, the money sources of the end screen, and the public log
// as readable lines. What may be played is the server's legal options (pending.options), never
// worked out here.

import { api } from '../../api.js';
import { h, onUserFocus } from '../../dom.js';
import { sortByKeys } from '../../ui.js';
import { roundLog } from '../turns.js';
import { t, tn } from '../../i18n.js';

/** The zones of blocks: a short tag for the card's corner and a name. */
export const ZONES = {
  residential: { short: 'R', name: t('Residential') },
  commercial: { short: 'C', name: t('Commercial') },
  industrial: { short: 'I', name: t('Industrial') },
  governmental: { short: 'G', name: t('Governmental') },
  agricultural: { short: 'A', name: t('Agricultural') },
  special: { short: '★', name: t('Special') },
  services: { short: 'S', name: t('City services (wild)') },
  land: { short: 'L', name: t('Undeveloped land') },
};
export const PHASES = ['', t('I Settlement'), t('II Village'), t('III City'), t('IV Metropolis')];
export const STEP_TITLES = {
  draw: t('draw'), council: t('council'), target: t('timed event'), play: t('play'), vote: t('rezoning vote'),
  mayor_pay: t("Mayor's bill"), election: t('election'), discard: t('discard'), over: t('game over'),
};
export const MODES = { new: t('new block'), upgrade: t('upgrade'), rezone: t('rezone'), vote: t('rezone by vote'), event: t('event') };
/** The end screen's money sources (the seats' `earned`), in the order shown. */
export const SOURCES = {
  value: t('Blocks’ $ value'), bonus: t('Receive, lose, add, deduct'), zone: t('Zone bonuses'), complex: t('Complex bonuses'),
  scorched: t('Scorched earth'), coverage: t('Coverage'), mayor: t('Mayor gains / pays'), events: t('Events (every player)'),
  council: t('Council members bought'), bills: t('Mayor’s bills'), elections: t('Votes bought in elections'),
};
const EDGES = { NS: t('north–south'), EW: t('east–west'), NESW: t('all four ways') };

let catalog = null;
let loading = null;
/** Loads the catalog once; resolves to a Map slug → card (design() gives stand-ins until then). */
export function loadScCatalog() {
  loading ??= api.cards('simcity').then((d) => { catalog = new Map(d.cards.map((c) => [c.id, c])); return catalog; })
    .catch((e) => { loading = null; throw e; });
  return loading;
}

/**
 * The name of a card on a cell of the city: its font shrinks with the cell (simcity.css, by --w,
 * the letters of its longest word) so that a word is never broken across lines.
 */
export function cellName(name) {
  const w = Math.max(1, ...name.split(/\s+/).map((word) => [...word].length));
  return h('span', { class: 'sc-name', style: `--w:${w}` }, name);
}

/** The catalog entry of card `slug` (a stand-in when unknown, so nothing breaks). */
export function design(slug) {
  return catalog?.get(slug) ?? { id: slug, name: String(slug), kind: 'block', zone: 'land', phase: 1, value: 0, text: '' };
}

/** The colour class of card `d`: its zone for a block, its kind otherwise. */
export function kindClass(d) {
  return d.kind === 'block' ? `z-${d.zone}` : `k-${d.kind}`;
}

/** What card `d` is in a few words: "Residential · $2 · 4 sims", "Event (fire)", "Council member: 2 votes, costs $3". */
export function cardKind(d) {
  if (d.kind === 'event') return d.hazard ? t('Event ({hazard})', { hazard: d.hazard }) : t('Event');
  if (d.kind === 'council') return `${tn(d.votes, 'Council member: {count} vote, costs ${cost}', 'Council member: {count} votes, costs ${cost}', { cost: d.cost })}${d.corrupt ? t(', corrupt: always votes {ballot}', { ballot: t(d.vote) }) : ''}`;
  const sims = d.sims > 0 ? t(' · provides {n} sims', { n: d.sims }) : d.sims < 0 ? t(' · needs {n} sims', { n: -d.sims }) : '';
  return `${d.zone === 'land' ? t('Land ({land})', { land: d.land }) : ZONES[d.zone]?.name ?? d.zone} · $${d.value}${sims}`;
}

/** Card `d`'s services and figures in words: road, rail, power, crime, pollution, complex, phase. */
export function cardFacts(d) {
  if (d.kind !== 'block') return [t('Phase {phase}', { phase: PHASES[d.phase] ?? d.phase })];
  return [
    t('Phase {phase}', { phase: PHASES[d.phase] ?? d.phase }),
    d.road ? t('Road {way}', { way: EDGES[d.road] ?? d.road }) : null,
    d.rail ? t('Rail {way}', { way: EDGES[d.rail] ?? d.rail }) : null,
    d.power ? t('Power line') : null,
    d.power_plant ? t('Power plant') : null,
    d.crime ? t('Crime {n}', { n: d.crime }) : null,
    d.pollution ? t('Pollution {n}', { n: d.pollution }) : null,
    d.complex ? t('Complex: {name} {bonus}', { name: d.complex.name, bonus: d.complex.bonus }) : null,
  ].filter(Boolean);
}

const ARROWS = { NS: '↕', EW: '↔', NESW: '✚' };
/** Block `d`'s services and sims in a few characters for its cell: "road ↕ · power · +3 sims". */
export function serviceLine(d) {
  if (d.kind !== 'block') return '';
  return [d.road ? `road ${ARROWS[d.road] ?? d.road}` : null, d.rail ? `rail ${ARROWS[d.rail] ?? d.rail}` : null, d.power ? 'power' : null,
    d.sims > 0 ? `+${d.sims} sims` : d.sims < 0 ? `needs ${-d.sims} sims` : null].filter(Boolean).join(' · ');
}

/** A card's one-line label: its name and, for a block, its $ value. */
export function cardLabel(slug) {
  const d = design(slug);
  return d.kind === 'block' ? `${d.name} $${d.value}` : d.name;
}

/** The orders a hand can be shown in. */
export const HAND_SORTS = { dealt: t('As dealt'), kind: t('Kind'), value: t('Value'), name: t('Name') };

/**
 * A hand card's face (a real button). o: {state, badge, disabled, dim, mark (a few words under
 * the name), label (the mark for screen readers), fresh, onClick, onInfo}.
 */
export function scCard(cid, slug, o) {
  const d = design(slug);
  const corner = d.kind === 'block' ? `$${d.value}` : d.kind === 'council' ? `$${d.cost}` : '!';
  const tag = d.kind === 'block' ? ZONES[d.zone]?.short ?? '' : d.kind === 'council' ? t('Council') : t('Event');
  return h('button', {
    type: 'button', class: `sccard ${kindClass(d)} ${o.state ? `is-${o.state}` : ''} ${o.dim ? 'dim' : ''}`, 'data-card-id': cid, 'data-slug': slug,
    'data-focus-key': `card-${cid}`, 'aria-pressed': o.state ? 'true' : 'false', disabled: !!o.disabled,
    title: d.text || cardKind(d), onclick: o.onClick, onpointerenter: o.onInfo, onfocus: onUserFocus(o.onInfo),
  },
  h('span', { class: 'sc-top', 'aria-hidden': 'true' }, h('span', { class: 'sc-val' }, corner),
    o.fresh ? h('span', { class: 'new-tag' }, t('New')) : null, h('span', { class: 'sc-zone' }, tag)),
  h('span', { class: 'sc-name' }, d.name),
  o.mark ? h('span', { class: 'sc-mark', 'aria-hidden': 'true' }, o.mark) : null,
  h('span', { class: 'offscreen' }, `, ${cardKind(d)}${o.fresh ? t(', new since your last decision') : ''}${o.label ? `. ${o.label}` : ''}: `),
  h('span', { class: 'sc-text' }, d.text || cardKind(d)),
  o.badge ? h('span', { class: 'badge' }, h('span', { class: 'offscreen' }, '. '), o.badge) : null);
}

/** The hand [{id, card}] in the order `by` (a key of HAND_SORTS); ties keep the dealt order. */
export function sortScHand(hand, by) {
  const kinds = ['block', 'event', 'council'];
  const key = {
    kind: (d) => [kinds.indexOf(d.kind), d.zone ?? '', d.value ?? 0, d.name],
    value: (d) => [d.value ?? d.cost ?? 0, d.name],
    name: (d) => [d.name.toLowerCase()],
  }[by];
  return key ? sortByKeys(hand, (c) => key(design(c.card))) : hand;
}

/** SimCity's public log as lines: [{kind, seq, text}]. */
export function scLog(events, names) {
  const nm = (slug) => design(slug).name;
  return roundLog(events, names, {
    title: 'SimCity',
    totals: (e) => (e.money ? e.money.map((m) => `$${m}`).join(' – ') : ''),
    line: (e, add, who) => {
      switch (e.type) {
        case 'drew': if (e.from === 'discard') add(t('{name} took the top of the discard pile.', { name: who(e.seat) }), 'minor'); return true;
        case 'bought': add(t('{name} bought the council member {card} for ${cost}.', { name: who(e.seat), card: nm(e.card), cost: e.cost })); return true;
        case 'played': add(e.mode === 'event' ? (e.x !== undefined ? t('{name} played the event {card} on {x}, {y}.', { name: who(e.seat), card: nm(e.card), x: e.x, y: e.y }) : t('{name} played the event {card}.', { name: who(e.seat), card: nm(e.card) }))
          : `${t('{name} played {card} at {x}, {y}', { name: who(e.seat), card: nm(e.card), x: e.x, y: e.y })}${e.mode && e.mode !== 'new' ? ` (${MODES[e.mode] ?? e.mode})` : ''}: +$${e.scored ?? 0}.`, 'build'); return true;
        case 'money': if (e.source !== 'value' && e.amount) add(`${who(e.seat)} ${e.amount > 0 ? `+$${e.amount}` : `−$${-e.amount}`} (${SOURCES[e.source] ?? e.source}).`, 'minor'); return true;
        case 'passed': add(t('{name} passed.', { name: who(e.seat) }), 'minor'); return true;
        case 'proposed': add(t('{name} asks the council to rezone {x}, {y} for {card}.', { name: who(e.seat), x: e.x, y: e.y, card: nm(e.card) })); return true;
        case 'ballot': add(`${t('{name} votes {ballot}', { name: who(e.seat), ballot: t(e.ballot) })}${e.votes ? ` (${tn(e.votes, '{count} vote', '{count} votes')})` : ''}.`); return true;
        case 'mayor_vote': add(`${t('The Mayor {name} votes {ballot}', { name: who(e.seat), ballot: t(e.ballot) })}${e.tie && e.tie !== 'none' ? t(', breaks a tie {tie}', { tie: t(e.tie) }) : ''}.`); return true;
        case 'vote_result': add(e.passed ? t('The rezoning passes: {yes} yes, {no} no.', { yes: e.yes, no: e.no }) : t('The rezoning fails: {yes} yes, {no} no.', { yes: e.yes, no: e.no })); return true;
        case 'event': add(t('Event: {card}.', { card: nm(e.card) }), 'warn'); return true;
        case 'destroyed': add(e.scorched ? t('{card} at {x}, {y} was destroyed; the cell is scorched.', { card: nm(e.card), x: e.x, y: e.y }) : t('{card} at {x}, {y} was destroyed.', { card: nm(e.card), x: e.x, y: e.y }), 'warn'); return true;
        case 'removed': add(t('{card} at {x}, {y} left the city.', { card: nm(e.card), x: e.x, y: e.y }), 'minor'); return true;
        case 'doomed': add(t('{card} at {x}, {y} will leave at the next turn.', { card: nm(e.card), x: e.x, y: e.y }), 'minor'); return true;
        case 'phase': add(t('The city reaches phase {phase}.', { phase: PHASES[e.phase] ?? e.phase }), 'build'); return true;
        case 'mayor': add(e.seat !== undefined ? t('{name} is the Mayor.', { name: who(e.seat) }) : t('There is no Mayor.')); return true;
        case 'bill': add(e.card ? t('A bill of ${amount} for the Mayor ({card}).', { amount: e.amount, card: nm(e.card) }) : t('A bill of ${amount} for the Mayor.', { amount: e.amount })); return true;
        case 'vacated': add(t("{name} vacates the Mayor's office: an election.", { name: who(e.seat) }), 'warn'); return true;
        case 'bid': add(tn(e.votes, '{name} buys {count} vote for {candidate}.', '{name} buys {count} votes for {candidate}.', { name: who(e.seat), candidate: who(e.candidate) })); return true;
        case 'elected': add(tn(e.votes, '{name} is elected Mayor with {count} vote.', '{name} is elected Mayor with {count} votes.', { name: who(e.seat) })); return true;
        case 'timed': add(e.ended ? t('{card} is over.', { card: nm(e.card) }) : e.x !== undefined ? t('{card} acts at {x}, {y}.', { card: nm(e.card), x: e.x, y: e.y }) : t('{card} acts.', { card: nm(e.card) }), 'minor'); return true;
        case 'discarded': add(t('{name} discarded {card}.', { name: who(e.seat), card: nm(e.card) }), 'minor'); return true;
        case 'target_reached': add(t('{name} reached ${target}: this is the last round.', { name: who(e.seat), target: e.target }), 'warn'); return true;
        default: return false;
      }
    },
  });
}
