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
import { t, tn } from '../../i18n.js';

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
        if (!b) hint = `${whyNotBuild(cid).long} ${t('Pick a card that is not dimmed.')}`;
        else {
          Object.assign(sel, { card: cid, pay: [...b.pay], as: b.as ?? null });
          requestAnimationFrame(() => board.bringIntoView()); // on a phone the cells to pick are below
        }
      } else if (sel.pay.includes(cid)) sel.pay = sel.pay.filter((x) => x !== cid);
      else if (!most) hint = t('Building it is free: nothing to pay.');
      else {
        sel.pay.push(cid);
        if (sel.pay.length > most) sel.pay.shift();
      }
    } else if (p.step === 'help') {
      sel.card = sel.card === cid ? null : cid;
    } else if (p.step === 'effect') {
      if (!needsOf().includes('card')) hint = sel.use ? t('This effect takes no card of your hand.') : t('First pick a highlighted card of the city.');
      else if (sel.card === cid || cardChoice('card').includes(cid)) sel.card = sel.card === cid ? null : cid;
      else hint = t('{name} cannot be given to this effect.', { name: design(slugOf(cid)).name });
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
      if (sel.card === null) { hint = t('Pick a card of your hand first; then the cells it may go to light up.'); ctx.drawAction(); return; }
      sel.x = x;
      sel.y = y;
    } else if (p.step === 'effect') {
      if (!c) return;
      const usingHere = sel.use && sel.use.x === x && sel.use.y === y;
      const needs = needsOf();
      // While the effect wants a cell, a click picks it (the used card itself may be one);
      // Cancel starts over.
      if (sel.use && needs.includes('target') && !sel.target && (!usingHere || targetOk(c, 'target'))) {
        if (!targetOk(c, 'target')) { hint = t('{name} cannot be the target of this effect.', { name: design(c.card).name }); ctx.drawAction(); return; }
        sel.target = { x, y };
      } else if (sel.use && needs.includes('to') && sel.target && !sel.to && (!usingHere || targetOk(c, 'to'))) {
        if (!targetOk(c, 'to')) { hint = t('{name} cannot be the second card of this effect.', { name: design(c.card).name }); ctx.drawAction(); return; }
        sel.to = { x, y };
      } else if (usingHere) {
        sel = emptySel();
      } else if (usable(c)) {
        const u = useAt(c);
        sel = emptySel();
        sel.use = { x, y };
        sel.free = u.free && !u.normal; // the free use when it is the only one open
      } else {
        hint = c.owner !== null && c.tilted ? t('{name} was used this round (tilted).', { name: design(c.card).name }) : t('{name} cannot be used now.', { name: design(c.card).name });
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
    const who = got.by === 'expert' ? t('The expert suggests') : t('Suggested');
    sel = emptySel();
    hint = '';
    suggested = '';
    let focus = '#confirm';
    if (g.pass) { suggested = 'pass'; focus = '#pass'; hint = t('{who}: pass.', { who }); } else if (p.step === 'build') {
      Object.assign(sel, { card: g.card, x: g.x, y: g.y, pay: [...(g.pay ?? [])], as: g.as ?? null });
    } else if (p.step === 'help') sel.card = g.card;
    else if (p.step === 'effect') {
      Object.assign(sel, { use: g.use, free: !!g.free, owner_first: !!g.owner_first, card: g.card ?? null, take: g.take ?? null, target: g.target ?? null, to: g.to ?? null, victim: g.victim ?? null });
      board.showInfo(`c:${g.use.x},${g.use.y}`);
    } else if (p.step === 'owner') { sel.draw = g.draw; suggested = g.draw ? 'draw' : 'no-draw'; focus = g.draw ? '#draw' : '#no-draw'; } else if (g.cards) sel.cards = [...g.cards];
    if (g.x !== undefined) board.scrollToCell(g.x, g.y);
    const why = whyText(got, sayOrder, (n) => tn(n, '{count} point', '{count} points'));
    if (why) hint = `${hint || `${who}: ${sayOrder(g)}.`} ${why}`;
    ctx.drawAction();
    board.drawCity();
    ctx.action.querySelector(`${focus}:not([disabled])`)?.focus();
  }

  /** Order body `g` of the pending point in a few words ("Data Atlas at 2, 1", "pass"). */
  function sayOrder(g) {
    const name = (cid) => design(slugOf(cid) ?? st.view?.revealed?.find((c) => c.id === cid)?.card).name;
    if (g.pass) return t('pass');
    if (g.use) { const c = cityAt(g.use.x, g.use.y); return `use ${c ? design(c.card).name : t('a card of the city')}`; }
    if (g.draw !== undefined) return g.draw ? t('draw, then discard') : t('do not draw');
    if (g.cards) return joinNames(g.cards.map(name));
    if (g.card !== undefined && g.x !== undefined) return t('{name} at {x}, {y}', { name: name(g.card), x: g.x, y: g.y });
    if (g.card !== undefined) return t('help with {name}', { name: name(g.card) });
    return t('another choice');
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
    const passBtn = (label = t('Pass')) => h('button', { type: 'button', class: `ghost ${suggested === 'pass' ? 'suggested' : ''}`, id: 'pass', 'data-focus-key': 'pass', disabled: st.busy, onclick: pass }, label);
    switch (p.step) {
      case 'build': {
        const d = sel.card !== null ? design(slugOf(sel.card)) : null;
        head.push(h('h2', { id: 'action-title' }, t('Round {n}: build', { n: p.round })),
          h('p', { class: 'slot' }, d ? (sel.x === null ? t('{name}: pick a highlighted cell of the city.', { name: d.name }) : t('{name} at {x}, {y}: build it there, or pick another cell.', { name: d.name, x: sel.x, y: sel.y }))
            : `${t('Pick a card to build, then a highlighted cell next to the city.')} ${payRule(p.options.payment)}`));
        if (d) {
          head.push(h('p', { class: 'counter', id: 'counter' }, d.domain === 'service'
            ? (sel.pay.length ? t('A service: you give 1 card; the others are asked to help.') : t('A service: you give no card; the others are asked to help.'))
            : tn(sel.pay.length, 'Paying {count} card. Press a card to pay with it or keep it.', 'Paying {count} cards. Press a card to pay with it or keep it.')));
          if (buildOf(sel.card)?.names) head.push(wildSelect());
          if (sel.x === null) head.push(h('p', { class: 'muted slot', id: 'cell-note' }, t('Each highlighted cell shows the points the card scores there.')));
          else {
            const k = (p.options.cells ?? []).findIndex((c) => c.x === sel.x && c.y === sel.y);
            const pts = rules.cellScore(k);
            if (pts !== null) head.push(h('p', { class: 'preview slot', id: 'preview', 'data-score': pts }, tn(pts, 'Built there it scores {count} point.', 'Built there it scores {count} points.')));
          }
        }
        buttons.push(confirmBtn(d ? (sel.pay.length ? t('Build {name} · pay {cost}', { name: d.name, cost: sel.pay.length }) : t('Build {name}', { name: d.name })) : t('Build')), passBtn());
        if (sel.card !== null) buttons.push(h('button', { type: 'button', class: 'ghost', id: 'cancel', onclick: () => { sel = emptySel(); ctx.drawAction(); board.drawCity(); } }, t('Cancel')));
        const alone = paysAloneMarks();
        cardState = (c) => {
          if (c.id === sel.card) return { state: 'build', badge: t('Build') };
          if (sel.pay.includes(c.id)) return { state: 'pay', badge: t('Pay') };
          if (sel.card !== null) return alone.has(c.id) ? { mark: t('pays alone'), label: t('Pays on its own') } : {};
          const b = buildOf(c.id);
          if (b) { // what it scores at best, before a cell is chosen (each cell shows its own once picked)
            const best = Math.max(0, ...(b.scores ?? []), ...(b.names ?? []).map((n) => n.score));
            return { mark: t('up to +{n}', { n: best }), label: tn(best, 'Scores up to {count} point built', 'Scores up to {count} points built') };
          }
          const why = whyNotBuild(c.id);
          return { dim: true, mark: why.short, label: t('Cannot be built now: {why}', { why: why.long }) };
        };
        break;
      }
      case 'help': {
        const d = design(p.options.card);
        head.push(h('h2', { id: 'action-title' }, t('Help build {name}?', { name: d.name })),
          h('p', {}, t('{builder} is building the service {name}. Discard one card to help: if at least two cards are given, one by another player, it is built and you score 1 point. If it fails, your card comes back.', { builder: nameOf(p.options.builder), name: d.name })));
        buttons.push(confirmBtn(sel.card !== null ? t('Help with {name}', { name: design(slugOf(sel.card)).name }) : t('Help')), passBtn(t('Do not help')));
        cardState = (c) => (c.id === sel.card ? { state: 'pay', badge: t('Give') } : {});
        break;
      }
      case 'effect': {
        const c = sel.use && cityAt(sel.use.x, sel.use.y);
        const d = c ? design(c.card) : null;
        const o = p.options;
        const u = usedOption();
        head.push(h('h2', { id: 'action-title' }, t('Round {n}: effects', { n: p.round })),
          h('p', {}, d ? `${d.name}: ${d.text}` : o.free && !o.normal ? t("Pick a highlighted card of the city to use its effect (your free Knowledge use), or pass; each shows the points using it scores. Using another player's company lets its owner draw a card.")
            : t("Pick a highlighted card of the city to use its effect, or pass; each shows the points using it scores. Using another player's company lets its owner draw a card.")));
        if (u) head.push(h('p', { class: 'preview', id: 'preview', 'data-score': u.score }, u.score ? tn(u.score, 'Using it scores {count} point.', 'Using it scores {count} points.') : t('Using it scores no points.')));
        if (u && u.free && u.normal) {
          head.push(h('label', { class: 'check' }, h('input', { type: 'checkbox', id: 'free', checked: sel.free, onchange: (e) => { sel.free = e.target.checked; ctx.drawAction(); } }),
            t(' Use it as your free Knowledge use')));
        }
        if (u && !sel.free && u.owner_first) {
          head.push(h('label', { class: 'check' }, h('input', { type: 'checkbox', id: 'owner-first', checked: sel.owner_first, onchange: (e) => { sel.owner_first = e.target.checked; ctx.drawAction(); } }),
            t(' Let {name} draw and discard first, then the effect', { name: nameOf(c.owner) })));
        }
        for (const n of c ? needsOf() : []) extra.push(needLine(n, c));
        const nothing = nothingFrom();
        const sure = !!nothing && !!r.body && warned === JSON.stringify(r.body);
        if (nothing) head.push(h('p', { class: `warn-line ${sure ? 'asked' : ''}`, id: 'nothing-note', role: sure ? 'alert' : null }, sure ? `${nothing} ${t('Press “Use it anyway” to use it all the same, or pass.')}` : nothing));
        buttons.push(confirmBtn(d ? (sure ? t('Use it anyway') : t('Use {name}', { name: d.name })) : t('Use')), passBtn());
        if (sel.use) buttons.push(h('button', { type: 'button', class: 'ghost', id: 'cancel', onclick: () => { sel = emptySel(); ctx.drawAction(); board.drawCity(); } }, t('Cancel')));
        cardState = (x) => (x.id === sel.card ? { state: 'pay', badge: t('Give') } : needsOf().includes('card') && !cardChoice('card').includes(x.id) ? { disabled: true } : {});
        break;
      }
      case 'owner': {
        const d = design(p.options.card);
        head.push(h('h2', { id: 'action-title' }, t('Your company was used')),
          h('p', {}, t('{name} used your {card}. You may draw a card, then you discard a card.', { name: nameOf(p.options.user), card: d.name })));
        buttons.push(h('button', { type: 'button', class: `primary ${suggested === 'draw' ? 'suggested' : ''}`, id: 'draw', 'data-focus-key': 'draw', disabled: st.busy, onclick: () => owner(true) }, t('Draw, then discard')),
          h('button', { type: 'button', class: `ghost ${suggested === 'no-draw' ? 'suggested' : ''}`, id: 'no-draw', 'data-focus-key': 'no-draw', disabled: st.busy, onclick: () => owner(false) }, t('No, thanks')));
        break;
      }
      case 'choose':
      case 'discard': {
        const need = p.options.count;
        const revealed = p.step === 'choose' && p.options.kind === 'take_revealed';
        const card = v.effect ? design(v.effect.card).name : null;
        head.push(h('h2', { id: 'action-title' }, revealed ? t('Take one revealed card') : p.step === 'discard' ? t('Hand limit: discard {need}', { need }) : t('Discard {need}', { need })),
          h('p', {}, revealed ? t('{card} revealed these; the others go back on the deck in order.', { card: card ?? t('The effect') })
            : p.step === 'discard' ? t('You hold {n} cards; keep {keep}.', { n: my.length, keep: my.length - need })
              : `${card ? `${card}: ` : ''}${tn(need, 'choose {count} card of your hand to discard.', 'choose {count} cards of your hand to discard.')}`),
          h('p', { class: 'counter', id: 'counter' }, t('{n} of {need} chosen', { n: sel.cards.length, need })));
        if (revealed) {
          extra.push(h('div', { class: 'hand revealed', id: 'revealed', role: 'group', 'aria-label': t('Revealed cards') },
            (v.revealed ?? []).map((c) => techCard(c.id, c.card, {
              state: sel.cards.includes(c.id) ? 'pay' : '', badge: sel.cards.includes(c.id) ? t('Take') : null,
              onClick: () => { sel.cards = [c.id]; ctx.drawAction(); }, onInfo: () => board.showInfo(`d:${c.id}`),
            }))));
        } else cardState = (c) => (sel.cards.includes(c.id) ? { state: 'discard', badge: t('Discard') } : {});
        buttons.push(confirmBtn(revealed ? t('Take it') : t('Discard {need}', { need })));
        break;
      }
      default: head.push(h('h2', { id: 'action-title' }, t('Your move: {what}', { what: p.step })));
    }
    if (divulge.size) head.push(h('p', { class: 'muted', id: 'divulge-note' }, tn(divulge.size, 'You will show {count} card of your hand to everyone with this choice.', 'You will show {count} cards of your hand to everyone with this choice.')));
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
    return rule === 'free' ? t('Building is free for you (two Technology companies).')
      : rule === 'one_any' ? t('Pay any one card (you control a Technology company), or any two cards.')
        : t('Pay one cheap card or any two cards: once you pick a card to build, the cards that pay on their own are marked.');
  }

  /** The wild card's name: each name in play with what it scores, the best one chosen first. */
  function wildSelect() {
    const names = wildNames();
    const same = (n) => !!sel.as && n.value === sel.as.value && n.domain === sel.as.domain;
    return h('label', { class: 'field wild-as' }, h('span', {}, t('The wild card scores as')),
      h('select', { id: 'wild-as', onchange: (e) => { const n = names[Number(e.target.value)]; sel.as = { value: n.value, domain: n.domain }; ctx.drawAction(); board.drawCity(); } },
        names.map((n, i) => h('option', { value: i, selected: same(n), 'data-score': n.score },
          `${t('{value} of {domain}', { value: n.value, domain: DOMAINS[n.domain]?.name ?? n.domain })}: ${tn(n.score, '{count} point', '{count} points')}${n.best ? t(' (scores most)') : ''}`))));
  }

  /** One line of the effect form: what is still needed, or what was picked. */
  function needLine(n, used) {
    const v = st.view;
    const pick = (t) => h('p', { class: `need-line ${sel[n] !== null ? 'done' : ''}`, 'data-need': n }, t);
    switch (n) {
      case 'card': return pick(sel.card !== null ? t('Your card: {name}.', { name: design(slugOf(sel.card)).name }) : t('Pick a card of your hand.'));
      case 'take': return h('div', { class: 'need-line', 'data-need': 'take' }, h('p', {}, sel.take !== null ? t('The card to take from the discard pile:') : t('Pick a card of the discard pile to take:')),
        h('div', { class: 'chips', role: 'group', 'aria-label': t('Discard pile') }, [...v.discard].reverse().filter((c) => cardChoice('take').includes(c.id)).map((c) => h('button', {
          type: 'button', class: `chip-btn d-${design(c.card).domain}`, 'aria-pressed': sel.take === c.id ? 'true' : 'false', 'data-card-id': c.id,
          onclick: () => { sel.take = c.id; board.showInfo(`d:${c.id}`); ctx.drawAction(); },
        }, cardLabel(c.card)))));
      case 'target': {
        const cell = sel.target && cityAt(sel.target.x, sel.target.y);
        return pick(cell ? t('Target: {name}.', { name: design(cell.card).name }) : t('Pick the city card {name} acts on (marked in the city).', { name: design(used.card).name }));
      }
      case 'to': {
        const cell = sel.to && cityAt(sel.to.x, sel.to.y);
        return pick(cell ? t('Second card: {name}.', { name: design(cell.card).name }) : sel.target ? t('Pick the second city card.') : t('Then pick the second city card.'));
      }
      case 'victim': return h('div', { class: 'need-line', 'data-need': 'victim' }, h('p', {}, t('Take a random card from:')),
        h('div', { class: 'chips', role: 'group', 'aria-label': t('Players') }, v.seats.filter((s) => s.seat !== me()).map((s) => h('button', {
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
    jump: [[t('City'), () => board.cityBox, 'jump-city'], [t('Scores'), () => board.players, 'jump-players']],
    opening: [t('Your hand'), t('The game starts when every seat is taken.')],
    watching: t('You are watching this game. Hands stay secret; the city, the scores and the discard pile are public.'),
    sorts: HAND_SORTS,
    sortHand: sortTechHand,
    ...markNewByPoint, // a card that came into the hand is new until the seat's next point after it resolves
    stepLabel: (v) => t('Round {n}/{rounds} · {step}', { n: v.round, rounds: ROUNDS, step: STEP_TITLES[v.step] ?? v.step }),
    pointText: (p) => t('round {n}, {step}', { n: p.round, step: STEP_TITLES[p.step] ?? p.step }),
    stats: (v) => [
      { label: t('Deck'), value: v.deck_count },
      { label: t('Discards'), value: v.discard.length },
      v.status === 'playing' ? { label: t('First'), value: nameOf(v.first) } : null,
    ].filter(Boolean),
    forceText: (v, names) => t('Resolve this decision now? {who} will get the default.', { who: names }),
    endLead: (v, names) => t('{names} with {n} points after {rounds} rounds.', { names: joinNames(names), n: (v.winners ?? []).length ? v.seats[v.winners[0]].score : 0, rounds: ROUNDS }),
    rankExtra: (v, seat) => [h('span', { class: 'r-vp' }, t('{n} pts', { n: v.seats[seat].score })),
      h('span', { class: 'r-hand' }, t('{companies} companies · {n} in hand', { companies: v.seats[seat].companies, n: v.seats[seat].hand_count }))],
    sync,
    action,
    actionSig: () => [st.view?.city, st.view?.discard, st.view?.revealed, st.view?.seats, sel, hint, suggested, divulge.size, warned],
    card: handCard,
    draw: board.draw,
    logLines: techLog,
  };
}
