// tech_city/table.js: Tech City's part of the table (web/table.js is the shell around it): your
// hand and what the decision pending asks (build a card into a highlighted cell with its payment
// and a wild card's name, help a service, use an effect and pick what it needs, the owner's draw,
// choose or discard cards, show a card to everyone), Suggest filling in the expert's choice for
// the player to confirm, and the bar's figures and the end screen's lines. What may be chosen,
// and what each choice scores, is the server's legal options (read in choice.js); the grid and
// the panels around it are in city.js. Orders echo pending's round, step and turn.

import { h } from '../../dom.js';
import { seatDot, joinNames } from '../../ui.js';
import { ROUNDS, DOMAINS, STEP_TITLES, loadTechCatalog, design, cardLabel, techCard, techLog, HAND_SORTS, sortTechHand } from './data.js';
import { choiceRules, emptySel } from './choice.js';
import { techBoard } from './city.js';
import { markNewByPoint } from '../turns.js';
import { whyText } from '../../hints.js';

/** Loads what Tech City's table draws with (the card catalog); resolves to its factory. */
export async function load() {
  await loadTechCatalog().catch(() => null);
  return techTable;
}

/** Tech City's part of the table for the shell's context `ctx` (see web/table.js). */
function techTable(ctx) {
  const { st } = ctx;
  let sel = emptySel();
  let hint = '';
  let suggested = ''; // 'pass' | 'draw' | 'no-draw' when Suggest pointed at a button
  let warned = ''; // the order (JSON) a first Confirm was warned about: it does nothing; the next sends it
  const divulge = new Set(); // hand cards to show to all with the next order ("divulge")
  const rules = choiceRules(ctx, () => sel);
  const { hand, slugOf, cityAt, buildOf, whyNotBuild, paysAloneMarks, wildNames, useAt, usedOption, needsOf, usable, targetOk, cardChoice, nothingFrom, orderBody, sameAsSent } = rules;
  const pending = () => ctx.pending();
  const nameOf = (s) => ctx.nameOf(s);
  const me = () => ctx.me();
  const board = techBoard(ctx, { selOf: () => sel, rules, clickCell, confirm, divulge });

  /** A new decision point clears the selection (a submitted order is shown as chosen). */
  function sync(p, changed) {
    if (!changed) return;
    sel = emptySel();
    hint = '';
    suggested = '';
    warned = '';
  }

  function clickHand(cid) {
    const p = pending();
    if (!p || st.busy) return;
    hint = '';
    suggested = '';
    st.refused = '';
    board.showInfo(`h:${cid}`);
    if (p.step === 'build') {
      // The card to build starts with the server's payment (pay) and, a wild card, its best name.
      const most = Math.max(0, ...(buildOf(sel.card)?.pay_counts ?? [0]));
      if (sel.card === cid) sel = emptySel();
      else if (sel.card === null) {
        const b = buildOf(cid);
        if (!b) hint = `${whyNotBuild(cid).long} Pick a card that is not dimmed.`;
        else {
          Object.assign(sel, { card: cid, pay: [...b.pay], as: b.as ?? null });
          requestAnimationFrame(() => board.bringIntoView()); // on a phone the cells to pick are below
        }
      } else if (sel.pay.includes(cid)) sel.pay = sel.pay.filter((x) => x !== cid);
      else if (!most) hint = 'Building it is free: nothing to pay.';
      else {
        sel.pay.push(cid);
        if (sel.pay.length > most) sel.pay.shift();
      }
    } else if (p.step === 'help') {
      sel.card = sel.card === cid ? null : cid;
    } else if (p.step === 'effect') {
      if (!needsOf().includes('card')) hint = sel.use ? 'This effect takes no card of your hand.' : 'First pick a highlighted card of the city.';
      else if (sel.card === cid || cardChoice('card').includes(cid)) sel.card = sel.card === cid ? null : cid;
      else hint = `${design(slugOf(cid)).name} cannot be given to this effect.`;
    } else if (p.step === 'discard' || (p.step === 'choose' && p.options.kind === 'discard')) {
      toggleCards(cid);
    }
    ctx.drawAction();
    board.drawCity();
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
    board.showInfo(`c:${x},${y}`);
    if (!p || st.busy) return;
    hint = '';
    suggested = '';
    if (p.step === 'build') {
      if (c) return;
      if (sel.card === null) { hint = 'Pick a card of your hand first; then the cells it may go to light up.'; ctx.drawAction(); return; }
      sel.x = x;
      sel.y = y;
    } else if (p.step === 'effect') {
      if (!c) return;
      const usingHere = sel.use && sel.use.x === x && sel.use.y === y;
      const needs = needsOf();
      // While the effect wants a cell, a click picks it (the used card itself may be one);
      // Cancel starts over.
      if (sel.use && needs.includes('target') && !sel.target && (!usingHere || targetOk(c, 'target'))) {
        if (!targetOk(c, 'target')) { hint = `${design(c.card).name} cannot be the target of this effect.`; ctx.drawAction(); return; }
        sel.target = { x, y };
      } else if (sel.use && needs.includes('to') && sel.target && !sel.to && (!usingHere || targetOk(c, 'to'))) {
        if (!targetOk(c, 'to')) { hint = `${design(c.card).name} cannot be the second card of this effect.`; ctx.drawAction(); return; }
        sel.to = { x, y };
      } else if (usingHere) {
        sel = emptySel();
      } else if (usable(c)) {
        const u = useAt(c);
        sel = emptySel();
        sel.use = { x, y };
        sel.free = u.free && !u.normal; // the free use when it is the only one open
      } else {
        hint = c.owner !== null && c.tilted ? `${design(c.card).name} was used this round (tilted).` : `${design(c.card).name} cannot be used now.`;
      }
    } else return;
    ctx.drawAction();
    board.drawCity();
  }

  /** Suggest: asks the expert (or takes the quick suggestion) and fills in its choice if the point is still pending. */
  async function suggest() {
    const p = pending();
    if (!p || st.busy) return;
    const got = await ctx.hints.ask(p);
    const g = got?.suggestion;
    if (!ctx.alive() || !g || !ctx.samePoint(p, pending())) return; // nothing, or the game moved on meanwhile
    if (g.round !== undefined && !ctx.samePoint({ round: g.round, step: g.step, turn: g.turn ?? p.turn }, p)) return;
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
      board.showInfo(`c:${g.use.x},${g.use.y}`);
    } else if (p.step === 'owner') { sel.draw = g.draw; suggested = g.draw ? 'draw' : 'no-draw'; focus = g.draw ? '#draw' : '#no-draw'; } else if (g.cards) sel.cards = [...g.cards];
    if (g.x !== undefined) board.scrollToCell(g.x, g.y);
    const why = whyText(got, sayOrder, (n) => `${n} point${n === 1 ? '' : 's'}`);
    if (why) hint = `${hint || `${who}: ${sayOrder(g)}.`} ${why}`;
    ctx.drawAction();
    board.drawCity();
    ctx.action.querySelector(`${focus}:not([disabled])`)?.focus();
  }

  /** Order body `g` of the pending point in a few words ("Data Atlas at 2, 1", "pass"). */
  function sayOrder(g) {
    const name = (cid) => design(slugOf(cid) ?? st.view?.revealed?.find((c) => c.id === cid)?.card).name;
    if (g.pass) return 'pass';
    if (g.use) { const c = cityAt(g.use.x, g.use.y); return `use ${c ? design(c.card).name : 'a card of the city'}`; }
    if (g.draw !== undefined) return g.draw ? 'draw, then discard' : 'do not draw';
    if (g.cards) return g.cards.map(name).join(' and ');
    if (g.card !== undefined && g.x !== undefined) return `${name(g.card)} at ${g.x}, ${g.y}`;
    if (g.card !== undefined) return `help with ${name(g.card)}`;
    return 'another choice';
  }

  /** Confirm: sends the order, unless it does nothing and was not confirmed so yet (then says so first). */
  async function confirm() {
    const r = orderBody();
    if (!r.body) { hint = r.why; ctx.drawAction(); return; }
    if (nothingFrom() && warned !== JSON.stringify(r.body)) {
      warned = JSON.stringify(r.body);
      ctx.drawAction();
      ctx.action.querySelector('#confirm:not([disabled])')?.focus();
      return;
    }
    await send(r.body);
  }

  async function send(body) {
    const show = [...divulge].filter((cid) => hand().some((c) => c.id === cid));
    if (show.length) body = { ...body, divulge: show };
    if (await ctx.send(body)) divulge.clear();
  }

  function pass() {
    const p = pending();
    if (p) send({ round: p.round, step: p.step, turn: p.turn, pass: true });
  }

  function owner(draw) {
    const p = pending();
    if (p) send({ round: p.round, step: p.step, turn: p.turn, draw });
  }

  // ---- the action panel: what pending point `p` asks ----------------------------------------
  function action(p) {
    const v = st.view;
    const my = st.hand.hand;
    const head = [];
    const buttons = [];
    const extra = [];
    let cardState = () => ({});
    const r = orderBody();
    const confirmBtn = (label) => h('button', { type: 'button', class: 'primary', id: 'confirm', 'data-focus-key': 'confirm', disabled: !r.body || st.busy, onclick: confirm }, label);
    const passBtn = (label = 'Pass') => h('button', { type: 'button', class: `ghost ${suggested === 'pass' ? 'suggested' : ''}`, id: 'pass', 'data-focus-key': 'pass', disabled: st.busy, onclick: pass }, label);
    switch (p.step) {
      case 'build': {
        const d = sel.card !== null ? design(slugOf(sel.card)) : null;
        head.push(h('h2', { id: 'action-title' }, `Round ${p.round}: build`),
          h('p', { class: 'slot' }, d ? (sel.x === null ? `${d.name}: pick a highlighted cell of the city.` : `${d.name} at ${sel.x}, ${sel.y}: build it there, or pick another cell.`)
            : `Pick a card to build, then a highlighted cell next to the city. ${payRule(p.options.payment)}`));
        if (d) {
          head.push(h('p', { class: 'counter', id: 'counter' }, d.domain === 'service'
            ? `A service: ${sel.pay.length ? 'you give 1 card' : 'you give no card'}; the others are asked to help.`
            : `Paying ${sel.pay.length} card${sel.pay.length === 1 ? '' : 's'}. Press a card to pay with it or keep it.`));
          if (buildOf(sel.card)?.names) head.push(wildSelect());
          if (sel.x === null) head.push(h('p', { class: 'muted slot', id: 'cell-note' }, 'Each highlighted cell shows the points the card scores there.'));
          else {
            const k = (p.options.cells ?? []).findIndex((c) => c.x === sel.x && c.y === sel.y);
            const pts = rules.cellScore(k);
            if (pts !== null) head.push(h('p', { class: 'preview slot', id: 'preview', 'data-score': pts }, `Built there it scores ${pts} point${pts === 1 ? '' : 's'}.`));
          }
        }
        buttons.push(confirmBtn(d ? `Build ${d.name}${sel.pay.length ? ` · pay ${sel.pay.length}` : ''}` : 'Build'), passBtn());
        if (sel.card !== null) buttons.push(h('button', { type: 'button', class: 'ghost', id: 'cancel', onclick: () => { sel = emptySel(); ctx.drawAction(); board.drawCity(); } }, 'Cancel'));
        const alone = paysAloneMarks();
        cardState = (c) => {
          if (c.id === sel.card) return { state: 'build', badge: 'Build' };
          if (sel.pay.includes(c.id)) return { state: 'pay', badge: 'Pay' };
          if (sel.card !== null) return alone.has(c.id) ? { mark: 'pays alone', label: 'Pays on its own' } : {};
          const b = buildOf(c.id);
          if (b) { // what it scores at best, before a cell is chosen (each cell shows its own once picked)
            const best = Math.max(0, ...(b.scores ?? []), ...(b.names ?? []).map((n) => n.score));
            return { mark: `up to +${best}`, label: `Scores up to ${best} point${best === 1 ? '' : 's'} built` };
          }
          const why = whyNotBuild(c.id);
          return { dim: true, mark: why.short, label: `Cannot be built now: ${why.long}` };
        };
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
        const u = usedOption();
        head.push(h('h2', { id: 'action-title' }, `Round ${p.round}: effects`),
          h('p', {}, d ? `${d.name}: ${d.text}` : `Pick a highlighted card of the city to use its effect${o.free && !o.normal ? ' (your free Knowledge use)' : ''}, or pass; each shows the points using it scores. Using another player's company lets its owner draw a card.`));
        if (u) head.push(h('p', { class: 'preview', id: 'preview', 'data-score': u.score }, u.score ? `Using it scores ${u.score} point${u.score === 1 ? '' : 's'}.` : 'Using it scores no points.'));
        if (u && u.free && u.normal) {
          head.push(h('label', { class: 'check' }, h('input', { type: 'checkbox', id: 'free', checked: sel.free, onchange: (e) => { sel.free = e.target.checked; ctx.drawAction(); } }),
            ' Use it as your free Knowledge use'));
        }
        if (u && !sel.free && u.owner_first) {
          head.push(h('label', { class: 'check' }, h('input', { type: 'checkbox', id: 'owner-first', checked: sel.owner_first, onchange: (e) => { sel.owner_first = e.target.checked; ctx.drawAction(); } }),
            ` Let ${nameOf(c.owner)} draw and discard first, then the effect`));
        }
        for (const n of c ? needsOf() : []) extra.push(needLine(n, c));
        const nothing = nothingFrom();
        const sure = !!nothing && !!r.body && warned === JSON.stringify(r.body);
        if (nothing) head.push(h('p', { class: `warn-line ${sure ? 'asked' : ''}`, id: 'nothing-note', role: sure ? 'alert' : null }, sure ? `${nothing} Press “Use it anyway” to use it all the same, or pass.` : nothing));
        buttons.push(confirmBtn(d ? (sure ? 'Use it anyway' : `Use ${d.name}`) : 'Use'), passBtn());
        if (sel.use) buttons.push(h('button', { type: 'button', class: 'ghost', id: 'cancel', onclick: () => { sel = emptySel(); ctx.drawAction(); board.drawCity(); } }, 'Cancel'));
        cardState = (x) => (x.id === sel.card ? { state: 'pay', badge: 'Give' } : needsOf().includes('card') && !cardChoice('card').includes(x.id) ? { disabled: true } : {});
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
              onClick: () => { sel.cards = [c.id]; ctx.drawAction(); }, onInfo: () => board.showInfo(`d:${c.id}`),
            }))));
        } else cardState = (c) => (sel.cards.includes(c.id) ? { state: 'discard', badge: 'Discard' } : {});
        buttons.push(confirmBtn(revealed ? 'Take it' : `Discard ${need}`));
        break;
      }
      default: head.push(h('h2', { id: 'action-title' }, `Your move: ${p.step}`));
    }
    if (divulge.size) head.push(h('p', { class: 'muted', id: 'divulge-note' }, `You will show ${divulge.size} card${divulge.size === 1 ? '' : 's'} of your hand to everyone with this choice.`));
    if (p.suggestion || ctx.hints.left() !== 0) buttons.push(ctx.hints.button({ onclick: suggest, disabled: st.busy }));
    // What is still needed, on a line kept (empty) once nothing is: the hand below does not jump.
    if (['build', 'help', 'effect'].includes(p.step)) {
      const need = !r.body && r.why && !hint ? r.why : '';
      head.push(h('p', { class: 'muted need', id: 'need', 'aria-hidden': need ? null : 'true' }, need || '\u00a0'));
    }
    const pickable = ['build', 'help', 'discard'].includes(p.step) || (p.step === 'effect' && needsOf().includes('card')) || (p.step === 'choose' && p.options.kind === 'discard');
    // Only a point that waits for several seats keeps an order: it may be replaced until then.
    return { head, extra, buttons, hint, sent: !!st.hand.order && sameAsSent(r.body), cardOpts: (c) => { const o = cardState(c); return { ...o, disabled: !pickable || !!o.disabled }; } };
  }

  /** A hand card's face: a button that picks it, and shows its effect on hover and focus. */
  function handCard(c, o, fresh) {
    return techCard(c.id, c.card, { ...o, fresh, disabled: o.disabled || st.busy, onClick: () => clickHand(c.id), onInfo: () => board.showInfo(`h:${c.id}`) });
  }

  /** The payment rule in force (the options' `payment`) in a sentence; the cards that pay alone are marked once a card is picked. */
  function payRule(rule) {
    return rule === 'free' ? 'Building is free for you (two Technology companies).'
      : rule === 'one_any' ? 'Pay any one card (you control a Technology company), or any two cards.'
        : 'Pay one cheap card or any two cards: once you pick a card to build, the cards that pay on their own are marked.';
  }

  /** The wild card's name: each name in play with what it scores, the best one chosen first. */
  function wildSelect() {
    const names = wildNames();
    const same = (n) => !!sel.as && n.value === sel.as.value && n.domain === sel.as.domain;
    return h('label', { class: 'field wild-as' }, h('span', {}, 'The wild card scores as'),
      h('select', { id: 'wild-as', onchange: (e) => { const n = names[Number(e.target.value)]; sel.as = { value: n.value, domain: n.domain }; ctx.drawAction(); board.drawCity(); } },
        names.map((n, i) => h('option', { value: i, selected: same(n), 'data-score': n.score },
          `${n.value} of ${DOMAINS[n.domain]?.name ?? n.domain}: ${n.score} point${n.score === 1 ? '' : 's'}${n.best ? ' (scores most)' : ''}`))));
  }

  /** One line of the effect form: what is still needed, or what was picked. */
  function needLine(n, used) {
    const v = st.view;
    const pick = (t) => h('p', { class: `need-line ${sel[n] !== null ? 'done' : ''}`, 'data-need': n }, t);
    switch (n) {
      case 'card': return pick(sel.card !== null ? `Your card: ${design(slugOf(sel.card)).name}.` : 'Pick a card of your hand.');
      case 'take': return h('div', { class: 'need-line', 'data-need': 'take' }, h('p', {}, sel.take !== null ? 'The card to take from the discard pile:' : 'Pick a card of the discard pile to take:'),
        h('div', { class: 'chips', role: 'group', 'aria-label': 'Discard pile' }, [...v.discard].reverse().filter((c) => cardChoice('take').includes(c.id)).map((c) => h('button', {
          type: 'button', class: `chip-btn d-${design(c.card).domain}`, 'aria-pressed': sel.take === c.id ? 'true' : 'false', 'data-card-id': c.id,
          onclick: () => { sel.take = c.id; board.showInfo(`d:${c.id}`); ctx.drawAction(); },
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
          type: 'button', class: 'chip-btn', id: `victim-${s.seat}`, disabled: !cardChoice('victim').includes(s.seat), 'aria-pressed': sel.victim === s.seat ? 'true' : 'false',
          onclick: () => { sel.victim = s.seat; ctx.drawAction(); },
        }, seatDot(s.seat), ` ${nameOf(s.seat)} (${s.hand_count})`))));
      default: return null;
    }
  }

  return {
    top: [board.whose],
    main: [board.cityBox],
    sideBefore: [board.players],
    sideAfter: [board.pile],
    jump: [['City', () => board.cityBox, 'jump-city'], ['Scores', () => board.players, 'jump-players']],
    opening: ['Your hand', 'The game starts when every seat is taken.'],
    watching: 'You are watching this game. Hands stay secret; the city, the scores and the discard pile are public.',
    sorts: HAND_SORTS,
    sortHand: sortTechHand,
    ...markNewByPoint, // a card that came into the hand is new until the seat's next point after it resolves
    stepLabel: (v) => `Round ${v.round}/${ROUNDS} · ${STEP_TITLES[v.step] ?? v.step}`,
    pointText: (p) => `round ${p.round}, ${STEP_TITLES[p.step] ?? p.step}`,
    stats: (v) => [
      { label: 'Deck', value: v.deck_count },
      { label: 'Discards', value: v.discard.length },
      v.status === 'playing' ? { label: 'First', value: nameOf(v.first) } : null,
    ].filter(Boolean),
    forceText: (v, names) => `Resolve this decision now? ${names} will get the default.`,
    endLead: (v, names) => `${joinNames(names)} with ${(v.winners ?? []).length ? v.seats[v.winners[0]].score : 0} points after ${ROUNDS} rounds.`,
    rankExtra: (v, seat) => [h('span', { class: 'r-vp' }, `${v.seats[seat].score} pts`),
      h('span', { class: 'r-hand' }, `${v.seats[seat].companies} companies · ${v.seats[seat].hand_count} in hand`)],
    sync,
    action,
    actionSig: () => [st.view?.city, st.view?.discard, st.view?.revealed, st.view?.seats, sel, hint, suggested, divulge.size, warned],
    card: handCard,
    draw: board.draw,
    logLines: techLog,
  };
}
