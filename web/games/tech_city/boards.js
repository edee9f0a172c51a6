// tech_city/boards.js: Tech City outside its live table, loaded only when one of these opens: the
// replay viewer's board (the city grid at a round, read only, and the round's log), the end
// screen's points breakdown (traced in the public log), and how the card reference shows and
// filters Tech City's cards.

import { allEvents } from '../../api.js';
import { h } from '../../dom.js';
import { seatDot, logList } from '../../ui.js';
import { loadTechCatalog, design, DOMAINS, techLog } from './data.js';
import { gridBounds } from '../grid.js';
import { t, tn } from '../../i18n.js';

/**
 * The replay viewer's board of Tech City, names from `nameOf(seat)`: resolves (once the card
 * catalog is in) to {title, draw(view), log(events)}.
 */
export async function replayBoard(nameOf) {
  await loadTechCatalog().catch(() => null);
  return { title: t('The city'), draw: (v) => cityGrid(v, nameOf), log: (events) => logList(techLog(events, nameOf)) };
}

/** The city of view `v` as a read-only grid. */
function cityGrid(v, nameOf) {
  const city = v.city ?? [];
  if (!city.length) return h('p', { class: 'muted' }, t('The city is empty.'));
  const { x0, x1, y0, y1 } = gridBounds(city, 0);
  const cells = city.map((c) => {
    const d = design(c.card);
    const dom = DOMAINS[d.domain] ?? DOMAINS.service;
    const owner = c.owner === null || c.owner === undefined ? t('neutral') : t('owned by {name}', { name: nameOf(c.owner) });
    return h('li', {
      class: `cell card-cell d-${d.domain} ${c.seed ? 'seed' : ''}`, style: `grid-column:${c.x - x0 + 1};grid-row:${c.y - y0 + 1}`,
      'data-x': c.x, 'data-y': c.y, 'data-slug': c.card, title: `${d.name} (${c.value} ${dom.name}): ${d.text}`,
      'aria-label': `${d.name}, ${dom.name} ${c.value}, ${owner}${c.seed ? t(', the seed card') : ''}`,
    }, h('span', { class: 'face', 'aria-hidden': 'true' },
      h('span', { class: 'tc-top' }, h('span', { class: 'tc-val' }, String(c.value)), h('span', { class: 'tc-dom' }, dom.short)),
      h('span', { class: 'tc-name' }, d.name),
      c.owner !== null && c.owner !== undefined ? h('span', { class: 'marker' }, seatDot(c.owner)) : null));
  });
  return h('div', { class: 'city-scroll replay-city', tabindex: 0, 'aria-label': t('The city at this point: scroll to see all of it') },
    h('ul', { class: 'city', id: 'replay-city', style: `--cols:${x1 - x0 + 1};--rows:${y1 - y0 + 1}`, 'aria-label': tn(city.length, '{count} card in play', '{count} cards in play') }, cells));
}

/**
 * Tech City's breakdown from its public log: Map seat -> [{label, points, kind}], one row per
 * build from hand ('build'), service helped ('help') and card whose effect scored ('effect',
 * summed with a count). Labels name cards through `nameOf(slug)`.
 */
export function techBreakdown(events, nameOf) {
  const out = new Map();
  const rowsOf = (seat) => { if (!out.has(seat)) out.set(seat, []); return out.get(seat); };
  let cause = null; // the last event that was not a score: what the next scores are for
  for (const e of events) {
    if (e.type !== 'scored') { cause = e; continue; }
    const rows = rowsOf(e.seat);
    if (cause?.type === 'built' && cause.seat === e.seat) {
      rows.push({ kind: 'build', label: t('Built {card} in round {n}', { card: cause.wild ? t('a wild card') : nameOf(cause.card), n: e.round }), points: e.points });
    } else if (cause?.type === 'built') {
      rows.push({ kind: 'help', label: t('Helped build {card} in round {n}', { card: nameOf(cause.card), n: e.round }), points: e.points });
    } else if (cause?.type === 'effect') {
      const label = t("{card}'s effect", { card: nameOf(cause.card) });
      const row = rows.find((r) => r.kind === 'effect' && r.slug === cause.card);
      if (row) { row.points += e.points; row.times += 1; } else rows.push({ kind: 'effect', slug: cause.card, label, points: e.points, times: 1 });
    } else {
      rows.push({ kind: 'other', label: t('Other points in round {n}', { n: e.round }), points: e.points });
    }
  }
  for (const rows of out.values()) {
    for (const r of rows) if (r.kind === 'effect' && r.times > 1) r.label += ` ${t("({n} times)", { n: r.times })}`;
  }
  return out;
}

/** The end screen's breakdown of finished game `id`: Map seat -> [{label, detail, points}]. */
export async function breakdown(id) {
  const [events] = await Promise.all([allEvents(id), loadTechCatalog().catch(() => null)]);
  const by = techBreakdown(events, (slug) => design(slug).name);
  return new Map([...by].map(([seat, rows]) => [seat, rows.map((r) => ({ label: r.label, points: r.points, detail: '' }))]));
}

/**
 * How the card reference shows Tech City's cards: `facet` (the domain filter), `num` (the value
 * filter and a card's corner), `facts(card)` (label, value pairs), `kind` (its colour class).
 */
export const cardShape = {
  facet: { label: t('Domain'), any: t('Any domain'), values: Object.entries(DOMAINS).map(([k, d]) => [k, d.name]), of: (c) => [c.domain] },
  num: { label: t('Value'), any: t('Any value'), of: (c) => (c.domain === 'wild' ? null : c.value) },
  facts: (c) => [
    [t('Domain'), DOMAINS[c.domain]?.name ?? c.domain],
    c.domain === 'wild' ? null : [t('Value'), String(c.value)],
    [t('Copies'), String(c.count ?? 1)],
  ],
  kind: (c) => `d-${c.domain}`,
};
