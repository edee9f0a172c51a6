// tech_city/choice.js: what a choice of Tech City's table needs, as the page works it out for
// itself: the automatic payment of a build and why a payment is not enough (the payment rules and
// CHEAP), which city cards an effect may use and aim at, and the order the controls describe. The
// page's own copy of these rules, kept here apart so that it goes once the server sends every
// legal option of a pending decision.

import { design, CHEAP, NEEDS } from './data.js';

/**
 * The rules over the table's state: `ctx` is the shell's context (web/table.js), selOf() gives
 * the table's selection now. Returns {emptySel, hand, slugOf, cityAt, autoPay, payProblem,
 * ownerCell, needsOf, usedCard, usable, targetOk, orderBody, sameAsSent}.
 */
export function choiceRules(ctx, selOf) {
  const { st } = ctx;
  const pending = () => ctx.pending();
  const me = () => ctx.me();
  const hand = () => st.hand?.hand ?? [];
  const slugOf = (cid) => hand().find((c) => c.id === cid)?.card ?? null;
  const cityAt = (x, y) => st.view?.city.find((c) => c.x === x && c.y === y) ?? null;

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
    const sel = selOf();
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
  const needsOf = () => NEEDS[primAt(usedCard())] ?? [];
  /** The city card whose effect the selection uses, or null. */
  function usedCard() {
    const { use } = selOf();
    return use ? cityAt(use.x, use.y) : null;
  }

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
  function targetOk(c, which, used = usedCard()) {
    const sel = selOf();
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
    const sel = selOf();
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


  /** True when the order the controls describe is the one already sent (nothing would change). */
  function sameAsSent(body) {
    const norm = (o) => JSON.stringify(Object.keys(o ?? {}).filter((k) => !['round', 'step', 'turn'].includes(k)).sort()
      .map((k) => [k, Array.isArray(o[k]) ? [...o[k]].sort((a, b) => a - b) : o[k]]));
    return !!body && norm(body) === norm(st.hand.order);
  }

  return { emptySel, hand, slugOf, cityAt, autoPay, payProblem, ownerCell, needsOf, usedCard, usable, targetOk, orderBody, sameAsSent };
}

/** A selection with nothing chosen. */
export function emptySel() {
  return { card: null, x: null, y: null, pay: [], as: null, use: null, free: false, owner_first: false, take: null, target: null, to: null, victim: null, cards: [], draw: null };
}
