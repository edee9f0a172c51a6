// standings.js: the final standings of a game as its rules rank them (the ruleset descriptor's
// rank keys): the order of the seats, each seat's place (tied seats share a place) and the
// sentence that tells a seat where it finished, and the end screen's ranking list. Small and
// shared by the end screen (table.js), its breakdown (end.js) and the replay viewer.

import { h } from './dom.js';
import { seatDot } from './ui.js';
import { rulesetOf } from './api.js';
import { t, N_, language } from './i18n.js';

/**
 * What game `game` ranks by, best first: its descriptor's rank keys (GET /api/v1/rulesets:
 * The City by VP then cards in hand, Tech City by points, companies, then cards in hand);
 * before the descriptor is known, the seats' `score` or `vp` alone.
 */
function rankKeys(game, seats = []) {
  const keys = rulesetOf(game)?.rank?.keys;
  if (keys?.length) return keys;
  return [seats.some((s) => typeof s.score === 'number') ? 'score' : 'vp'];
}

/** The points field of game `game`'s public seats (its descriptor's score field). */
export function pointsKey(game, seats = []) {
  return rulesetOf(game)?.score?.field ?? rankKeys(game, seats)[0];
}

/**
 * The seats of public view `v` in final order: [{seat, points, place, shared}], where `place`
 * is 1-based and equal for seats tied on every rank key, and `shared` says another seat holds
 * the same place. Seats equal on every key keep their seat order.
 */
export function standings(v) {
  const keys = rankKeys(v.game, v.seats);
  const val = (s, k) => (typeof s[k] === 'number' ? s[k] : 0);
  const cmp = (a, b) => { for (const k of keys) { const d = val(b, k) - val(a, k); if (d) return d; } return 0; };
  const sorted = [...v.seats].sort((a, b) => cmp(a, b) || a.seat - b.seat);
  const rows = [];
  sorted.forEach((s, i) => {
    const place = i > 0 && cmp(sorted[i - 1], s) === 0 ? rows[i - 1].place : i + 1;
    rows.push({ seat: s.seat, points: val(s, keys[0]), place, shared: false });
  });
  for (const r of rows) r.shared = rows.some((o) => o !== r && o.place === r.place);
  return rows;
}

/** The descriptors' rank texts of the games this page knows, marked for the catalogue: the
 * server says them in English, tieNote() in the page's language (another game's keep its words). */
export const RANK_TEXTS = [
  N_('Most victory points; a tie goes to the most cards in hand at the end; players still tied share the win.'),
  N_('Most points; ties go to the most companies controlled, then the most cards in hand; players still tied share the win.'),
  N_('Most money wins; players tied share the win.'),
];

/** A line saying how the rules broke ties (the descriptor's rank text), when two seats of view
 * `v` ended on equal points; else null. */
export function tieNote(v) {
  const key = pointsKey(v.game, v.seats);
  const pts = v.seats.map((s) => s[key]);
  const said = rulesetOf(v.game)?.rank?.text;
  const text = said && t(said);
  if (new Set(pts).size === pts.length || !text) return null;
  return h('p', { class: 'muted tie-note', id: 'tie-note' }, text);
}

/** 1 -> "1st", 2 -> "2nd", 11 -> "11th", 23 -> "23rd". */
export function ordinal(n) {
  if (language() === 'de') return `${n}.`;
  const t = n % 100;
  if (t >= 11 && t <= 13) return `${n}th`;
  return `${n}${{ 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] ?? 'th'}`;
}

/**
 * The sentence for seat `seat` in standings `rows`: "You finished 2nd of 4" or, tied, "You
 * share 1st place"; null when the seat is not in the game (a watcher).
 */
export function placeLine(rows, seat) {
  const r = rows.find((x) => x.seat === seat);
  if (!r) return null;
  return r.shared ? t('You share {place} place', { place: ordinal(r.place) }) : t('You finished {place} of {n}', { place: ordinal(r.place), n: rows.length });
}

/**
 * The final ranking as an <ol> (#final-ranking): each row's place (shared places repeat), the
 * seat's name, a "you" tag on this browser's seat `me`, a winner mark, then `extra(row)`.
 */
export function rankingList(rows, extra, { winners = [], me = null, nameOf }) {
  return h('ol', { class: 'ranking placed', id: 'final-ranking', 'aria-label': t('Final ranking') }, rows.map((r) => {
    const won = winners.includes(r.seat);
    return h('li', { class: `${won ? 'won' : ''} ${r.seat === me ? 'me' : ''}`, 'data-seat': r.seat, 'data-place': r.place },
      h('span', { class: 'r-place' }, ordinal(r.place)),
      seatDot(r.seat), h('span', { class: 'r-name' }, nameOf(r.seat),
        r.seat === me ? h('span', { class: 'tag you' }, t('you')) : null,
        won ? h('span', { class: 'offscreen' }, t(' (winner)')) : null),
      extra(r));
  }));
}
