// motion.js: a short animation for a card that has just been placed on the table (a chip added to
// a tableau in The City, a card new on Tech City's or SimCity's city grid), so that a player sees
// what changed since the last view. Only with motion allowed: the CSS (style.css, .placed) runs it
// under `prefers-reduced-motion: no-preference` and nothing moves otherwise.

/**
 * The keys of the placed cards under `root`: a city cell by its place and card, a tableau chip
 * by its seat, card and copy number. Hand cards and choice buttons are not placed cards.
 */
function placedKeys(root) {
  const out = new Map();
  for (const el of root.querySelectorAll('#city [data-slug]:not([data-slug=""])')) {
    out.set(`city:${el.dataset.x},${el.dataset.y}:${el.dataset.slug}`, el);
  }
  for (const seat of root.querySelectorAll('.player[data-seat]')) {
    const seen = new Map();
    for (const el of seat.querySelectorAll('.chip[data-slug]')) {
      const n = (seen.get(el.dataset.slug) ?? 0) + 1;
      seen.set(el.dataset.slug, n);
      out.set(`seat${seat.dataset.seat}:${el.dataset.slug}#${n}`, el);
    }
  }
  return out;
}

/** How long a card counts as just placed: its animation's length, and a little more. */
const PLACED_MS = 600;

/**
 * Watches the placed cards under `root`; returns mark(ready), to call after every render, with
 * `ready` true once the table shows the game: a card not there at an earlier ready call (none at
 * the first, which only looks) has class `placed` for PLACED_MS after it was first seen (also
 * when a redraw made its element again), then not.
 */
export function placementWatcher(root) {
  let known = null;
  const fresh = new Map(); // key -> when it was first seen
  return function mark(ready) {
    if (!ready) return;
    const now = placedKeys(root);
    const t = performance.now();
    if (known) for (const key of now.keys()) if (!known.has(key)) fresh.set(key, t);
    for (const [key, at] of fresh) if (t - at > PLACED_MS || !now.has(key)) fresh.delete(key);
    for (const [key, el] of now) el.classList.toggle('placed', fresh.has(key));
    known = new Set(now.keys());
  };
}
