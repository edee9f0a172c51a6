// games/turns.js: what the games played in rounds of decision points (Tech City, SimCity) share
// in the page beside their grid: the public log's frame (a head for every round, the lines of
// creating, joining, starting, defaults, Force and the end, and the seat events of seats.js)
// around each game's own lines, and the hand's "new" marks, which last until the seat's next
// pending point.

import { joinNames } from '../ui.js';
import { seatLogLine } from '../seats.js';
import { t, tn } from '../i18n.js';

/**
 * The public log `events` as lines [{kind, seq, text}], names from `names(seat)`. `title` names
 * the game ("a game of TITLE ..."); `line(e, add, who, out)` writes the game's own lines of event
 * `e` (add(text, kind) adds one) and returns false for an event it does not know; `totals(e)`
 * says the final figures of the game_over event ("12 – 9"), or ''.
 */
export function roundLog(events, names, { title, line, totals }) {
  const out = [];
  const who = (s) => names(s) ?? t('Seat {n}', { n: s + 1 });
  let round = 0;
  for (const e of events) {
    const add = (text, kind = 'line') => out.push({ kind, seq: e.seq, text });
    if (e.round && e.round !== round && e.type !== 'game_over') {
      round = e.round;
      out.push({ kind: 'head', seq: e.seq, text: t('Round {n}', { n: round }) });
    }
    switch (e.type) {
      case 'created': add(tn(e.players, 'A game of {title} for {count} player was created.', 'A game of {title} for {count} players was created.', { title }), 'minor'); break;
      case 'joined': add(e.bot ? t('{name} took seat {n} (a bot).', { name: e.name, n: e.seat + 1 }) : t('{name} took seat {n}.', { name: e.name, n: e.seat + 1 }), 'minor'); break;
      case 'started': add(t('Every seat is taken: the game starts.')); break;
      case 'default': add(t('{name} had not chosen: the game chose for them.', { name: who(e.seat) }), 'warn'); break;
      case 'forced': add(t('The step was forced.'), 'warn'); break;
      case 'bank': add(t('{name} used {used} s of their time bank ({left} s left).', { name: who(e.seat), used: e.used, left: e.bank_seconds }), 'minor'); break;
      case 'game_over': {
        const w = (e.winners ?? []).map(who);
        const sum = totals(e);
        const names = joinNames(w);
        const text = w.length > 1 ? t('Game over: {names} share the win', { names }) : t('Game over: {names} wins', { names });
        out.push({ kind: 'end', seq: e.seq, text: `${text}${sum ? ` (${sum})` : ''}.` });
        break;
      }
      default:
        if (!line(e, add, who, out)) { const l = seatLogLine(e, who); if (l) out.push(l); }
    }
  }
  return out;
}

/**
 * The table part's fields for the hand's "new" marks (web/table.js freshKey, freshText): a card
 * that came into the hand is new until the seat's next point after it resolves.
 */
export const markNewByPoint = {
  freshKey: (v, p) => (v.status === 'playing' ? (p ? `${p.round}-${p.step}-${p.turn}` : null) : undefined),
  freshText: t('since your last decision'),
};
