// the_city/cards.js: The City's card catalog (GET /api/v1/cards?game=the_city, keyed by slug)
// and how the page draws it: a card's look (colour by kind, icons 🚗 🛒 🎬), a hand card with
// what building it would score or why it cannot be built (both from the server's legal options),
// a tableau entry, and the orders a hand can be sorted in. No rule of the game is worked out here.

import { api } from '../../api.js';
import { h } from '../../dom.js';
import { joinNames, sortByKeys } from '../../ui.js';
import { t } from '../../i18n.js';

export const ICONS = { car: '🚗', shopping: '🛒', entertainment: '🎬' };
const ICON_WORDS = { car: t('car'), shopping: t('shopping'), entertainment: t('entertainment') };

let catalog = null;
let loading = null;

/** Loads the catalog once; resolves to a Map slug → card. */
export function loadCatalog() {
  if (catalog) return Promise.resolve(catalog);
  loading ??= api.cards('the_city').then((d) => {
    catalog = new Map(d.cards.map((c) => [c.id, c]));
    return catalog;
  }).catch((e) => { loading = null; throw e; });
  return loading;
}

/** The catalog entry of a slug (a stand-in when unknown, so nothing breaks). */
export function card(slug) {
  return catalog?.get(slug) ?? { id: slug, name: slug, cost: 0, vp: 0, income: 0, icons: [], text: '' };
}

/** The colour family of a card: contractor, car, shopping, entertainment, civic or mixed. */
export function kindOf(c) {
  if (c.contractor) return 'contractor';
  const kinds = [...new Set(c.icons)];
  if (kinds.length === 0) return c.discount || c.requires || c.construction_gang ? 'special' : 'civic';
  if (kinds.length > 1) return 'mixed';
  return kinds[0];
}

/**
 * Why the server refuses to build a hand card: `u` is an entry of pending.options.unbuildable
 * ({card, reason, needs}). Returns {short (a few words for the card's face), long (a sentence)}.
 */
export function unbuildableWords(u) {
  const name = card(u.card).name;
  const needs = (u.needs ?? []).map((s) => card(s).name);
  const code = String(u.reason ?? '').replaceAll('_', ' ');
  switch (u.reason) {
    case 'prerequisite_missing':
      return needs.length ? { short: t('needs {cards}', { cards: needs.join(', ') }), long: t('{name} needs {cards} in your tableau first.', { name, cards: joinNames(needs) }) }
        : { short: t('needs another card'), long: t('{name} needs another card in your tableau first.', { name }) };
    case 'limit_reached': return { short: t('limit reached'), long: t('You already have as many {name} as a tableau may hold.', { name }) };
    case 'payment_count': return { short: t('too few cards to pay'), long: t('{name} costs more than the other cards in your hand can pay.', { name }) };
    case 'not_buildable': return { short: t('not buildable'), long: t('{name} cannot be built.', { name }) };
    default: return { short: code, long: t('{name} cannot be built now ({code}).', { name, code }) };
  }
}

/** Icons of a card as a string of emoji. */
export function iconText(c) { return c.icons.map((i) => ICONS[i] ?? '').join(''); }

function iconWords(c) {
  if (!c.icons.length) return t('no icons');
  const n = {};
  for (const i of c.icons) n[i] = (n[i] ?? 0) + 1;
  const list = Object.entries(n).map(([k, v]) => `${v > 1 ? v + ' ' : ''}${ICON_WORDS[k] ?? k}`).join(', ');
  return c.icons.length > 1 ? t('{list} icons', { list }) : t('{list} icon', { list });
}

/** A sentence for screen readers about a card. */
export function describe(slug) {
  const c = card(slug);
  return `${t('{name}: cost {cost}, {vp} VP, income {income}, {icons}', { name: c.name, cost: c.cost, vp: c.vp, income: c.income, icons: iconWords(c) })}${c.text ? '. ' + c.text : ''}`;
}

// ---- drawing -------------------------------------------------------------------------------

/**
 * A full-size card face as a real <button> (Enter/Space work), for a hand.
 * opts: {id, slug, cost (effective, when buildable), state ('build'|'build2'|'pay'|'discard'|''),
 *        dim, onClick, label, badge, fresh (drawn since the last step: marked "New"),
 *        preview ({vp, income, upTo}: what this round scores and draws with it built, as the
 *        server's options say; upTo: the best of several), why (a few words: why it cannot be
 *        built now)}
 * The badge, the "New" mark, the preview and the why sit in a row of their own, so they never
 * cover the card's text; they are drawn only, and `label` says them in words.
 */
export function cardButton(opts) {
  const c = card(opts.slug);
  const cls = ['card', `kind-${kindOf(c)}`];
  if (opts.cost !== undefined && opts.cost !== null) cls.push('buildable');
  if (opts.state) cls.push(`is-${opts.state}`);
  if (opts.dim) cls.push('dim');
  const costShown = opts.cost !== undefined && opts.cost !== null && opts.cost !== c.cost
    ? h('span', { class: 'cost' }, h('s', {}, String(c.cost)), ' ', String(opts.cost))
    : h('span', { class: 'cost' }, String(c.cost));
  const btn = h('button', {
    type: 'button', class: cls.join(' '),
    'data-card-id': opts.id, 'data-slug': c.id,
    'data-cost': opts.cost ?? '',
    'aria-pressed': opts.state ? 'true' : 'false',
    'data-focus-key': `card-${opts.id}`,
    disabled: !!opts.disabled,
    onclick: opts.onClick,
  },
  // The button is named by its content (its visible name first, the rest said offscreen), so
  // what a speech-input user reads on the card is part of its name.
  h('span', { class: 'card-top', 'aria-hidden': 'true' },
    h('span', { class: 'cost-wrap', title: t('Cost') }, costShown),
    h('span', { class: 'icons' }, iconText(c))),
  h('span', { class: 'card-name' }, c.name),
  // one sentence after another, with no doubled full stop where the card's text ends with one
  h('span', { class: 'offscreen' }, [describe(c.id).slice(c.name.length).replace(/\.$/, ''), opts.fresh ? t('New since the last step') : '', opts.label ?? ''].filter(Boolean).join('. ')),
  h('span', { class: 'card-text', 'aria-hidden': 'true' }, c.text || '\u00a0'),
  h('span', { class: 'card-marks', 'aria-hidden': 'true' },
    opts.fresh ? h('span', { class: 'new-tag' }, t('New')) : null,
    opts.preview ? previewMark(opts.preview) : null,
    opts.why ? h('span', { class: 'why' }, opts.why) : null,
    opts.badge ? h('span', { class: 'badge' }, opts.badge) : null),
  h('span', { class: 'card-foot', 'aria-hidden': 'true' },
    h('span', { class: 'vp', title: t('Victory points') }, `★ ${c.vp}${c.vp_per ? '+' : ''}`),
    h('span', { class: 'inc', title: t('Income (cards)') }, `⊕ ${c.income}${c.income_per ? '+' : ''}`)));
  return btn;
}

/** The mark of what a build would bring this round: "+14 VP ⊕4" ("up to" for the best of several). */
function previewMark(p) {
  return h('span', { class: 'gain', 'data-vp': p.vp, 'data-income': p.income, title: p.upTo ? t('Up to {vp} VP this round, income {income}', { vp: p.vp, income: p.income }) : t('{vp} VP this round, income {income}', { vp: p.vp, income: p.income }) },
    p.upTo ? t('up to ') : '', h('span', { class: 'gain-vp' }, `+${p.vp} ${t('VP')}`), ' ', h('span', { class: 'gain-inc' }, `⊕${p.income}`));
}

/** Words for `preview` ({vp, income, upTo}) in a card's name: "14 VP this round and income 4 with it built". */
export function previewWords(p) {
  return p.upTo ? t('up to {vp} VP this round and income {income} with it built', { vp: p.vp, income: p.income })
    : t('{vp} VP this round and income {income} with it built', { vp: p.vp, income: p.income });
}

/**
 * A compact tableau entry: name, icons and the points and income it earns now. With `onOpen`
 * (called with the slug and the button) the entry is a button that shows the card's full text,
 * so a tap reads a built card on a touch screen.
 */
export function tableauChip(entry, onOpen = null) {
  const c = card(entry.card);
  const label = t('{name}: {vp} VP and {income} income a round', { name: c.name, vp: entry.vp, income: entry.income });
  const parts = [
    h('span', { class: 'chip-name' }, c.name, c.icons.length ? h('span', { class: 'chip-icons' }, ' ' + iconText(c)) : null),
    h('span', { class: 'chip-nums' },
      h('span', { class: 'vp' }, `★${entry.vp}`), h('span', { class: 'inc' }, `⊕${entry.income}`))];
  if (!onOpen) return h('li', { class: `chip kind-${kindOf(c)}`, title: c.text || c.name, 'data-slug': c.id, 'aria-label': label }, parts);
  // The button is named by its content (the visible name first, the numbers said in words), so
  // what a speech-input user reads on the chip is part of its name.
  return h('li', { class: `chip chip-li kind-${kindOf(c)}`, 'data-slug': c.id },
    h('button', {
      type: 'button', class: 'chip-open', title: c.text || c.name,
      'aria-haspopup': 'dialog', onclick: (e) => onOpen(c.id, e.currentTarget),
    },
    h('span', { class: 'chip-name' }, c.name, c.icons.length ? h('span', { class: 'chip-icons', 'aria-hidden': 'true' }, ' ' + iconText(c)) : null),
    h('span', { class: 'chip-nums', 'aria-hidden': 'true' },
      h('span', { class: 'vp' }, `★${entry.vp}`), h('span', { class: 'inc' }, `⊕${entry.income}`)),
    h('span', { class: 'offscreen' }, t(': {vp} VP and {income} income a round. Show the full card', { vp: entry.vp, income: entry.income }))));
}

/** The orders a hand can be shown in (the table keeps the choice in localStorage). */
export const HAND_SORTS = { dealt: t('As dealt'), cost: t('Cost'), name: t('Name'), icon: t('Icon') };
const KIND_ORDER = ['car', 'shopping', 'entertainment', 'mixed', 'special', 'civic', 'contractor'];

/** The hand [{id, card}] in the order `by` (a key of HAND_SORTS); ties keep the dealt order. */
export function sortHand(hand, by) {
  const key = {
    cost: (c) => [card(c.card).cost, card(c.card).name],
    name: (c) => [card(c.card).name, card(c.card).cost],
    icon: (c) => [KIND_ORDER.indexOf(kindOf(card(c.card))), card(c.card).cost, card(c.card).name],
  }[by];
  return key ? sortByKeys(hand, key) : hand;
}
