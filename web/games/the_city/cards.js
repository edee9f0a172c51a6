// the_city/cards.js: The City's card catalog (GET /api/v1/cards?game=the_city, keyed by slug)
// and everything the page derives from it: how a card looks (colour by kind, icons 🚗 🛒 🎬), a
// card's "worth keeping" value used to pre-select payments, the effective cost of a second
// Construction Gang build (the page's own copy of the double build's rules, DOUBLE_MAX_COST,
// until the server sends the legal options), and the orders a hand can be sorted in.

import { api } from '../../api.js';
import { h } from '../../dom.js';
import { sortByKeys } from '../../ui.js';

export const ICONS = { car: '🚗', shopping: '🛒', entertainment: '🎬' };
const ICON_WORDS = { car: 'car', shopping: 'shopping', entertainment: 'entertainment' };

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

/** How much a card is worth keeping: printed cost + VP + income (low = pay it first). */
export function keepValue(slug) {
  const c = card(slug);
  return c.cost + c.vp + c.income + (c.vp_per ? 2 : 0) + (c.income_per ? 1 : 0);
}

/**
 * The `n` hand cards least worth keeping, never one of `exclude` (instance ids).
 * hand: [{id, card}]. Ties keep hand order.
 */
export function cheapest(hand, n, exclude = []) {
  const ex = new Set(exclude);
  return hand.filter((x) => !ex.has(x.id))
    .map((x, i) => ({ x, i, v: keepValue(x.card) }))
    .sort((a, b) => a.v - b.v || a.i - b.i)
    .slice(0, Math.max(0, n)).map((e) => e.x.id);
}

/** Icons of a card as a string of emoji. */
export function iconText(c) { return c.icons.map((i) => ICONS[i] ?? '').join(''); }

function iconWords(c) {
  if (!c.icons.length) return 'no icons';
  const n = {};
  for (const i of c.icons) n[i] = (n[i] ?? 0) + 1;
  return Object.entries(n).map(([k, v]) => `${v > 1 ? v + ' ' : ''}${ICON_WORDS[k] ?? k}`).join(', ') + ' icon' + (c.icons.length > 1 ? 's' : '');
}

/** A sentence for screen readers about a card. */
export function describe(slug) {
  const c = card(slug);
  return `${c.name}: cost ${c.cost}, ${c.vp} VP, income ${c.income}, ${iconWords(c)}${c.text ? '. ' + c.text : ''}`;
}

// ---- effective costs (for the second card of a double build) -------------------------------

/** Counts of slugs owned: tableau entries plus `extra` slugs. */
function owned(tableauSlugs, extra = []) {
  const m = new Map();
  for (const s of [...tableauSlugs, ...extra]) m.set(s, (m.get(s) ?? 0) + 1);
  return m;
}

/** Why `slug` cannot join a tableau of `have` (Map slug → count), or null when it can. */
export function blocked(slug, have) {
  const c = card(slug);
  if (c.contractor) return 'not buildable';
  for (const r of c.requires ?? []) if (!have.has(r)) return `needs ${card(r).name}`;
  if (c.limit && (have.get(slug) ?? 0) >= c.limit) return `limit ${c.limit}`;
  return null;
}

/** Effective cost of `slug` for a tableau `have`: each kind of discount card counts once. */
export function effectiveCost(slug, have) {
  let cost = card(slug).cost;
  for (const s of have.keys()) {
    const d = card(s).discount;
    if (d && d.cards.includes(slug)) cost -= d.amount;
  }
  return Math.max(0, cost);
}

export const DOUBLE_MAX_COST = 4;

/**
 * Double build helpers. tableau: slugs in the player's tableau. Returns
 * {gang, firstOk(slug), secondCost(firstSlug, secondSlug)|null}.
 */
export function doublePlanner(tableauSlugs) {
  const base = owned(tableauSlugs);
  const gang = [...base.keys()].some((s) => card(s).construction_gang);
  return {
    gang,
    firstCost(slug) {
      const c = card(slug);
      if (c.cost > DOUBLE_MAX_COST || (!gang && !c.construction_gang) || blocked(slug, base)) return null;
      return effectiveCost(slug, base);
    },
    secondCost(first, slug) {
      const c = card(slug);
      const have = owned(tableauSlugs, [first]);
      if (c.cost > DOUBLE_MAX_COST || blocked(slug, have)) return null;
      return effectiveCost(slug, have);
    },
  };
}

// ---- drawing -------------------------------------------------------------------------------

/**
 * A full-size card face as a real <button> (Enter/Space work), for a hand.
 * opts: {id, slug, cost (effective, when buildable), state ('build'|'build2'|'pay'|'discard'|''),
 *        dim, onClick, label, badge, fresh (drawn since the last step: marked "New")}
 * The badge and the "New" mark sit in a row of their own, so they never cover the card's text.
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
    h('span', { class: 'cost-wrap', title: 'Cost' }, costShown),
    h('span', { class: 'icons' }, iconText(c))),
  h('span', { class: 'card-name' }, c.name),
  h('span', { class: 'offscreen' }, `${describe(c.id).slice(c.name.length)}${opts.fresh ? '. New since the last step' : ''}${opts.label ? '. ' + opts.label : ''}`),
  h('span', { class: 'card-text', 'aria-hidden': 'true' }, c.text || '\u00a0'),
  h('span', { class: 'card-marks', 'aria-hidden': 'true' },
    opts.fresh ? h('span', { class: 'new-tag' }, 'New') : null,
    opts.badge ? h('span', { class: 'badge' }, opts.badge) : null),
  h('span', { class: 'card-foot', 'aria-hidden': 'true' },
    h('span', { class: 'vp', title: 'Victory points' }, `★ ${c.vp}${c.vp_per ? '+' : ''}`),
    h('span', { class: 'inc', title: 'Income (cards)' }, `⊕ ${c.income}${c.income_per ? '+' : ''}`)));
  return btn;
}

/**
 * A compact tableau entry: name, icons and the points and income it earns now. With `onOpen`
 * (called with the slug and the button) the entry is a button that shows the card's full text,
 * so a tap reads a built card on a touch screen.
 */
export function tableauChip(entry, onOpen = null) {
  const c = card(entry.card);
  const label = `${c.name}: ${entry.vp} VP and ${entry.income} income a round`;
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
    h('span', { class: 'offscreen' }, `: ${entry.vp} VP and ${entry.income} income a round. Show the full card`)));
}

/** The orders a hand can be shown in (the table keeps the choice in localStorage). */
export const HAND_SORTS = { dealt: 'As dealt', cost: 'Cost', name: 'Name', icon: 'Icon' };
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
