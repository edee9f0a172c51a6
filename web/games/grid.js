// games/grid.js: what the games played on one shared grid of cards (Tech City, SimCity) share in
// the page: the bounds of the cells to draw, a cell's place in the CSS grid, centring a cell in
// its scroll box, panning that box by dragging it with a mouse, and zooming it with buttons, the
// wheel and a two-finger pinch, fitted to the box as the city grows until the player zooms
// (cityZoom). It knows no game: each game draws its own cells.

import { h } from '../dom.js';
import { t } from '../i18n.js';

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

/** Scrolls the page so that scroll box `box` shows, when most of it is out of the window (on a phone, a card picked above it). */
export function bringIntoView(box) {
  const r = box.getBoundingClientRect();
  if (r.top > window.innerHeight * 0.6 || r.bottom < 80) box.scrollIntoView({ block: 'nearest' });
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
export function zoomable(box, { min, max, step = 1.2, start = 1, apply, fit, label = t('the city') }) {
  let z = start;
  const clamp = (x) => Math.min(max, Math.max(min, x));
  const out = h('button', { type: 'button', class: 'ghost small zoom-btn', id: 'zoom-out', 'aria-label': t('Zoom out of {what}', { what: label }), onclick: () => set(z / step) }, '−');
  const inn = h('button', { type: 'button', class: 'ghost small zoom-btn', id: 'zoom-in', 'aria-label': t('Zoom into {what}', { what: label }), onclick: () => set(z * step) }, '+');
  const fitBtn = h('button', { type: 'button', class: 'ghost small zoom-btn', id: 'zoom-fit', title: t('Show all of {what}', { what: label }), onclick: () => fitNow() }, t('Fit'));
  const controls = h('div', { class: 'zoom', role: 'group', 'aria-label': t('Zoom') }, out, fitBtn, inn);

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

/**
 * The zoom of a city drawn as a CSS grid (.city with data-cols and data-rows) in scroll box
 * `box`: cells of `cell` px at zoom 1 with `gap` px between them, names of `name` px (never under
 * 12 px: `min` keeps a name readable in its cell), set as the box's --cell and --name. fitted(cols,
 * rows, centre) is called after each drawing: the whole city fits the box while it grows (no cut
 * row), until the player zooms themselves; `centre()` runs after the first fit. A two-finger pinch
 * zooms too. Returns zoomable()'s {controls, get, set, fitNow}, fitted and `hint` (a line saying
 * how to pan and zoom, to show by the controls).
 */
export function cityZoom(box, { cell, gap = 4, name = 13, min = 0.85, max = 2, label = t('the city') }) {
  const zoom = zoomable(box, {
    min, max, start: 1, label,
    apply: (z) => {
      box.style.setProperty('--cell', `${Math.round(cell * z)}px`);
      box.style.setProperty('--name', `${Math.max(12, Math.round(name * z))}px`);
    },
    fit: () => {
      const g = box.querySelector('.city');
      if (!g) return null;
      const cols = Number(g.dataset.cols), rows = Number(g.dataset.rows);
      // A box whose height follows the city (up to its max-height, on a phone) fits into that
      // max-height, not into the height the zoom now gives it: Fit then always says the same.
      const most = parseFloat(getComputedStyle(box).maxHeight);
      const high = Number.isFinite(most) ? Math.max(most, box.clientHeight) : box.clientHeight;
      const w = (box.clientWidth - 24) / cols - gap, hh = (high - 24) / rows - gap;
      return Math.min(w, hh, cell * 1.25) / cell; // a small city is not blown up past 125 %
    },
  });
  let fittedTo = ''; // the grid's size the zoom was last fitted to
  let autoZoom = null; // the zoom the page chose; once the player zooms, the page leaves it
  pinchZoom(box, zoom);
  function fitted(cols, rows, centre) {
    const size = `${cols}x${rows}`;
    if (size === fittedTo || !box.clientWidth || (autoZoom !== null && Math.abs(zoom.get() - autoZoom) > 1e-6)) return;
    const first = !fittedTo;
    fittedTo = size;
    requestAnimationFrame(() => {
      zoom.fitNow();
      autoZoom = zoom.get();
      if (first) centre?.();
    });
  }
  const hint = h('span', { class: 'pan-hint', id: 'pan-hint' }, t('Drag the city to move around it; zoom with the wheel, a pinch or the buttons.'));
  return { ...zoom, fitted, hint };
}

/** Zooms `zoom` (zoomable()'s) by a two-finger pinch on box `box`, about the fingers' middle. */
function pinchZoom(box, zoom) {
  const touches = new Map();
  let start = null; // {dist, z} when two fingers went down
  const spread = () => { const [a, b] = [...touches.values()]; return Math.hypot(a.x - b.x, a.y - b.y); };
  box.addEventListener('pointerdown', (e) => {
    if (e.pointerType !== 'touch') return;
    touches.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (touches.size === 2) start = { dist: spread(), z: zoom.get() };
  });
  box.addEventListener('pointermove', (e) => {
    if (!touches.has(e.pointerId)) return;
    touches.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (!start || touches.size !== 2 || !start.dist) return;
    const [a, b] = [...touches.values()];
    const r = box.getBoundingClientRect();
    zoom.set(start.z * spread() / start.dist, { x: (a.x + b.x) / 2 - r.left, y: (a.y + b.y) / 2 - r.top });
  });
  const up = (e) => { touches.delete(e.pointerId); if (touches.size < 2) start = null; };
  box.addEventListener('pointerup', up);
  box.addEventListener('pointercancel', up);
}
