// simcity/data.js: what SimCity's page knows of the game apart from one table: the card catalog
// (GET /api/v1/cards?game=simcity) and its zones, phases, kinds and services in words, a card's
// face for the hand, the steps' titles, the money sources of the end screen, and the public log
// as readable lines. What may be played is the server's legal options (pending.options), never
// worked out here.

import { api } from '../../api.js';
import { h } from '../../dom.js';
import { sortByKeys } from '../../ui.js';
import { roundLog } from '../turns.js';

/** The zones of blocks: a short tag for the card's corner and a name. */
export const ZONES = {
  residential: { short: 'R', name: 'Residential' },
  commercial: { short: 'C', name: 'Commercial' },
  industrial: { short: 'I', name: 'Industrial' },
  governmental: { short: 'G', name: 'Governmental' },
  agricultural: { short: 'A', name: 'Agricultural' },
  special: { short: '★', name: 'Special' },
  services: { short: 'S', name: 'City services (wild)' },
  land: { short: 'L', name: 'Undeveloped land' },
};
export const PHASES = ['', 'I Settlement', 'II Village', 'III City', 'IV Metropolis'];
export const STEP_TITLES = {
  draw: 'draw', council: 'council', target: 'timed event', play: 'play', vote: 'rezoning vote',
  mayor_pay: "Mayor's bill", election: 'election', discard: 'discard', over: 'game over',
};
export const MODES = { new: 'new block', upgrade: 'upgrade', rezone: 'rezone', vote: 'rezone by vote', event: 'event' };
/** The end screen's money sources (the seats' `earned`), in the order shown. */
export const SOURCES = {
  value: 'Blocks’ $ value', bonus: 'Receive, lose, add, deduct', zone: 'Zone bonuses', complex: 'Complex bonuses',
  scorched: 'Scorched earth', coverage: 'Coverage', mayor: 'Mayor gains / pays', events: 'Events (every player)',
  council: 'Council members bought', bills: 'Mayor’s bills', elections: 'Votes bought in elections',
};
const EDGES = { NS: 'north–south', EW: 'east–west', NESW: 'all four ways' };

let catalog = null;
let loading = null;
/** Loads the catalog once; resolves to a Map slug → card (design() gives stand-ins until then). */
export function loadScCatalog() {
  loading ??= api.cards('simcity').then((d) => { catalog = new Map(d.cards.map((c) => [c.id, c])); return catalog; })
    .catch((e) => { loading = null; throw e; });
  return loading;
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
  if (d.kind === 'event') return `Event${d.hazard ? ` (${d.hazard})` : ''}`;
  if (d.kind === 'council') return `Council member: ${d.votes} vote${d.votes === 1 ? '' : 's'}, costs $${d.cost}${d.corrupt ? `, corrupt: always votes ${d.vote}` : ''}`;
  const sims = d.sims > 0 ? ` · provides ${d.sims} sims` : d.sims < 0 ? ` · needs ${-d.sims} sims` : '';
  return `${d.zone === 'land' ? `Land (${d.land})` : ZONES[d.zone]?.name ?? d.zone} · $${d.value}${sims}`;
}

/** Card `d`'s services and figures in words: road, rail, power, crime, pollution, complex, phase. */
export function cardFacts(d) {
  if (d.kind !== 'block') return [`Phase ${PHASES[d.phase] ?? d.phase}`];
  return [
    `Phase ${PHASES[d.phase] ?? d.phase}`,
    d.road ? `Road ${EDGES[d.road] ?? d.road}` : null,
    d.rail ? `Rail ${EDGES[d.rail] ?? d.rail}` : null,
    d.power ? 'Power line' : null,
    d.power_plant ? 'Power plant' : null,
    d.crime ? `Crime ${d.crime}` : null,
    d.pollution ? `Pollution ${d.pollution}` : null,
    d.complex ? `Complex: ${d.complex.name} ${d.complex.bonus}` : null,
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
export const HAND_SORTS = { dealt: 'As dealt', kind: 'Kind', value: 'Value', name: 'Name' };

/**
 * A hand card's face (a real button). o: {state, badge, disabled, dim, mark (a few words under
 * the name), label (the mark for screen readers), fresh, onClick, onInfo}.
 */
export function scCard(cid, slug, o) {
  const d = design(slug);
  const corner = d.kind === 'block' ? `$${d.value}` : d.kind === 'council' ? `$${d.cost}` : '!';
  const tag = d.kind === 'block' ? ZONES[d.zone]?.short ?? '' : d.kind === 'council' ? 'Council' : 'Event';
  return h('button', {
    type: 'button', class: `sccard ${kindClass(d)} ${o.state ? `is-${o.state}` : ''} ${o.dim ? 'dim' : ''}`, 'data-card-id': cid, 'data-slug': slug,
    'data-focus-key': `card-${cid}`, 'aria-pressed': o.state ? 'true' : 'false', disabled: !!o.disabled,
    title: d.text || cardKind(d), onclick: o.onClick, onpointerenter: o.onInfo, onfocus: o.onInfo,
  },
  h('span', { class: 'sc-top', 'aria-hidden': 'true' }, h('span', { class: 'sc-val' }, corner),
    o.fresh ? h('span', { class: 'new-tag' }, 'New') : null, h('span', { class: 'sc-zone' }, tag)),
  h('span', { class: 'sc-name' }, d.name),
  o.mark ? h('span', { class: 'sc-mark', 'aria-hidden': 'true' }, o.mark) : null,
  h('span', { class: 'offscreen' }, `, ${cardKind(d)}${o.fresh ? ', new since your last decision' : ''}${o.label ? `. ${o.label}` : ''}: `),
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
        case 'drew': if (e.from === 'discard') add(`${who(e.seat)} took the top of the discard pile.`, 'minor'); return true;
        case 'bought': add(`${who(e.seat)} bought the council member ${nm(e.card)} for $${e.cost}.`); return true;
        case 'played': add(e.mode === 'event' ? `${who(e.seat)} played the event ${nm(e.card)}${e.x !== undefined ? ` on ${e.x}, ${e.y}` : ''}.`
          : `${who(e.seat)} played ${nm(e.card)} at ${e.x}, ${e.y}${e.mode && e.mode !== 'new' ? ` (${MODES[e.mode] ?? e.mode})` : ''}: +$${e.scored ?? 0}.`, 'build'); return true;
        case 'money': if (e.source !== 'value' && e.amount) add(`${who(e.seat)} ${e.amount > 0 ? `+$${e.amount}` : `−$${-e.amount}`} (${SOURCES[e.source] ?? e.source}).`, 'minor'); return true;
        case 'passed': add(`${who(e.seat)} passed.`, 'minor'); return true;
        case 'proposed': add(`${who(e.seat)} asks the council to rezone ${e.x}, ${e.y} for ${nm(e.card)}.`); return true;
        case 'ballot': add(`${who(e.seat)} votes ${e.ballot}${e.votes ? ` (${e.votes} vote${e.votes === 1 ? '' : 's'})` : ''}.`); return true;
        case 'mayor_vote': add(`The Mayor ${who(e.seat)} votes ${e.ballot}${e.tie && e.tie !== 'none' ? `, breaks a tie ${e.tie}` : ''}.`); return true;
        case 'vote_result': add(`The rezoning ${e.passed ? 'passes' : 'fails'}: ${e.yes} yes, ${e.no} no.`); return true;
        case 'event': add(`Event: ${nm(e.card)}.`, 'warn'); return true;
        case 'destroyed': add(`${nm(e.card)} at ${e.x}, ${e.y} was destroyed${e.scorched ? '; the cell is scorched' : ''}.`, 'warn'); return true;
        case 'removed': add(`${nm(e.card)} at ${e.x}, ${e.y} left the city.`, 'minor'); return true;
        case 'doomed': add(`${nm(e.card)} at ${e.x}, ${e.y} will leave at the next turn.`, 'minor'); return true;
        case 'phase': add(`The city reaches phase ${PHASES[e.phase] ?? e.phase}.`, 'build'); return true;
        case 'mayor': add(e.seat !== undefined ? `${who(e.seat)} is the Mayor.` : 'There is no Mayor.'); return true;
        case 'bill': add(`A bill of $${e.amount} for the Mayor${e.card ? ` (${nm(e.card)})` : ''}.`); return true;
        case 'vacated': add(`${who(e.seat)} vacates the Mayor's office: an election.`, 'warn'); return true;
        case 'bid': add(`${who(e.seat)} buys ${e.votes} vote${e.votes === 1 ? '' : 's'} for ${who(e.candidate)}.`); return true;
        case 'elected': add(`${who(e.seat)} is elected Mayor with ${e.votes} vote${e.votes === 1 ? '' : 's'}.`); return true;
        case 'timed': add(e.ended ? `${nm(e.card)} is over.` : `${nm(e.card)} acts${e.x !== undefined ? ` at ${e.x}, ${e.y}` : ''}.`, 'minor'); return true;
        case 'discarded': add(`${who(e.seat)} discarded ${nm(e.card)}.`, 'minor'); return true;
        case 'target_reached': add(`${who(e.seat)} reached $${e.target}: this is the last round.`, 'warn'); return true;
        default: return false;
      }
    },
  });
}
