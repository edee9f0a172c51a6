// tech_city/data.js: what Tech City's page knows of the game apart from one table: the card
// catalog (GET /api/v1/cards?game=tech_city) and its domains, the steps' titles, a card's face
// and label, the hand's orders, and the public log as readable lines. What may be played is the
// server's legal options (choice.js), never worked out here.

import { api } from '../../api.js';
import { h, onUserFocus } from '../../dom.js';
import { sortByKeys } from '../../ui.js';
import { roundLog } from '../turns.js';
import { t } from '../../i18n.js';

export const ROUNDS = 6;
// Short words, not emoji: the page's emoji font has only The City's icons, and a system
// without an emoji font would show empty boxes.
export const DOMAINS = {
  service: { icon: 'SVC', short: 'S', name: t('Service') },
  technology: { icon: 'TECH', short: 'T', name: t('Technology') },
  science: { icon: 'SCI', short: 'Sc', name: t('Science') },
  knowledge: { icon: 'KNOW', short: 'K', name: t('Knowledge') },
  wild: { icon: 'WILD', short: 'W', name: t('Wild') },
};
export const STEP_TITLES = {
  build: t('build'), help: t('help build a service'), effect: t('effects'), owner: t('owner draws'),
  choose: t('choose cards'), discard: t('discard down'), over: t('game over'),
};

let catalog = null;
let catalogLoading = null;
/** Loads the catalog once; resolves to a Map slug → card (design() gives stand-ins until then). */
export function loadTechCatalog() {
  catalogLoading ??= api.cards('tech_city').then((d) => { catalog = new Map(d.cards.map((c) => [c.id, c])); return catalog; })
    .catch((e) => { catalogLoading = null; throw e; });
  return catalogLoading;
}
/** The catalog entry of card `slug` (a stand-in when unknown, so nothing breaks). */
export function design(slug) {
  return catalog?.get(slug) ?? { id: slug, name: slug, domain: 'service', value: 0, text: '' };
}

/** A card's one-line label: domain, value and name. */
export function cardLabel(slug) {
  const d = design(slug);
  return `${DOMAINS[d.domain]?.icon ?? ''} ${d.domain === 'wild' ? '' : d.value + ' '}${d.name}`;
}

/** The orders a hand can be shown in; Tech City's "cost" is a card's value. */
export const HAND_SORTS = { dealt: t('As dealt'), value: t('Value'), name: t('Name'), domain: t('Domain') };

/** The hand [{id, card}] in the order `by` (a key of HAND_SORTS); ties keep the dealt order. */
export function sortTechHand(hand, by) {
  const order = Object.keys(DOMAINS);
  const val = (d) => (d.domain === 'wild' ? Infinity : d.value); // a wild card has no value of its own
  const key = {
    value: (d) => [val(d), d.name],
    name: (d) => [d.name.toLowerCase(), val(d)],
    domain: (d) => [order.indexOf(d.domain), val(d), d.name],
  }[by];
  return key ? sortByKeys(hand, (c) => key(design(c.card))) : hand;
}

/**
 * A card face (a real button) for a hand or the revealed cards. o: {state, badge, disabled,
 * fresh (came into the hand since the last decision: marked "New"), dim (cannot be picked for
 * what is asked now), mark (a few words under the name, e.g. why it cannot be built), label
 * (the mark in words for screen readers), onClick, onInfo (called on hover and focus, to show
 * the card's effect)}.
 */
export function techCard(cid, slug, o) {
  const d = design(slug);
  return h('button', {
    type: 'button', class: `tcard d-${d.domain} ${o.state ? `is-${o.state}` : ''} ${o.dim ? 'dim' : ''}`, 'data-card-id': cid, 'data-slug': slug,
    'data-focus-key': `card-${cid}`, 'aria-pressed': o.state ? 'true' : 'false', disabled: !!o.disabled,
    title: d.text, onclick: o.onClick, onpointerenter: o.onInfo, onfocus: onUserFocus(o.onInfo),
  },
  // Named by its content, visible name first, so what is read on the card is part of its name.
  h('span', { class: 'tc-top', 'aria-hidden': 'true' }, h('span', { class: 'tc-val' }, d.domain === 'wild' ? '★' : String(d.value)),
    o.fresh ? h('span', { class: 'new-tag' }, t('New')) : null, h('span', { class: 'tc-dom' }, DOMAINS[d.domain]?.icon ?? '')),
  h('span', { class: 'tc-name' }, d.name),
  o.mark ? h('span', { class: 'tc-mark', 'aria-hidden': 'true' }, o.mark) : null,
  h('span', { class: 'offscreen' }, `, ${d.domain === 'wild' ? t('wild card') : `${DOMAINS[d.domain]?.name} ${d.value}`}${o.fresh ? t(', new since your last decision') : ''}${o.label ? `. ${o.label}` : ''}: `),
  h('span', { class: 'tc-text' }, d.text),
  o.badge ? h('span', { class: 'badge' }, h('span', { class: 'offscreen' }, '. '), o.badge) : null);
}

/**
 * Tech City's public log as lines: [{kind, seq, text}]. A card an effect acts on is named with
 * its owner ("Ann's Data Atlas"), who is followed through the log: a company built belongs to its
 * builder, a service to no one, and placed and marker events say whose a card is; the seed card
 * and a wild card's company, which the log does not place, are named alone.
 */
export function techLog(events, names) {
  const nm = (slug) => design(slug).name;
  const owner = new Map(); // card id -> seat, or null when neutral (absent: not known)
  const whose = (e, who) => {
    const o = owner.get(e.id);
    return o === undefined ? nm(e.card) : o === null ? t('the neutral {card}', { card: nm(e.card) }) : t("{name}'s {card}", { name: who(o), card: nm(e.card) });
  };
  const own = (e) => { if (e.id !== undefined && e.owner !== undefined) owner.set(e.id, e.owner); };
  return roundLog(events, names, {
    title: 'Tech City',
    totals: (e) => (e.scores ? e.scores.join(' – ') : ''),
    line: (e, add, who, out) => {
      switch (e.type) {
        case 'step':
          if (e.step === 'effect' && (e.seats ?? []).length && out.at(-1)?.text !== t('Effects.')) add(t('Effects.'), 'minor');
          return true;
        case 'built':
          if (!e.wild) owner.set(e.id, design(e.card).domain === 'service' ? null : e.seat);
          add(`${e.wild ? t('{name} played a wild card', { name: who(e.seat) }) : e.paid ? t('{name} built {card} (paid {n})', { name: who(e.seat), card: nm(e.card), n: e.paid })
            : t('{name} built {card}', { name: who(e.seat), card: nm(e.card) })}${e.points ? `: +${e.points}` : ''}.`, 'build'); return true;
        case 'helped': add(t('{name} gave {card} to help build a service.', { name: who(e.seat), card: nm(e.card) })); return true;
        case 'service_failed': add(t("Too little help: {card} went back to {name}'s hand.", { card: nm(e.card), name: who(e.seat) }), 'warn'); return true;
        case 'effect': add(`${t('{name} used {card}', { name: who(e.seat), card: nm(e.card) })}${e.free ? t(' (free Knowledge use)') : ''}${e.owner_first ? t(', its owner drawing first') : ''}.`); return true;
        case 'scored': add(`${who(e.seat)} +${e.points} → ${e.score}.`, 'score'); return true;
        case 'drew': add(t('{name} drew {n} (hand {hand}).', { name: who(e.seat), n: e.count, hand: e.hand_count }), 'minor'); return true;
        case 'discarded':
          if (e.seat === undefined && owner.has(e.id)) { // a city card replaced: it leaves the city for the pile
            add(t('{card} was replaced and went to the discard pile.', { card: whose(e, who) }));
            owner.delete(e.id);
          } else add(e.seat !== undefined ? t('{name} discarded {card}.', { name: who(e.seat), card: nm(e.card) }) : t('Discarded: {card}.', { card: nm(e.card) }), 'minor');
          return true;
        case 'reshuffled': add(t('The discard pile became a new deck of {n} cards.', { n: e.deck_count }), 'minor'); return true;
        case 'expelled':
          if (e.x === undefined) add(t("{name}'s {card} left the game.", { name: who(e.seat), card: nm(e.card) }), 'minor'); // a wild card from the hand
          else add(t('{name} expelled {card} from the game.', { name: who(e.seat), card: whose(e, who) }));
          owner.delete(e.id);
          return true;
        case 'revealed': add(t('Revealed: {card}.', { card: nm(e.card) }), 'minor'); return true;
        case 'divulged': add(t('{name} shows {card} from their hand.', { name: who(e.seat), card: nm(e.card) })); return true;
        case 'took': add(e.from_seat !== undefined ? t('{name} took a random card from {from}.', { name: who(e.seat), from: who(e.from_seat) })
          : e.card ? (e.from === 'revealed' ? t('{name} took {card} from the revealed cards.', { name: who(e.seat), card: nm(e.card) }) : t('{name} took {card} from the discard pile.', { name: who(e.seat), card: nm(e.card) }))
            : t('{name} exchanged a card with the deck.', { name: who(e.seat) })); return true;
        case 'placed': own(e); add(t('{name} put {card} into play.', { name: who(e.seat), card: whose(e, who) })); return true;
        case 'moved': own(e); add(t('{name} moved {card}.', { name: who(e.seat), card: whose(e, who) }), 'minor'); return true;
        case 'marker': {
          const was = whose(e, who);
          own(e);
          add(e.owner === null ? t('{name} took the marker off {card}.', { name: who(e.seat), card: was }) : t('{name} put a marker on {card}: it now belongs to {owner}.', { name: who(e.seat), card: nm(e.card), owner: who(e.owner) }));
          return true;
        }
        case 'passed': add(t('{name} passed.', { name: who(e.seat) }), 'minor'); return true;
        default: return false;
      }
    },
  });
}
