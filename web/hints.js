// hints.js: what the Suggest button of every table asks: the server's expert (POST /hint, a few
// hints per game and seat, counted here in localStorage and corrected by every answer), and, when
// none are left or the server stays busy, the free quick suggestion of the hand view
// (pending.suggestion, the greedy bot's). A hint that comes back after its point passed is dropped.
// The expert's answer says why (its estimate for the suggestion and the runner-up), which
// whyText() puts in players' words.

import { api, loadRulesets } from './api.js';
import { h } from './dom.js';
import { inPlayersWords } from './ui.js';
import { t, num } from './i18n.js';

const NONE_LEFT = t('No expert hints left in this game: Suggest gives the quick suggestion.');
const BUSY = t('The expert is busy right now: this is the quick suggestion.');
const MAX_WAIT_S = 3; // the longest a 503's Retry-After is waited for before the one retry

/** True when pending points `a` and `b` are the same decision (round, step and turn). */
export function samePoint(a, b) {
  return !!a && !!b && a.round === b.round && a.step === b.step && (a.turn ?? null) === (b.turn ?? null);
}

function pointKey(p) { return p ? `${p.round}-${p.step}-${p.turn ?? ''}` : ''; }

function readLeft(key) {
  try { const v = localStorage.getItem(key); return v === null ? null : Number(v); } catch { return null; }
}
function writeLeft(key, n) {
  try { localStorage.setItem(key, String(n)); } catch { /* private mode: the server still counts */ }
}

/**
 * The hints of game `id` for the seat `seat()` ({seat, token} or null): `changed()` is called
 * whenever the button's label or note changes. Returns {ask, button, note, sig}.
 */
export function expertHints(id, seat, changed) {
  let perGame = null; // the server's hints_per_game, once /rulesets is read
  let hintMs = null; // how long a hint thinks: the top level's think_ms (hints think at it)
  let thinking = false;
  let note = '';
  let noteAt = ''; // the point the note is about: it goes when the game moves on
  const key = () => `city.hints.${id}.${seat()?.seat}`;
  loadRulesets().then((r) => {
    perGame = r.hints_per_game ?? null;
    hintMs = r.bot_levels?.at(-1)?.think_ms ?? null;
    changed();
  }).catch(() => null);

  /** Hints this seat has left (null while unknown). */
  function left() {
    if (!seat()) return null;
    return readLeft(key()) ?? perGame;
  }

  function say(text, p) { note = text; noteAt = pointKey(p); }

  /**
   * Asks for pending point `p`: resolves to {suggestion, by: 'expert' | 'quick', estimate (the
   * expert's, or null)}, or null when
   * there is nothing to apply (no seat, already asking, the point has passed at the server). The
   * caller still checks that `p` is pending when it resolves.
   */
  async function ask(p) {
    const me = seat();
    if (!p || !me || thinking) return null;
    const quick = (why) => { say(why, p); return p.suggestion ? { suggestion: p.suggestion, by: 'quick' } : null; };
    if (left() === 0) return quick(NONE_LEFT);
    thinking = true;
    say('', p);
    changed();
    try {
      for (let retried = false; ; retried = true) {
        try {
          const r = await api.hint(id, me.token);
          writeLeft(`city.hints.${id}.${me.seat}`, r.hints_left);
          return { suggestion: r.suggestion, by: 'expert', estimate: r.estimate ?? null };
        } catch (e) {
          if (e.status === 503 && !retried) {
            await new Promise((ok) => setTimeout(ok, Math.min(e.retryAfter ?? 1, MAX_WAIT_S) * 1000));
            continue;
          }
          if (e.status === 429) { writeLeft(`city.hints.${id}.${me.seat}`, 0); return quick(NONE_LEFT); }
          if (e.status === 503) return quick(BUSY);
          if (e.status === 409) return null; // nothing to decide any more: the point has passed
          return quick(t('No expert hint ({why}) This is the quick suggestion.', { why: inPlayersWords(e) }));
        }
      }
    } finally {
      thinking = false;
      changed();
    }
  }

  /** The Suggest button for pending point `p`, calling `onclick`; `disabled` as the table says. */
  function button({ onclick, disabled = false, cls = 'ghost', title }) {
    const n = left();
    const label = thinking ? t('Thinking…') : n === null ? t('Suggest') : n > 0 ? t('Suggest (expert · {n} left)', { n }) : t('Suggest (quick)');
    // While the expert thinks the button stays focusable (aria-disabled, clicks ignored), so
    // keyboard focus is not lost; it is truly disabled only when the table says so.
    return h('button', {
      type: 'button', class: `${cls} suggest-btn`, id: 'suggest', 'data-focus-key': 'suggest',
      disabled, 'aria-disabled': thinking ? 'true' : null, 'data-hints-left': n ?? '',
      'data-thinking': thinking ? 'true' : 'false',
      title: title ?? (n > 0 ? (hintMs ? t('Ask the expert bot what to do here (it thinks about {ms} ms); you still confirm', { ms: hintMs }) : t('Ask the expert bot what to do here; you still confirm')) : t('Pre-select what the quick (greedy) bot would do in your place; you still confirm')),
      onclick: () => { if (!thinking) onclick(); },
    }, label);
  }

  /** The short note about the last Suggest at point `p` (no hints left, busy), or null. */
  function noteLine(p) {
    return note && noteAt === pointKey(p) ? h('p', { class: 'muted hint-note', id: 'hint-note', role: 'status' }, note) : null;
  }

  /** What the button and note show, for a table's re-draw signature. */
  function sig() { return [thinking, left(), note, noteAt]; }

  return { ask, button, note: noteLine, sig, left };
}

/**
 * Why the expert suggests what it does, in players' words, from a hint's answer `got` (ask()'s):
 * how often its suggestion won the games it played out from here and the final score they
 * ended at, and the same for the runner-up. `say(order)` names an order ("Data Atlas at 2, 1"),
 * `score(n)` a final score ("41 points"). '' when there is nothing to say (a quick suggestion, or
 * a single choice the expert did not weigh).
 */
export function whyText(got, say, score) {
  const e = got?.by === 'expert' ? got.estimate : null;
  if (!e) return '';
  const pct = (w) => num(w, { style: 'percent' });
  const fig = (n) => score(Math.round(n));
  const ru = e.runner_up;
  const runner = ru ? ` ${t('The next best, {choice}, won {win} and ended at about {score}.', { choice: say(ru.suggestion), win: pct(ru.estimate.win), score: fig(ru.estimate.score) })}` : '';
  return t('Why: playing the game out {n} times from here with quick players, the expert won {win} of the games with this choice, ending at about {score}.', { n: e.playouts, win: pct(e.win), score: fig(e.score) }) + runner;
}
