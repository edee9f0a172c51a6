// the_city/boards.js: The City outside its live table, loaded only when one of these opens: the
// replay viewer's board (every seat's tableau at a round, the score chart up to it, the round's
// log), the end screen's points breakdown (what each tableau card scored, from the published
// round views), and how the card reference shows and filters The City's cards.

import { api } from '../../api.js';
import { h } from '../../dom.js';
import { seatDot, logList } from '../../ui.js';
import { card, loadCatalog, tableauChip, kindOf, ICONS } from './cards.js';
import { scoreChart } from './chart.js';
import { logEntries } from './log.js';
import { t, tn } from '../../i18n.js';

/**
 * The replay viewer's board of The City, names from `nameOf(seat)`: resolves (once the card
 * catalog is in) to {title, draw(view), chart(view), log(events)}.
 */
export async function replayBoard(nameOf) {
  await loadCatalog().catch(() => null);
  return {
    title: t('Tableaux'),
    draw: (v) => h('div', { class: 'replay-tableaux' }, v.seats.map((s) => {
      const perRound = s.tableau.reduce((a, e) => a + e.vp, 0);
      return h('article', { class: 'replay-tableau', 'data-seat': s.seat },
        h('h3', {}, seatDot(s.seat), h('span', {}, nameOf(s.seat)), h('span', { class: 'muted rt-meta' }, t('{vp} VP · {n} in hand', { vp: s.vp, n: s.hand_count }))),
        s.tableau.length
          ? h('ul', { class: 'tableau', 'aria-label': t("{name}'s tableau, {n} cards scoring {vp} VP a round", { name: nameOf(s.seat), n: s.tableau.length, vp: perRound }) }, s.tableau.map((e) => tableauChip(e)))
          : h('p', { class: 'muted empty' }, t('No buildings yet.')));
    })),
    // Every seat's points by round, up to the round shown.
    chart: (v) => (v.seats.every((x) => Array.isArray(x.vp_by_round)) && typeof v.target_vp === 'number'
      ? scoreChart(v.seats.map((x) => ({ ...x, name: nameOf(x.seat) })), v.target_vp) : null),
    log: (events) => logList(logEntries(events, nameOf)),
  };
}

/**
 * The City's breakdown from `rounds` (the replay's entries, entry k the view at the end of
 * round k): Map seat -> [{slug, points, rounds}], one row per tableau card, the points it
 * scored summed over the rounds it stood in the tableau, best first.
 */
export function cityBreakdown(rounds) {
  const out = new Map();
  for (const r of rounds) {
    if (r.round < 1) continue; // entry 0 is the game before anything scored
    for (const s of r.view.seats) {
      const rows = out.get(s.seat) ?? new Map();
      out.set(s.seat, rows);
      s.tableau.forEach((t, i) => {
        const key = `${i}:${t.card}`; // a tableau only grows: position and card name one building
        const row = rows.get(key) ?? { slug: t.card, points: 0, rounds: 0 };
        row.points += t.vp;
        row.rounds += 1;
        rows.set(key, row);
      });
    }
  }
  return new Map([...out].map(([seat, rows]) => [seat, [...rows.values()].sort((a, b) => b.points - a.points)]));
}

/** The end screen's breakdown of finished game `id`: Map seat -> [{label, detail, points}]. */
export async function breakdown(id) {
  const [data] = await Promise.all([api.replayRounds(id), loadCatalog().catch(() => null)]);
  const by = cityBreakdown(data.rounds);
  return new Map([...by].map(([seat, rows]) => [seat, rows.map((r) => ({
    label: card(r.slug).name, points: r.points,
    detail: tn(r.rounds, '{count} round', '{count} rounds'),
  }))]));
}

const ICON_WORDS = { car: t('Car'), shopping: t('Shopping'), entertainment: t('Entertainment') };
const ICON_LOWER = { car: t('car'), shopping: t('shopping'), entertainment: t('entertainment') };

/**
 * How the card reference shows The City's cards: `facet` (the icon filter), `num` (the cost
 * filter and a card's corner), `facts(card, nameOf)` (label, value pairs), `kind` (its colour).
 */
export const cardShape = {
  facet: { label: t('Icon'), any: t('Any icon'), values: [...Object.entries(ICON_WORDS).map(([k, w]) => [k, `${ICONS[k]} ${w}`]), ['none', t('No icon')]], of: (c) => (c.icons?.length ? c.icons : ['none']) },
  num: { label: t('Cost'), any: t('Any cost'), of: (c) => c.cost },
  facts: (c, nm) => [
    [t('Cost'), c.contractor ? t('free (taken from the pool)') : String(c.cost)],
    [t('VP a round'), `${c.vp}${c.vp_per ? t(' + variable') : ''}`],
    [t('Income'), `${c.income}${c.income_per ? t(' + variable') : ''}`],
    [t('Icons'), c.icons?.length ? c.icons.map((i) => `${ICONS[i] ?? ''} ${ICON_LOWER[i] ?? i}`).join(', ') : t('none')],
    c.requires?.length ? [t('Needs'), c.requires.map(nm).join(', ')] : null,
    c.limit ? [t('Limit'), t('{n} per player', { n: c.limit })] : null,
    [t('Copies'), String(c.count ?? 1)],
  ],
  kind: (c) => kindOf({ icons: [], ...c }),
};
