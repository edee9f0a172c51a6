// dom.js: tiny DOM helpers for the page's modules: h() builds elements (text is always set as
// text, never parsed as HTML), svg() builds SVG elements, and clear()/replace() swap content.

/**
 * h('button', {class: 'x', onclick: fn, disabled: true}, 'text', child, [more]).
 * Attributes: `on*` functions become listeners; `style` is set through the CSSOM (CSP allows no
 * style attribute); false/null/undefined are left out; true is "".
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Same as h() for SVG elements. */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === false || v === null || v === undefined) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'style') setStyle(el, String(v));
    else if (k === 'value' && 'value' in el) el.value = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
}

/**
 * Sets 'prop: value; --custom: value' declarations through the CSSOM: the server's
 * Content-Security-Policy (style-src 'self') refuses style attributes, not CSSOM properties.
 */
function setStyle(el, text) {
  for (const decl of text.split(';')) {
    const i = decl.indexOf(':');
    if (i > 0) el.style.setProperty(decl.slice(0, i).trim(), decl.slice(i + 1).trim());
  }
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces the children of `el` with `children`. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** True while keepFocus() gives the focus back after a redraw (the focus event it fires then). */
let restoring = false;

/**
 * A focus handler that runs `fn` only when the focus moved there, not when a redraw gave it back
 * (keepFocus): a card shown on focus must not take the place of the one a player tapped or
 * hovered since (a bot's move redraws the table under the player's finger).
 */
export function onUserFocus(fn) {
  return (ev) => { if (!restoring) fn(ev); };
}

/**
 * Runs render() and then puts focus back on the element of `root` that had it (found again by
 * its data-focus-key or id), or on `fallback` when that element is gone.
 */
export function keepFocus(root, render, fallback = null) {
  const a = document.activeElement;
  const key = a && root.contains(a) ? a.getAttribute('data-focus-key') ?? (a.id ? `#${a.id}` : null) : null;
  render();
  if (!key) return;
  const again = key.startsWith('#') ? root.querySelector(key)
    : root.querySelector(`[data-focus-key="${CSS.escape(key)}"]`);
  const target = again && !again.disabled ? again : fallback;
  if (target && target !== document.activeElement) {
    restoring = true;
    try { target.focus({ preventScroll: true }); } finally { restoring = false; }
  }
}
