// the_city/chart.js: The City's SVG chart of every player's score by round (public view
// seats[].vp_by_round), with the target as a dashed line; the replay viewer draws every other
// game's score by round with it too (replay.js). Scales to its box through the viewBox.

import { h, svg } from '../../dom.js';
import { SEAT_COLOURS } from '../../ui.js';
import { t } from '../../i18n.js';

/**
 * seats: public view seats (with name; `start`, the score before round 1, 0 when absent);
 * target: the target score, or null for none; unit: how a score is named ("VP", "pts", "$").
 */
export function scoreChart(seats, target, { unit = t('VP') } = {}) {
  const W = 480, H = 250, L = 34, R = 12, T = 14, B = 30;
  const rounds = Math.max(1, ...seats.map((s) => s.vp_by_round.length));
  const top = Math.max(10, target ?? 0, ...seats.flatMap((s) => [s.start ?? 0, ...s.vp_by_round]));
  // Grid lines every 10 or 20 points, or a rounder step for large scores (SimCity's money): 8 at most.
  const base = Math.ceil(top / 10) * 10;
  const step = base <= 60 ? 10 : [20, 50, 100, 200, 500, 1000, 2000, 5000].find((x) => base / x <= 8) ?? Math.ceil(base / 800) * 100;
  const yMax = Math.ceil(top / step) * step;
  const x = (r) => L + (r / rounds) * (W - L - R);
  const y = (v) => T + (1 - v / yMax) * (H - T - B);

  const grid = [];
  for (let v = 0; v <= yMax; v += step) {
    grid.push(svg('line', { x1: L, x2: W - R, y1: y(v), y2: y(v), class: 'grid' }));
    grid.push(svg('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'axis' }, String(v)));
  }
  const every = rounds > 12 ? Math.ceil(rounds / 12) : 1;
  for (let r = 0; r <= rounds; r += every) {
    if (r > 0 && x(r) - L > 40) grid.push(svg('text', { x: x(r), y: H - 10, 'text-anchor': 'middle', class: 'axis' }, String(r)));
  }
  grid.push(svg('text', { x: L, y: H - 10, 'text-anchor': 'start', class: 'axis' }, 'round'));
  const targetLine = target != null && target <= yMax ? [
    svg('line', { x1: L, x2: W - R, y1: y(target), y2: y(target), class: 'target' }),
    svg('text', { x: L + 4, y: y(target) - 5, 'text-anchor': 'start', class: 'target-label' }, `target ${target}`),
  ] : [];

  const lines = seats.map((s, i) => {
    const pts = [[0, s.start ?? 0], ...s.vp_by_round.map((v, k) => [k + 1, v])];
    const colour = SEAT_COLOURS[i % SEAT_COLOURS.length];
    return svg('g', { class: 'series', style: `--c:${colour}` },
      svg('polyline', { points: pts.map(([r, v]) => `${x(r).toFixed(1)},${y(v).toFixed(1)}`).join(' '), fill: 'none', stroke: colour, 'stroke-width': 2.5, 'stroke-linejoin': 'round', 'stroke-linecap': 'round' }),
      pts.slice(1).map(([r, v]) => svg('circle', { cx: x(r).toFixed(1), cy: y(v).toFixed(1), r: 3.2, fill: colour },
        svg('title', {}, t('{name}: {vp} {unit} after round {n}', { name: s.name ?? t('Seat {n}', { n: i + 1 }), vp: v, unit, n: r })))));
  });

  const label = t('Score by round: {list}.', { list: seats.map((s, i) => t('{name} {vp} {unit}', { name: s.name ?? t('Seat {n}', { n: i + 1 }), vp: s.vp, unit })).join(', ') });
  return h('figure', { class: 'chart' },
    svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': label, preserveAspectRatio: 'xMidYMid meet' },
      grid, targetLine, lines),
    h('figcaption', { class: 'legend' }, seats.map((s, i) =>
      h('span', { class: 'legend-item' },
        h('span', { class: 'swatch', style: `background:${SEAT_COLOURS[i % SEAT_COLOURS.length]}` }),
        `${s.name ?? t('Seat {n}', { n: i + 1 })} ${s.vp}`))));
}
