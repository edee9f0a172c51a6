// games/grid.js: what the games played on one shared grid of cards (Tech City, SimCity) share in
// the page: the bounds of the cells to draw, a cell's place in the CSS grid, centring a cell in
// its scroll box, panning that box by dragging it with a mouse, and zooming it with buttons and
// the wheel. It knows no game: each game draws its own cells.

import { h } from '../dom.js';

/**
 * The bounds {x0, x1, y0, y1} of cells `cells` ([{x, y}], at least one) widened by `pad` on every
 * side, kept inside a square surface of `side` cells when `side` is given.
 */
export function gridBounds(cells, pad = 1, side = null) {
  const xs = cells.map((c) => c.x), ys = cells.map((c) => c.y);
  const b = { x0: Math.min(...xs) - pad, x1: Math.max(...xs) + pad, y0: Math.min(...ys) - pad, y1: Math.max(...ys) + pad };
  if (side !== null) {
    b.x0 = Math.max(0, b.x0); b.y0 = Math.max(0, b.y0);
    b.x1 = Math.min(side - 1, b.x1); b.y1 = Math.min(side - 1, b.y1);
  }
  return b;
}

/** The CSS declarations placing cell (x, y) in a grid of bounds `b` (gridBounds). */
export function placeIn(b, x, y) {
  return `grid-column:${x - b.x0 + 1};grid-row:${y - b.y0 + 1}`;
}

/** Scrolls `box` so that its element with data-x = x and data-y = y sits in the middle. */
export function scrollToCell(box, x, y) {
  const el = box.querySelector(`[data-x="${x}"][data-y="${y}"]`);
  if (!el) return;
  box.scrollLeft = el.offsetLeft - (box.clientWidth - el.offsetWidth) / 2;
  box.scrollTop = el.offsetTop - (box.clientHeight - el.offsetHeight) / 2;
}

/**
 * Lets a mouse drag scroll box `box` (a press on a button inside it is a click, not a drag);
 * touch pans natively, the keys and the wheel scroll. Adds the class `panning` while dragging.
 */
export function panByDrag(box) {
  let drag = null;
  box.addEventListener('pointerdown', (e) => {
    if (e.pointerType !== 'mouse' || e.button !== 0 || e.target.closest('button')) return;
    drag = { x: e.clientX, y: e.clientY, left: box.scrollLeft, top: box.scrollTop };
    box.setPointerCapture(e.pointerId);
    box.classList.add('panning');
  });
  box.addEventListener('pointermove', (e) => {
    if (!drag) return;
    box.scrollLeft = drag.left - (e.clientX - drag.x);
    box.scrollTop = drag.top - (e.clientY - drag.y);
  });
  const end = () => { drag = null; box.classList.remove('panning'); };
  box.addEventListener('pointerup', end);
  box.addEventListener('pointercancel', end);
}

/**
 * Zoom for scroll box `box`: the wheel over it, + and - while it has focus, and the buttons
 * returned zoom in and out by steps between `min` and `max`, keeping the point under the
 * pointer (the box's middle otherwise) where it was; `fit()` (the "Fit" button) asks the game for the zoom that shows its whole city.
 * `apply(z)` sets the game's zoom (e.g. a CSS variable) and returns nothing. Returns {controls
 * (an element with the buttons), get(), set(z, anchor), fitNow()}.
 */
export function zoomable(box, { min, max, step = 1.2, start = 1, apply, fit, label = 'the city' }) {
  let z = start;
  const clamp = (x) => Math.min(max, Math.max(min, x));
  const out = h('button', { type: 'button', class: 'ghost small zoom-btn', id: 'zoom-out', 'aria-label': `Zoom out of ${label}`, onclick: () => set(z / step) }, '−');
  const inn = h('button', { type: 'button', class: 'ghost small zoom-btn', id: 'zoom-in', 'aria-label': `Zoom into ${label}`, onclick: () => set(z * step) }, '+');
  const fitBtn = h('button', { type: 'button', class: 'ghost small zoom-btn', id: 'zoom-fit', title: `Show all of ${label}`, onclick: () => fitNow() }, 'Fit');
  const controls = h('div', { class: 'zoom', role: 'group', 'aria-label': 'Zoom' }, out, fitBtn, inn);

  function mark() {
    out.disabled = z <= min + 1e-6;
    inn.disabled = z >= max - 1e-6;
    box.dataset.zoom = z.toFixed(2);
  }

  /** Sets zoom `next` (clamped), keeping the content point under `anchor` ({x, y} in the box) still. */
  function set(next, anchor = null) {
    const old = z;
    z = clamp(next);
    if (Math.abs(z - old) < 1e-6) { mark(); return; }
    const ax = anchor?.x ?? box.clientWidth / 2, ay = anchor?.y ?? box.clientHeight / 2;
    const cx = (box.scrollLeft + ax) / old, cy = (box.scrollTop + ay) / old;
    apply(z);
    box.scrollLeft = cx * z - ax;
    box.scrollTop = cy * z - ay;
    mark();
  }

  function fitNow() {
    const want = fit?.();
    if (typeof want === 'number' && Number.isFinite(want)) { z = clamp(want); apply(z); mark(); }
  }

  box.addEventListener('keydown', (e) => {
    if (e.target !== box || e.ctrlKey || e.metaKey || e.altKey) return; // the box itself has focus, not a cell
    if (e.key === '+' || e.key === '=') { e.preventDefault(); set(z * step); } else if (e.key === '-') { e.preventDefault(); set(z / step); }
  });
  box.addEventListener('wheel', (e) => {
    if (e.deltaY === 0) return;
    e.preventDefault();
    const r = box.getBoundingClientRect();
    set(e.deltaY < 0 ? z * step : z / step, { x: e.clientX - r.left, y: e.clientY - r.top });
  }, { passive: false });
  apply(z);
  mark();
  return { controls, get: () => z, set, fitNow };
}
