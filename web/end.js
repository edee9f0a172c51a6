// end.js: the points breakdown of a finished game, loaded only when an end screen shows one:
// which cards scored what for every player, each player's rows adding up to the score the
// table shows. The City's comes from the published round-by-round views (a tableau card's `vp`
// is what it scored in that round); Tech City's from the public log (every `scored` event
// follows the build, help or effect that earned it).

import { api, allEvents } from './api.js';
import { h, replace } from './dom.js';
import { card, loadCatalog } from './cards.js';
import { seatDot } from './ui.js';
import { standings, pointsKey } from './standings.js';

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
      rows.push({ kind: 'build', label: `Built ${cause.wild ? 'a wild card' : nameOf(cause.card)} in round ${e.round}`, points: e.points });
    } else if (cause?.type === 'built') {
      rows.push({ kind: 'help', label: `Helped build ${nameOf(cause.card)} in round ${e.round}`, points: e.points });
    } else if (cause?.type === 'effect') {
      const label = `${nameOf(cause.card)}'s effect`;
      const row = rows.find((r) => r.kind === 'effect' && r.slug === cause.card);
      if (row) { row.points += e.points; row.times += 1; } else rows.push({ kind: 'effect', slug: cause.card, label, points: e.points, times: 1 });
    } else {
      rows.push({ kind: 'other', label: `Other points in round ${e.round}`, points: e.points });
    }
  }
  for (const rows of out.values()) {
    for (const r of rows) if (r.kind === 'effect' && r.times > 1) r.label += ` (${r.times} times)`;
  }
  return out;
}

const cache = new Map(); // game id -> promise of the rows, Map seat -> [{label, detail, points}]

/**
 * The breakdown rows of finished game `id` (public view `v`), fetched once per page: resolves to
 * Map seat -> [{label, detail, points}], or rejects with the reason it cannot be had.
 */
export function breakdownRows(id, v) {
  if (!cache.has(id)) {
    const p = v.game === 'tech_city' ? techRows(id) : v.game === 'the_city' ? cityRows(id) : Promise.resolve(new Map());
    cache.set(id, p.catch((e) => { cache.delete(id); throw e; }));
  }
  return cache.get(id);
}

async function cityRows(id) {
  const [data] = await Promise.all([api.replayRounds(id), loadCatalog().catch(() => null)]);
  const by = cityBreakdown(data.rounds);
  return new Map([...by].map(([seat, rows]) => [seat, rows.map((r) => ({
    label: card(r.slug).name, points: r.points,
    detail: `${r.rounds} round${r.rounds === 1 ? '' : 's'}`,
  }))]));
}

async function techRows(id) {
  const [events, data] = await Promise.all([allEvents(id), import('./tech_data.js')]);
  await data.loadTechCatalog().catch(() => null);
  const by = techBreakdown(events, (slug) => data.design(slug).name);
  return new Map([...by].map(([seat, rows]) => [seat, rows.map((r) => ({ label: r.label, points: r.points, detail: '' }))]));
}

/**
 * Fills `box` (the end screen's breakdown section) for finished view `v`: one table per player
 * in final order, rows of what scored and a total equal to the player's score; `names(seat)`
 * gives names, `me` this browser's seat or null.
 */
export async function fillBreakdown(box, id, v, names, me) {
  const body = box.querySelector('.bd-body') ?? box;
  let rows;
  try {
    rows = await breakdownRows(id, v);
  } catch (e) {
    replace(body, h('p', { class: 'muted', id: 'breakdown-error' }, `The points breakdown could not be loaded: ${e.message}`));
    return;
  }
  const key = pointsKey(v.game, v.seats);
  const unit = key === 'vp' ? 'VP' : 'pts';
  replace(body, h('div', { class: 'bd-grid' }, standings(v).map((st) => {
    const s = v.seats[st.seat];
    const list = rows.get(st.seat) ?? [];
    const sum = list.reduce((a, r) => a + r.points, 0);
    const total = s[key];
    const gap = total - sum; // nothing traced left over: shown, not hidden
    const name = names(st.seat) ?? `Seat ${st.seat + 1}`;
    return h('article', { class: `bd-player ${st.seat === me ? 'me' : ''}`, 'data-seat': st.seat, 'aria-label': `${name}: ${total} ${unit}` },
      h('h3', {}, seatDot(st.seat), h('span', { class: 'bd-name' }, name), st.seat === me ? h('span', { class: 'tag you' }, 'you') : null),
      h('table', { class: 'bd-table' },
        h('caption', { class: 'offscreen' }, `How ${name} scored`),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, key === 'vp' ? 'Building' : 'Scored for'), h('th', { scope: 'col', class: 'num' }, unit))),
        h('tbody', {},
          list.length ? list.map((r) => h('tr', { class: 'bd-row' },
            h('th', { scope: 'row' }, r.label, r.detail ? h('span', { class: 'bd-detail' }, ` · ${r.detail}`) : null),
            h('td', { class: 'num bd-points' }, String(r.points)))) : h('tr', {}, h('td', { colspan: 2, class: 'muted' }, 'Nothing scored.')),
          gap ? h('tr', { class: 'bd-row bd-gap' }, h('th', { scope: 'row' }, 'Not traced to a card'), h('td', { class: 'num bd-points' }, String(gap))) : null),
        h('tfoot', {}, h('tr', {}, h('th', { scope: 'row' }, 'Total'), h('td', { class: 'num bd-total' }, String(total))))));
  })));
}
