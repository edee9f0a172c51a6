// simcity/boards.js: SimCity outside its live table, loaded only when one of these opens: the
// replay viewer's board (the city at a round, read only, and the round's log), the end screen's
// money by source (the finished view's `earned` of every seat), and how the card reference shows
// and filters SimCity's cards.

import { api } from '../../api.js';
import { h } from '../../dom.js';
import { logList } from '../../ui.js';
import { gridBounds, placeIn } from '../grid.js';
import { loadScCatalog, design, kindClass, cardKind, cardFacts, cellName, scLog, ZONES, PHASES, SOURCES } from './data.js';
import { t } from '../../i18n.js';

/**
 * The replay viewer's board of SimCity, names from `nameOf(seat)`: resolves (once the card
 * catalog is in) to {title, draw(view), log(events)}.
 */
export async function replayBoard(nameOf) {
  await loadScCatalog().catch(() => null);
  return { title: t('The city'), draw: (v) => cityGrid(v), log: (events) => logList(scLog(events, nameOf)) };
}

/** The city of view `v` as a read-only grid of its top cards. */
function cityGrid(v) {
  const city = v.city ?? [];
  if (!city.length) return h('p', { class: 'muted' }, t('The city is empty.'));
  const b = gridBounds(city, 0);
  const cells = city.map((c) => {
    const top = c.block ?? c.stack?.at(-1);
    const d = top ? design(top.card) : null;
    return h('li', {
      class: `cell sc-cell ${d ? kindClass(d) : 'scorched'}`, style: placeIn(b, c.x, c.y), 'data-x': c.x, 'data-y': c.y, 'data-slug': d?.id ?? '',
      'aria-label': d ? `${d.name}, ${cardKind(d)}${c.stack.length > 1 ? `, ${t('{n} cards in the stack', { n: c.stack.length })}` : ''}` : t('Scorched cell'),
    }, h('span', { class: 'sc-face', 'aria-hidden': 'true' },
      d ? h('span', { class: 'sc-top' }, h('span', { class: 'sc-val' }, d.kind === 'block' ? `$${d.value}` : ''), h('span', { class: 'sc-zone' }, ZONES[d.zone]?.short ?? '')) : null,
      cellName(d ? d.name : t('Scorched'))));
  });
  return h('div', { class: 'city-scroll replay-city sc-scroll', tabindex: 0, 'aria-label': t('The city at this point, phase {phase}: scroll to see all of it', { phase: PHASES[v.phase] ?? v.phase }) },
    h('ul', { class: 'city', id: 'replay-city', style: `--cols:${b.x1 - b.x0 + 1};--rows:${b.y1 - b.y0 + 1}`, 'aria-label': t('{n} cells in play', { n: city.length }) }, cells));
}

/**
 * The end screen's breakdown of finished game `id`: Map seat -> [{label, detail, points}], one
 * row per money source that moved (the seats' `earned`, losses negative), in SOURCES' order.
 */
export async function breakdown(id) {
  const v = await api.game(id);
  return new Map((v.seats ?? []).map((s) => [s.seat, Object.entries(SOURCES)
    .filter(([k]) => s.earned?.[k])
    .map(([k, label]) => ({ label, points: s.earned[k], detail: '' }))]));
}

/**
 * How the card reference shows SimCity's cards: `facet` (zone or kind), `num` (phase), `facts(card)`
 * (label, value pairs), `kind` (its colour class).
 */
export const cardShape = {
  facet: {
    label: t('Zone or kind'), any: t('Any'),
    values: [...Object.entries(ZONES).map(([k, z]) => [k, z.name]), ['event', t('Events')], ['council', t('Council members')]],
    of: (c) => [c.kind === 'block' ? c.zone : c.kind],
  },
  num: { label: t('Phase'), any: t('Any phase'), of: (c) => c.phase },
  facts: (c) => [
    [t('Kind'), cardKind(c)],
    [t('Details'), cardFacts(c).join(' · ')],
    [t('Copies'), t('{base} in the base, {pack} a pack', { base: c.copies?.base ?? 0, pack: c.copies?.pack ?? 0 })],
  ],
  kind: (c) => kindClass(c),
};
