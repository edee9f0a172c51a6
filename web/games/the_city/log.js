// the_city/log.js: turns The City's public event log (the SSE stream's events: step, built,
// contractor, surveyed, scored, income, discarded, forced, default, joined, started, game_over
// ...) into readable lines, grouping a round's scores, incomes and discards into one line each.

import { card } from './cards.js';
import { seatLogLine } from '../../seats.js';
import { joinNames } from '../../ui.js';

const STEP_TITLES = {
  keep: 'Setup: everyone keeps 5 of 7',
  build: 'build',
  survey: 'surveyors discard',
  hand_limit: 'hand limit',
  over: 'game over',
};

/**
 * Log entries from events (sorted by seq). names(seat) gives a player's name.
 * Returns [{kind: 'head'|'line'|'minor'|'end', text, seq, parts?}].
 */
export function logEntries(events, names) {
  const out = [];
  const who = (s) => names(s) ?? `Seat ${s + 1}`;
  let group = null; // {type, round, parts: []}
  const flush = () => { if (group) { out.push(groupLine(group)); group = null; } };
  // "chose" is said once per step per seat, for bots as for people: the server logs a person's
  // first order of a step (`submitted`; amendments are silent) and nothing for a bot, which
  // decides the moment the step opens. So a bot's line is written when its step opens (keep at
  // `started`, build, survey) or, for the hand limit (whose seats the log learns only from the
  // discards), just before that step's discards; `chose` keeps any seat from being told twice.
  const bots = new Set();
  const chose = new Set();
  const surveyed = new Set(); // `round:seat` of this game's surveys
  const choseLine = (e, seats) => {
    const fresh = seats.filter((s) => {
      const k = `${e.round ?? 0}:${e.step}:${e.turn ?? ''}:${s}`;
      if (chose.has(k)) return false;
      chose.add(k);
      return true;
    });
    if (fresh.length) out.push(line(e, `${joinNames(fresh.map(who))} chose.`, 'minor'));
  };
  for (const e of events) {
    const t = e.type;
    if (t === 'discarded' && e.step === 'hand_limit' && bots.has(e.seat)) {
      if (!group || group.type !== t || group.round !== e.round || group.step !== e.step) flush();
      choseLine(e, [e.seat]);
    }
    if (t === 'scored' || t === 'income' || t === 'discarded') {
      if (!group || group.type !== t || group.round !== e.round || group.step !== e.step) {
        flush();
        group = { type: t, round: e.round, step: e.step, seq: e.seq, parts: [] };
      }
      group.parts.push(e);
      continue;
    }
    flush();
    switch (t) {
      case 'created': out.push(line(e, `A game for ${e.players} players was created.`, 'minor')); break;
      case 'joined':
        if (e.bot) bots.add(e.seat); else bots.delete(e.seat);
        out.push(line(e, `${e.name} took seat ${e.seat + 1}${e.bot ? ' (a bot)' : ''}.`, 'minor'));
        break;
      case 'started': // the setup keep opens with the game, without a step event of its own
        out.push(line(e, `Every seat is taken: the game starts with ${e.players} players.`));
        choseLine({ seq: e.seq, round: 0, step: 'keep' }, [...bots].sort((a, b) => a - b));
        break;
      case 'submitted': choseLine(e, [e.seat]); break;
      case 'step': {
        if (e.step === 'build') out.push({ kind: 'head', seq: e.seq, text: `Round ${e.round}` });
        else if (e.step !== 'over') out.push(line(e, `Step: ${STEP_TITLES[e.step] ?? e.step}.`, 'minor'));
        const deciding = e.step === 'keep' || e.step === 'build' ? [...bots]
          : e.step === 'survey' ? [...bots].filter((s) => surveyed.has(`${e.round}:${s}`)) : [];
        choseLine(e, deciding.sort((a, b) => a - b));
        break;
      }
      case 'forced': {
        const where = e.round ? `round ${e.round}, ${STEP_TITLES[e.step] ?? e.step}` : 'the setup keep';
        const seats = joinNames((e.seats ?? []).map(who));
        const got = seats ? `: ${seats} ${e.seats.length === 1 ? 'gets' : 'get'} the default` : '';
        const text = e.by === 'host' ? `The host forced ${where}${got}.`
          : typeof e.by === 'number' ? `Time was up; ${who(e.by)} applied the defaults for ${where}${got}.`
            : `Time ran out for ${where}${got}.`;
        out.push(line(e, text, 'warn'));
        break;
      }
      case 'bank': out.push(line(e, `${who(e.seat)} used ${e.used} s of their time bank (${e.bank_seconds} s left).`, 'minor')); break;
      case 'default': {
        const what = `${e.decision === 'survey' ? 'surveys' : 'discards'} by default`;
        // Only the timer's defaults are "out of time"; a forced step says who forced it.
        const text = e.by === 'host' ? `${who(e.seat)} had not chosen when the host forced the step: ${what}.`
          : typeof e.by === 'number' ? `${who(e.seat)} ran out of time (defaults applied by ${who(e.by)}): ${what}.`
            : `${who(e.seat)} ran out of time: ${what}.`;
        out.push(line(e, text, 'warn'));
        break;
      }
      case 'built': out.push(line(e, `${who(e.seat)} built ${card(e.card).name}${e.paid ? ` (paid ${e.paid})` : ' (free)'}.`, 'build')); break;
      case 'contractor': out.push(line(e, `${who(e.seat)} took a General Contractor.`, 'build')); break;
      case 'surveyed':
        if (e.drew >= 2) surveyed.add(`${e.round}:${e.seat}`); // fewer asks nothing
        out.push(line(e, `${who(e.seat)} surveyed and drew ${e.drew} card${e.drew === 1 ? '' : 's'} (hand ${e.hand_count}).`)); break;
      case 'reshuffled': out.push(line(e, `The discard pile was shuffled into a new deck of ${e.deck_count} cards.`, 'minor')); break;
      case 'no_income': out.push(line(e, `The deck cannot pay everyone's income (${e.needed} needed, ${e.available} left): the game ends now.`, 'warn')); break;
      case 'game_over': {
        const w = (e.winners ?? []).map(who);
        const text = w.length > 1 ? `Game over: ${joinNames(w)} share the win with ${e.vp} VP.`
          : `Game over: ${w[0] ?? 'nobody'} wins with ${e.vp} VP.`;
        out.push({ kind: 'end', seq: e.seq, text });
        break;
      }
      default: { const l = seatLogLine(e, who); if (l) out.push(l); break; }
    }
  }
  flush();
  return out;

  function groupLine(g) {
    let text;
    if (g.type === 'scored') {
      text = 'Scores: ' + g.parts.map((e) => `${who(e.seat)} +${e.points} → ${e.vp}`).join(', ') + '.';
    } else if (g.type === 'income') {
      text = 'Income: ' + g.parts.map((e) => `${who(e.seat)} ${e.cards} card${e.cards === 1 ? '' : 's'}`).join(', ') + '.';
    } else {
      const what = g.step === 'keep' ? 'Kept 5, discarded' : g.step === 'hand_limit' ? 'Down to 12, discarded' : 'Discarded';
      text = `${what}: ` + g.parts.map((e) => `${who(e.seat)} ${e.count}`).join(', ') + '.';
    }
    return { kind: g.type === 'scored' ? 'score' : 'line', seq: g.seq, text };
  }
}

function line(e, text, kind = 'line') { return { kind, seq: e.seq, text }; }

