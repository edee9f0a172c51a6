// end.js: the points breakdown of a finished game, loaded only when an end screen shows one:
// which cards scored what for every player, each player's rows adding up to the score the
// table shows. The rows come from the game's module (web/games/ID.js `breakdown`), which traces
// them in the game's own records (published round views, or the public log); this file lays them
// out in the final order.

import { h, replace } from './dom.js';
import { seatDot } from './ui.js';
import { standings, pointsKey } from './standings.js';
import { t } from './i18n.js';

const cache = new Map(); // game id -> promise of the rows, Map seat -> [{label, detail, points}]

/**
 * The breakdown rows of finished game `id` by its module `mod`, fetched once per page: resolves
 * to Map seat -> [{label, detail, points}], or rejects with the reason they cannot be had.
 */
function breakdownRows(mod, id) {
  if (!cache.has(id)) cache.set(id, Promise.resolve(mod.breakdown(id)).catch((e) => { cache.delete(id); throw e; }));
  return cache.get(id);
}

/**
 * Fills `box` (the end screen's breakdown section) for finished view `v` of game `id`, whose
 * module is `mod`: one table per player in final order, rows of what scored and a total equal to
 * the player's score; `names(seat)` gives names, `me` this browser's seat or null.
 */
export async function fillBreakdown(box, { mod, id, v, names, me }) {
  const body = box.querySelector('.bd-body') ?? box;
  let rows;
  try {
    rows = await breakdownRows(mod, id);
  } catch (e) {
    replace(body, h('p', { class: 'muted', id: 'breakdown-error' }, t('The points breakdown could not be loaded: {why}', { why: e.message })));
    return;
  }
  const key = pointsKey(v.game, v.seats);
  const unit = mod.score?.short ?? t('pts');
  replace(body, h('div', { class: 'bd-grid' }, standings(v).map((st) => {
    const s = v.seats[st.seat];
    const list = rows.get(st.seat) ?? [];
    const sum = list.reduce((a, r) => a + r.points, 0);
    const total = s[key];
    const gap = total - sum; // nothing traced left over: shown, not hidden
    const name = names(st.seat) ?? `Seat ${st.seat + 1}`;
    return h('article', { class: `bd-player ${st.seat === me ? 'me' : ''}`, 'data-seat': st.seat, 'aria-label': `${name}: ${total} ${unit}` },
      h('h3', {}, seatDot(st.seat), h('span', { class: 'bd-name' }, name), st.seat === me ? h('span', { class: 'tag you' }, t('you')) : null),
      h('table', { class: 'bd-table' },
        h('caption', { class: 'offscreen' }, `How ${name} scored`),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, mod.score?.head ?? t('Scored for')), h('th', { scope: 'col', class: 'num' }, unit))),
        h('tbody', {},
          list.length ? list.map((r) => h('tr', { class: 'bd-row' },
            h('th', { scope: 'row' }, r.label, r.detail ? h('span', { class: 'bd-detail' }, ` · ${r.detail}`) : null),
            h('td', { class: 'num bd-points' }, String(r.points)))) : h('tr', {}, h('td', { colspan: 2, class: 'muted' }, t('Nothing scored.'))),
          gap ? h('tr', { class: 'bd-row bd-gap' }, h('th', { scope: 'row' }, t('Not traced to a card')), h('td', { class: 'num bd-points' }, String(gap))) : null),
        h('tfoot', {}, h('tr', {}, h('th', { scope: 'row' }, t('Total')), h('td', { class: 'num bd-total' }, String(total))))));
  })));
}
