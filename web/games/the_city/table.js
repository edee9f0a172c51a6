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

const STEP_NAMES = { keep: 'keep', build: 'build', survey: 'survey', hand_limit: 'hand limit', over: 'game over' };
const ENDED_BY = {
  target: (v) => `a player reached the target of ${v.target_vp} VP`,
  deck: () => 'the deck could not pay everyone\'s income',
  rounds: () => 'the round limit was reached',
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
  const players = h('section', { class: 'players', id: 'players', 'aria-label': 'Players' });
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
    return u ? unbuildableWords(u).long : `${card(handSlug(cid)).name} cannot be built now.`;
  }

  /** Why hand card `cid` cannot be the first (or, after the first chosen, the second) of two builds. */
  function whyNotDouble(cid, first) {
    const name = card(handSlug(cid)).name;
    if (first) return `No double build open to you starts with ${name}${unbuildableOf(cid) ? `: ${unbuildableWords(unbuildableOf(cid)).long}` : '.'}`;
    return `${name} cannot be built after ${card(handSlug(sel.b1)).name}: pick a highlighted card.`;
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
    applySuggestion(g, got?.by, g ? whyText(got, describeOrder, (n) => `${n} VP`) : '');
  }

  /** Puts suggestion `g` (by 'expert' or 'quick') into the selection; `why` (whyText()) is shown with it. */
  function applySuggestion(g, by, why = '') {
    const p = ctx.pending();
    const who = by === 'expert' ? 'The expert suggests' : 'Suggested';
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
      hint = g.survey ? `${who}: survey (draw and keep one card more). Confirm to do it.`
        : `${who}: take a General Contractor. Confirm to do it.`;
    } else {
      hint = 'No suggestion for this step.';
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
      keep: [`Keep ${n - need} of your ${n} cards`, `Choose ${need} cards to discard, then confirm.`],
      survey: [`Survey: discard ${need} card${need === 1 ? '' : 's'}`, `You drew ${need + 1}. Discard ${need} from your whole hand: you keep one card more than before.`],
      hand_limit: [`Hand limit: discard ${need} card${need === 1 ? '' : 's'}`, `You hold ${n} cards; keep 12.`],
    }[p.step] ?? [`Discard ${need}`, `Choose ${need} cards to discard.`];
    return finish({
      need: String(need),
      head: [h('h2', { id: 'action-title' }, titles[0]), h('p', {}, titles[1]),
        h('p', { class: 'counter', id: 'counter' }, `${s.discard.length} of ${need} chosen`)],
      buttons: [
        h('button', { type: 'button', class: 'primary', id: 'confirm', 'data-focus-key': 'confirm', disabled: s.discard.length !== need || st.busy, onclick: confirm },
          `Discard ${need} card${need === 1 ? '' : 's'}`),
        suggestButton(),
        s.discard.length ? h('button', { type: 'button', class: 'ghost', id: 'clear', 'data-focus-key': 'clear', onclick: () => { s.discard = []; ctx.drawAction(); } }, 'Clear') : null],
      cardOpts: (c) => ({
        state: s.discard.includes(c.id) ? 'discard' : '',
        badge: s.discard.includes(c.id) ? 'Discard' : null,
        label: s.discard.includes(c.id) ? 'Chosen to discard' : 'Press to discard',
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
      head.push(h('h2', { id: 'action-title' }, survey ? 'Survey' : 'Take a General Contractor'),
        h('p', {}, survey ? 'You build nothing this round: draw 5 cards, then discard 4 of your whole hand, so you end with one card more.'
          : 'Free, once a game: it scores nothing but draws you 1 card every round.'),
        x ? h('p', { class: 'preview', id: 'preview', 'data-vp': x.vp, 'data-income': x.income }, `With it your tableau scores ${x.vp} VP this round and draws ${x.income} card${x.income === 1 ? '' : 's'} of income.`) : null);
      buttons.push(h('button', { type: 'button', class: 'primary', id: 'confirm', 'data-focus-key': 'confirm', disabled: st.busy, onclick: confirm },
        survey ? 'Survey: draw 5, keep 1 more' : 'Take a General Contractor'), cancel('Back to building'));
      cardOpts = (c) => {
        const b = buildOf(c.id);
        return { cost: b?.cost ?? null, state: '', badge: null, dim: !b, preview: null, label: b ? `Buildable for ${b.cost}: press to build it instead` : 'Cannot be built now' };
      };
    } else if (s.mode === 'one') {
      if (s.b1 === null) {
        head.push(h('h2', { id: 'action-title' }, `Round ${p.round}: build`),
          h('p', {}, o.builds.length ? 'Pick a highlighted card to build it (its cost after discounts is shown, and what your tableau would score this round with it), or choose:' : 'Nothing in your hand can be built this round. Choose:'));
      } else {
        const cost = buildCost(s.b1);
        const b = buildOf(s.b1);
        const name = card(handSlug(s.b1)).name;
        head.push(h('h2', { id: 'action-title' }, `Build ${name}`),
          b ? h('p', { class: 'preview', id: 'preview', 'data-vp': b.vp, 'data-income': b.income }, `With it your tableau scores ${b.vp} VP this round and draws ${b.income} card${b.income === 1 ? '' : 's'} of income.`) : null,
          h('p', {}, cost === 0 ? 'It costs nothing.' : `Pay ${cost} card${cost === 1 ? '' : 's'}: the cards marked “Pay” are a suggestion, those a bot would miss least. Click a Pay card to keep it, then another card to pay with instead.`),
          cost ? h('p', { class: 'counter', id: 'counter' }, `${s.pay.length} of ${cost} paid`) : null);
        buttons.push(h('button', { type: 'button', class: 'primary', id: 'confirm', 'data-focus-key': 'confirm', disabled: s.pay.length !== cost || st.busy, onclick: confirm },
          `Build ${name}${cost ? ` · pay ${cost}` : ''}`), cancel('Cancel'));
      }
      cardOpts = (c) => {
        const b = buildOf(c.id);
        const cost = b?.cost ?? null;
        const isB = s.b1 === c.id, isP = s.pay.includes(c.id);
        const why = !b && s.b1 === null ? unbuildableOf(c.id) : null;
        const preview = b && (s.b1 === null || isB) ? gain(b) : null;
        return {
          cost, state: isB ? 'build' : isP ? 'pay' : '',
          badge: isB ? 'Build' : isP ? 'Pay' : null,
          dim: s.b1 === null && cost === null,
          preview,
          why: why ? unbuildableWords(why).short : null,
          label: isB ? `Chosen to build: ${previewWords(preview)}` : isP ? 'Chosen to pay' : s.b1 === null
            ? (b ? `Buildable for ${cost}: ${previewWords(preview)}` : `Cannot be built now: ${why ? unbuildableWords(why).long : ''}`) : 'Press to pay with it',
        };
      };
    } else {
      const { c1, c2 } = doubleCosts();
      const pair = s.b2 !== null ? pairOf(s.b1, s.b2) : null;
      let sub;
      if (s.b1 === null) sub = 'Pick the first card (printed cost 4 or less).';
      else if (s.b2 === null) sub = `First: ${card(handSlug(s.b1)).name} (${c1}). Pick the second card; the first counts for its discounts.`;
      else sub = `${card(handSlug(s.b1)).name} (${c1}) then ${card(handSlug(s.b2)).name} (${c2}): pay ${c1 + c2}. Click cards to change the payment.`;
      head.push(h('h2', { id: 'action-title' }, 'Construction Gang: build two'), h('p', {}, sub));
      if (pair) head.push(h('p', { class: 'preview', id: 'preview', 'data-vp': pair.vp, 'data-income': pair.income }, `With both your tableau scores ${pair.vp} VP this round and draws ${pair.income} card${pair.income === 1 ? '' : 's'} of income.`));
      if (s.b2 !== null) head.push(h('p', { class: 'counter', id: 'counter' }, `${s.pay.length} of ${c1 + c2} paid`));
      buttons.push(h('button', { type: 'button', class: 'primary', id: 'confirm', 'data-focus-key': 'confirm', disabled: s.b2 === null || s.pay.length !== c1 + c2 || st.busy, onclick: confirm }, 'Build both'),
        cancel('Back to one build'));
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
          badge: isB1 ? '1st' : isB2 ? '2nd' : isP ? 'Pay' : null,
          dim: s.b2 === null && cost === null && !isB1,
          preview: s.b2 !== null && !isB2 ? null : preview,
          label: isB1 ? 'First build' : isB2 ? `Second build: both give ${previewWords(preview)}` : isP ? 'Chosen to pay'
            : cost === null ? 'Not eligible' : `Eligible for ${cost}: ${s.b1 === null ? 'the best pair it starts gives ' : 'both give '}${previewWords(preview)}`,
        };
      };
    }
    const quick = [
      h('button', { type: 'button', class: 'quick', id: 'survey', 'data-focus-key': 'survey', 'aria-pressed': String(s.mode === 'survey'), disabled: st.busy, onclick: () => pickQuick('survey') },
        h('strong', {}, 'Survey'), h('small', {}, 'draw 5, keep 1 more'), quickScore(o.survey_score)),
    ];
    if (o.contractor) {
      quick.push(h('button', { type: 'button', class: 'quick', id: 'contractor', 'data-focus-key': 'contractor', 'aria-pressed': String(s.mode === 'contractor'), disabled: st.busy, onclick: () => pickQuick('contractor') },
        h('strong', {}, 'General Contractor'), h('small', {}, 'free · once a game'), quickScore(o.contractor_score)));
    }
    if (o.double && s.mode !== 'two') {
      quick.push(h('button', { type: 'button', class: 'quick', id: 'double', 'data-focus-key': 'double', disabled: st.busy, onclick: () => { sel = { ...emptySel(), mode: 'two' }; hint = ''; ctx.drawAction(); } },
        h('strong', {}, 'Build two'), h('small', {}, 'Construction Gang'), quickScore(bestOf(o.doubles ?? []))));
    }
    head.push(h('div', { class: 'quick-row', role: 'group', 'aria-label': 'Other choices' }, quick));
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
      h('span', { 'aria-hidden': 'true' }, `${x.upTo ? 'up to ' : ''}+${x.vp} VP · ⊕${x.income}`),
      h('span', { class: 'offscreen' }, `: ${x.upTo ? 'up to ' : ''}${x.vp} VP this round and income ${x.income}`));
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
    const where = d.round ? `round ${d.round}, ${STEP_NAMES[d.step] ?? d.step}` : 'the setup keep';
    const why = d.reason === 'forced_by_host' ? `The host forced ${where} before you had chosen`
      : d.reason === 'forced_by_seat' ? `The time for ${where} ran out and ${ctx.nameOf(d.by) ?? 'another player'} applied the defaults before you had chosen`
        : `Your time for ${where} ran out`;
    const names = (d.cards ?? []).map((c) => card(c.card)?.name ?? c.card);
    const what = d.chosen?.survey ? 'you surveyed' : names.length ? `you discarded ${joinNames(names)}` : 'you got the default decision';
    return h('p', { class: 'defaulted-note', id: 'defaulted', role: 'status', 'data-reason': d.reason },
      `${why}, so the game chose for you: ${what}.`);
  }

  function describeOrder(o) {
    if (o.survey) return 'survey';
    if (o.contractor) return 'take a General Contractor';
    if (o.build) return `build ${card(handSlug(o.build.card)).name}`;
    if (o.builds) return `build ${o.builds.map((b) => card(handSlug(b.card)).name).join(' and ')}`;
    if (o.discard) return `discard ${o.discard.length}`;
    return 'sent';
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
    replace(players, h('h2', { class: 'offscreen' }, 'Players'), order.map((s) => {
      const i = s.seat;
      const me = st.me?.seat === i;
      const won = over && (v.winners ?? []).includes(i);
      let status = null;
      if (v.status === 'playing' && s.pending) status = s.submitted ? h('span', { class: 'tag ok' }, '✓ chosen') : h('span', { class: 'tag thinking' }, 'choosing…');
      const last = lastAction(s);
      const sumVp = s.tableau.reduce((a, t) => a + t.vp, 0);
      return h('article', { class: `panel player ${me ? 'me' : ''} ${won ? 'won' : ''}`, 'data-seat': i, 'aria-label': `${nameOf(i)}: ${s.vp} VP` },
        h('header', { class: 'player-head' },
          seatDot(i),
          h('h3', {}, nameOf(i) ?? 'open seat'),
          me ? h('span', { class: 'tag you' }, 'you') : null,
          botMark(s.bot),
          presenceMark(s, { status: v.status, mine: me }),
          bankMark(s, v, i),
          won ? h('span', { class: 'tag win' }, h('span', { class: 'emoji' }, '🏆'), ' winner') : null,
          status),
        h('div', { class: 'player-stats' },
          h('div', { class: 'big-vp' }, h('span', { class: 'num' }, String(s.vp)), h('span', { class: 'unit' }, 'VP'),
            s.round_vp ? h('span', { class: 'delta', title: 'Points the tableau scores every round' }, `+${s.round_vp} a round`) : null),
          h('dl', { class: 'mini' },
            h('div', {}, h('dt', {}, 'hand'), h('dd', {}, String(s.hand_count))),
            h('div', {}, h('dt', {}, 'income'), h('dd', {}, String(s.income))))),
        last ? h('p', { class: 'last' }, last) : null,
        s.tableau.length
          ? h('ul', { class: 'tableau', 'aria-label': `Tableau, ${s.tableau.length} cards scoring ${sumVp} VP a round` }, s.tableau.map((t) => tableauChip(t, (slug, from) => showCardInfo(slug, from, `In ${nameOf(i)}'s tableau: ${t.vp} VP and ${t.income} income a round now.`))))
          : h('p', { class: 'muted empty' }, 'No buildings yet.'),
        s.tableau.length ? h('p', { class: 'breakdown' }, `${s.tableau.length} building${s.tableau.length === 1 ? '' : 's'} · scores ${sumVp} VP and draws ${s.income} card${s.income === 1 ? '' : 's'} a round`) : null);
    }));
  }

  function lastAction(s) {
    const l = s.last;
    if (!l?.action) return null;
    const d = l.default ? ' (default)' : '';
    if (l.action === 'survey') return `Last build step: surveyed${d}.`;
    if (l.action === 'contractor') return 'Last build step: took a General Contractor.';
    const names = l.built.map((b) => card(b).name);
    return `Last build step: built ${joinNames(names)}${l.paid ? `, paid ${l.paid}` : ''}.`;
  }

  function drawChart() {
    const v = st.view;
    if (!v || v.status === 'open' || isClosed(v)) { chartBox.hidden = true; return; }
    chartBox.hidden = false;
    replace(chartBox, h('h2', { id: 'chart-title' }, 'Score by round'),
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
    const where = v.round ? `Round ${v.round}, ${STEP_NAMES[v.step] ?? v.step}` : 'Setup';
    if (waiting.length) ctx.announce(`${where}: waiting for ${joinNames(waiting)}.`);
  }

  return {
    main: [players],
    sideAfter: [chartBox],
    jump: [['Players', () => players, 'jump-players']],
    opening: ['Your opening hand', 'Once the game starts you keep 5 of these 7 cards.'],
    watching: 'You are watching this game: every seat is taken. Hands stay secret; everything else is public.',
    sorts: HAND_SORTS,
    sortHand,
    freshKey,
    freshText: 'since the last step',
    stepLabel: (v) => (v.round === 0 ? 'Setup: keep 5' : `Round ${v.round} · ${STEP_NAMES[v.step] ?? v.step}`),
    pointText: (p) => `${p.round ? `round ${p.round}, ` : ''}${STEP_NAMES[p.step] ?? p.step}`,
    stats: (v) => [
      { label: 'Target', value: `${v.target_vp} VP` },
      { label: 'Deck', value: v.deck_count },
      { label: 'Discards', value: v.discard_count },
      {
        label: 'Contractors', value: v.contractors_left ? '🏗️'.repeat(Math.min(v.contractors_left, 5)) : '0', emoji: true,
        title: `${v.contractors_left} General Contractors left in the pool`, aria: String(v.contractors_left),
      },
    ],
    forceText: (v, names, n, { tt, host }) => `${host && tt !== 'time is up' ? (tt ? `${tt}. ` : '') : 'Time is up. '}Resolve ${v.round ? `round ${v.round}, ${STEP_NAMES[v.step] ?? v.step}` : 'the setup keep'} now? ${names} ${n === 1 ? 'has' : 'have'} not chosen and will get the default (${v.step === 'build' ? 'a survey' : 'discards chosen for them'}).`,
    endLead: (v, names) => `${joinNames(names)} with ${(v.winners ?? []).length ? v.seats[v.winners[0]].vp : 0} VP. The game ended after round ${v.round}: ${(ENDED_BY[v.ended_by] ?? (() => 'it is over'))(v)}.`,
    rankExtra: (v, seat) => [h('span', { class: 'r-vp' }, `${v.seats[seat].vp} VP`), h('span', { class: 'r-hand' }, `${v.seats[seat].hand_count} in hand`)],
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
