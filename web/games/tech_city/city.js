// tech_city/city.js: Tech City's shared grid and what sits around it on the table: the grid
// scrolls inside its box (a mouse drags it) and zooms (buttons, wheel, pinch; fitted to the box
// as the city grows), the cells the selected card may go to (each with the
// points it would score there) and the cards an effect may use (each with the points the use
// scores) or aim at are highlighted, as the server's legal options say; owners' markers and
// cards used this round (tilted, drawn upright with a "Used" tag) are drawn, a chosen cell offers its confirm button under the grid; the card-info box (the effect of a card
// hovered, focused or tapped, and "show this card to everyone"); the scores, the discard pile and
// the line that says whose turn it is and what they must decide.

import { h, replace, keepFocus, onUserFocus } from '../../dom.js';
import { seatDot, joinNames } from '../../ui.js';
import { botMark, isClosed, presenceMark, bankMark } from '../../seats.js';
import { design, DOMAINS, cardLabel } from './data.js';
import { gridBounds, placeIn, panByDrag, scrollToCell as centreCell, cityZoom, bringIntoView } from '../grid.js';
import { t, tn } from '../../i18n.js';

// A cell of 100 px at zoom 1, of 96 px at the least: the widest word of a name ("Observatory",
// 84 px at 12 px bold) stays whole on its line; names are 12 px there and grow with the zoom.
const CELL = 100;
const NAME_PX = 12;
const MIN_ZOOM = 0.96;

/**
 * The grid and the panels of Tech City's table for the shell's context `ctx` (web/table.js) and
 * the table's `tbl`: {selOf() (the selection now), rules (choice.js), clickCell(x, y), confirm(),
 * divulge (the Set of hand cards to show with the next order)}. Returns {cityBox, players, pile,
 * whose, draw(), drawCity(), showInfo(key), scrollToCell(x, y), bringIntoView()}.
 */
export function techBoard(ctx, tbl) {
  const { st } = ctx;
  const { cityAt, hand, slugOf, needsOf, targetOk, useAt, cellScore, orderBody } = tbl.rules;
  const nameOf = (s) => ctx.nameOf(s);
  const me = () => ctx.me();
  const pending = () => ctx.pending();
  const drawIf = ctx.drawIf;
  const info = h('div', { class: 'card-info', id: 'card-info', 'aria-live': 'polite', role: 'region', 'aria-label': t('About the card'), tabindex: 0 });
  const cityScroll = h('div', { class: 'city-scroll', id: 'city-scroll', tabindex: 0, role: 'region', 'aria-label': t('The city: drag or scroll to pan, wheel or the buttons to zoom') });
  const zoom = cityZoom(cityScroll, { cell: CELL, gap: 4, name: NAME_PX, min: MIN_ZOOM });
  const cityBox = h('section', { class: 'panel city-box', 'aria-labelledby': 'city-title' },
    h('div', { class: 'panel-head' }, h('h2', { id: 'city-title' }, 'Tech City'), h('span', { class: 'muted small-print', id: 'city-count' }), zoom.controls),
    zoom.hint, cityScroll, h('div', { class: 'city-confirm', id: 'city-confirm', hidden: true }), info);
  const players = h('section', { class: 'panel tech-players', id: 'players', 'aria-labelledby': 'players-title' });
  const pile = h('section', { class: 'panel pile', id: 'pile', 'aria-labelledby': 'pile-title' });
  const whose = h('p', { class: 'whose', id: 'whose', role: 'status' });
  let infoKey = null; // what the card-info box shows: 'c:X,Y', 'h:ID', 'd:ID'
  let centred = false;

  function draw() {
    drawWhose();
    drawCity();
    drawPlayers();
    drawPile();
    cityBox.hidden = isClosed(st.view);
  }

  function drawCity() {
    const v = st.view;
    const p = pending();
    drawIf(cityScroll, [v?.city, p, tbl.selOf(), st.busy], () => drawCityNow(v, p));
  }

  function drawCityNow(v, p) {
    const sel = tbl.selOf();
    if (!v) { replace(cityScroll); return; }
    const open = p?.step === 'build' ? p.options.cells : [];
    const all = [...v.city, ...open];
    // No empty ring around the open cells (they ring the city already): the city fits sooner.
    const b = gridBounds(all, open.length ? 0 : 1);
    const { x0, x1, y0, y1 } = b;
    const place = (x, y) => placeIn(b, x, y);
    const placing = p?.step === 'build' && sel.card !== null;
    const effect = p?.step === 'effect';
    const items = [];
    open.forEach((c, k) => {
      const chosen = sel.x === c.x && sel.y === c.y;
      const pts = placing ? cellScore(k) : null; // what the card chosen scores here (the options' scores[k])
      const said = pts === null ? '' : `, scores ${pts} point${pts === 1 ? '' : 's'}`;
      items.push(h('button', {
        type: 'button', class: `cell open ${placing ? 'target' : ''} ${chosen ? 'chosen' : 'xy'}`, style: place(c.x, c.y),
        'data-x': c.x, 'data-y': c.y, 'data-focus-key': `cell-${c.x},${c.y}`, disabled: st.busy,
        'data-score': pts ?? '',
        // The chosen cell shows the card's label: its name starts with it (what is seen is said).
        'aria-label': chosen ? `${cardLabel(slugOf(sel.card))}, ${t('to build here: column {x}, row {y}', { x: c.x, y: c.y })}${said}`
          : placing ? `${t('Build here at {x}, {y}', { x: c.x, y: c.y })}${said}` : t('Empty cell {x}, {y}', { x: c.x, y: c.y }),
        onclick: () => tbl.clickCell(c.x, c.y),
      }, chosen ? h('span', { class: 'ghost-card' }, cardLabel(slugOf(sel.card))) : null,

      // The chosen cell shows the card; its points are on the confirm button under the grid.
      pts !== null && !chosen ? h('span', { class: 'cell-score', 'aria-hidden': 'true' }, `+${pts}`) : null));
    });
    for (const c of v.city) {
      const d = design(c.card);
      const used = sel.use && sel.use.x === c.x && sel.use.y === c.y;
      const tgt = (sel.target && sel.target.x === c.x && sel.target.y === c.y) || (sel.to && sel.to.x === c.x && sel.to.y === c.y);
      const needCell = effect && sel.use && (needsOf().includes('target') && !sel.target ? targetOk(c, 'target') : needsOf().includes('to') && sel.target && !sel.to ? targetOk(c, 'to') : false);
      const use = effect && !sel.use ? useAt(c) : null; // its effect can be used: what it scores
      const cls = ['cell', 'card-cell', `d-${d.domain}`];
      if (c.tilted) cls.push('tilted'); // drawn upright, tagged "Used": no sideways text
      if (c.seed) cls.push('seed');
      if (use || needCell) cls.push('target');
      if (used) cls.push('using');
      if (tgt) cls.push('aimed');
      const owner = c.owner === null ? t('neutral') : t('owned by {name}', { name: nameOf(c.owner) });
      items.push(h('button', {
        type: 'button', class: cls.join(' '), style: place(c.x, c.y), 'data-x': c.x, 'data-y': c.y, 'data-slug': c.card,
        'data-owner': c.owner ?? '', 'data-focus-key': `city-${c.id}`, 'data-score': use ? use.score : '',
        title: `${d.name} (${c.value} ${DOMAINS[d.domain]?.name}): ${d.text}`,
        onclick: () => tbl.clickCell(c.x, c.y),
        onpointerenter: () => showInfo(`c:${c.x},${c.y}`), onfocus: onUserFocus(() => showInfo(`c:${c.x},${c.y}`)),
      },
      h('span', { class: 'face' },
        h('span', { class: 'tc-top', 'aria-hidden': 'true' }, h('span', { class: 'tc-val' }, String(c.value)), h('span', { class: 'tc-dom' }, DOMAINS[d.domain]?.short ?? '')),
        h('span', { class: 'tc-name' }, d.name),
        c.tilted ? h('span', { class: 'tc-used', 'aria-hidden': 'true' }, t('Used')) : null,
        // Named by its content (the visible name first), the rest said offscreen.
        h('span', { class: 'offscreen' }, `, ${DOMAINS[d.domain]?.name} ${c.value}, ${owner}${c.tilted ? t(', tilted (used this round)') : ''}${c.seed ? t(', the seed card') : ''}${use ? tn(use.score, ', using it scores {count} point', ', using it scores {count} points') : ''}: ${d.text}`),
        c.owner !== null ? h('span', { class: 'marker', 'aria-hidden': 'true' }, seatDot(c.owner)) : null),
      use ? h('span', { class: 'cell-score use-score', 'aria-hidden': 'true' }, `+${use.score}`) : null));
    }
    const grid = h('div', { class: 'city', id: 'city', style: `--cols:${x1 - x0 + 1};--rows:${y1 - y0 + 1}`, 'data-cols': x1 - x0 + 1, 'data-rows': y1 - y0 + 1 }, items);
    const keepX = cityScroll.scrollLeft, keepY = cityScroll.scrollTop;
    const old = cityScroll.firstChild?.dataset;
    keepFocus(cityScroll, () => replace(cityScroll, grid));
    if (!centred) {
      centred = true;
      requestAnimationFrame(() => scrollToCell(0, 0));
    } else if (old && (Number(old.x0) !== x0 || Number(old.y0) !== y0)) {
      // The grid grew to the left or top: keep the same cells in view.
      const cell = cellSize();
      cityScroll.scrollLeft = keepX + (Number(old.x0) - x0) * cell.w;
      cityScroll.scrollTop = keepY + (Number(old.y0) - y0) * cell.h;
    }
    // The city fits the box as it grows (no cut row), until the player zooms themselves.
    zoom.fitted(x1 - x0 + 1, y1 - y0 + 1, () => scrollToCell(0, 0));
    drawCityConfirm(p);
    grid.dataset.x0 = x0;
    grid.dataset.y0 = y0;
    document.getElementById('city-count').textContent = tn(v.city.length, '{count} card in play', '{count} cards in play');
  }

  /** Under the grid, once a cell is chosen: confirm the build there without scrolling back up. */
  function drawCityConfirm(p) {
    const sel = tbl.selOf();
    const box = cityBox.querySelector('#city-confirm');
    const on = p?.step === 'build' && sel.card !== null && sel.x !== null;
    box.hidden = !on;
    if (!on) { replace(box); return; }
    const r = orderBody();
    const pts = cellScore((p.options.cells ?? []).findIndex((c) => c.x === sel.x && c.y === sel.y));
    replace(box, h('button', { type: 'button', class: 'primary small', id: 'confirm-here', disabled: !r.body || st.busy, onclick: tbl.confirm },
      `${t('Build {name} here', { name: design(slugOf(sel.card)).name })}${pts === null ? '' : ` · +${pts}`}`),
    r.body ? null : h('span', { class: 'muted' }, r.why));
  }

  function cellSize() {
    const any = cityScroll.querySelector('.cell');
    const r = any?.getBoundingClientRect();
    return { w: (r?.width ?? 72) + 4, h: (r?.height ?? 72) + 4 };
  }

  function scrollToCell(x, y) {
    centreCell(cityScroll, x, y);
  }

  /** The card-info box: the effect of the card hovered, focused or tapped. */
  function showInfo(key) {
    if (!key) return;
    infoKey = key;
    drawInfo();
  }

  function drawInfo() {
    const v = st.view;
    let slug = null, extra = '';
    if (infoKey?.startsWith('c:')) {
      const [x, y] = infoKey.slice(2).split(',').map(Number);
      const c = cityAt(x, y);
      if (c) {
        slug = c.card;
        extra = `${c.owner === null ? t('Neutral') : t("{name}'s company", { name: nameOf(c.owner) })}${c.tilted ? t(' · tilted: used this round') : ''}${c.seed ? t(' · the seed card') : ''}`;
      }
    } else if (infoKey) {
      const cid = Number(infoKey.slice(2));
      slug = hand().find((c) => c.id === cid)?.card ?? v?.discard.find((c) => c.id === cid)?.card ?? v?.revealed?.find((c) => c.id === cid)?.card ?? null;
      extra = infoKey.startsWith('h:') ? t('In your hand') : t('Discard pile');
    }
    if (!slug) { replace(info, h('p', { class: 'muted' }, t('Hover or tap a card to read its effect.'))); return; }
    const d = design(slug);
    const cid = infoKey.startsWith('h:') ? Number(infoKey.slice(2)) : null;
    replace(info, h('div', { class: `info-card d-${d.domain}`, 'data-slug': slug },
      h('strong', {}, `${DOMAINS[d.domain]?.icon ?? ''} ${d.name}`),
      h('span', { class: 'muted' }, ` · ${d.domain === 'wild' ? t('Wild card') : `${DOMAINS[d.domain]?.name} ${d.value}`}${extra ? ` · ${extra}` : ''}`),
      h('p', { id: 'info-text' }, d.text),
      cid !== null && st.view?.status === 'playing' ? h('label', { class: 'check' },
        h('input', { type: 'checkbox', id: 'divulge', checked: tbl.divulge.has(cid), onchange: (e) => { if (e.target.checked) tbl.divulge.add(cid); else tbl.divulge.delete(cid); drawInfo(); ctx.drawAction(); } }),
        t(' Show this card to everyone with my next choice')) : null));
  }

  // ---- the scores, the discard pile, whose turn -------------------------------------------
  function drawPlayers() {
    const v = st.view;
    drawIf(players, [v?.seats, v?.first, v?.status, v?.pending, v?.winners, v?.step_deadline, me()], () => {
      if (!v || v.status === 'open' || isClosed(v)) { players.hidden = true; return; }
      players.hidden = false;
      replace(players, h('h2', { id: 'players-title' }, t('Scores')),
        h('ol', { class: 'score-list' }, v.seats.map((s) => {
          const deciding = v.status === 'playing' && (v.pending ?? []).includes(s.seat);
          return h('li', { class: `score-row ${s.seat === me() ? 'me' : ''} ${(v.winners ?? []).includes(s.seat) ? 'won' : ''}`, 'data-seat': s.seat },
            seatDot(s.seat),
            h('span', { class: 'sr-name' }, nameOf(s.seat),
              s.seat === me() ? h('span', { class: 'tag you' }, t('you')) : null,
              botMark(s.bot),
              presenceMark(s, { status: v.status, mine: s.seat === me() }),
              bankMark(s, v),
              v.status === 'playing' && s.seat === v.first ? h('span', { class: 'tag', title: t('First player this round') }, t('1st')) : null,
              deciding ? h('span', { class: 'tag thinking' }, s.submitted ? '✓' : t('deciding…')) : null),
            h('span', { class: 'sr-meta' }, `${t('{n} in hand', { n: s.hand_count })} · ${tn(s.companies, '{count} company', '{count} companies')}`),
            h('span', { class: 'sr-score', 'aria-label': tn(s.score, '{count} point', '{count} points') }, String(s.score)));
        })));
    });
  }

  function drawPile() {
    const v = st.view;
    drawIf(pile, [v?.discard, v?.expelled?.length, v?.revealed], () => {
      if (!v || v.status === 'open' || isClosed(v)) { pile.hidden = true; return; }
      pile.hidden = false;
      replace(pile, h('h2', { id: 'pile-title' }, t('Discard pile ({n})', { n: v.discard.length })),
        v.discard.length ? h('ul', { class: 'chips', id: 'discard-pile', 'aria-label': t('The discard pile, top first') }, [...v.discard].reverse().map((c) => h('li', {},
          h('button', { type: 'button', class: `chip-btn d-${design(c.card).domain}`, title: design(c.card).text, 'data-card-id': c.id, onclick: () => showInfo(`d:${c.id}`), onpointerenter: () => showInfo(`d:${c.id}`) }, cardLabel(c.card)))))
          : h('p', { class: 'muted' }, t('Empty.')),
        v.revealed?.length ? h('p', { class: 'muted' }, t('Revealed: {cards}', { cards: v.revealed.map((c) => design(c.card).name).join(', ') })) : null,
        v.expelled?.length ? h('p', { class: 'muted small-print' }, tn(v.expelled.length, '{count} card expelled from the game.', '{count} cards expelled from the game.')) : null);
    });
  }


  /** Whose turn it is and what they must decide, in one line everyone sees. */
  function drawWhose() {
    const v = st.view;
    const text = !v || v.status !== 'playing' ? '' : (() => {
      const seats = (v.pending ?? []);
      const who = joinNames(seats.map((s) => (s === me() ? t('you') : nameOf(s))));
      const one = seats.length === 1;
      const solo = one && seats[0] !== me(); // one other seat: the verb's singular
      const card = v.effect ? design(v.effect.card).name : null;
      switch (v.step) {
        case 'build': return solo ? t('{Who} builds: a card from hand next to the city, or pass.', { Who: cap(who) }) : t('{Who} build: a card from hand next to the city, or pass.', { Who: cap(who) });
        case 'help': return t('Help wanted: {name} is building a service. {Who} may discard a card to help (each helper but the builder scores 1).', { name: nameOf(v.active), Who: cap(who) });
        case 'effect': return t('{Who} may use the effect of one card in the city, or pass.', { Who: cap(who) });
        case 'owner': return card ? t('{Who} may draw a card, then discard one: {name} used {card}.', { Who: cap(who), name: nameOf(v.effect.seat), card }) : t('{Who} may draw a card, then discard one.', { Who: cap(who) });
        case 'choose': return `${solo ? t('{Who} chooses cards', { Who: cap(who) }) : t('{Who} choose cards', { Who: cap(who) })}${card ? t(' for {card}', { card }) : ''}.`;
        case 'discard': return solo ? t('End of round: {who} discards down to the hand limit.', { who }) : t('End of round: {who} discard down to the hand limit.', { who });
        default: return '';
      }
    })();
    whose.hidden = !text;
    whose.textContent = text;
    whose.classList.toggle('mine', !!v && (v.pending ?? []).includes(me()));
  }

  function cap(s) { return s ? s[0].toUpperCase() + s.slice(1) : s; }

  // A mouse drags the city to pan it (touch pans natively; the wheel and keys scroll).
  panByDrag(cityScroll);

  drawInfo();
  return { cityBox, players, pile, whose, draw, drawCity, showInfo, scrollToCell, bringIntoView: () => bringIntoView(cityScroll) };
}
