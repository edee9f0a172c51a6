// the_city/log.js: turns The City's public event log (the SSE stream's events: step, built,
// contractor, surveyed, scored, income, discarded, forced, default, joined, started, game_over
// ...) into readable lines, grouping a round's scores, incomes and discards into one line each.

import { card } from './cards.js';
import { seatLogLine } from '../../seats.js';
import { joinNames } from '../../ui.js';
import { t, tn } from '../../i18n.js';

const STEP_TITLES = {
  keep: t('Setup: everyone keeps 5 of 7'),
  build: t('build'),
  survey: t('surveyors discard'),
  hand_limit: t('hand limit'),
  over: t('game over'),
};

/**
 * Log entries from events (sorted by seq). names(seat) gives a player's name.
 * Returns [{kind: 'head'|'line'|'minor'|'end', text, seq, parts?}].
 */
export function logEntries(events, names) {
  const out = [];
  const who = (s) => names(s) ?? t('Seat {n}', { n: s + 1 });
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
    if (fresh.length) out.push(line(e, t('{names} chose.', { names: joinNames(fresh.map(who)) }), 'minor'));
  };
  for (const e of events) {
    const type = e.type;
    if (type === 'discarded' && e.step === 'hand_limit' && bots.has(e.seat)) {
      if (!group || group.type !== type || group.round !== e.round || group.step !== e.step) flush();
      choseLine(e, [e.seat]);
    }
    if (type === 'scored' || type === 'income' || type === 'discarded') {
      if (!group || group.type !== type || group.round !== e.round || group.step !== e.step) {
        flush();
        group = { type, round: e.round, step: e.step, seq: e.seq, parts: [] };
      }
      group.parts.push(e);
      continue;
    }
    flush();
    switch (type) {
      case 'created': out.push(line(e, t('A game for {n} players was created.', { n: e.players }), 'minor')); break;
      case 'joined':
        if (e.bot) bots.add(e.seat); else bots.delete(e.seat);
        out.push(line(e, e.bot ? t('{name} took seat {n} (a bot).', { name: e.name, n: e.seat + 1 }) : t('{name} took seat {n}.', { name: e.name, n: e.seat + 1 }), 'minor'));
        break;
      case 'started': // the setup keep opens with the game, without a step event of its own
        out.push(line(e, t('Every seat is taken: the game starts with {n} players.', { n: e.players })));
        choseLine({ seq: e.seq, round: 0, step: 'keep' }, [...bots].sort((a, b) => a - b));
        break;
      case 'submitted': choseLine(e, [e.seat]); break;
      case 'step': {
        if (e.step === 'build') out.push({ kind: 'head', seq: e.seq, text: t('Round {n}', { n: e.round }) });
        else if (e.step !== 'over') out.push(line(e, t('Step: {step}.', { step: STEP_TITLES[e.step] ?? e.step }), 'minor'));
        const deciding = e.step === 'keep' || e.step === 'build' ? [...bots]
          : e.step === 'survey' ? [...bots].filter((s) => surveyed.has(`${e.round}:${s}`)) : [];
        choseLine(e, deciding.sort((a, b) => a - b));
        break;
      }
      case 'forced': {
        const where = e.round ? t('round {n}, {step}', { n: e.round, step: STEP_TITLES[e.step] ?? e.step }) : t('the setup keep');
        const seats = joinNames((e.seats ?? []).map(who));
        const got = seats ? tn(e.seats.length, ': {names} gets the default', ': {names} get the default', { names: seats }) : '';
        const text = e.by === 'host' ? t('The host forced {where}{got}.', { where, got })
          : typeof e.by === 'number' ? t('Time was up; {name} applied the defaults for {where}{got}.', { name: who(e.by), where, got })
            : t('Time ran out for {where}{got}.', { where, got });
        out.push(line(e, text, 'warn'));
        break;
      }
      case 'bank': out.push(line(e, t('{name} used {used} s of their time bank ({left} s left).', { name: who(e.seat), used: e.used, left: e.bank_seconds }), 'minor')); break;
      case 'default': {
        const what = e.decision === 'survey' ? t('surveys by default') : t('discards by default');
        // Only the timer's defaults are "out of time"; a forced step says who forced it.
        const text = e.by === 'host' ? t('{name} had not chosen when the host forced the step: {what}.', { name: who(e.seat), what })
          : typeof e.by === 'number' ? t('{name} ran out of time (defaults applied by {by}): {what}.', { name: who(e.seat), by: who(e.by), what })
            : t('{name} ran out of time: {what}.', { name: who(e.seat), what });
        out.push(line(e, text, 'warn'));
        break;
      }
      case 'built': out.push(line(e, e.paid ? t('{name} built {card} (paid {n}).', { name: who(e.seat), card: card(e.card).name, n: e.paid })
        : t('{name} built {card} (free).', { name: who(e.seat), card: card(e.card).name }), 'build')); break;
      case 'contractor': out.push(line(e, t('{name} took a General Contractor.', { name: who(e.seat) }), 'build')); break;
      case 'surveyed':
        if (e.drew >= 2) surveyed.add(`${e.round}:${e.seat}`); // fewer asks nothing
        out.push(line(e, tn(e.drew, '{name} surveyed and drew {count} card (hand {hand}).', '{name} surveyed and drew {count} cards (hand {hand}).', { name: who(e.seat), hand: e.hand_count }))); break;
      case 'reshuffled': out.push(line(e, t('The discard pile was shuffled into a new deck of {n} cards.', { n: e.deck_count }), 'minor')); break;
      case 'no_income': out.push(line(e, t("The deck cannot pay everyone's income ({needed} needed, {left} left): the game ends now.", { needed: e.needed, left: e.available }), 'warn')); break;
      case 'game_over': {
        const w = (e.winners ?? []).map(who);
        const text = w.length > 1 ? t('Game over: {names} share the win with {vp} VP.', { names: joinNames(w), vp: e.vp })
          : t('Game over: {name} wins with {vp} VP.', { name: w[0] ?? t('nobody'), vp: e.vp });
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
      text = t('Scores: {list}.', { list: g.parts.map((e) => `${who(e.seat)} +${e.points} → ${e.vp}`).join(', ') });
    } else if (g.type === 'income') {
      text = t('Income: {list}.', { list: g.parts.map((e) => `${who(e.seat)} ${tn(e.cards, '{count} card', '{count} cards')}`).join(', ') });
    } else {
      const what = g.step === 'keep' ? t('Kept 5, discarded') : g.step === 'hand_limit' ? t('Down to 12, discarded') : t('Discarded');
      text = `${what}: ` + g.parts.map((e) => `${who(e.seat)} ${e.count}`).join(', ') + '.';
    }
    return { kind: g.type === 'scored' ? 'score' : 'line', seq: g.seq, text };
  }
}

function line(e, text, kind = 'line') { return { kind, seq: e.seq, text }; }

