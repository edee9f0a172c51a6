// access.js: what the tables share for small screens and assistive technology: the sticky jump
// bar (your move and the log one tap away on a phone), the announcer that reads new log lines
// once per batch in a polite live region, and the fitter that shrinks a card name until its
// longest word fits, so names are never broken inside a word.

import { h } from './dom.js';
import { t } from './i18n.js';

/**
 * A sticky <nav> of buttons that bring a table's sections into view and focus them.
 * targets: [[label, () => element to show, id]]; a target that is missing or hidden is skipped
 * when pressed. Shown on narrow screens only (style.css).
 */
export function jumpBar(targets) {
  return h('nav', { class: 'jump-bar', id: 'jump', 'aria-label': t('Parts of the table') },
    targets.map(([label, find, id]) => h('button', {
      type: 'button', class: 'ghost small', id,
      onclick: () => {
        const el = find();
        if (!el || el.hidden) return;
        el.scrollIntoView({ block: 'start', behavior: matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth' });
        let focusable = el.matches('[tabindex], button, a') ? el : el.querySelector('[tabindex]');
        if (!focusable) { el.setAttribute('tabindex', '-1'); focusable = el; }
        focusable.focus({ preventScroll: true });
      },
    }, label)));
}

/**
 * An offscreen polite live region and update(list): after each drawing of the log `list`
 * (an element whose <li data-seq> are the lines), says the lines that are new or changed since
 * the last call, in one announcement; the first call only remembers what is there. Returns
 * {region, update}.
 */
export function logAnnouncer() {
  const region = h('p', { class: 'offscreen', 'aria-live': 'polite', id: 'log-news' });
  let seen = null; // seq → text of the lines already there
  const MAX = 4;
  function update(list) {
    const lines = [...list.querySelectorAll('li[data-seq]')].map((li) => [li.dataset.seq, li.textContent]);
    if (seen) {
      const fresh = lines.filter(([seq, text]) => seen.get(seq) !== text).map(([, text]) => text);
      if (fresh.length) {
        const said = fresh.length > MAX ? [t('{n} new log lines; the last: ', { n: fresh.length - MAX + 1 }), ...fresh.slice(-(MAX - 1))] : fresh;
        region.textContent = said.join(' ');
      }
    }
    seen = new Map(lines);
  }
  return { region, update };
}

const NAMES = '.card-name, .tc-name, .chip-name, .ghost-card';
const MIN_PX = 7;

/**
 * Shrinks, inside `root`, every card name whose longest word is wider than its box, step by
 * step down to 7 px, so words wrap between one another and never inside one.
 */
export function fitNames(root) {
  const els = [...root.querySelectorAll(NAMES)];
  for (const el of els) el.style.removeProperty('font-size');
  const over = els.filter((el) => el.scrollWidth > el.clientWidth + 0.5);
  for (const el of over) {
    let px = parseFloat(getComputedStyle(el).fontSize);
    while (px > MIN_PX && el.scrollWidth > el.clientWidth + 0.5) {
      px = Math.max(MIN_PX, px - 0.5);
      el.style.setProperty('font-size', `${px}px`);
    }
  }
}

/**
 * Calls fitNames(root) again whenever the window's width changes; returns the function that
 * stops it.
 */
export function fitOnResize(root) {
  let width = window.innerWidth;
  let frame = 0;
  const on = () => {
    if (window.innerWidth === width) return;
    width = window.innerWidth;
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(() => fitNames(root));
  };
  window.addEventListener('resize', on);
  return () => { window.removeEventListener('resize', on); cancelAnimationFrame(frame); };
}
