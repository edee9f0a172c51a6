// simcity/city.js: the panels of SimCity's table around the action panel: the one shared city as
// a pannable, zoomable grid of stacks (games/grid.js) with the cells the pending decision allows
// highlighted and the money each play there would score (the server's options, read by the
// table), the stack of a cell on demand, and the city's state at a glance: phase, Mayor, money,
// council members, timed effects, bills, a vote or an election under way, and whose turn it is.

import { h, replace, keepFocus } from '../../dom.js';
import { seatDot, joinNames } from '../../ui.js';
import { botMark, isClosed, presenceMark, bankMark } from '../../seats.js';
import { gridBounds, placeIn, panByDrag, scrollToCell, cityZoom, bringIntoView } from '../grid.js';
import { design, kindClass, cardKind, cardFacts, serviceLine, cellName, ZONES, PHASES } from './data.js';
import { t, tn } from '../../i18n.js';

const CELL = 92; // px of a cell at zoom 1
const GAP = 4;
const NAME_PX = 13; // a card name's size at zoom 1; never under 12 px

/**
 * The city and the panels of SimCity's table for the shell's context `ctx` (web/table.js) and
 * the table's `t`: {marks() (Map "x,y" -> {score, mode, chosen, label} of the cells the decision
 * in hand may pick), clickCell(x, y), confirmBar() (an element under the grid, or null)}.
 * Returns {cityBox, status, whose, draw(), drawCity(), showStack(x, y), showCard(slug),
 * bringIntoView(), centre(x, y)}.
 */
export function scBoard(ctx, tbl) {
  const { st } = ctx;
  const nameOf = (s) => ctx.nameOf(s);
  const me = () => ctx.me();
  const info = h('div', { class: 'card-info', id: 'card-info', 'aria-live': 'polite', role: 'region', 'aria-label': t('About the card'), tabindex: 0 });
  const cityScroll = h('div', { class: 'city-scroll sc-scroll', id: 'city-scroll', tabindex: 0, role: 'region', 'aria-label': t('The city: drag or scroll to pan, wheel or the buttons to zoom') });
  const confirmBox = h('div', { class: 'city-confirm', id: 'city-confirm', hidden: true });
  const count = h('span', { class: 'muted small-print', id: 'city-count' });
  // At the smallest zoom a cell is 78 px: ten letters of a 12 px name a line.
  const zoom = cityZoom(cityScroll, { cell: CELL, gap: GAP, name: NAME_PX });
  const cityBox = h('section', { class: 'panel city-box', 'aria-labelledby': 'city-title' },
    h('div', { class: 'panel-head' }, h('h2', { id: 'city-title' }, t('The city')), count, zoom.controls),
    zoom.hint, cityScroll, confirmBox, info);
  const status = h('section', { class: 'panel sc-status', id: 'sc-status', 'aria-labelledby': 'status-title' });
  const whose = h('p', { class: 'whose', id: 'whose', role: 'status' });
  let shown = null; // the cell whose stack the info box shows: {x, y}

  function draw() {
    drawWhose();
    drawCity();
    drawStatus();
    cityBox.hidden = isClosed(st.view);
  }

  function drawCity() {
    const v = st.view;
    const marks = tbl.marks();
    ctx.drawIf(cityScroll, [v?.city, v?.side, [...marks], st.busy, v?.timed], () => drawCityNow(v, marks));
    const bar = tbl.confirmBar();
    confirmBox.hidden = !bar;
    replace(confirmBox, bar);
  }

  function drawCityNow(v, marks) {
    if (!v) { replace(cityScroll); return; }
    const at = new Map(v.city.map((c) => [`${c.x},${c.y}`, c]));
    const spots = [...v.city, ...[...marks.keys()].map((k) => { const [x, y] = k.split(',').map(Number); return { x, y }; })];
    const mid = Math.floor(v.side / 2);
    const b = gridBounds(spots.length ? spots : [{ x: mid, y: mid }], 1, v.side);
    const timedAt = new Set((v.timed ?? []).filter((e) => e.x !== undefined).map((e) => `${e.x},${e.y}`));
    const items = [];
    for (let y = b.y0; y <= b.y1; y++) {
      for (let x = b.x0; x <= b.x1; x++) {
        const key = `${x},${y}`;
        const c = at.get(key);
        const m = marks.get(key);
        if (!c && !m) { items.push(h('span', { class: 'cell empty', style: placeIn(b, x, y), 'aria-hidden': 'true' })); continue; }
        items.push(cellButton(b, x, y, c, m, timedAt.has(key)));
      }
    }
    const grid = h('div', { class: 'city', id: 'city', style: `--cols:${b.x1 - b.x0 + 1};--rows:${b.y1 - b.y0 + 1}`, 'data-cols': b.x1 - b.x0 + 1, 'data-rows': b.y1 - b.y0 + 1 }, items);
    keepFocus(cityScroll, () => replace(cityScroll, grid));
    count.textContent = `${v.city.filter((c) => c.block).length} block${v.city.filter((c) => c.block).length === 1 ? '' : 's'} · ${v.side}×${v.side}`;
    // The city fits the box as it grows, until the player zooms themselves.
    zoom.fitted(b.x1 - b.x0 + 1, b.y1 - b.y0 + 1, () => scrollToCell(cityScroll, mid, mid));
  }

  /** One cell that holds a stack, is scorched or may be picked: a button that shows its stack. */
  function cellButton(b, x, y, c, m, timed) {
    const top = c?.block ?? c?.stack?.at(-1) ?? null;
    const d = top ? design(top.card) : null;
    const cls = ['cell', 'sc-cell'];
    if (d) cls.push(kindClass(d)); else cls.push(c?.scorched ? 'scorched' : 'open');
    if (c && !c.block && c.stack.length) cls.push('overturned');
    if (m) cls.push('target');
    if (m?.chosen) cls.push('chosen');
    if (m && !d && !c?.scorched && !m.chosen) cls.push('xy'); /* an empty cell to pick: its column and row */
    if (top?.doomed) cls.push('doomed');
    if (timed) cls.push('timed');
    const depth = c?.stack?.length ?? 0;
    // Named by its content, the visible name first, the rest said offscreen (the corner's
    // figures and the money badge are drawn for the eye only).
    const said = [
      d ? cardKind(d) : null,
      d && d.kind === 'block' ? cardFacts(d).slice(1).join(', ') : null,
      t('column {x}, row {y}', { x, y }),
      depth > 1 ? t('{n} cards in the stack', { n: depth }) : null,
      top?.doomed ? t('leaves at the next turn') : null,
      timed ? t('a timed event acts here') : null,
      m ? m.label : null,
    ].filter(Boolean).join(', ');
    return h('button', {
      type: 'button', class: cls.join(' '), style: placeIn(b, x, y), 'data-x': x, 'data-y': y, 'data-slug': d?.id ?? '',
      'data-score': m?.score ?? '', 'data-mode': m?.mode ?? '', 'data-focus-key': `cell-${x},${y}`, disabled: !!m && st.busy,
      onclick: () => { showStack(x, y); if (m) tbl.clickCell(x, y); },
    },
    d ? h('span', { class: 'sc-face' },
      h('span', { class: 'sc-top', 'aria-hidden': 'true' }, h('span', { class: 'sc-val' }, d.kind === 'block' ? `$${d.value}` : ''), h('span', { class: 'sc-zone' }, ZONES[d.zone]?.short ?? '')),
      cellName(d.name),
      serviceLine(d) ? h('span', { class: 'sc-svc', 'aria-hidden': 'true' }, serviceLine(d)) : null,
      h('span', { class: 'offscreen' }, `, ${said}`),
      depth > 1 ? h('span', { class: 'stack-depth', 'aria-hidden': 'true' }, `×${depth}`) : null)
      : h('span', { class: 'sc-empty' }, c?.scorched ? t('Scorched') : '', h('span', { class: 'offscreen' }, `${c?.scorched ? ', ' : t('Empty cell, ')}${said}`)),
    m && m.score !== undefined && m.score !== null ? h('span', { class: 'cell-score', 'aria-hidden': 'true' }, `+$${m.score}`) : null,
    m?.tag ? h('span', { class: 'cell-mode', 'aria-hidden': 'true' }, m.tag) : null);
  }

  /** The info box: the stack of cell (x, y) from the top down, covered cards included. */
  function showStack(x, y) {
    shown = { x, y };
    drawInfo();
  }

  /** The info box: card `slug` of the hand (its text and figures). */
  function showCard(slug) {
    shown = { slug };
    drawInfo();
  }

  function drawInfo() {
    const v = st.view;
    if (shown?.slug) {
      const d = design(shown.slug);
      replace(info, h('div', { class: `info-card ${kindClass(d)}`, 'data-slug': d.id },
        h('strong', {}, d.name), h('span', { class: 'muted' }, ` · ${cardKind(d)}`),
        h('p', { id: 'info-text' }, d.text || cardFacts(d).join(' · ')),
        d.text ? h('p', { class: 'muted small-print' }, cardFacts(d).join(' · ')) : null));
      return;
    }
    const c = shown && v?.city.find((e) => e.x === shown.x && e.y === shown.y);
    if (!c) { replace(info, h('p', { class: 'muted' }, t('Tap a cell to see its stack; pick a card of your hand to see where it may go.'))); return; }
    const cards = [...c.stack].reverse();
    replace(info, h('div', { class: 'info-stack', id: 'stack', 'data-x': c.x, 'data-y': c.y },
      h('strong', {}, `${t('Cell {x}, {y}', { x: c.x, y: c.y })}${c.scorched ? t(' · scorched') : ''}`),
      h('span', { class: 'muted' }, ` · ${tn(cards.length, '{count} card, top first', '{count} cards, top first')}`),
      h('ol', { class: 'stack-list' }, cards.map((e, i) => {
        const d = design(e.card);
        return h('li', { class: `info-card ${kindClass(d)}`, 'data-slug': d.id },
          h('strong', {}, d.name), h('span', { class: 'muted' }, ` · ${cardKind(d)}${i === 0 && c.block ? t(' · the block') : i > 0 ? t(' · covered') : ''}${e.overturned ? t(' · overturned') : ''}${e.doomed ? ` · ${t('leaves at the next turn')}` : ''}`),
          d.text ? h('p', {}, d.text) : null, h('p', { class: 'muted small-print' }, cardFacts(d).join(' · ')));
      }))));
  }

  // ---- the city's state: phase, Mayor, money, council, timed effects ------------------------
  function drawStatus() {
    const v = st.view;
    ctx.drawIf(status, [v?.seats, v?.phase, v?.mayor, v?.timed, v?.bills, v?.vote, v?.election, v?.pending, v?.status, v?.target, v?.deck_count, v?.step_deadline, me()], () => {
      if (!v || v.status === 'open' || isClosed(v)) { status.hidden = true; return; }
      status.hidden = false;
      const pend = Array.isArray(v.pending) ? v.pending : [];
      replace(status, h('h2', { id: 'status-title' }, t('The city at a glance')),
        h('dl', { class: 'sc-facts' },
          fact(t('Phase'), PHASES[v.phase] ?? v.phase, 'phase'),
          fact(t('Mayor'), v.mayor === null || v.mayor === undefined ? (v.power_played ? t('vacant') : t('none until a Power Plant')) : nameOf(v.mayor), 'mayor'),
          v.target ? fact(t('Money to win'), `$${v.target}`, 'target') : null,
          fact(t('Deck'), tn(v.deck_count, '{count} card', '{count} cards'), 'deck')),
        h('ol', { class: 'score-list' }, v.seats.map((s) => h('li', {
          class: `score-row ${s.seat === me() ? 'me' : ''} ${(v.winners ?? []).includes(s.seat) ? 'won' : ''}`, 'data-seat': s.seat,
        },
        seatDot(s.seat),
        h('span', { class: 'sr-name' }, nameOf(s.seat),
          s.seat === me() ? h('span', { class: 'tag you' }, t('you')) : null,
          botMark(s.bot),
          presenceMark(s, { status: v.status, mine: s.seat === me() }),
          bankMark(s, v),
          v.mayor === s.seat ? h('span', { class: 'tag mayor-tag' }, t('Mayor')) : null,
          v.status === 'playing' && pend.includes(s.seat) ? h('span', { class: 'tag thinking' }, t('deciding…')) : null),
        h('span', { class: 'sr-meta' }, `${t('{n} in hand', { n: s.hand_count })}${s.council.length ? ` · ${t('council: {list}', { list: s.council.map((m) => `${design(m.card).name} (${m.votes}${m.vote ? t(', always {ballot}', { ballot: t(m.vote) }) : ''})`).join(', ') })}` : ''}`),
        h('span', { class: 'sr-score', 'aria-label': `$${s.money}` }, `$${s.money}`)))),
        politics(v));
    });
  }

  function fact(label, value, id) {
    return h('div', { class: 'stat' }, h('dt', {}, label), h('dd', { id: `fact-${id}` }, String(value)));
  }

  /** Timed effects, bills, a vote or an election under way: each a line, or nothing. */
  function politics(v) {
    const lines = [];
    for (const e of v.timed ?? []) {
      lines.push(h('li', { class: 'timed-line' }, `${design(e.card).name} (${nameOf(e.player)}): ${t("{effect} until {name}'s turn {n}", { effect: e.effect.replaceAll('_', ' '), name: nameOf(e.player), n: e.until_turn })}${e.x !== undefined ? ` · ${t('at {x}, {y}', { x: e.x, y: e.y })}` : ''}.`));
    }
    for (const b of v.bills ?? []) lines.push(h('li', {}, `${t('Bill for the Mayor: ${amount}', { amount: b.amount })}${b.card ? ` (${design(b.card).name})` : ''}.`));
    if (v.vote) {
      lines.push(h('li', { class: 'vote-line', id: 'vote-state' }, t('Rezoning vote: {name} proposes {card} at {x}, {y} · {yes} yes, {no} no so far.', { name: nameOf(v.vote.proposer), card: design(v.vote.card.card).name, x: v.vote.x, y: v.vote.y, yes: v.vote.yes, no: v.vote.no })));
    }
    if (v.election) {
      const tally = v.election.votes.map((n, s) => (n ? `${nameOf(s)} ${n}` : null)).filter(Boolean);
      lines.push(h('li', { class: 'vote-line', id: 'election-state' }, t('Election for Mayor: {tally}.', { tally: tally.length ? tally.join(', ') : t('no votes yet') })));
    }
    return lines.length ? [h('h3', {}, t('In force now')), h('ul', { class: 'sc-politics', id: 'politics' }, lines)] : h('p', { class: 'muted small-print', id: 'politics' }, t('No timed effects, bills or votes.'));
  }

  /** Whose turn it is and what they must decide, in one line everyone sees. */
  function drawWhose() {
    const v = st.view;
    const pend = Array.isArray(v?.pending) ? v.pending : [];
    const who = joinNames(pend.map((s) => (s === me() ? t('you') : nameOf(s))));
    const Who = cap(who);
    const mine = pend.includes(me());
    const text = !v || v.status !== 'playing' || !pend.length ? '' : {
      draw: () => t('{Who}: draw from the deck or take the top discard.', { Who }),
      council: () => t('{Who} may buy a council member.', { Who }),
      target: () => (mine ? t('A timed event acts: {who} pick the block it strikes.', { who }) : t('A timed event acts: {who} picks the block it strikes.', { who })),
      play: () => (mine ? t('{Who} play a block or an event, or pass.', { Who }) : t('{Who} plays a block or an event, or passes.', { Who })),
      vote: () => `${mine ? t('Rezoning vote: {who} vote', { who }) : t('Rezoning vote: {who} votes', { who })}${v.vote ? t(' on {card} at {x}, {y}', { card: design(v.vote.card.card).name, x: v.vote.x, y: v.vote.y }) : ''}.`,
      mayor_pay: () => (mine ? t('The Mayor ({who}) pay a bill, or half of it and leave office.', { who }) : t('The Mayor ({who}) pays a bill, or half of it and leaves office.', { who })),
      election: () => t('Election for Mayor: {who} may buy votes, or pass.', { who }),
      discard: () => (mine ? t('{Who} discard down to 7 cards.', { Who }) : t('{Who} discards down to 7 cards.', { Who })),
    }[v.step]?.() ?? '';
    whose.hidden = !text;
    whose.textContent = text;
    whose.classList.toggle('mine', mine);
  }

  function cap(s) { return s ? s[0].toUpperCase() + s.slice(1) : s; }

  panByDrag(cityScroll);
  drawInfo();
  return { cityBox, status, whose, draw, drawCity, showStack, showCard, bringIntoView: () => bringIntoView(cityScroll), centre: (x, y) => scrollToCell(cityScroll, x, y) };
}
