// games/turns.js: what the games played in rounds of decision points (Tech City, SimCity) share
// in the page beside their grid: the public log's frame (a head for every round, the lines of
// creating, joining, starting, defaults, Force and the end, and the seat events of seats.js)
// around each game's own lines, and the hand's "new" marks, which last until the seat's next
// pending point.

import { joinNames } from '../ui.js';
import { seatLogLine } from '../seats.js';

/**
 * The public log `events` as lines [{kind, seq, text}], names from `names(seat)`. `title` names
 * the game ("a game of TITLE ..."); `line(e, add, who, out)` writes the game's own lines of event
 * `e` (add(text, kind) adds one) and returns false for an event it does not know; `totals(e)`
 * says the final figures of the game_over event ("12 – 9"), or ''.
 */
export function roundLog(events, names, { title, line, totals }) {
  const out = [];
  const who = (s) => names(s) ?? `Seat ${s + 1}`;
  let round = 0;
  for (const e of events) {
    const add = (text, kind = 'line') => out.push({ kind, seq: e.seq, text });
    if (e.round && e.round !== round && e.type !== 'game_over') {
      round = e.round;
      out.push({ kind: 'head', seq: e.seq, text: `Round ${round}` });
    }
    switch (e.type) {
      case 'created': add(`A game of ${title} for ${e.players} player${e.players === 1 ? '' : 's'} was created.`, 'minor'); break;
      case 'joined': add(`${e.name} took seat ${e.seat + 1}${e.bot ? ' (a bot)' : ''}.`, 'minor'); break;
      case 'started': add('Every seat is taken: the game starts.'); break;
      case 'default': add(`${who(e.seat)} had not chosen: the game chose for them.`, 'warn'); break;
      case 'forced': add('The step was forced.', 'warn'); break;
      case 'bank': add(`${who(e.seat)} used ${e.used} s of their time bank (${e.bank_seconds} s left).`, 'minor'); break;
      case 'game_over': {
        const w = (e.winners ?? []).map(who);
        const t = totals(e);
        out.push({ kind: 'end', seq: e.seq, text: `Game over: ${joinNames(w)} ${w.length > 1 ? 'share the win' : 'wins'}${t ? ` (${t})` : ''}.` });
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
  freshText: 'since your last decision',
};
