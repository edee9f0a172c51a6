// tech.js: Tech City's table: the shared grid (scrolls inside its box; the cells the selected
// card may go to are highlighted), owners' markers and tilted cards, your hand, whose turn it is
// and what they must decide, the help asked for a service, every card's effect on hover and on
// tap, the public discard pile, the scores and the log, kept live by the game's event stream.
// The hand can be sorted, and marks the cards new since the seat's last decision.
// Orders echo pending's round, step and turn; Suggest fills the controls with the expert's
// suggestion (POST /hint; the greedy pending.suggestion once the hints are used up) and the
// player confirms.

import { api, createAndRemember, store } from './api.js';
import { ROUNDS, CHEAP, DOMAINS, STEP_TITLES, NEEDS, loadTechCatalog, design, catalogReady, cardLabel, techCard, techLog, HAND_SORTS, sortTechHand, nextSeen } from './tech_data.js';
import { h, replace, keepFocus } from './dom.js';
import { liveGame, waitingRoom } from './live.js';
import { seatTools, closedNotice, isClosed, botMark } from './seats.js';
import { seatDot, copyButton, replayUrl, helpLinks, joinNames } from './ui.js';
import { standings, placeLine, rankingList, breakdownBox, tieNote } from './standings.js';
import { jumpBar, logAnnouncer, fitNames, fitOnResize } from './access.js';
import { noticePending, noticeSwitches } from './notice.js';
import { expertHints, samePoint } from './hints.js';

/** Mounts Tech City's table of game `id` in `root`; returns a teardown function. */
export function mountTech(root, id, navigate) {
  const bar = h('header', { class: 'table-bar', id: 'bar' });
  const banner = h('div', { id: 'banner' });
  const whose = h('p', { class: 'whose', id: 'whose', role: 'status' });
  const action = h('section', { class: 'panel action', id: 'action', 'aria-labelledby': 'action-title', tabindex: -1 });
  const info = h('div', { class: 'card-info', id: 'card-info', 'aria-live': 'polite' });
  const cityScroll = h('div', { class: 'city-scroll', id: 'city-scroll', tabindex: 0, role: 'region', 'aria-label': 'The city: scroll to see all of it' });
  const cityBox = h('section', { class: 'panel city-box', 'aria-labelledby': 'city-title' },
    h('div', { class: 'panel-head' }, h('h2', { id: 'city-title' }, 'Tech City'), h('span', { class: 'muted small-print', id: 'city-count' })),
    cityScroll, h('div', { class: 'city-confirm', id: 'city-confirm', hidden: true }), info);
  const players = h('section', { class: 'panel tech-players', id: 'players', 'aria-labelledby': 'players-title' });
  const pile = h('section', { class: 'panel pile', id: 'pile', 'aria-labelledby': 'pile-title' });
  const logList = h('div', { class: 'log', id: 'log', tabindex: 0, role: 'region', 'aria-label': 'Game log' });
  const live = h('p', { class: 'offscreen', 'aria-live': 'polite', id: 'announce' });
  const logNews = logAnnouncer();
  const logBox = h('section', { class: 'panel log-box', id: 'log-box', 'aria-labelledby': 'log-title' }, h('h2', { id: 'log-title' }, 'Log'), logList);
  // On a phone: whose turn, your decision, the city, the scores; the log one tap away.
  const jump = jumpBar([
    ['Your move', () => (action.hidden ? banner : action), 'jump-move'],
    ['City', () => cityBox, 'jump-city'],
    ['Scores', () => players, 'jump-players'],
    ['Log', () => logBox, 'jump-log'],
  ]);

  const tools = seatTools({
    id, navigate, refresh: () => game.refresh(),
    read: () => ({ view: st.view, me: st.me, host: st.host, events: st.events.values(), nameOf }),
    dropSeat: () => { Object.assign(st, { me: null, hand: null, notice: '' }); game.refresh(); },
  });
  replace(root, h('section', { class: 'table tech', 'data-game': id },
    bar, jump, banner, whose,
    h('div', { class: 'table-grid' },
      h('div', { class: 'col-main' }, action, cityBox),
      h('aside', { class: 'col-side' }, players, tools.el, pile, logBox, noticeSwitches())),
    live, logNews.region));
  const stopFit = fitOnResize(root);

  const drawn = new WeakMap();
  const keep = { redraw: () => render() };
  let sel = emptySel();
  let turnKey = null;
  let hint = '';
  let suggested = ''; // 'pass' | 'draw' | 'no-draw' when Suggest pointed at a button
  let infoKey = null; // what the card-info box shows: 'c:X,Y', 'h:ID', 'd:ID'
  let forceAsk = null; // the position a Force asks to confirm
  let forceError = '';
  let forceErrorAt = ''; // the position the error was about: it goes when the game moves on
  let centred = false;
  let logDrawn = -1;
  let alive = true;
  let handSort = savedSort(); // the hand's order: a key of HAND_SORTS, kept in localStorage
  let seen = loadSeen(); // which hand cards are new (nextSeen), kept in sessionStorage
  const divulge = new Set(); // hand cards to show to all with the next order ("divulge")
  const game = liveGame(id, () => render());
  const { st } = game;
  const hints = expertHints(id, () => st.me, () => { if (alive) drawAction(); });
  loadTechCatalog().then(() => { if (alive) { drawn.delete(action); drawn.delete(cityScroll); render(); } }).catch(() => null);

  function emptySel() {
    return { card: null, x: null, y: null, pay: [], as: null, use: null, free: false, owner_first: false, take: null, target: null, to: null, victim: null, cards: [], draw: null };
  }
  const pending = () => st.hand?.pending ?? null;
  const hand = () => st.hand?.hand ?? [];
  const slugOf = (cid) => hand().find((c) => c.id === cid)?.card ?? null;
  const cityAt = (x, y) => st.view?.city.find((c) => c.x === x && c.y === y) ?? null;
  const nameOf = (s) => game.nameOf(s);
  const me = () => st.me?.seat ?? null;

  /** A new decision point clears the selection (a submitted order is shown as chosen). */
  function syncTurn() {
    const p = pending();
    const key = p ? `${p.round}-${p.step}-${p.turn}` : 'none';
    if (key === turnKey) return;
    if (p && !st.hand.order) {
      announce(`Your move: ${STEP_TITLES[p.step] ?? p.step}.`);
      noticePending('Tech City: your move', `Round ${p.round}: ${STEP_TITLES[p.step] ?? p.step}.`, `city-${id}`);
    }
    turnKey = key;
    sel = emptySel();
    hint = '';
    suggested = '';
  }

  // ---- what a choice needs -----------------------------------------------------------------
  /** The automatic payment for building hand card `cid`, by the payment rule in options. */
  function autoPay(cid) {
    const p = pending();
    const d = design(slugOf(cid));
    const others = hand().filter((c) => c.id !== cid)
      .map((c) => ({ id: c.id, d: design(c.card) }))
      .sort((a, b) => (a.d.domain === 'wild') - (b.d.domain === 'wild') || a.d.value - b.d.value || a.id - b.id);
    const plain = others.filter((c) => c.d.domain !== 'wild');
    if (d.domain === 'service') return st.view.players === 1 || plain.length > 1 ? plain.slice(0, 1).map((c) => c.id) : [];
    const rule = p.options.payment;
    if (rule === 'free') return [];
    if (rule === 'one_any') return (plain.length ? plain : others).slice(0, 1).map((c) => c.id);
    const cheap = plain.find((c) => c.d.value <= CHEAP);
    if (cheap) return [cheap.id];
    if (plain.length >= 2) return plain.slice(0, 2).map((c) => c.id);
    const wild = others.find((c) => c.d.domain === 'wild');
    return wild ? [wild.id] : plain.map((c) => c.id);
  }

  /** Why the chosen payment is not enough (null when it is). */
  function payProblem() {
    const p = pending();
    const d = design(slugOf(sel.card));
    const n = sel.pay.length;
    if (d.domain === 'service') {
      if (st.view.players === 1) return n === 1 ? null : 'Solo, a service is built by discarding one card.';
      return n <= 1 ? null : 'You may give at most one card yourself to a service.';
    }
    const rule = p.options.payment;
    if (rule === 'free') return n === 0 ? null : 'You control two Technology companies: building is free, pay nothing.';
    if (n === 1) {
      const pd = design(slugOf(sel.pay[0]));
      if (rule === 'one_any' || pd.domain === 'wild' || pd.value <= CHEAP) return null;
      return `One card pays only if its value is ${CHEAP} or less (or it is a wild card); pay two cards instead.`;
    }
    if (n === 2) return null; // any two cards pay, with or without one Technology company
    return rule === 'one_any' ? 'Pay any one card, or any two cards.' : `Pay one card of value ${CHEAP} or less, or any two cards.`;
  }

  /** True when the cell holds another player's company: the order of its owner's draw is ours to choose. */
  function ownerCell(cell) {
    return !!cell && (pending()?.options?.owner_cells ?? []).some((c) => c.x === cell.x && c.y === cell.y);
  }

  /** The effect primitive of the city card at {x, y}. */
  const primAt = (c) => (c ? design(c.card).effect?.primitive ?? null : null);
  const needsOf = () => NEEDS[primAt(sel.use && cityAt(sel.use.x, sel.use.y))] ?? [];

  /** Can this seat use city card `c` in the effect step (normally or for free)? */
  function usable(c) {
    const o = pending()?.options;
    if (!o || !c || design(c.card).domain === 'wild') return false;
    const normal = o.normal && !c.tilted; // a service is never tilted: anyone may use it again
    const free = o.free && c.owner === me() && c.domain === 'knowledge';
    return (normal || free) && feasible(c);
  }

  /** Can the effect of city card `used` be carried out: is there something for each choice? */
  function feasible(used) {
    const v = st.view;
    const needs = NEEDS[primAt(used)] ?? [];
    if (needs.includes('card') && !hand().length) return false;
    if (needs.includes('take') && !v.discard.length) return false;
    if (needs.includes('victim') && !v.seats.some((s) => s.seat !== me() && s.hand_count > 0)) return false;
    if (needs.includes('target')) {
      const targets = v.city.filter((c) => targetOk(c, 'target', used));
      if (!targets.length) return false;
      if (needs.includes('to') && !v.city.some((c) => targets.some((t) => t !== c) && targetOk(c, 'to', used))) return false;
    }
    return true;
  }

  /** May city card `c` be the `which` ('target' or 'to') of the effect of `used` (default: the one chosen)? */
  function targetOk(c, which, used = sel.use && cityAt(sel.use.x, sel.use.y)) {
    if (!c || !used) return false;
    const prim = primAt(used);
    const filter = design(used.card).effect?.filter;
    if (which === 'target') {
      if ((prim === 'replace' || prim === 'expel') && c.seed) return false;
      if (filter === 'neutral') return c.owner === null;
      if (filter === 'other') return c.owner !== null && c.owner !== me();
      if (filter === 'own') return c.owner === me();
      if (prim === 'move_marker') return c.owner === me();
      return true;
    }
    if (prim === 'move_marker') return c.owner !== me() && c.domain !== 'service';
    return !(sel.target && sel.target.x === c.x && sel.target.y === c.y);
  }

  /** The order the controls describe, or null with `hint` saying what is missing. */
  function orderBody() {
    const p = pending();
    const pos = { round: p.round, step: p.step, turn: p.turn };
    switch (p.step) {
      case 'build': {
        if (sel.card === null) return { why: 'Pick a card of your hand to build.' };
        if (sel.x === null) return { why: 'Pick a highlighted cell of the city.' };
        const bad = payProblem();
        if (bad) return { why: bad };
        const body = { ...pos, card: sel.card, x: sel.x, y: sel.y, pay: [...sel.pay] };
        if (design(slugOf(sel.card)).domain === 'wild') {
          if (!sel.as) return { why: 'Name the card in play the wild card scores as.' };
          body.as = sel.as;
        }
        return { body };
      }
      case 'help':
        return sel.card === null ? { why: 'Pick a card to give, or pass.' } : { body: { ...pos, card: sel.card } };
      case 'effect': {
        if (!sel.use) return { why: 'Pick a highlighted card of the city to use its effect, or pass.' };
        const body = { ...pos, use: { ...sel.use } };
        if (sel.free) body.free = true;
        if (sel.owner_first && !sel.free && ownerCell(sel.use)) body.owner_first = true;
        for (const n of needsOf()) {
          if (sel[n] === null) return { why: { card: 'Pick a card of your hand for the effect.', take: 'Pick a card of the discard pile.', target: 'Pick the city card the effect acts on.', to: 'Pick the second city card.', victim: 'Pick the player to take a card from.' }[n] };
          body[n] = typeof sel[n] === 'object' ? { ...sel[n] } : sel[n];
        }
        return { body };
      }
      case 'owner':
        return sel.draw === null ? { why: 'Draw a card or not?' } : { body: { ...pos, draw: sel.draw } };
      case 'choose':
      case 'discard': {
        const need = p.options.count;
        return sel.cards.length === need ? { body: { ...pos, cards: [...sel.cards] } } : { why: `Pick ${need} card${need === 1 ? '' : 's'} (${sel.cards.length} chosen).` };
      }
      default:
        return { why: '' };
    }
  }

  // ---- actions -----------------------------------------------------------------------------
  function clickHand(cid) {
    const p = pending();
    if (!p || st.busy) return;
    hint = '';
    suggested = '';
    st.refused = '';
    showInfo(`h:${cid}`);
    if (p.step === 'build') {
      if (sel.card === cid) sel = emptySel();
      else if (sel.card === null) {
        sel.card = cid;
        sel.pay = autoPay(cid);
        if (design(slugOf(cid)).domain === 'wild') sel.as = p.options.wild_names?.[0] ?? null;
        else sel.as = null;
      } else if (sel.pay.includes(cid)) sel.pay = sel.pay.filter((x) => x !== cid);
      else {
        sel.pay.push(cid);
        if (sel.pay.length > 2) sel.pay.shift();
      }
    } else if (p.step === 'help') {
      sel.card = sel.card === cid ? null : cid;
    } else if (p.step === 'effect') {
      if (!needsOf().includes('card')) { hint = sel.use ? 'This effect takes no card of your hand.' : 'First pick a highlighted card of the city.'; } else sel.card = sel.card === cid ? null : cid;
    } else if (p.step === 'discard' || (p.step === 'choose' && p.options.kind === 'discard')) {
      toggleCards(cid);
    }
    drawAction();
    drawCity();
  }

  function toggleCards(cid) {
    const need = pending().options.count;
    if (sel.cards.includes(cid)) sel.cards = sel.cards.filter((x) => x !== cid);
    else {
      sel.cards.push(cid);
      if (sel.cards.length > need) sel.cards.shift();
    }
  }

  function clickCell(x, y) {
    const p = pending();
    const c = cityAt(x, y);
    showInfo(`c:${x},${y}`);
    if (!p || st.busy) return;
    hint = '';
    suggested = '';
    if (p.step === 'build') {
      if (c) return;
      if (sel.card === null) { hint = 'Pick a card of your hand first; then the cells it may go to light up.'; drawAction(); return; }
      sel.x = x;
      sel.y = y;
    } else if (p.step === 'effect') {
      if (!c) return;
      const usingHere = sel.use && sel.use.x === x && sel.use.y === y;
      const needs = needsOf();
      // While the effect wants a cell, a click picks it (the used card itself may be one);
      // Cancel starts over.
      if (sel.use && needs.includes('target') && !sel.target && (!usingHere || targetOk(c, 'target'))) {
        if (!targetOk(c, 'target')) { hint = `${design(c.card).name} cannot be the target of this effect.`; drawAction(); return; }
        sel.target = { x, y };
      } else if (sel.use && needs.includes('to') && sel.target && !sel.to && (!usingHere || targetOk(c, 'to'))) {
        if (!targetOk(c, 'to')) { hint = `${design(c.card).name} cannot be the second card of this effect.`; drawAction(); return; }
        sel.to = { x, y };
      } else if (usingHere) {
        sel = emptySel();
      } else if (usable(c)) {
        const o = p.options;
        sel = emptySel();
        sel.use = { x, y };
        // Free use: own Knowledge company when no normal use is left or it is tilted.
        sel.free = !!o.free && c.owner === me() && c.domain === 'knowledge' && (!o.normal || c.tilted);
      } else {
        hint = c.owner !== null && c.tilted ? `${design(c.card).name} was used this round (tilted).` : `${design(c.card).name} cannot be used now.`;
      }
    } else return;
    drawAction();
    drawCity();
  }

  /** Suggest: asks the expert (or takes the quick suggestion) and fills in its choice if the point is still pending. */
  async function suggest() {
    const p = pending();
    if (!p || st.busy) return;
    const got = await hints.ask(p);
    const g = got?.suggestion;
    if (!alive || !g || !samePoint(p, pending())) return; // nothing, or the game moved on meanwhile
    if (g.round !== undefined && !samePoint({ round: g.round, step: g.step, turn: g.turn ?? p.turn }, p)) return;
    const who = got.by === 'expert' ? 'The expert suggests' : 'Suggested';
    sel = emptySel();
    hint = '';
    suggested = '';
    let focus = '#confirm';
    if (g.pass) { suggested = 'pass'; focus = '#pass'; hint = `${who}: pass.`; } else if (p.step === 'build') {
      Object.assign(sel, { card: g.card, x: g.x, y: g.y, pay: [...(g.pay ?? [])], as: g.as ?? null });
    } else if (p.step === 'help') sel.card = g.card;
    else if (p.step === 'effect') {
      Object.assign(sel, { use: g.use, free: !!g.free, owner_first: !!g.owner_first, card: g.card ?? null, take: g.take ?? null, target: g.target ?? null, to: g.to ?? null, victim: g.victim ?? null });
      showInfo(`c:${g.use.x},${g.use.y}`);
    } else if (p.step === 'owner') { sel.draw = g.draw; suggested = g.draw ? 'draw' : 'no-draw'; focus = g.draw ? '#draw' : '#no-draw'; } else if (g.cards) sel.cards = [...g.cards];
    if (g.x !== undefined) scrollToCell(g.x, g.y);
    drawAction();
    drawCity();
    action.querySelector(`${focus}:not([disabled])`)?.focus();
  }

  async function confirm() {
    const r = orderBody();
    if (!r.body) { hint = r.why; drawAction(); return; }
    await send(r.body);
  }

  async function send(body) {
    const show = [...divulge].filter((cid) => hand().some((c) => c.id === cid));
    if (show.length) body = { ...body, divulge: show };
    const ok = await game.send(body);
    if (ok) divulge.clear();
    announce(ok ? 'Your choice was sent.' : st.refused);
  }

  function pass() {
    const p = pending();
    if (p) send({ round: p.round, step: p.step, turn: p.turn, pass: true });
  }

  function owner(draw) {
    const p = pending();
    if (p) send({ round: p.round, step: p.step, turn: p.turn, draw });
  }

  async function playAgain(btn) {
    const v = st.view;
    const saved = store.settings(id);
    const settings = saved ?? {
      game: 'tech_city', seats: v.players, bots: v.seats.filter((s) => s.bot).map((s) => s.bot),
      kinds: v.seats.map((s) => s.bot ?? 'person'), turn_seconds: v.turn_seconds,
    };
    settings.game = 'tech_city';
    settings.name = (me() !== null ? v.seats[me()]?.name : null) || store.name() || 'Player';
    btn.disabled = true;
    try {
      navigate(`#/game/${await createAndRemember(settings)}`);
    } catch (e) {
      btn.disabled = false;
      hint = e.message;
      render();
    }
  }

  function announce(t) { live.textContent = t; }

  // ---- drawing -----------------------------------------------------------------------------
  function drawIf(el, sig, draw) {
    const text = JSON.stringify(sig);
    if (drawn.get(el) === text && el.firstChild) return;
    draw();
    drawn.set(el, text);
  }

  function render() {
    if (!alive) return;
    if (st.view) syncTurn();
    markFresh();
    keepFocus(root, () => {
      drawBar();
      drawBanner();
      tools.place(banner);
      drawWhose();
      drawAction();
      drawCity();
      drawPlayers();
      drawPile();
      drawLog();
      tools.update();
    });
    cityBox.hidden = isClosed(st.view);
    const p = pending();
    document.title = `${p && !st.hand?.order ? '● Your move · ' : ''}${st.view ? `Round ${st.view.round} · ` : ''}Tech City`;
    fitNames(root);
  }

  function drawBar() {
    const v = st.view;
    if (forceError && forceErrorAt && v && forceErrorAt !== `${v.round}-${v.step}-${v.turn}`) forceError = '';
    if (forceAsk && v && (forceAsk.round !== v.round || forceAsk.step !== v.step || forceAsk.turn !== v.turn)) forceAsk = null;
    drawIf(bar, [v?.round, v?.step, v?.turn, v?.status, v?.deck_count, v?.discard?.length, v?.first, v?.pending, v?.deadline, timerText() === 'time is up', st.conn, st.missing, forceAsk, forceError, st.busy], () => {
      if (!v) {
        replace(bar, h('a', { href: '#/', class: 'back' }, '← Lobby'), h('span', { class: 'muted' }, st.missing ? '' : 'Loading the table…'));
        return;
      }
      const step = v.status === 'open' ? 'Waiting for players' : isClosed(v) ? (v.status === 'cancelled' ? 'Cancelled' : 'Expired') : v.status === 'finished' ? 'Game over' : `Round ${v.round}/${ROUNDS} · ${STEP_TITLES[v.step] ?? v.step}`;
      replace(bar, h('a', { href: '#/', class: 'back', 'aria-label': 'Back to the lobby' }, '← Lobby'),
        h('div', { class: 'bar-title' }, h('strong', {}, 'Tech City'), h('span', { class: 'step-pill', id: 'step' }, step)),
        helpLinks('tech_city'),
        h('dl', { class: 'stats' },
          stat('Deck', v.deck_count), stat('Discards', v.discard.length),
          v.status === 'playing' ? stat('First', nameOf(v.first)) : null),
        timerText() ? h('span', { class: `timer ${timerText() === 'time is up' ? 'late' : ''}`, id: 'timer', role: 'timer' }, timerText()) : null,
        forceControls(v),
        forceError ? h('p', { class: 'error force-error', role: 'alert', id: 'force-error' }, forceError) : null,
        h('span', { id: 'conn', class: `conn ${st.conn}`, role: 'status', hidden: st.conn !== 'down' }, st.conn === 'down' ? 'Reconnecting…' : ''));
    });
  }

  function timerText() {
    const v = st.view;
    if (!v?.deadline || v.status !== 'playing') return null;
    const left = Math.round(v.deadline - Date.now() / 1000);
    if (left <= 0) return 'time is up';
    return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')} left`;
  }

  /**
   * Force: the host at any time, a seat once the timer ran out; the first click asks, the
   * second sends the position seen then, so a late click cannot force the next decision.
   */
  function forceControls(v) {
    const tt = timerText();
    const waiting = (v.pending ?? []).filter((s) => s !== me());
    if (v.status !== 'playing' || !waiting.length || !(st.host || (st.me && tt === 'time is up'))) return null;
    if (!forceAsk) {
      return h('button', {
        type: 'button', class: 'ghost small', id: 'force', disabled: st.busy,
        onclick: () => { forceAsk = { round: v.round, step: v.step, turn: v.turn }; forceError = ''; drawBar(); bar.querySelector('#force-yes')?.focus(); },
      }, st.host ? 'Force step' : 'Apply defaults');
    }
    return h('div', { class: 'force-ask', id: 'force-ask', role: 'alertdialog', 'aria-labelledby': 'force-q' },
      h('span', { id: 'force-q' }, `Resolve this decision now? ${joinNames(waiting.map(nameOf))} will get the default.`),
      h('button', { type: 'button', class: 'small danger', id: 'force-yes', onclick: force }, 'Force it'),
      h('button', { type: 'button', class: 'ghost small', id: 'force-no', onclick: () => { forceAsk = null; drawBar(); } }, 'Cancel'));
  }

  async function force() {
    const ask = forceAsk;
    forceAsk = null;
    try {
      await api.resolve(id, st.host ?? st.me?.token, ask);
      announce('The decision was forced.');
    } catch (e) {
      forceError = e.message;
      announce(e.message);
    }
    await game.refresh();
    if (forceError && st.view) forceErrorAt = `${st.view.round}-${st.view.step}-${st.view.turn}`;
  }

  function stat(label, value) { return h('div', { class: 'stat' }, h('dt', {}, label), h('dd', {}, String(value ?? '—'))); }

  function drawBanner() {
    const v = st.view;
    if (st.missing || (!v && st.error)) {
      replace(banner, h('div', { class: 'panel notice' }, h('h2', {}, 'No such game'), h('p', {}, st.error), h('a', { href: '#/', class: 'button primary' }, 'Back to the lobby')));
      return;
    }
    if (!v) return;
    if (isClosed(v)) {
      drawIf(banner, ['closed', v.status], () => replace(banner, closedNotice(v)));
    } else if (v.status === 'open') {
      drawIf(banner, ['open', v.seats.map((s) => [s.name, s.bot]), me(), st.joinError, st.joining], () => replace(banner, waitingRoom(game, id, keep)));
    } else if (v.status === 'finished') {
      drawIf(banner, ['end', v.winners, v.seats.map((s) => s.score), hint], () => replace(banner, endScreen(v)));
    } else {
      drawIf(banner, ['play', !!st.me, st.notice], () => replace(banner, st.me ? null
        : h('div', { class: 'panel notice slim' }, h('p', {}, st.notice || 'You are watching this game. Hands stay secret; the city, the scores and the discard pile are public.'))));
    }
  }

  function endScreen(v) {
    const winners = v.winners ?? [];
    const names = winners.map(nameOf);
    const rows = standings(v);
    const place = me() !== null ? placeLine(rows, me()) : null;
    const iWon = me() !== null && winners.includes(me());
    return [h('div', { class: 'panel end-screen', id: 'end-screen', role: 'region', 'aria-labelledby': 'end-title' },
      h('div', { class: 'trophy emoji', 'aria-hidden': 'true' }, '🏆'),
      h('div', { class: 'end-main' }, h('div', { class: 'end-text' },
        h('h2', { id: 'end-title' }, iWon ? (winners.length > 1 ? 'You share the win!' : 'You win!') : winners.length > 1 ? `${joinNames(names)} share the win` : `${names[0] ?? 'Nobody'} wins`),
        place ? h('p', { class: 'place', id: 'place' }, `${place}.`) : null,
        h('p', { class: 'lead', id: 'winners' }, `${joinNames(names)} with ${winners.length ? v.seats[winners[0]].score : 0} points after ${ROUNDS} rounds.`),
        h('div', { class: 'actions' },
          h('button', { type: 'button', class: 'primary', id: 'play-again', onclick: (e) => playAgain(e.currentTarget) }, 'Play again'),
          h('a', { href: `#/replay/${id}`, class: 'button', id: 'watch-replay' }, 'Watch the replay'),
          copyButton(replayUrl(id), 'Copy link', 'Copy link to the replay'),
          h('a', { href: '#/', class: 'button' }, 'Lobby')),
        hint ? h('p', { class: 'error', role: 'alert' }, hint) : null),
      h('div', { class: 'end-rank' }, rankingList(rows, (r) => [h('span', { class: 'r-vp' }, `${v.seats[r.seat].score} pts`),
        h('span', { class: 'r-hand' }, `${v.seats[r.seat].companies} companies · ${v.seats[r.seat].hand_count} in hand`)],
      { winners, me: me(), nameOf }), tieNote(v)))),
    breakdownBox(id, v, nameOf, me())];
  }

  /** Whose turn it is and what they must decide, in one line everyone sees. */
  function drawWhose() {
    const v = st.view;
    const text = !v || v.status !== 'playing' ? '' : (() => {
      const seats = (v.pending ?? []);
      const who = joinNames(seats.map((s) => (s === me() ? 'you' : nameOf(s))));
      const one = seats.length === 1;
      const card = v.effect ? design(v.effect.card).name : null;
      switch (v.step) {
        case 'build': return `${cap(who)} ${one && seats[0] !== me() ? 'builds' : 'build'}: a card from hand next to the city, or pass.`;
        case 'help': return `Help wanted: ${nameOf(v.active)} is building a service. ${cap(who)} may discard a card to help (each helper but the builder scores 1).`;
        case 'effect': return `${cap(who)} may use the effect of one card in the city, or pass.`;
        case 'owner': return `${cap(who)} may draw a card, then discard one${card ? `: ${nameOf(v.effect.seat)} used ${card}` : ''}.`;
        case 'choose': return `${cap(who)} ${one && seats[0] !== me() ? 'chooses' : 'choose'} cards${card ? ` for ${card}` : ''}.`;
        case 'discard': return `End of round: ${who} ${one && seats[0] !== me() ? 'discards' : 'discard'} down to the hand limit.`;
        default: return '';
      }
    })();
    whose.hidden = !text;
    whose.textContent = text;
    whose.classList.toggle('mine', !!v && (v.pending ?? []).includes(me()));
  }

  function cap(s) { return s ? s[0].toUpperCase() + s.slice(1) : s; }

  // ---- the hand's order and its new cards -----------------------------------------------------
  function savedSort() {
    try { const v = localStorage.getItem('tech.handSort'); return v in HAND_SORTS ? v : 'dealt'; } catch { return 'dealt'; }
  }

  function setSort(by) {
    handSort = by in HAND_SORTS ? by : 'dealt';
    try { localStorage.setItem('tech.handSort', handSort); } catch { /* kept for this page only */ }
    drawAction();
  }

  function loadSeen() {
    try { return JSON.parse(sessionStorage.getItem(`tech.seen.${id}`) ?? 'null'); } catch { return null; }
  }

  /** Cards that came into the hand since this seat's last point are new until its next one resolves. */
  function markFresh() {
    if (!st.me || !st.hand || st.view?.status !== 'playing') return;
    const p = pending();
    seen = nextSeen(seen, p ? `${p.round}-${p.step}-${p.turn}` : null, hand().map((c) => c.id));
    try { sessionStorage.setItem(`tech.seen.${id}`, JSON.stringify(seen)); } catch { /* private mode: marks last until a reload */ }
  }

  /** True when the order the controls describe is the one already sent (nothing would change). */
  function sameAsSent(body) {
    const norm = (o) => JSON.stringify(Object.keys(o ?? {}).filter((k) => !['round', 'step', 'turn'].includes(k)).sort()
      .map((k) => [k, Array.isArray(o[k]) ? [...o[k]].sort((a, b) => a - b) : o[k]]));
    return !!body && norm(body) === norm(st.hand.order);
  }

  function drawAction() {
    drawIf(action, [st.view?.status, st.view?.city, st.view?.discard, st.view?.revealed, st.view?.seats, st.hand, sel, st.busy, hint, suggested, st.refused, catalogReady(), handSort, seen?.fresh, hints.sig(), divulge.size],
      () => keepFocus(action, drawActionNow, action));
  }

  function drawActionNow() {
    const v = st.view;
    if (!v || !st.hand || v.status === 'finished' || isClosed(v)) {
      action.hidden = true;
      replace(action);
      Object.assign(action.dataset, { state: 'waiting', turn: 'none', submitted: 'false', busy: 'false' });
      return;
    }
    action.hidden = false;
    const p = pending();
    const head = [];
    const buttons = [];
    const extra = [];
    let cardState = () => ({});
    const my = st.hand.hand;
    if (v.status === 'open') head.push(h('h2', { id: 'action-title' }, 'Your hand'), h('p', {}, 'The game starts when every seat is taken.'));
    else if (!p) head.push(h('h2', { id: 'action-title' }, 'Your hand'), h('p', { class: 'muted' }, 'Nothing to decide right now.'));
    else {
      const r = orderBody();
      const confirmBtn = (label) => h('button', { type: 'button', class: 'primary', id: 'confirm', 'data-focus-key': 'confirm', disabled: !r.body || st.busy, onclick: confirm }, label);
      const passBtn = (label = 'Pass') => h('button', { type: 'button', class: `ghost ${suggested === 'pass' ? 'suggested' : ''}`, id: 'pass', 'data-focus-key': 'pass', disabled: st.busy, onclick: pass }, label);
      switch (p.step) {
        case 'build': {
          const d = sel.card !== null ? design(slugOf(sel.card)) : null;
          head.push(h('h2', { id: 'action-title' }, `Round ${p.round}: build`),
            h('p', {}, d ? (sel.x === null ? `${d.name}: pick a highlighted cell of the city.` : `${d.name} at ${sel.x}, ${sel.y}.`)
              : `Pick a card to build, then a highlighted cell next to the city. ${payRule(p.options.payment)}`));
          if (d) {
            head.push(h('p', { class: 'counter', id: 'counter' }, d.domain === 'service'
              ? `A service: ${sel.pay.length ? 'you give 1 card' : 'you give no card'}; the others are asked to help.`
              : `Paying ${sel.pay.length} card${sel.pay.length === 1 ? '' : 's'}. Press a card to pay with it or keep it.`));
            if (d.domain === 'wild') {
              const names = p.options.wild_names ?? [];
              const idx = names.findIndex((n) => sel.as && n.value === sel.as.value && n.domain === sel.as.domain);
              head.push(h('label', { class: 'field wild-as' }, h('span', {}, 'The wild card scores as'),
                h('select', { id: 'wild-as', onchange: (e) => { sel.as = names[Number(e.target.value)]; drawAction(); } },
                  names.map((n, i) => h('option', { value: i, selected: i === idx }, `${n.value} of ${DOMAINS[n.domain]?.name ?? n.domain}`)))));
            }
          }
          buttons.push(confirmBtn(d ? `Build ${d.name}${sel.pay.length ? ` · pay ${sel.pay.length}` : ''}` : 'Build'), passBtn());
          if (sel.card !== null) buttons.push(h('button', { type: 'button', class: 'ghost', id: 'cancel', onclick: () => { sel = emptySel(); drawAction(); drawCity(); } }, 'Cancel'));
          cardState = (c) => (c.id === sel.card ? { state: 'build', badge: 'Build' } : sel.pay.includes(c.id) ? { state: 'pay', badge: 'Pay' } : {});
          break;
        }
        case 'help': {
          const d = design(p.options.card);
          head.push(h('h2', { id: 'action-title' }, `Help build ${d.name}?`),
            h('p', {}, `${nameOf(p.options.builder)} is building the service ${d.name}. Discard one card to help: if at least two cards are given, one by another player, it is built and you score 1 point. If it fails, your card comes back.`));
          buttons.push(confirmBtn(sel.card !== null ? `Help with ${design(slugOf(sel.card)).name}` : 'Help'), passBtn('Do not help'));
          cardState = (c) => (c.id === sel.card ? { state: 'pay', badge: 'Give' } : {});
          break;
        }
        case 'effect': {
          const c = sel.use && cityAt(sel.use.x, sel.use.y);
          const d = c ? design(c.card) : null;
          const o = p.options;
          head.push(h('h2', { id: 'action-title' }, `Round ${p.round}: effects`),
            h('p', {}, d ? `${d.name}: ${d.text}` : `Pick a highlighted card of the city to use its effect${o.free && !o.normal ? ' (your free Knowledge use)' : ''}, or pass. Using another player's company lets its owner draw a card.`));
          if (c && o.free && o.normal && c.owner === me() && c.domain === 'knowledge' && !c.tilted) {
            head.push(h('label', { class: 'check' }, h('input', { type: 'checkbox', id: 'free', checked: sel.free, onchange: (e) => { sel.free = e.target.checked; drawAction(); } }),
              ' Use it as your free Knowledge use'));
          }
          if (c && !sel.free && ownerCell(sel.use)) {
            head.push(h('label', { class: 'check' }, h('input', { type: 'checkbox', id: 'owner-first', checked: sel.owner_first, onchange: (e) => { sel.owner_first = e.target.checked; drawAction(); } }),
              ` Let ${nameOf(c.owner)} draw and discard first, then the effect`));
          }
          for (const n of c ? needsOf() : []) extra.push(needLine(n, c));
          buttons.push(confirmBtn(d ? `Use ${d.name}` : 'Use'), passBtn());
          if (sel.use) buttons.push(h('button', { type: 'button', class: 'ghost', id: 'cancel', onclick: () => { sel = emptySel(); drawAction(); drawCity(); } }, 'Cancel'));
          cardState = (x) => (x.id === sel.card ? { state: 'pay', badge: 'Give' } : {});
          break;
        }
        case 'owner': {
          const d = design(p.options.card);
          head.push(h('h2', { id: 'action-title' }, 'Your company was used'),
            h('p', {}, `${nameOf(p.options.user)} used your ${d.name}. You may draw a card, then you discard a card.`));
          buttons.push(h('button', { type: 'button', class: `primary ${suggested === 'draw' ? 'suggested' : ''}`, id: 'draw', 'data-focus-key': 'draw', disabled: st.busy, onclick: () => owner(true) }, 'Draw, then discard'),
            h('button', { type: 'button', class: `ghost ${suggested === 'no-draw' ? 'suggested' : ''}`, id: 'no-draw', 'data-focus-key': 'no-draw', disabled: st.busy, onclick: () => owner(false) }, 'No, thanks'));
          break;
        }
        case 'choose':
        case 'discard': {
          const need = p.options.count;
          const revealed = p.step === 'choose' && p.options.kind === 'take_revealed';
          const card = v.effect ? design(v.effect.card).name : null;
          head.push(h('h2', { id: 'action-title' }, revealed ? 'Take one revealed card' : p.step === 'discard' ? `Hand limit: discard ${need}` : `Discard ${need}`),
            h('p', {}, revealed ? `${card ?? 'The effect'} revealed these; the others go back on the deck in order.`
              : p.step === 'discard' ? `You hold ${my.length} cards; keep ${my.length - need}.` : `${card ? `${card}: ` : ''}choose ${need} card${need === 1 ? '' : 's'} of your hand to discard.`),
            h('p', { class: 'counter', id: 'counter' }, `${sel.cards.length} of ${need} chosen`));
          if (revealed) {
            extra.push(h('div', { class: 'hand revealed', id: 'revealed', role: 'group', 'aria-label': 'Revealed cards' },
              (v.revealed ?? []).map((c) => techCard(c.id, c.card, {
                state: sel.cards.includes(c.id) ? 'pay' : '', badge: sel.cards.includes(c.id) ? 'Take' : null,
                onClick: () => { sel.cards = [c.id]; drawAction(); }, onInfo: () => showInfo(`d:${c.id}`),
              }))));
          } else cardState = (c) => (sel.cards.includes(c.id) ? { state: 'discard', badge: 'Discard' } : {});
          buttons.push(confirmBtn(revealed ? 'Take it' : `Discard ${need}`));
          break;
        }
        default: head.push(h('h2', { id: 'action-title' }, `Your move: ${p.step}`));
      }
      if (divulge.size) head.push(h('p', { class: 'muted', id: 'divulge-note' }, `You will show ${divulge.size} card${divulge.size === 1 ? '' : 's'} of your hand to everyone with this choice.`));
      if (p.suggestion || hints.left() !== 0) buttons.push(hints.button({ onclick: suggest, disabled: st.busy }));
      if (st.hand.order) {
        // Only a point that waits for several seats keeps an order: it may be replaced until then.
        const again = buttons.find((b) => b.id === 'confirm');
        if (again) {
          again.textContent = 'Change my choice';
          again.disabled = again.disabled || sameAsSent(r.body);
        }
        head.push(h('p', { class: 'submitted-note', id: 'submitted' }, `Your choice is in. You can change it until everyone has chosen${again ? ': pick again, then press “Change my choice”' : ''}. Waiting for the others…`));
      }
      if (!r.body && r.why && !hint && ['build', 'help', 'effect'].includes(p.step)) head.push(h('p', { class: 'muted need', id: 'need' }, r.why));
    }
    const pickable = p && ['build', 'help', 'discard'].includes(p.step) || p?.step === 'effect' && needsOf().includes('card') || p?.step === 'choose' && p.options.kind === 'discard';
    const fresh = new Set(st.me && v.status === 'playing' ? seen?.fresh ?? [] : []);
    const sortSelect = h('select', { id: 'hand-sort', 'data-focus-key': 'hand-sort', onchange: (e) => setSort(e.target.value) },
      Object.entries(HAND_SORTS).map(([k, t]) => h('option', { value: k, selected: k === handSort }, t)));
    replace(action,
      h('div', { class: 'action-head' }, head),
      extra,
      hint ? h('p', { class: 'hint-line', role: 'status' }, hint) : null,
      st.refused ? h('p', { class: 'error', role: 'alert', id: 'action-error' }, st.refused) : null,
      my.length ? h('div', { class: 'hand-tools' },
        h('label', { class: 'hand-sort' }, h('span', {}, 'Sort by'), sortSelect),
        fresh.size ? h('span', { class: 'muted', id: 'new-count' }, `${fresh.size} new card${fresh.size === 1 ? '' : 's'} since your last decision`) : null) : null,
      h('div', { class: 'hand', id: 'hand', role: 'group', 'aria-label': `Your hand, ${my.length} cards` },
        sortTechHand(my, handSort).map((c) => techCard(c.id, c.card, { ...cardState(c), fresh: fresh.has(c.id), disabled: !pickable || st.busy, onClick: () => clickHand(c.id), onInfo: () => showInfo(`h:${c.id}`) }))),
      buttons.length ? h('div', { class: 'actions sticky' }, buttons) : null,
      hints.note(p));
    action.dataset.state = p ? p.step : 'waiting';
    action.dataset.turn = p ? `${p.round}-${p.step}-${p.turn}` : 'none';
    action.dataset.submitted = st.hand.order ? 'true' : 'false';
    action.dataset.busy = st.busy ? 'true' : 'false';
    action.classList.toggle('your-move', !!p && !st.hand.order);
  }

  function payRule(rule) {
    return rule === 'free' ? 'Building is free for you (two Technology companies).'
      : rule === 'one_any' ? 'Pay any one card (you control a Technology company), or any two cards.'
        : `Pay one card of value ${CHEAP} or less, or any two cards.`;
  }

  /** One line of the effect form: what is still needed, or what was picked. */
  function needLine(n, used) {
    const v = st.view;
    const pick = (t) => h('p', { class: `need-line ${sel[n] !== null ? 'done' : ''}`, 'data-need': n }, t);
    switch (n) {
      case 'card': return pick(sel.card !== null ? `Your card: ${design(slugOf(sel.card)).name}.` : 'Pick a card of your hand.');
      case 'take': return h('div', { class: 'need-line', 'data-need': 'take' }, h('p', {}, sel.take !== null ? 'The card to take from the discard pile:' : 'Pick a card of the discard pile to take:'),
        h('div', { class: 'chips', role: 'group', 'aria-label': 'Discard pile' }, [...v.discard].reverse().map((c) => h('button', {
          type: 'button', class: `chip-btn d-${design(c.card).domain}`, 'aria-pressed': sel.take === c.id ? 'true' : 'false', 'data-card-id': c.id,
          onclick: () => { sel.take = c.id; showInfo(`d:${c.id}`); drawAction(); },
        }, cardLabel(c.card)))));
      case 'target': {
        const t = sel.target && cityAt(sel.target.x, sel.target.y);
        return pick(t ? `Target: ${design(t.card).name}.` : `Pick the city card ${design(used.card).name} acts on (marked in the city).`);
      }
      case 'to': {
        const t = sel.to && cityAt(sel.to.x, sel.to.y);
        return pick(t ? `Second card: ${design(t.card).name}.` : sel.target ? 'Pick the second city card.' : 'Then pick the second city card.');
      }
      case 'victim': return h('div', { class: 'need-line', 'data-need': 'victim' }, h('p', {}, 'Take a random card from:'),
        h('div', { class: 'chips', role: 'group', 'aria-label': 'Players' }, v.seats.filter((s) => s.seat !== me()).map((s) => h('button', {
          type: 'button', class: 'chip-btn', id: `victim-${s.seat}`, disabled: !s.hand_count, 'aria-pressed': sel.victim === s.seat ? 'true' : 'false',
          onclick: () => { sel.victim = s.seat; drawAction(); },
        }, seatDot(s.seat), ` ${nameOf(s.seat)} (${s.hand_count})`))));
      default: return null;
    }
  }

  // ---- the city ----------------------------------------------------------------------------
  function drawCity() {
    const v = st.view;
    const p = pending();
    drawIf(cityScroll, [v?.city, p, sel, catalogReady(), st.busy], () => drawCityNow(v, p));
  }

  function drawCityNow(v, p) {
    if (!v) { replace(cityScroll); return; }
    const open = p?.step === 'build' ? p.options.cells : [];
    const all = [...v.city, ...open];
    const xs = all.map((c) => c.x), ys = all.map((c) => c.y);
    const x0 = Math.min(...xs) - 1, x1 = Math.max(...xs) + 1, y0 = Math.min(...ys) - 1, y1 = Math.max(...ys) + 1;
    const place = (x, y) => `grid-column:${x - x0 + 1};grid-row:${y - y0 + 1}`;
    const placing = p?.step === 'build' && sel.card !== null;
    const effect = p?.step === 'effect';
    const items = [];
    for (const c of open) {
      const chosen = sel.x === c.x && sel.y === c.y;
      items.push(h('button', {
        type: 'button', class: `cell open ${placing ? 'target' : ''} ${chosen ? 'chosen' : ''}`, style: place(c.x, c.y),
        'data-x': c.x, 'data-y': c.y, 'data-focus-key': `cell-${c.x},${c.y}`, disabled: st.busy,
        'aria-label': placing ? `Build here: column ${c.x}, row ${c.y}` : `Empty cell ${c.x}, ${c.y}`,
        onclick: () => clickCell(c.x, c.y),
      }, chosen ? h('span', { class: 'ghost-card' }, cardLabel(slugOf(sel.card))) : placing ? '+' : ''));
    }
    for (const c of v.city) {
      const d = design(c.card);
      const used = sel.use && sel.use.x === c.x && sel.use.y === c.y;
      const tgt = (sel.target && sel.target.x === c.x && sel.target.y === c.y) || (sel.to && sel.to.x === c.x && sel.to.y === c.y);
      const needCell = effect && sel.use && (needsOf().includes('target') && !sel.target ? targetOk(c, 'target') : needsOf().includes('to') && sel.target && !sel.to ? targetOk(c, 'to') : false);
      const canUse = effect && !sel.use && usable(c);
      const cls = ['cell', 'card-cell', `d-${d.domain}`];
      if (c.tilted) cls.push('tilted');
      if (c.seed) cls.push('seed');
      if (canUse || needCell) cls.push('target');
      if (used) cls.push('using');
      if (tgt) cls.push('aimed');
      const owner = c.owner === null ? 'neutral' : `owned by ${nameOf(c.owner)}`;
      items.push(h('button', {
        type: 'button', class: cls.join(' '), style: place(c.x, c.y), 'data-x': c.x, 'data-y': c.y, 'data-slug': c.card,
        'data-owner': c.owner ?? '', 'data-focus-key': `city-${c.id}`,
        title: `${d.name} (${c.value} ${DOMAINS[d.domain]?.name}): ${d.text}`,
        onclick: () => clickCell(c.x, c.y),
        onpointerenter: () => showInfo(`c:${c.x},${c.y}`), onfocus: () => showInfo(`c:${c.x},${c.y}`),
      },
      h('span', { class: 'face' },
        h('span', { class: 'tc-top', 'aria-hidden': 'true' }, h('span', { class: 'tc-val' }, String(c.value)), h('span', { class: 'tc-dom' }, DOMAINS[d.domain]?.short ?? '')),
        h('span', { class: 'tc-name' }, d.name),
        // Named by its content (the visible name first), the rest said offscreen.
        h('span', { class: 'offscreen' }, `, ${DOMAINS[d.domain]?.name} ${c.value}, ${owner}${c.tilted ? ', tilted (used this round)' : ''}${c.seed ? ', the seed card' : ''}: ${d.text}`),
        c.owner !== null ? h('span', { class: 'marker', 'aria-hidden': 'true' }, seatDot(c.owner)) : null)));
    }
    const grid = h('div', { class: 'city', id: 'city', style: `--cols:${x1 - x0 + 1};--rows:${y1 - y0 + 1}` }, items);
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
    drawCityConfirm(p);
    grid.dataset.x0 = x0;
    grid.dataset.y0 = y0;
    document.getElementById('city-count').textContent = `${v.city.length} card${v.city.length === 1 ? '' : 's'} in play`;
  }

  /** Under the grid, once a cell is chosen: confirm the build there without scrolling back up. */
  function drawCityConfirm(p) {
    const box = cityBox.querySelector('#city-confirm');
    const on = p?.step === 'build' && sel.card !== null && sel.x !== null;
    box.hidden = !on;
    if (!on) { replace(box); return; }
    const r = orderBody();
    replace(box, h('button', { type: 'button', class: 'primary small', id: 'confirm-here', disabled: !r.body || st.busy, onclick: confirm },
      `Build ${design(slugOf(sel.card)).name} here`),
    r.body ? null : h('span', { class: 'muted' }, r.why));
  }

  function cellSize() {
    const any = cityScroll.querySelector('.cell');
    const r = any?.getBoundingClientRect();
    return { w: (r?.width ?? 72) + 4, h: (r?.height ?? 72) + 4 };
  }

  function scrollToCell(x, y) {
    const el = cityScroll.querySelector(`[data-x="${x}"][data-y="${y}"]`);
    if (!el) return;
    cityScroll.scrollLeft = el.offsetLeft - (cityScroll.clientWidth - el.offsetWidth) / 2;
    cityScroll.scrollTop = el.offsetTop - (cityScroll.clientHeight - el.offsetHeight) / 2;
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
        extra = `${c.owner === null ? 'Neutral' : `${nameOf(c.owner)}'s company`}${c.tilted ? ' · tilted: used this round' : ''}${c.seed ? ' · the seed card' : ''}`;
      }
    } else if (infoKey) {
      const cid = Number(infoKey.slice(2));
      slug = hand().find((c) => c.id === cid)?.card ?? v?.discard.find((c) => c.id === cid)?.card ?? v?.revealed?.find((c) => c.id === cid)?.card ?? null;
      extra = infoKey.startsWith('h:') ? 'In your hand' : 'Discard pile';
    }
    if (!slug) { replace(info, h('p', { class: 'muted' }, 'Hover or tap a card to read its effect.')); return; }
    const d = design(slug);
    const cid = infoKey.startsWith('h:') ? Number(infoKey.slice(2)) : null;
    replace(info, h('div', { class: `info-card d-${d.domain}`, 'data-slug': slug },
      h('strong', {}, `${DOMAINS[d.domain]?.icon ?? ''} ${d.name}`),
      h('span', { class: 'muted' }, ` · ${d.domain === 'wild' ? 'Wild card' : `${DOMAINS[d.domain]?.name} ${d.value}`}${extra ? ` · ${extra}` : ''}`),
      h('p', { id: 'info-text' }, d.text),
      cid !== null && st.view?.status === 'playing' ? h('label', { class: 'check' },
        h('input', { type: 'checkbox', id: 'divulge', checked: divulge.has(cid), onchange: (e) => { if (e.target.checked) divulge.add(cid); else divulge.delete(cid); drawInfo(); drawAction(); } }),
        ' Show this card to everyone with my next choice') : null));
  }

  // ---- players, pile, log ------------------------------------------------------------------
  function drawPlayers() {
    const v = st.view;
    drawIf(players, [v?.seats, v?.first, v?.status, v?.pending, v?.winners, me()], () => {
      if (!v || v.status === 'open' || isClosed(v)) { players.hidden = true; return; }
      players.hidden = false;
      replace(players, h('h2', { id: 'players-title' }, 'Scores'),
        h('ol', { class: 'score-list' }, v.seats.map((s) => {
          const deciding = v.status === 'playing' && (v.pending ?? []).includes(s.seat);
          return h('li', { class: `score-row ${s.seat === me() ? 'me' : ''} ${(v.winners ?? []).includes(s.seat) ? 'won' : ''}`, 'data-seat': s.seat },
            seatDot(s.seat),
            h('span', { class: 'sr-name' }, nameOf(s.seat),
              s.seat === me() ? h('span', { class: 'tag you' }, 'you') : null,
              botMark(s.bot),
              v.status === 'playing' && s.seat === v.first ? h('span', { class: 'tag', title: 'First player this round' }, '1st') : null,
              deciding ? h('span', { class: 'tag thinking' }, s.submitted ? '✓' : 'deciding…') : null),
            h('span', { class: 'sr-meta' }, `${s.hand_count} in hand · ${s.companies} compan${s.companies === 1 ? 'y' : 'ies'}`),
            h('span', { class: 'sr-score', 'aria-label': `${s.score} points` }, String(s.score)));
        })));
    });
  }

  function drawPile() {
    const v = st.view;
    drawIf(pile, [v?.discard, v?.expelled?.length, v?.revealed, catalogReady()], () => {
      if (!v || v.status === 'open' || isClosed(v)) { pile.hidden = true; return; }
      pile.hidden = false;
      replace(pile, h('h2', { id: 'pile-title' }, `Discard pile (${v.discard.length})`),
        v.discard.length ? h('ul', { class: 'chips', id: 'discard-pile', 'aria-label': 'The discard pile, top first' }, [...v.discard].reverse().map((c) => h('li', {},
          h('button', { type: 'button', class: `chip-btn d-${design(c.card).domain}`, title: design(c.card).text, 'data-card-id': c.id, onclick: () => showInfo(`d:${c.id}`), onpointerenter: () => showInfo(`d:${c.id}`) }, cardLabel(c.card)))))
          : h('p', { class: 'muted' }, 'Empty.'),
        v.revealed?.length ? h('p', { class: 'muted' }, `Revealed: ${v.revealed.map((c) => design(c.card).name).join(', ')}`) : null,
        v.expelled?.length ? h('p', { class: 'muted small-print' }, `${v.expelled.length} card${v.expelled.length === 1 ? '' : 's'} expelled from the game.`) : null);
    });
  }

  function drawLog() {
    if (st.events.size === logDrawn) return;
    logDrawn = st.events.size;
    const atBottom = logList.scrollHeight - logList.scrollTop - logList.clientHeight < 40;
    const events = [...st.events.values()].sort((a, b) => a.seq - b.seq);
    replace(logList, h('ol', { class: 'log-list' }, techLog(events, nameOf).map((e) => h('li', { class: `log-${e.kind}`, 'data-seq': e.seq }, e.text))));
    logNews.update(logList);
    if (atBottom || !logList.dataset.scrolled) { logList.scrollTop = logList.scrollHeight; logList.dataset.scrolled = '1'; }
  }

  // A mouse drags the city to pan it (touch pans natively; the wheel and keys scroll).
  let drag = null;
  cityScroll.addEventListener('pointerdown', (e) => {
    if (e.pointerType !== 'mouse' || e.button !== 0 || e.target.closest('button')) return;
    drag = { x: e.clientX, y: e.clientY, left: cityScroll.scrollLeft, top: cityScroll.scrollTop };
    cityScroll.setPointerCapture(e.pointerId);
    cityScroll.classList.add('panning');
  });
  cityScroll.addEventListener('pointermove', (e) => {
    if (!drag) return;
    cityScroll.scrollLeft = drag.left - (e.clientX - drag.x);
    cityScroll.scrollTop = drag.top - (e.clientY - drag.y);
  });
  const endDrag = () => { drag = null; cityScroll.classList.remove('panning'); };
  cityScroll.addEventListener('pointerup', endDrag);
  cityScroll.addEventListener('pointercancel', endDrag);

  const tick = setInterval(() => {
    const el = bar.querySelector('#timer');
    const tt = timerText();
    if (el && tt) el.textContent = tt;
    if (tt === 'time is up' && st.me && !bar.querySelector('#force, #force-ask')) drawBar();
  }, 1000);

  drawInfo();
  return () => { alive = false; clearInterval(tick); stopFit(); game.close(); };
}
