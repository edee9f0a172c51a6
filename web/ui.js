// ui.js: small shared pieces of the page: share links and their copy buttons, error lines that
// show the API's own sentence, the seat colours and their dot, a table's links to the rules and
// cards, a list of names in words, and a game's log lines as a list.

import { h } from './dom.js';

/** The colour of each seat, in seat order (a sixth seat and on start again). */
export const SEAT_COLOURS = ['#e4572e', '#2e86ab', '#8a4fbf', '#2a9d58', '#d4a017', '#c2417a'];

/** The link that opens game `id` on this server. */
export function shareUrl(id) { return `${location.origin}${location.pathname}#/game/${id}`; }

/** The shareable link of game `id`'s replay viewer. */
export function replayUrl(id) { return `${location.origin}${location.pathname}#/replay/${id}`; }

/** A button that copies `text` to the clipboard and says so. */
export function copyButton(text, label = 'Copy', aria = label) {
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
      btn.textContent = ok ? 'Copied ✓' : 'Select and copy';
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
    h('label', { class: 'share-label', for: 'share-link' }, 'Share link'),
    h('div', { class: 'share-row' },
      h('input', { id: 'share-link', type: 'text', readonly: true, value: url, onfocus: (e) => e.target.select() }),
      copyButton(url, 'Copy', 'Copy the share link')));
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
  return h('nav', { class: 'bar-links', 'aria-label': 'Rules and cards' },
    h('a', { href: `#/rules/${game}`, target: '_blank', rel: 'noopener', id: 'rules-link' }, 'Rules', h('span', { class: 'offscreen' }, ' (opens in a new tab)')),
    h('a', { href: `#/cards/${game}`, target: '_blank', rel: 'noopener', id: 'cards-link' }, 'Cards', h('span', { class: 'offscreen' }, ' (opens in a new tab)')));
}

/** ['Ada', 'Bea', 'Cid'] -> "Ada, Bea and Cid"; one name alone; '' for none. */
export function joinNames(list) {
  if (list.length <= 1) return list.join('');
  return list.slice(0, -1).join(', ') + ' and ' + list[list.length - 1];
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
