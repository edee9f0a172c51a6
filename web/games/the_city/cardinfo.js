// the_city/cardinfo.js: a card's full text in a small modal dialog, so a touch screen (no hover) can read
// any card of The City's table, in a hand or in a tableau: opened by a card's "i" button or a
// tap on a built card, closed by Escape, a tap outside or its Close button; focus goes back to
// what opened it. One <dialog> per page, built on first use.

import { h, replace } from '../../dom.js';
import { card, iconText, kindOf } from './cards.js';
import { t, tn } from '../../i18n.js';

let dialog = null;
let opener = null;

const ICON_NAMES = { car: t('car'), shopping: t('shopping'), entertainment: t('entertainment') };

/** The facts of The City's card `slug` as a <dl> and its text: cost, VP, income, icons, needs, limit, copies. */
export function cardFacts(slug) {
  const c = card(slug);
  const icons = c.icons.length ? c.icons.map((i) => ICON_NAMES[i] ?? i).join(', ') : t('none');
  const row = (k, v) => h('div', {}, h('dt', {}, k), h('dd', {}, v));
  return [
    h('dl', { class: 'card-facts' },
      row(t('Cost'), c.contractor ? t('free (taken from the pool)') : String(c.cost)),
      row(t('VP a round'), `${c.vp}${c.vp_per ? t(' + variable (see the text)') : ''}`),
      row(t('Income'), c.income_per ? t('{n} + variable (see the text) cards a round', { n: c.income }) : tn(c.income, '{count} card a round', '{count} cards a round')),
      row(t('Icons'), c.icons.length ? `${iconText(c)} ${icons}` : icons),
      c.requires?.length ? row(t('Needs'), c.requires.map((r) => card(r).name).join(', ')) : null,
      c.limit ? row(t('Limit'), t('{n} per player', { n: c.limit })) : null,
      c.count ? row(t('Copies in the deck'), String(c.count)) : null),
    h('p', { class: 'card-pop-text' }, c.text || t('No special text.')),
  ];
}

/** Opens the dialog with The City's card `slug`; focus returns to `from` (or the opener) on close. */
export function showCardInfo(slug, from = document.activeElement, extra = null) {
  const c = card(slug);
  showInfo(c.name, [extra ? h('p', { class: 'muted' }, extra) : null, cardFacts(slug)], `kind-${kindOf(c)}`, from);
}

/** Opens the dialog with any title and body (DOM nodes); `cls` styles its head. */
export function showInfo(title, body, cls = '', from = document.activeElement) {
  if (!dialog) {
    dialog = h('dialog', { class: 'card-pop', id: 'card-pop', 'aria-labelledby': 'card-pop-title' });
    // A click on the dialog box itself (not its content) is a click on the backdrop: close.
    dialog.addEventListener('click', (e) => { if (e.target === dialog) dialog.close(); });
    dialog.addEventListener('close', () => {
      const back = opener;
      opener = null;
      if (back?.isConnected) back.focus({ preventScroll: true });
    });
    document.body.append(dialog);
  }
  opener = from;
  const close = h('button', { type: 'button', class: 'ghost small', id: 'card-pop-close', onclick: () => dialog.close() }, t('Close'));
  replace(dialog, h('div', { class: 'card-pop-body' },
    h('div', { class: `card-pop-head ${cls}` }, h('h2', { id: 'card-pop-title' }, title)),
    h('div', { class: 'card-pop-main' }, body),
    h('div', { class: 'card-pop-foot' }, close)));
  if (!dialog.open) dialog.showModal();
  close.focus();
}

/** Closes the dialog if it is open (a view that goes away calls this). */
export function closeCardInfo() {
  if (dialog?.open) { opener = null; dialog.close(); }
}

/** The small "i" button (for touch and mouse) that opens the full text of card `slug`. */
export function infoButton(slug, key) {
  return h('button', {
    // Out of the Tab order: a keyboard reaches the text through the card itself (its label
    // holds the full text, and the face shows it), so Tab goes card to card.
    type: 'button', class: 'card-info-btn', 'data-focus-key': key, 'data-slug': slug, tabindex: -1,
    'aria-label': t('Read {name} in full', { name: card(slug).name }), title: t('Full card text'),
    onclick: (e) => { e.stopPropagation(); showCardInfo(slug, e.currentTarget); },
  }, h('span', { 'aria-hidden': 'true' }, 'i'));
}
