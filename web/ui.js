// ui.js: small shared pieces of the page: share links and their copy buttons, error lines and
// the API's errors said in players' words, the seat colours and their dot, a table's links to
// the rules and cards, a list of names in words, and a game's log lines as a list.

import { h } from './dom.js';
import { t, tn } from './i18n.js';

/** The colour of each seat, in seat order (a sixth seat and on start again). */
export const SEAT_COLOURS = ['#e4572e', '#2e86ab', '#8a4fbf', '#2a9d58', '#d4a017', '#c2417a'];

/** The link that opens game `id` on this server. */
export function shareUrl(id) { return `${location.origin}${location.pathname}#/game/${id}`; }

/** The shareable link of game `id`'s replay viewer. */
export function replayUrl(id) { return `${location.origin}${location.pathname}#/replay/${id}`; }

/** A button that copies `text` to the clipboard and says so. */
export function copyButton(text, label = t('Copy'), aria = label) {
  const btn = h('button', {
    type: 'button', class: 'ghost small copy', 'aria-label': aria,
    onclick: async () => {
      let ok = false;
      try {
        if (navigator.clipboard && window.isSecureContext) {
          await navigator.clipboard.writeText(text);
          ok = true;
        }
      } catch { ok = false; }
      if (!ok) ok = legacyCopy(text);
      btn.textContent = ok ? t('Copied ✓') : t('Select and copy');
      setTimeout(() => { btn.textContent = label; }, 1600);
    },
  }, label);
  return btn;
}

function legacyCopy(text) {
  const ta = h('textarea', { class: 'offscreen', readonly: true }, text);
  document.body.append(ta);
  ta.select();
  let ok = false;
  try { ok = document.execCommand('copy'); } catch { ok = false; }
  ta.remove();
  return ok;
}

/** A read-only field with the share link of game `id` and a copy button. */
export function shareBox(id) {
  const url = shareUrl(id);
  return h('div', { class: 'share' },
    h('label', { class: 'share-label', for: 'share-link' }, t('Share link')),
    h('div', { class: 'share-row' },
      h('input', { id: 'share-link', type: 'text', readonly: true, value: url, onfocus: (e) => e.target.select() }),
      copyButton(url, t('Copy'), t('Copy the share link'))));
}

/**
 * What went wrong with a request, in players' words: `e` is the ApiError (or any error) a call
 * of api.js threw; `name` names the seat the request was about, as players see it ("Bea"). The
 * server's own sentence is used only where it speaks to players (no API paths, fields or seat
 * indexes); the codes the page knows get a sentence of their own. Returns a string.
 */
export function inPlayersWords(e, { name = null } = {}) {
  const seat = name ? t("{name}'s seat", { name }) : t('This seat');
  const who = name ?? t('The player');
  const detail = e?.problem?.detail ?? '';
  const n = (re) => { const m = re.exec(detail); return m ? Number(m[1]) : null; };
  switch (e?.code) {
    case 'seat_not_absent': {
      if (/ is online /.test(detail)) return t("{who} is at the table now, so the seat stays theirs: a player's seat can go to a bot only while they are away and their time has run out.", { who });
      if (/has not missed its time/.test(detail)) return t('{who} is away but still has time for this step: wait until it runs out.', { who });
      const missed = n(/has missed (\d+)/);
      const need = n(/once it has missed (\d+)/);
      return (missed === null ? t('{seat} cannot go to a bot yet: {who} has missed too few turns', { seat, who })
        : tn(missed, '{seat} cannot go to a bot yet: {who} has missed {count} turn', '{seat} cannot go to a bot yet: {who} has missed {count} turns', { seat, who }))
        + (need === null ? '' : t(', and a seat can go to a bot once its player has missed {need}', { need })) + '. '
        + t('Until then, Force step ends a step that {who} keeps waiting.', { who });
    }
    case 'seat_is_bot': return name ? t("A bot already plays {name}'s seat.", { name }) : t('A bot already plays this seat.');
    case 'game_started': return t('The game has already started, so it can no longer be cancelled.');
    case 'game_not_started': return t('The game has not started yet: it is still waiting for players.');
    case 'game_over': return t('The game is already over.');
    case 'game_expired': return t('The game expired before its seats filled.');
    case 'game_cancelled': return t('The host cancelled this game.');
    case 'not_host': case 'wrong_game': return t('Only the host of this game can do that.');
    case 'bad_token': case 'token_required': return t('This browser no longer holds a key to this game, so it cannot do that.');
    case 'game_not_found': return t('There is no game at this address: the link may be mistyped, or the game ended long ago and was removed.');
    case 'rate_limited': return e.retryAfter ? t('Too many tries: wait {wait} and try again.', { wait: waitWords(e.retryAfter) }) : t('Too many requests at once: wait a moment and try again.');
    case 'busy': return t('The server is busy just now: try again in a moment.');
    // accounts
    case 'bad_credentials': return t('That name and password do not match an account. Check both (names ignore upper and lower case).');
    case 'name_taken':
      if (/at this table/.test(detail)) {
        return /an account joins/.test(detail)
          ? t('Someone at this table already has your account\'s name: sign out to join under another name.')
          : t('Someone at this table already has that name: choose another one.');
      }
      return t('That name is taken: choose another one.');
    case 'wrong_password': return t('That is not your current password.');
    case 'account_required': return t('This game is rated: only players signed in to an account can join it.');
    case 'already_seated': return t('Your account already has a seat in this game.');
    case 'not_rateable': return t('This game cannot be rated: a rated game needs two seats or more, and every person in it signed in.');
    // orders
    case 'stale_step': // a late Force is told in the server's words ("nothing was forced")
      if (/\bforce/i.test(detail) && playersPart(detail)) return playersPart(detail);
      { const m = /is for (.+?), but the game is at (.+?);/.exec(detail);
        if (m) return t('It was for {then}, but the game had already moved on to {now}.', { then: m[1], now: m[2] }); }
      return t('The game moved on before your choice arrived: choose again for the step shown now.');
    case 'nothing_to_decide': return t('You have nothing to decide just now: wait for your turn.');
    case 'game_full': return t('Every seat of this game is taken.');
    case 'too_many_amendments': return t('You have changed your choice too often in this step: the last one sent stands.');
    case 'payment_count': return t('That is not the number of cards this build costs: pick as many cards to pay with as it costs.');
    case 'no_such_player': return t('No player has that name.');
    default: break;
  }
  if (e?.status >= 500) return t('The server could not do that just now; try again in a moment.');
  return playersPart(e?.message ?? '') || t('The server refused this. Reload the page and try again.');
}

/** The API's language: paths, methods, JSON field names, seat indexes, the hand view's words. */
const API_WORDS = /\/api\/|\.\.\.\/|\b(GET|POST|PUT|DELETE)\b|\bseat \d|\bhand view\b|\bpending\b|\btoken\b|[{}]/i;

/**
 * The part of the server's sentence `said` that speaks to players: it is cut at each ";" and
 * sentence end, and kept up to the first clause in the API's language (API_WORDS). '' when none is.
 */
export function playersPart(said) {
  // the clauses before the first one in the API's language (a later clause alone lacks context)
  const clauses = said.split(/(?<=[.;!?])\s+/).filter(Boolean);
  const cut = clauses.findIndex((c) => API_WORDS.test(c));
  const kept = cut < 0 ? clauses : clauses.slice(0, cut);
  if (!kept.length) return '';
  // a JSON field named in quotes reads as a word ("seats" must be ... -> seats must be ...)
  return kept.join(' ').replace(/"([a-z_]+)"/g, '$1').replace(/[;,:]\s*$/, '.').replace(/([^.!?])$/, '$1.');
}

/** A rating change as shown: "+3.4", "−1.2" (a true minus), "±0.0"; '' for an unrated game. */
export function changeWords(c) {
  if (typeof c !== 'number') return '';
  const t = Math.abs(c).toFixed(1);
  if (t === '0.0') return '±0.0';
  return c > 0 ? `+${t}` : `−${t}`;
}

/** A rating (an ordinal, mu or sigma) as shown: one decimal, a true minus ("−0.3"); "–" for none. */
export function ratingWords(x) {
  return typeof x === 'number' ? x.toFixed(1).replace('-', '−') : '–';
}

/** A wait of `seconds` in words: "1 second", "40 seconds", "2 minutes". */
export function waitWords(seconds) {
  const s = Math.max(1, Math.ceil(seconds));
  if (s < 90) return tn(s, '{count} second', '{count} seconds');
  const m = Math.ceil(s / 60);
  return tn(m, '{count} minute', '{count} minutes');
}

export function showError(el, message) {
  el.textContent = message;
  el.hidden = false;
}

export function clearError(el) {
  el.textContent = '';
  el.hidden = true;
}

export function seatDot(seat) {
  return h('span', { class: 'dot', style: `background:${SEAT_COLOURS[seat % SEAT_COLOURS.length]}`, 'aria-hidden': 'true' });
}

/**
 * The table's links to the rules and the card reference of `game`; they open in a new tab, so
 * the seat's table stays where it is.
 */
export function helpLinks(game) {
  return h('nav', { class: 'bar-links', 'aria-label': t('Rules and cards') },
    h('a', { href: `#/rules/${game}`, target: '_blank', rel: 'noopener', id: 'rules-link' }, t('Rules'), h('span', { class: 'offscreen' }, t(' (opens in a new tab)'))),
    h('a', { href: `#/cards/${game}`, target: '_blank', rel: 'noopener', id: 'cards-link' }, t('Cards'), h('span', { class: 'offscreen' }, t(' (opens in a new tab)'))));
}

/** ['Ada', 'Bea', 'Cid'] -> "Ada, Bea and Cid"; one name alone; '' for none. */
export function joinNames(list) {
  if (list.length <= 1) return list.join('');
  return t('{list} and {last}', { list: list.slice(0, -1).join(', '), last: list[list.length - 1] });
}

/** A game's log lines [{kind, seq, text}] as an <ol>: one <li class="log-KIND" data-seq> each. */
export function logList(lines) {
  return h('ol', { class: 'log-list' }, lines.map((e) => h('li', { class: `log-${e.kind}`, 'data-seq': e.seq }, e.text)));
}

/**
 * `list` ordered by keyOf(item), an array of numbers or strings compared in turn; items with
 * equal keys keep their order in `list`. Returns a new array.
 */
export function sortByKeys(list, keyOf) {
  const cmp = (a, b) => { for (let i = 0; i < a.length; i++) { if (a[i] < b[i]) return -1; if (a[i] > b[i]) return 1; } return 0; };
  return list.map((x, i) => ({ x, i, k: keyOf(x) })).sort((a, b) => cmp(a.k, b.k) || a.i - b.i).map((e) => e.x);
}
