// tech_city/choice.js: what a choice of Tech City's table may be, read from the server's legal
// options of the pending decision (pending.options, docs/tech_city.md "Your options"): which
// hand cards can be built and why not, which payments are taken, what a build scores in each
// open cell, which city cards' effects can be used, with which choices and for what score, and
// the order the controls describe. The page presents these options; it works out no rule.

import { design } from './data.js';
import { t, tn } from '../../i18n.js';

/** The choices an effect may take, in the order the panel asks for them. */
const CHOICE_ORDER = ['card', 'take', 'target', 'to', 'victim'];

/** Sentences for a build's refusal code (pending.options.unbuildable[].reason). */
const UNBUILDABLE = {
  bad_payment: [t('cannot be paid'), t('no payment your hand allows builds it')],
  not_adjacent: [t('no open cell'), t('there is no open cell to build it in')],
};

/**
 * The options over the table's state: `ctx` is the shell's context (web/table.js), selOf() gives
 * the table's selection now. Returns {hand, slugOf, cityAt, buildOf, unbuildableOf, whyNotBuild,
 * payOk, payProblem, paysAloneMarks, cellScore, wildNames, useAt, usedOption, needsOf, usable,
 * targetOk, cardChoice, nothingFrom, orderBody, sameAsSent}.
 */
export function choiceRules(ctx, selOf) {
  const { st } = ctx;
  const pending = () => ctx.pending();
  const opts = () => pending()?.options ?? {};
  const hand = () => st.hand?.hand ?? [];
  const slugOf = (cid) => hand().find((c) => c.id === cid)?.card ?? null;
  const cityAt = (x, y) => st.view?.city.find((c) => c.x === x && c.y === y) ?? null;
  const sameCell = (a, b) => !!a && !!b && a.x === b.x && a.y === b.y;
  const sameName = (a, b) => !!a && !!b && a.value === b.value && a.domain === b.domain;
  const count = (n) => (n === 0 ? t('nothing') : n === 1 ? t('one card') : t('{n} cards', { n }));

  // ---- build ---------------------------------------------------------------------------------
  /** The build option of hand card `cid` ({pay_counts, pays_alone, pay, scores, as, names}), or null. */
  const buildOf = (cid) => (pending()?.step === 'build' ? opts().builds?.find((b) => b.id === cid) ?? null : null);
  /** The server's refusal of hand card `cid` as a build ({reason}), or null. */
  const unbuildableOf = (cid) => (pending()?.step === 'build' ? opts().unbuildable?.find((u) => u.id === cid) ?? null : null);

  /** Why hand card `cid` cannot be built: {short, long}, from the server's reason code. */
  function whyNotBuild(cid) {
    const u = unbuildableOf(cid);
    const code = String(u?.reason ?? 'not_buildable');
    const [short, long] = UNBUILDABLE[code] ?? [code.replaceAll('_', ' '), t('it cannot be built now ({code})', { code: code.replaceAll('_', ' ') })];
    return { short, long: `${design(slugOf(cid)).name}: ${long}.` };
  }

  /** True when `pay` (hand card ids) is a payment the build option `b` takes. */
  function payOk(b, pay) {
    if (!b.pay_counts.includes(pay.length)) return false;
    return pay.length !== 1 || b.pays_alone.includes(pay[0]);
  }

  /** Why the payment chosen is not taken (null when it is), in the words of the build's option. */
  function payProblem() {
    const sel = selOf();
    const b = buildOf(sel.card);
    if (!b) return t('Pick a card of your hand to build.');
    if (payOk(b, sel.pay)) return null;
    const counts = b.pay_counts;
    if (counts.length === 1 && counts[0] === 0) return t('Building it is free: pay nothing.');
    if (sel.pay.length === 1 && counts.includes(1)) {
      const name = design(slugOf(sel.pay[0])).name;
      return counts.includes(2) ? t('{name} cannot pay on its own: pay with a card marked “pays alone”, or with two cards.', { name })
        : t('{name} cannot pay on its own: pay with a card marked “pays alone”.', { name });
    }
    return t('Pay {what}.', { what: counts.map(count).join(t(' or ')) });
  }

  /**
   * The hand cards to mark "pays alone" while building the card chosen: those that pay on their
   * own when not every other card does (else the mark tells nothing).
   */
  function paysAloneMarks() {
    const sel = selOf();
    const b = buildOf(sel.card);
    if (!b || !b.pay_counts.includes(1)) return new Set();
    const others = hand().filter((c) => c.id !== sel.card).length;
    return b.pays_alone.length < others ? new Set(b.pays_alone) : new Set();
  }

  /**
   * What the card chosen scores built in open cell `k` (pending.options.cells[k]): the option's
   * scores[k]; a wild card named otherwise than the option's `as` scores that name's score, plus
   * 1 in a cell `near` two of the seat's companies. Null without a build option.
   */
  function cellScore(k) {
    const sel = selOf();
    const b = buildOf(sel.card);
    if (!b) return null;
    if (!b.as || !sel.as || sameName(sel.as, b.as)) return b.scores[k] ?? null;
    const n = (b.names ?? []).find((x) => sameName(x, sel.as));
    return n ? n.score + (opts().cells?.[k]?.near ? 1 : 0) : null;
  }

  /** The names a wild card being built may take, each {value, domain, score}, the one scoring most first-marked as `best`. */
  function wildNames() {
    const b = buildOf(selOf().card);
    return (b?.names ?? []).map((n) => ({ ...n, best: sameName(n, b.as) }));
  }

  // ---- effects -------------------------------------------------------------------------------
  /** The use option of the city card at {x, y} ({normal, free, owner_first, score, choices}), or null. */
  const useAt = (cell) => (pending()?.step === 'effect' && cell ? opts().uses?.find((u) => sameCell(u, cell)) ?? null : null);
  /** The use option the selection chose, or null. */
  const usedOption = () => useAt(selOf().use);
  /** The choices the chosen use takes, in the order they are asked. */
  function needsOf() {
    const ch = usedOption()?.choices ?? {};
    return [...CHOICE_ORDER.filter((k) => k in ch), ...Object.keys(ch).filter((k) => !CHOICE_ORDER.includes(k))];
  }
  /** Can this seat use city card `c` in the effect step (some legal order names it)? */
  const usable = (c) => !!useAt(c);

  /** May city card `c` be the `which` ('target' or 'to') of the chosen use? Two cells differ. */
  function targetOk(c, which) {
    const sel = selOf();
    const cells = usedOption()?.choices?.[which] ?? [];
    if (!c || !cells.some((x) => sameCell(x, c))) return false;
    return !sameCell(which === 'to' ? sel.target : sel.to, c);
  }

  /** The legal values of choice `which` ('card', 'take', 'victim') of the chosen use ([] when none). */
  const cardChoice = (which) => usedOption()?.choices?.[which] ?? [];

  /**
   * Why the use chosen would do nothing, in a sentence, or null: an effect that draws cards and
   * then discards as many with an empty hand (Cloud Vault) ends with the hand as it was, and a
   * scoring effect whose option scores 0 has its condition unmet.
   */
  function nothingFrom() {
    const u = usedOption();
    const c = u && cityAt(u.x, u.y);
    if (!c) return null;
    const d = design(c.card);
    const e = d.effect ?? {}; // the catalog's: {primitive, n, then_discard, points, ...}
    if (e.primitive === 'draw' && e.n && e.then_discard === e.n && !hand().length) {
      return e.n === 1 ? t('{name} does nothing now: you draw {what} and then discard it, as your hand is empty, and it scores no points.', { name: d.name, what: count(e.n) })
        : t('{name} does nothing now: you draw {what} and then discard them, as your hand is empty, and it scores no points.', { name: d.name, what: count(e.n) });
    }
    if (e.primitive === 'score' && !u.score) return t('{name} does nothing now: its condition is not met, so it scores no points.', { name: d.name });
    return null;
  }

  /** The order the controls describe, or null with `hint` saying what is missing. */
  function orderBody() {
    const sel = selOf();
    const p = pending();
    const pos = { round: p.round, step: p.step, turn: p.turn };
    switch (p.step) {
      case 'build': {
        if (sel.card === null) return { why: t('Pick a card of your hand to build.') };
        if (sel.x === null) return { why: t('Pick a highlighted cell of the city.') };
        const bad = payProblem();
        if (bad) return { why: bad };
        const body = { ...pos, card: sel.card, x: sel.x, y: sel.y, pay: [...sel.pay] };
        if (buildOf(sel.card)?.names) {
          if (!sel.as) return { why: t('Name the card in play the wild card scores as.') };
          body.as = sel.as;
        }
        return { body };
      }
      case 'help':
        return sel.card === null ? { why: t('Pick a card to give, or pass.') } : { body: { ...pos, card: sel.card } };
      case 'effect': {
        const u = usedOption();
        if (!u) return { why: t('Pick a highlighted card of the city to use its effect, or pass.') };
        const body = { ...pos, use: { ...sel.use } };
        if (sel.free) body.free = true;
        if (sel.owner_first && !sel.free && u.owner_first) body.owner_first = true;
        for (const n of needsOf()) {
          if (sel[n] === null) return { why: { card: t('Pick a card of your hand for the effect.'), take: t('Pick a card of the discard pile.'), target: t('Pick the city card the effect acts on.'), to: t('Pick the second city card.'), victim: t('Pick the player to take a card from.') }[n] ?? t('Choose the {what}.', { what: n }) };
          body[n] = typeof sel[n] === 'object' ? { ...sel[n] } : sel[n];
        }
        return { body };
      }
      case 'owner':
        return sel.draw === null ? { why: t('Draw a card or not?') } : { body: { ...pos, draw: sel.draw } };
      case 'choose':
      case 'discard': {
        const need = p.options.count;
        return sel.cards.length === need ? { body: { ...pos, cards: [...sel.cards] } } : { why: tn(need, 'Pick {count} card ({n} chosen).', 'Pick {count} cards ({n} chosen).', { n: sel.cards.length }) };
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

  return {
    hand, slugOf, cityAt, buildOf, unbuildableOf, whyNotBuild, payOk, payProblem, paysAloneMarks, cellScore, wildNames,
    useAt, usedOption, needsOf, usable, targetOk, cardChoice, nothingFrom, orderBody, sameAsSent,
  };
}

/** A selection with nothing chosen. */
export function emptySel() {
  return { card: null, x: null, y: null, pay: [], as: null, use: null, free: false, owner_first: false, take: null, target: null, to: null, victim: null, cards: [], draw: null };
}
