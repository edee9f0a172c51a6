// the_city/table.js: The City's part of the table (web/table.js is the shell around it): your
// move (build with a pre-selected payment, contractor, Construction Gang's double build, survey,
// and the keep / survey / hand_limit discards), Suggest filling it in, what the game chose for a
// seat that had not chosen, everyone's tableau and score, the score chart, the bar's figures and
// the end screen's lines. What can be built, at what cost, with which payment suggested, what it
// would score and why a card cannot be built all come from the server's legal options
// (pending.options, docs/rules.md "Your options"): the page presents them and checks no rule.

import { h, replace } from '../../dom.js';
import { seatDot, joinNames } from '../../ui.js';
import { botMark, isClosed, presenceMark, bankMark } from '../../seats.js';
import { card, cardButton, tableauChip, loadCatalog, unbuildableWords, previewWords, HAND_SORTS, sortHand } from './cards.js';
import { showCardInfo, closeCardInfo, infoButton } from './cardinfo.js';
import { scoreChart } from './chart.js';
import { logEntries } from './log.js';
import { whyText } from '../../hints.js';
import { t, tn } from '../../i18n.js';

const STEP_NAMES = { keep: t('keep'), build: t('build'), survey: t('survey'), hand_limit: t('hand limit'), over: t('game over') };
const ENDED_BY = {
  target: (v) => t('a player reached the target of {n} VP', { n: v.target_vp }),
  deck: () => t("the deck could not pay everyone's income"),
  rounds: () => t('the round limit was reached'),
};

/** Loads what The City's table draws with (the card catalog); resolves to its factory. */
/**
 * The key of The City's "new" marks (web/table.js freshKey): a card drawn is new until the next
 * step. It comes from the hand's own point `p` when there is one, else from the view `v`: the view
 * and the hand are read side by side, and a view a step behind its hand would mark the drawn
 * cards at the old step and clear them at the next sight.
 */
export function freshKey(v, p) {
  return p ? `${p.round}-${p.step}` : `${v.round}-${v.step}`;
}

export async function load() {
  await loadCatalog().catch(() => null);
  return cityTable;
}

/** The City's part of the table for the shell's context `ctx` (see web/table.js). */
function cityTable(ctx) {
  const { st } = ctx;
  let sel = emptySel();
  let hint = '';
  let suggested = null; // the suggestion the selection shows (Suggest was pressed), else null
  let stepSaid = null; // the step whose "whose turn" line was said last
  const players = h('section', { class: 'players', id: 'players', 'aria-label': t('Players') });
  const chartBox = h('section', { class: 'panel chart-box', id: 'chart', 'aria-labelledby': 'chart-title' });

  // mode: 'one' (a build), 'two' (Construction Gang's double), or 'survey' / 'contractor'; every
  // choice is made the same way: picked (the panel says what it brings), then confirmed.
  function emptySel() { return { mode: 'one', b1: null, b2: null, pay: [], discard: [] }; }

  /** Picks survey or contractor (`mode`) as the choice to confirm; a build picked before goes. */
  function pickQuick(mode) {
    if (st.busy) return;
    sel = { ...emptySel(), mode };
    hint = '';
    st.refused = '';
    suggested = null;
    ctx.drawAction();
    ctx.action.querySelector('#confirm:not([disabled])')?.focus();
  }

  /** Resets the selection at a new point (or when a card chosen left the hand); a submitted order shows as chosen. */
  function sync(p, changed) {
    const ids = new Set((st.hand?.hand ?? []).map((c) => c.id));
    const stale = [sel.b1, sel.b2, ...sel.pay, ...sel.discard].some((x) => x !== null && !ids.has(x));
    if (!changed && !stale) return;
    suggested = null;
    sel = emptySel();
    hint = '';
    const o = st.hand?.order;
    if (p && o) {
      if (o.discard) sel.discard = [...o.discard];
      else if (o.survey || o.contractor) sel.mode = o.survey ? 'survey' : 'contractor';
      else if (o.build) Object.assign(sel, { b1: o.build.card, pay: [...o.build.pay] });
      else if (o.builds) Object.assign(sel, { mode: 'two', b1: o.builds[0].card, b2: o.builds[1].card, pay: [...o.builds[0].pay, ...o.builds[1].pay] });
    }
  }

  /** True when the selection is exactly the order already submitted (nothing would change). */
  function selIsOrder(o) {
    const s = sel;
    const same = (a, b) => a.length === b.length && a.every((x) => b.includes(x));
    if (o?.discard) return same(s.discard, o.discard);
    if (o?.survey) return s.mode === 'survey';
    if (o?.contractor) return s.mode === 'contractor';
    if (o?.build) return s.mode === 'one' && s.b1 === o.build.card && same(s.pay, o.build.pay);
    if (o?.builds) return s.mode === 'two' && s.b1 === o.builds[0].card && s.b2 === o.builds[1].card && same(s.pay, [...o.builds[0].pay, ...o.builds[1].pay]);
    return false;
  }

  const handSlug = (cid) => st.hand?.hand.find((c) => c.id === cid)?.card;
  // The legal options of the build step, as the server lists them.
  const opts = () => ctx.pending()?.options ?? {};
  const buildOf = (cid) => opts().builds?.find((b) => b.id === cid) ?? null;
  const buildCost = (cid) => buildOf(cid)?.cost ?? null;
  const unbuildableOf = (cid) => opts().unbuildable?.find((u) => u.id === cid) ?? null;
  /** The double builds whose first card is `first`. */
  const pairsFrom = (first) => (opts().doubles ?? []).filter((d) => d.builds[0].id === first);
  const pairOf = (first, second) => pairsFrom(first).find((d) => d.builds[1].id === second) ?? null;

  /** The effective costs of the double build chosen: c1 of the first card, c2 of the second (null until chosen). */
  function doubleCosts() {
    const c1 = sel.b1 !== null ? pairsFrom(sel.b1)[0]?.builds[0].cost ?? null : null;
    const c2 = sel.b2 !== null ? pairOf(sel.b1, sel.b2)?.builds[1].cost ?? null : null;
    return { c1, c2 };
  }

  /** What building `x` (a build or a double of the options) brings this round: {vp, income}. */
  const gain = (x) => ({ vp: x.vp, income: x.income });
  /** The best of the double builds `pairs` (highest VP, then income): {vp, income, upTo}. */
  function bestOf(pairs) {
    const best = pairs.reduce((a, d) => (!a || d.vp > a.vp || (d.vp === a.vp && d.income > a.income) ? d : a), null);
    return best ? { ...gain(best), upTo: pairs.length > 1 } : null;
  }

  /** What clicking hand card `cid` does in the current step. */
  function clickCard(cid) {
    const p = ctx.pending();
    if (!p || st.busy) return;
    const s = sel;
    hint = '';
    st.refused = '';
    suggested = null;
    if (s.mode === 'survey' || s.mode === 'contractor') Object.assign(s, emptySel()); // a card: back to building
    if (p.step !== 'build') {
      const need = p.options.discard;
      if (s.discard.includes(cid)) s.discard = s.discard.filter((x) => x !== cid);
      else {
        s.discard.push(cid);
        if (s.discard.length > need) s.discard.shift();
      }
    } else if (s.mode === 'one') {
      // A build's payment starts as the server's suggestion (pay); any `cost` other cards pay.
      const b = buildOf(cid);
      if (s.b1 === cid) { s.b1 = null; s.pay = []; } else if (s.b1 === null) {
        if (!b) hint = whyNot(cid);
        else { s.b1 = cid; s.pay = [...b.pay]; }
      } else if (s.pay.includes(cid)) {
        s.pay = s.pay.filter((x) => x !== cid);
      } else {
        const need = buildCost(s.b1) ?? 0;
        if (s.pay.length < need) s.pay.push(cid);
        else if (b) { s.b1 = cid; s.pay = [...b.pay]; } else if (need > 0) { s.pay.shift(); s.pay.push(cid); }
      }
    } else {
      if (cid === s.b1) { s.b1 = null; s.b2 = null; s.pay = []; } else if (cid === s.b2) { s.b2 = null; s.pay = []; } else if (s.b1 === null) {
        if (!pairsFrom(cid).length) hint = whyNotDouble(cid, true);
        else s.b1 = cid;
      } else if (s.b2 === null) {
        const d = pairOf(s.b1, cid);
        if (!d) hint = whyNotDouble(cid, false);
        else {
          s.b2 = cid;
          s.pay = [...d.builds[0].pay, ...d.builds[1].pay];
        }
      } else if (s.pay.includes(cid)) {
        s.pay = s.pay.filter((x) => x !== cid);
      } else {
        const { c1, c2 } = doubleCosts();
        s.pay.push(cid);
        if (s.pay.length > c1 + c2) s.pay.shift();
      }
    }
    ctx.drawAction();
  }

  /** Why hand card `cid` cannot be built, in the server's words (its unbuildable entry). */
  function whyNot(cid) {
    const u = unbuildableOf(cid);
    return u ? unbuildableWords(u).long : t('{name} cannot be built now.', { name: card(handSlug(cid)).name });
  }

  /** Why hand card `cid` cannot be the first (or, after the first chosen, the second) of two builds. */
  function whyNotDouble(cid, first) {
    const name = card(handSlug(cid)).name;
    if (first) return unbuildableOf(cid) ? t('No double build open to you starts with {name}: {why}', { name, why: unbuildableWords(unbuildableOf(cid)).long })
      : t('No double build open to you starts with {name}.', { name });
    return t('{name} cannot be built after {first}: pick a highlighted card.', { name, first: card(handSlug(sel.b1)).name });
  }

  /**
   * Suggest: asks the expert (a few hints a game; the quick greedy suggestion, pending.suggestion,
   * once they are used up or the server stays busy) and, if the point is still pending when the
   * answer comes, puts it into the selection: the build and its payment, the two builds, or the
   * discards are pre-selected and focus goes to Confirm; a survey or a contractor is pointed at.
   * The player still confirms.
   */
  async function suggest() {
    const p = ctx.pending();
    if (!p || st.busy) return;
    const got = await ctx.hints.ask(p);
    if (!ctx.alive() || !ctx.samePoint(p, ctx.pending())) return; // the game moved on while the expert thought
    const g = got?.suggestion ?? null;
    if (g && g.round !== undefined && !ctx.samePoint({ round: g.round, step: g.step, turn: g.turn ?? p.turn }, p)) return;
    applySuggestion(g, got?.by, g ? whyText(got, describeOrder, (n) => t('{n} VP', { n })) : '');
  }

  /** Puts suggestion `g` (by 'expert' or 'quick') into the selection; `why` (whyText()) is shown with it. */
  function applySuggestion(g, by, why = '') {
    const p = ctx.pending();
    const who = by === 'expert' ? t('The expert suggests') : t('Suggested');
    hint = '';
    st.refused = '';
    suggested = g ?? {};
    let focus = '#confirm';
    if (p.step !== 'build' && g?.discard) {
      sel.discard = [...g.discard];
    } else if (g?.build) {
      sel = { ...emptySel(), b1: g.build.card, pay: [...g.build.pay] };
    } else if (g?.builds?.length === 2) {
      sel = { ...emptySel(), mode: 'two', b1: g.builds[0].card, b2: g.builds[1].card, pay: [...g.builds[0].pay, ...g.builds[1].pay] };
    } else if (g?.survey || g?.contractor) {
      sel = { ...emptySel(), mode: g.survey ? 'survey' : 'contractor' };
      hint = g.survey ? t('{who}: survey (draw and keep one card more). Confirm to do it.', { who })
        : t('{who}: take a General Contractor. Confirm to do it.', { who });
    } else {
      hint = t('No suggestion for this step.');
      focus = '#suggest';
    }
    if (why) hint = `${hint || `${who}: ${describeOrder(g)}.`} ${why}`;
    ctx.drawAction();
    ctx.action.querySelector(`${focus}:not([disabled])`)?.focus();
  }

  const suggestButton = () => ctx.hints.button({ onclick: suggest, disabled: st.busy });

  function send(body) {
    const p = ctx.pending();
    if (p) ctx.send({ round: p.round, step: p.step, ...body });
  }

  function confirm() {
    const p = ctx.pending();
    const s = sel;
    if (!p) return;
    if (p.step !== 'build') return send({ discard: [...s.discard] });
    if (s.mode === 'survey') return send({ survey: true });
    if (s.mode === 'contractor') return send({ contractor: true });
    if (s.mode === 'one') return send({ build: { card: s.b1, pay: [...s.pay] } });
    const { c1 } = doubleCosts();
    return send({ builds: [{ card: s.b1, pay: s.pay.slice(0, c1) }, { card: s.b2, pay: s.pay.slice(c1) }] });
  }

  // ---- the action panel: what pending point `p` asks ----------------------------------------
  function action(p) {
    return p.step === 'build' ? buildAction(p) : discardAction(p);
  }

  function discardAction(p) {
    const s = sel;
    const need = p.options.discard;
    const n = st.hand.hand.length;
    const titles = {
      keep: [t('Keep {keep} of your {n} cards', { keep: n - need, n }), t('Choose {need} cards to discard, then confirm.', { need })],
      survey: [tn(need, 'Survey: discard {count} card', 'Survey: discard {count} cards'), t('You drew {drew}. Discard {need} from your whole hand: you keep one card more than before.', { drew: need + 1, need })],
      hand_limit: [tn(need, 'Hand limit: discard {count} card', 'Hand limit: discard {count} cards'), t('You hold {n} cards; keep 12.', { n })],
    }[p.step] ?? [t('Discard {need}', { need }), t('Choose {need} cards to discard.', { need })];
    return finish({
      need: String(need),
      head: [h('h2', { id: 'action-title' }, titles[0]), h('p', {}, titles[1]),
        h('p', { class: 'counter', id: 'counter' }, t('{n} of {need} chosen', { n: s.discard.length, need }))],
      buttons: [
        h('button', { type: 'button', class: 'primary', id: 'confirm', 'data-focus-key': 'confirm', disabled: s.discard.length !== need || st.busy, onclick: confirm },
          tn(need, 'Discard {count} card', 'Discard {count} cards')),
        suggestButton(),
        s.discard.length ? h('button', { type: 'button', class: 'ghost', id: 'clear', 'data-focus-key': 'clear', onclick: () => { s.discard = []; ctx.drawAction(); } }, t('Clear')) : null],
      cardOpts: (c) => ({
        state: s.discard.includes(c.id) ? 'discard' : '',
        badge: s.discard.includes(c.id) ? t('Discard') : null,
        label: s.discard.includes(c.id) ? t('Chosen to discard') : t('Press to discard'),
      }),
    });
  }

  function buildAction(p) {
    const s = sel;
    const o = p.options;
    const head = [];
    const buttons = [];
    let cardOpts;
    const cancel = (label) => h('button', { type: 'button', class: 'ghost', id: 'cancel', 'data-focus-key': 'cancel', onclick: () => { sel = emptySel(); ctx.drawAction(); } }, label);
    if (s.mode === 'survey' || s.mode === 'contractor') {
      const survey = s.mode === 'survey';
      const x = survey ? o.survey_score : o.contractor_score;
      head.push(h('h2', { id: 'action-title' }, survey ? t('Survey') : t('Take a General Contractor')),
        h('p', {}, survey ? t('You build nothing this round: draw 5 cards, then discard 4 of your whole hand, so you end with one card more.')
          : t('Free, once a game: it scores nothing but draws you 1 card every round.')),
        x ? h('p', { class: 'preview', id: 'preview', 'data-vp': x.vp, 'data-income': x.income }, tn(x.income, 'With it your tableau scores {vp} VP this round and draws {count} card of income.', 'With it your tableau scores {vp} VP this round and draws {count} cards of income.', { vp: x.vp })) : null);
      buttons.push(h('button', { type: 'button', class: 'primary', id: 'confirm', 'data-focus-key': 'confirm', disabled: st.busy, onclick: confirm },
        survey ? t('Survey: draw 5, keep 1 more') : t('Take a General Contractor')), cancel(t('Back to building')));
      cardOpts = (c) => {
        const b = buildOf(c.id);
        return { cost: b?.cost ?? null, state: '', badge: null, dim: !b, preview: null, label: b ? t('Buildable for {cost}: press to build it instead', { cost: b.cost }) : t('Cannot be built now') };
      };
    } else if (s.mode === 'one') {
      if (s.b1 === null) {
        head.push(h('h2', { id: 'action-title' }, t('Round {n}: build', { n: p.round })),
          h('p', {}, o.builds.length ? t('Pick a highlighted card to build it (its cost after discounts is shown, and what your tableau would score this round with it), or choose:') : t('Nothing in your hand can be built this round. Choose:')));
      } else {
        const cost = buildCost(s.b1);
        const b = buildOf(s.b1);
        const name = card(handSlug(s.b1)).name;
        head.push(h('h2', { id: 'action-title' }, t('Build {name}', { name })),
          b ? h('p', { class: 'preview', id: 'preview', 'data-vp': b.vp, 'data-income': b.income }, tn(b.income, 'With it your tableau scores {vp} VP this round and draws {count} card of income.', 'With it your tableau scores {vp} VP this round and draws {count} cards of income.', { vp: b.vp })) : null,
          h('p', {}, cost === 0 ? t('It costs nothing.') : tn(cost, 'Pay {count} card: the cards marked “Pay” are a suggestion, those a bot would miss least. Click a Pay card to keep it, then another card to pay with instead.', 'Pay {count} cards: the cards marked “Pay” are a suggestion, those a bot would miss least. Click a Pay card to keep it, then another card to pay with instead.')),
          cost ? h('p', { class: 'counter', id: 'counter' }, t('{n} of {cost} paid', { n: s.pay.length, cost })) : null);
        buttons.push(h('button', { type: 'button', class: 'primary', id: 'confirm', 'data-focus-key': 'confirm', disabled: s.pay.length !== cost || st.busy, onclick: confirm },
          cost ? t('Build {name} · pay {cost}', { name, cost }) : t('Build {name}', { name })), cancel(t('Cancel')));
      }
      cardOpts = (c) => {
        const b = buildOf(c.id);
        const cost = b?.cost ?? null;
        const isB = s.b1 === c.id, isP = s.pay.includes(c.id);
        const why = !b && s.b1 === null ? unbuildableOf(c.id) : null;
        const preview = b && (s.b1 === null || isB) ? gain(b) : null;
        return {
          cost, state: isB ? 'build' : isP ? 'pay' : '',
          badge: isB ? t('Build') : isP ? t('Pay') : null,
          dim: s.b1 === null && cost === null,
          preview,
          why: why ? unbuildableWords(why).short : null,
          label: isB ? t('Chosen to build: {gain}', { gain: previewWords(preview) }) : isP ? t('Chosen to pay') : s.b1 === null
            ? (b ? t('Buildable for {cost}: {gain}', { cost, gain: previewWords(preview) }) : t('Cannot be built now: {why}', { why: why ? unbuildableWords(why).long : '' })) : t('Press to pay with it'),
        };
      };
    } else {
      const { c1, c2 } = doubleCosts();
      const pair = s.b2 !== null ? pairOf(s.b1, s.b2) : null;
      let sub;
      if (s.b1 === null) sub = t('Pick the first card (printed cost 4 or less).');
      else if (s.b2 === null) sub = t('First: {name} ({cost}). Pick the second card; the first counts for its discounts.', { name: card(handSlug(s.b1)).name, cost: c1 });
      else sub = t('{first} ({c1}) then {second} ({c2}): pay {sum}. Click cards to change the payment.', { first: card(handSlug(s.b1)).name, c1, second: card(handSlug(s.b2)).name, c2, sum: c1 + c2 });
      head.push(h('h2', { id: 'action-title' }, t('Construction Gang: build two')), h('p', {}, sub));
      if (pair) head.push(h('p', { class: 'preview', id: 'preview', 'data-vp': pair.vp, 'data-income': pair.income }, tn(pair.income, 'With both your tableau scores {vp} VP this round and draws {count} card of income.', 'With both your tableau scores {vp} VP this round and draws {count} cards of income.', { vp: pair.vp })));
      if (s.b2 !== null) head.push(h('p', { class: 'counter', id: 'counter' }, t('{n} of {cost} paid', { n: s.pay.length, cost: c1 + c2 })));
      buttons.push(h('button', { type: 'button', class: 'primary', id: 'confirm', 'data-focus-key': 'confirm', disabled: s.b2 === null || s.pay.length !== c1 + c2 || st.busy, onclick: confirm }, t('Build both')),
        cancel(t('Back to one build')));
      // Before the first card: each card that can start a double, with the best pair it starts;
      // then each card that can follow it, with that pair's score.
      cardOpts = (c) => {
        let cost = null, preview = null;
        const isB1 = s.b1 === c.id, isB2 = s.b2 === c.id, isP = s.pay.includes(c.id);
        if (s.b1 === null) {
          const from = pairsFrom(c.id);
          cost = from[0]?.builds[0].cost ?? null;
          preview = bestOf(from);
        } else if (isB1) cost = c1;
        else if (s.b2 === null || isB2) {
          const d = pairOf(s.b1, c.id);
          cost = d?.builds[1].cost ?? null;
          preview = d ? gain(d) : null;
        }
        return {
          cost: s.b2 !== null && !isB1 && !isB2 ? null : cost,
          state: isB1 ? 'build' : isB2 ? 'build2' : isP ? 'pay' : '',
          badge: isB1 ? t('1st') : isB2 ? t('2nd') : isP ? t('Pay') : null,
          dim: s.b2 === null && cost === null && !isB1,
          preview: s.b2 !== null && !isB2 ? null : preview,
          label: isB1 ? t('First build') : isB2 ? t('Second build: both give {gain}', { gain: previewWords(preview) }) : isP ? t('Chosen to pay')
            : cost === null ? t('Not eligible') : s.b1 === null ? t('Eligible for {cost}: the best pair it starts gives {gain}', { cost, gain: previewWords(preview) })
              : t('Eligible for {cost}: both give {gain}', { cost, gain: previewWords(preview) }),
        };
      };
    }
    const quick = [
      h('button', { type: 'button', class: 'quick', id: 'survey', 'data-focus-key': 'survey', 'aria-pressed': String(s.mode === 'survey'), disabled: st.busy, onclick: () => pickQuick('survey') },
        h('strong', {}, t('Survey')), h('small', {}, t('draw 5, keep 1 more')), quickScore(o.survey_score)),
    ];
    if (o.contractor) {
      quick.push(h('button', { type: 'button', class: 'quick', id: 'contractor', 'data-focus-key': 'contractor', 'aria-pressed': String(s.mode === 'contractor'), disabled: st.busy, onclick: () => pickQuick('contractor') },
        h('strong', {}, t('General Contractor')), h('small', {}, t('free · once a game')), quickScore(o.contractor_score)));
    }
    if (o.double && s.mode !== 'two') {
      quick.push(h('button', { type: 'button', class: 'quick', id: 'double', 'data-focus-key': 'double', disabled: st.busy, onclick: () => { sel = { ...emptySel(), mode: 'two' }; hint = ''; ctx.drawAction(); } },
        h('strong', {}, t('Build two')), h('small', {}, t('Construction Gang')), quickScore(bestOf(o.doubles ?? []))));
    }
    head.push(h('div', { class: 'quick-row', role: 'group', 'aria-label': t('Other choices') }, quick));
    if (!buttons.length || s.mode !== 'one') buttons.push(suggestButton());
    else buttons.splice(1, 0, suggestButton());
    const sug = suggested;
    for (const b of quick) b.classList.toggle('suggested', !!sug && ((b.id === 'survey' && sug.survey) || (b.id === 'contractor' && sug.contractor)));
    return finish({ head, buttons, cardOpts, need: '' });
  }

  /** The score line of a quick choice: what this round scores and draws with it ({vp, income, upTo}), or nothing. */
  function quickScore(x) {
    if (!x) return null;
    return h('small', { class: 'quick-score', 'data-vp': x.vp, 'data-income': x.income },
      h('span', { 'aria-hidden': 'true' }, `${x.upTo ? t('up to ') : ''}+${x.vp} ${t('VP')} · ⊕${x.income}`),
      h('span', { class: 'offscreen' }, `: ${x.upTo ? t('up to {vp} VP this round and income {income}', { vp: x.vp, income: x.income }) : t('{vp} VP this round and income {income}', { vp: x.vp, income: x.income })}`));
  }

  /** What every point adds: the hint, whether the selection is the order sent, and what was sent. */
  function finish(a) {
    const order = st.hand.order;
    return { ...a, hint, sent: !!order && selIsOrder(order), chosen: order ? describeOrder(order) : '' };
  }

  /** A hand card: its face (a button) and its "i" button for the full text. */
  function handCard(c, o, fresh) {
    return h('div', { class: 'card-slot' }, cardButton({
      id: c.id, slug: c.card, ...o, fresh,
      disabled: o.disabled || (st.busy && !!ctx.pending()),
      onClick: o.disabled ? null : () => clickCard(c.id),
    }), infoButton(c.card, `info-${c.id}`));
  }

  /** Tells a defaulted seat what the game chose for it, and why (the hand's `defaulted`). */
  function defaultedNote() {
    const d = st.hand?.defaulted;
    if (!d) return null;
    const where = d.round ? t('round {n}, {step}', { n: d.round, step: STEP_NAMES[d.step] ?? d.step }) : t('the setup keep');
    const why = d.reason === 'forced_by_host' ? t('The host forced {where} before you had chosen', { where })
      : d.reason === 'forced_by_seat' ? t('The time for {where} ran out and {name} applied the defaults before you had chosen', { where, name: ctx.nameOf(d.by) ?? t('another player') })
        : t('Your time for {where} ran out', { where });
    const names = (d.cards ?? []).map((c) => card(c.card)?.name ?? c.card);
    const what = d.chosen?.survey ? t('you surveyed') : names.length ? t('you discarded {cards}', { cards: joinNames(names) }) : t('you got the default decision');
    return h('p', { class: 'defaulted-note', id: 'defaulted', role: 'status', 'data-reason': d.reason },
      t('{why}, so the game chose for you: {what}.', { why, what }));
  }

  function describeOrder(o) {
    if (o.survey) return t('survey');
    if (o.contractor) return t('take a General Contractor');
    if (o.build) return t('build {name}', { name: card(handSlug(o.build.card)).name });
    if (o.builds) return t('build {first} and {second}', { first: card(handSlug(o.builds[0].card)).name, second: card(handSlug(o.builds[1]?.card)).name });
    if (o.discard) return t('discard {cards}', { cards: joinNames(o.discard.map((cid) => card(handSlug(cid))?.name ?? String(cid))) });
    return t('sent');
  }

  // ---- the players, the chart, whose turn ----------------------------------------------------
  function draw() {
    drawPlayers();
    drawChart();
    sayWhoseTurn();
  }

  function drawPlayers() {
    const v = st.view;
    const nameOf = ctx.nameOf;
    players.hidden = !v || v.status === 'open' || isClosed(v); // the waiting room lists the seats
    if (players.hidden) { replace(players); return; }
    const over = v.status === 'finished';
    players.dataset.n = String(v.seats.length);
    // Your own tableau first, then the others in seat order.
    const mine = v.seats.filter((s) => s.seat === st.me?.seat);
    const order = [...mine, ...v.seats.filter((s) => s.seat !== st.me?.seat)];
    replace(players, h('h2', { class: 'offscreen' }, t('Players')), order.map((s) => {
      const i = s.seat;
      const me = st.me?.seat === i;
      const won = over && (v.winners ?? []).includes(i);
      let status = null;
      if (v.status === 'playing' && s.pending) status = s.submitted ? h('span', { class: 'tag ok' }, t('✓ chosen')) : h('span', { class: 'tag thinking' }, t('choosing…'));
      const last = lastAction(s);
      const sumVp = s.tableau.reduce((a, t) => a + t.vp, 0);
      return h('article', { class: `panel player ${me ? 'me' : ''} ${won ? 'won' : ''}`, 'data-seat': i, 'aria-label': t('{name}: {vp} VP', { name: nameOf(i), vp: s.vp }) },
        h('header', { class: 'player-head' },
          seatDot(i),
          h('h3', {}, nameOf(i) ?? t('open seat')),
          me ? h('span', { class: 'tag you' }, t('you')) : null,
          botMark(s.bot),
          presenceMark(s, { status: v.status, mine: me }),
          bankMark(s, v, i),
          won ? h('span', { class: 'tag win' }, h('span', { class: 'emoji' }, '🏆'), t(' winner')) : null,
          status),
        h('div', { class: 'player-stats' },
          h('div', { class: 'big-vp' }, h('span', { class: 'num' }, String(s.vp)), h('span', { class: 'unit' }, t('VP')),
            s.round_vp ? h('span', { class: 'delta', title: t('Points the tableau scores every round') }, t('+{n} a round', { n: s.round_vp })) : null),
          h('dl', { class: 'mini' },
            h('div', {}, h('dt', {}, 'hand'), h('dd', {}, String(s.hand_count))),
            h('div', {}, h('dt', {}, 'income'), h('dd', {}, String(s.income))))),
        last ? h('p', { class: 'last' }, last) : null,
        s.tableau.length
          ? h('ul', { class: 'tableau', 'aria-label': t('Tableau, {n} cards scoring {vp} VP a round', { n: s.tableau.length, vp: sumVp }) }, s.tableau.map((e) => tableauChip(e, (slug, from) => showCardInfo(slug, from, t("In {name}'s tableau: {vp} VP and {income} income a round now.", { name: nameOf(i), vp: e.vp, income: e.income })))))
          : h('p', { class: 'muted empty' }, t('No buildings yet.')),
        s.tableau.length ? h('p', { class: 'breakdown' }, `${tn(s.tableau.length, '{count} building', '{count} buildings')} · ${tn(s.income, 'scores {vp} VP and draws {count} card a round', 'scores {vp} VP and draws {count} cards a round', { vp: sumVp })}`) : null);
    }));
  }

  function lastAction(s) {
    const l = s.last;
    if (!l?.action) return null;
    if (l.action === 'survey') return l.default ? t('Last build step: surveyed (default).') : t('Last build step: surveyed.');
    if (l.action === 'contractor') return t('Last build step: took a General Contractor.');
    const names = l.built.map((b) => card(b).name);
    return l.paid ? t('Last build step: built {cards}, paid {n}.', { cards: joinNames(names), n: l.paid }) : t('Last build step: built {cards}.', { cards: joinNames(names) });
  }

  function drawChart() {
    const v = st.view;
    if (!v || v.status === 'open' || isClosed(v)) { chartBox.hidden = true; return; }
    chartBox.hidden = false;
    replace(chartBox, h('h2', { id: 'chart-title' }, t('Score by round')),
      scoreChart(v.seats.map((s, i) => ({ ...s, name: ctx.nameOf(i) })), v.target_vp));
  }

  /**
   * Says once per step whose decision the game waits for, when it is not this seat's (its own
   * "Your move" is said by the shell): a watcher, or a seat with nothing to decide, hears it too.
   */
  function sayWhoseTurn() {
    const v = st.view;
    if (!v || v.status !== 'playing') return;
    const key = `${v.round}-${v.step}`;
    if (key === stepSaid) return;
    stepSaid = key;
    if (ctx.pending()) return;
    const waiting = v.seats.filter((x) => x.pending && !x.submitted).map((x) => ctx.nameOf(x.seat));
    const where = v.round ? t('Round {n}, {step}', { n: v.round, step: STEP_NAMES[v.step] ?? v.step }) : t('Setup');
    if (waiting.length) ctx.announce(t('{where}: waiting for {names}.', { where, names: joinNames(waiting) }));
  }

  return {
    main: [players],
    sideAfter: [chartBox],
    jump: [[t('Players'), () => players, 'jump-players']],
    opening: [t('Your opening hand'), t('Once the game starts you keep 5 of these 7 cards.')],
    watching: t('You are watching this game: every seat is taken. Hands stay secret; everything else is public.'),
    sorts: HAND_SORTS,
    sortHand,
    freshKey,
    freshText: t('since the last step'),
    stepLabel: (v) => (v.round === 0 ? t('Setup: keep 5') : t('Round {n} · {step}', { n: v.round, step: STEP_NAMES[v.step] ?? v.step })),
    pointText: (p) => `${p.round ? `round ${p.round}, ` : ''}${STEP_NAMES[p.step] ?? p.step}`,
    stats: (v) => [
      { label: t('Target'), value: t('{n} VP', { n: v.target_vp }) },
      { label: t('Deck'), value: v.deck_count },
      { label: t('Discards'), value: v.discard_count },
      {
        label: t('Contractors'), value: v.contractors_left ? '🏗️'.repeat(Math.min(v.contractors_left, 5)) : '0', emoji: true,
        title: t('{n} General Contractors left in the pool', { n: v.contractors_left }), aria: String(v.contractors_left),
      },
    ],
    forceText: (v, names, n, { tt, host }) => `${host && tt !== t('time is up') ? (tt ? `${tt}. ` : '') : t('Time is up. ')}${tn(n,
      'Resolve {where} now? {names} has not chosen and will get the default ({what}).', 'Resolve {where} now? {names} have not chosen and will get the default ({what}).',
      { where: v.round ? t('round {n}, {step}', { n: v.round, step: STEP_NAMES[v.step] ?? v.step }) : t('the setup keep'), names, what: v.step === 'build' ? t('a survey') : t('discards chosen for them') })}`,
    endLead: (v, names) => t('{names} with {vp} VP. The game ended after round {n}: {why}.', { names: joinNames(names), vp: (v.winners ?? []).length ? v.seats[v.winners[0]].vp : 0, n: v.round, why: (ENDED_BY[v.ended_by] ?? (() => t('it is over')))(v) }),
    rankExtra: (v, seat) => [h('span', { class: 'r-vp' }, t('{n} VP', { n: v.seats[seat].vp })), h('span', { class: 'r-hand' }, t('{n} in hand', { n: v.seats[seat].hand_count }))],
    notice: defaultedNote,
    sync,
    action,
    actionSig: () => [st.view?.seats.map((x) => [x.pending, x.submitted, x.tableau.length, x.name]), sel, hint, suggested],
    card: handCard,
    draw,
    logLines: logEntries,
    close: closeCardInfo,
  };
}
