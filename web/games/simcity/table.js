// simcity/table.js: SimCity's part of the table (web/table.js is the shell around it): your hand
// and what the decision pending asks: play a block into a highlighted cell (each showing the
// money the play scores and whether it upgrades, rezones or needs a council vote), play an
// event, buy a council member, pick a timed event's block, vote on a rezoning (as a member
// holder or as the Mayor), pay the Mayor's bill, buy votes in an election, draw and discard in
// Solitaire; Suggest fills in the expert's choice; the bar's figures and the end screen's lines.
// Everything that may be chosen is the server's legal options (pending.options); the page
// checks no rule. Orders echo pending's round, step and turn.

import { h } from '../../dom.js';
import { joinNames } from '../../ui.js';
import { loadScCatalog, design, scCard, scLog, sortScHand, HAND_SORTS, STEP_TITLES, PHASES, MODES } from './data.js';
import { scBoard } from './city.js';
import { markNewByPoint } from '../turns.js';
import { whyText } from '../../hints.js';
import { t, tn } from '../../i18n.js';

/** Loads what SimCity's table draws with (the card catalog); resolves to its factory. */
export async function load() {
  await loadScCatalog().catch(() => null);
  return scTable;
}

const MODE_TAGS = { upgrade: t('Upgrade'), rezone: t('Rezone'), vote: t('Vote') };
const BALLOTS = [['yes', t('Vote yes')], ['no', t('Vote no')], ['withhold', t('Withhold')]];
/** A ballot in words ("yes", "no", "withhold"). */
const BALLOT_WORDS = { yes: t('yes'), no: t('no'), withhold: t('withhold') };
const ballotWord = (b) => BALLOT_WORDS[b] ?? b;

/** The order fields of option `o` (or a body), round, step and turn left out, as a string to compare. */
function same(o) {
  return JSON.stringify(Object.keys(o ?? {}).filter((k) => !['round', 'step', 'turn', 'mode', 'score'].includes(k)).sort().map((k) => [k, o[k]]));
}

/** A selection with nothing chosen. */
function emptySel() {
  return { card: null, x: null, y: null, candidate: null, votes: null, tie: 'none', ballots: null };
}

/** SimCity's part of the table for the shell's context `ctx` (see web/table.js). */
function scTable(ctx) {
  const { st } = ctx;
  let sel = emptySel();
  let hint = '';
  let suggested = ''; // same() of the body Suggest pointed at, for buttons that send at once
  const pending = () => ctx.pending();
  const nameOf = (s) => ctx.nameOf(s);
  const me = () => ctx.me();
  const hand = () => st.hand?.hand ?? [];
  const slugOf = (cid) => hand().find((c) => c.id === cid)?.card ?? null;
  const options = () => pending()?.options ?? [];
  /** The plays of hand card `cid` in the play step (each {card, x, y, mode, score}; an event without a block has no x). */
  const playsOf = (cid) => (pending()?.step === 'play' ? options().filter((o) => o.card === cid) : []);
  const isOption = (body) => options().some((o) => same(o) === same(body));
  const board = scBoard(ctx, { marks, clickCell, confirmBar });
  const guide = quickGuide();
  let guideSet = false; // the guide opens by itself in a game's first round only

  function sync(p, changed) {
    if (!changed) return;
    sel = emptySel();
    hint = '';
    suggested = '';
  }

  /** The cells the decision in hand may pick: Map "x,y" -> {score, mode, tag, chosen, label}. */
  function marks() {
    const p = pending();
    const out = new Map();
    if (!p || st.hand?.order) return out;
    if (p.step === 'play' && sel.card !== null) {
      const d = design(slugOf(sel.card));
      for (const o of playsOf(sel.card)) {
        if (o.x === undefined) continue;
        const event = o.mode === 'event';
        out.set(`${o.x},${o.y}`, {
          score: event ? null : o.score, mode: o.mode, tag: MODE_TAGS[o.mode] ?? (event ? t('Event') : ''), chosen: sel.x === o.x && sel.y === o.y,
          label: event ? t('play {name} on this block', { name: d.name }) : o.mode !== 'new' ? t('play {name} here ({mode}), scores ${score}', { name: d.name, mode: MODES[o.mode], score: o.score })
            : t('play {name} here, scores ${score}', { name: d.name, score: o.score }),
        });
      }
    } else if (p.step === 'target') {
      for (const o of options()) out.set(`${o.x},${o.y}`, { mode: 'target', tag: t('Strike'), chosen: sel.x === o.x && sel.y === o.y, label: t('the timed event may strike this block') });
    }
    return out;
  }

  function clickHand(cid) {
    const p = pending();
    if (!p || st.busy) return;
    hint = '';
    suggested = '';
    st.refused = '';
    board.showCard(slugOf(cid));
    if (p.step === 'play') {
      if (sel.card === cid) sel = emptySel();
      else if (!playsOf(cid).length) hint = t('{name} cannot be played now{why}. Pick a card that is not dimmed, or pass.', { name: design(slugOf(cid)).name, why: whyNot(cid) });
      else {
        sel = emptySel();
        sel.card = cid;
        const plays = playsOf(cid);
        if (plays.length === 1 && plays[0].x !== undefined) Object.assign(sel, { x: plays[0].x, y: plays[0].y });
        const best = plays.filter((o) => o.x !== undefined).sort((a, b) => (b.score ?? 0) - (a.score ?? 0))[0];
        if (best && plays.length > 1) requestAnimationFrame(() => { board.centre(best.x, best.y); board.bringIntoView(); });
      }
    } else if (p.step === 'council') {
      if (sel.card === cid) sel.card = null;
      else if (isOption({ card: cid })) sel.card = cid;
      else hint = design(slugOf(cid)).kind === 'council' ? t('You cannot afford {name} now.', { name: design(slugOf(cid)).name }) : t('Only a council member can be bought here.');
    } else if (p.step === 'discard') {
      sel.card = sel.card === cid ? null : cid;
    }
    ctx.drawAction();
    board.drawCity();
  }

  /** Why hand card `cid` has no play, in a few words, from the catalog's kind and phase only. */
  function whyNot(cid) {
    const d = design(slugOf(cid));
    const v = st.view;
    if (d.kind === 'council') return t(': council members are bought before you play');
    if (d.phase > (v?.phase ?? 1)) return t(': it needs phase {phase}', { phase: PHASES[d.phase] });
    if ((d.kind === 'event' || d.phase >= 3) && !v?.power_played) return t(': it needs a Power Plant in the city first');
    return t(': no cell allows it');
  }

  function clickCell(x, y) {
    const p = pending();
    if (!p || st.busy) return;
    hint = '';
    suggested = '';
    if (p.step === 'play' && sel.card !== null) Object.assign(sel, { x, y });
    else if (p.step === 'target') Object.assign(sel, { x, y });
    else return;
    ctx.drawAction();
    board.drawCity();
  }

  /** The order the controls describe: {body} or {why}. */
  function orderBody() {
    const p = pending();
    const pos = { round: p.round, step: p.step, turn: p.turn };
    switch (p.step) {
      case 'play': {
        if (sel.card === null) return { why: t('Pick a card of your hand to play, or pass.') };
        const plays = playsOf(sel.card);
        if (plays.length === 1 && plays[0].x === undefined) return { body: { ...pos, card: sel.card } };
        if (sel.x === null) return { why: t('Pick a highlighted cell of the city.') };
        const o = plays.find((e) => e.x === sel.x && e.y === sel.y);
        return o ? { body: { ...pos, card: sel.card, x: sel.x, y: sel.y }, option: o } : { why: t('Pick a highlighted cell of the city.') };
      }
      case 'council': return sel.card === null ? { why: t('Pick a council member to buy, or do not buy.') } : { body: { ...pos, card: sel.card } };
      case 'target': return sel.x === null ? { why: t('Pick a highlighted block.') } : { body: { ...pos, x: sel.x, y: sel.y } };
      case 'discard': return sel.card === null ? { why: t('Pick a card to discard.') } : { body: { ...pos, card: sel.card } };
      case 'election': {
        if (sel.candidate === null || sel.votes === null) return { why: t('Choose a candidate and how many votes, or pass.') };
        const body = { ...pos, votes: sel.votes, candidate: sel.candidate };
        return isOption(body) ? { body } : { why: t('That many votes cannot be bought.') };
      }
      default: return { why: '' };
    }
  }

  async function confirm() {
    const r = orderBody();
    if (!r.body) { hint = r.why; ctx.drawAction(); return; }
    await ctx.send(r.body);
  }

  /** Sends option body `o` (an option of pending, without its position) at once. */
  function sendNow(o) {
    const p = pending();
    if (!p || st.busy) return;
    const body = { round: p.round, step: p.step, turn: p.turn, ...o };
    delete body.mode;
    delete body.score;
    ctx.send(body);
  }

  /** Suggest: asks the expert (or takes the quick suggestion) and fills in its choice if the point is still pending. */
  async function suggest() {
    const p = pending();
    if (!p || st.busy) return;
    const got = await ctx.hints.ask(p);
    const g = got?.suggestion;
    if (!ctx.alive() || !g || !ctx.samePoint(p, pending())) return;
    sel = emptySel();
    suggested = same(g);
    hint = `${got.by === 'expert' ? t('The expert suggests') : t('Suggested')}: ${say(g)}`;
    const why = whyText(got, (o) => say(o).replace(/\.$/, ''), (n) => `$${n}`);
    if (why) hint = `${hint} ${why}`;
    if (g.card !== undefined && ['play', 'council', 'discard'].includes(p.step)) sel.card = g.card;
    if (g.x !== undefined) { Object.assign(sel, { x: g.x, y: g.y }); requestAnimationFrame(() => board.centre(g.x, g.y)); }
    if (p.step === 'election' && !g.pass) Object.assign(sel, { candidate: g.candidate, votes: g.votes });
    if (g.tie) sel.tie = g.tie;
    ctx.drawAction();
    board.drawCity();
    ctx.action.querySelector('.suggested:not([disabled]), #confirm:not([disabled])')?.focus();
  }

  /** An order body in words, for Suggest's line. */
  function say(g) {
    if (g.pass) return t('pass.');
    if (g.ballots) return t('vote {ballots}.', { ballots: joinNames([...new Set(g.ballots)].map(ballotWord)) });
    if (g.mayor) return g.tie && g.tie !== 'none' ? t('vote {ballot}, break a tie {tie}.', { ballot: ballotWord(g.mayor), tie: ballotWord(g.tie) }) : t('vote {ballot}.', { ballot: ballotWord(g.mayor) });
    if (g.vacate !== undefined) return g.vacate ? t('pay half and leave office.') : t('pay in full.');
    if (g.votes !== undefined) return tn(g.votes, 'buy {count} vote for {name}.', 'buy {count} votes for {name}.', { name: nameOf(g.candidate) });
    if (g.from) return g.from === 'discard' ? t('take the top discard.') : t('draw from the deck.');
    if (g.card !== undefined) return g.x !== undefined ? t('{name} at {x}, {y}.', { name: design(slugOf(g.card)).name, x: g.x, y: g.y }) : `${design(slugOf(g.card)).name}.`;
    if (g.x !== undefined) return t('the block at {x}, {y}.', { x: g.x, y: g.y });
    return t('see the highlighted choice.');
  }

  // ---- the action panel ---------------------------------------------------------------------
  /** A button that sends option `o` at once. */
  function optionButton(o, label, { primary = false, id } = {}) {
    const ok = isOption(o);
    return h('button', {
      type: 'button', class: `${primary ? 'primary' : 'ghost'} ${suggested && suggested === same(o) ? 'suggested' : ''}`, id, 'data-focus-key': id,
      disabled: st.busy || !ok, onclick: () => sendNow(o),
    }, label);
  }

  function action(p) {
    const v = st.view;
    const head = [];
    const buttons = [];
    const extra = [];
    let cardState = () => ({ disabled: true });
    const r = orderBody();
    const confirmBtn = (label) => h('button', { type: 'button', class: 'primary', id: 'confirm', 'data-focus-key': 'confirm', disabled: !r.body || st.busy, onclick: confirm }, label);
    const passBtn = (label = t('Pass')) => optionButton({ pass: true }, label, { id: 'pass' });
    const mySeat = v.seats[me()] ?? { money: 0, council: [] };
    switch (p.step) {
      case 'play': {
        const d = sel.card !== null ? design(slugOf(sel.card)) : null;
        const o = r.option;
        head.push(h('h2', { id: 'action-title' }, t('Your turn: play a card')),
          h('p', { class: 'slot' }, d ? (r.body ? `${o ? t('{name} at {x}, {y}', { name: d.name, x: o.x, y: o.y }) : d.name}: ${t('press {button} to confirm.', { button: d.kind === 'event' ? t('Play') : t('Build') })}` : t('{name}: pick a highlighted cell of the city; each shows the money you would score there.', { name: d.name }))
            : t('Pick a card of your hand, then a highlighted cell of the city. Money is your score: each cell shows what the play pays. Or pass.')));
        // The line under it keeps its room while a block is being placed: the hand does not jump.
        if (d && d.kind !== 'event' && !o) head.push(h('p', { class: 'muted slot', id: 'cell-note' }, t('The cell picked shows here what the play scores.')));
        if (o && o.mode !== 'event') {
          head.push(h('p', { class: 'preview slot', id: 'preview', 'data-score': o.score }, (o.mode !== 'new' ? t('Played there it scores ${score} ({mode}).', { score: o.score, mode: MODES[o.mode] }) : t('Played there it scores ${score}.', { score: o.score }))));
          if (o.mode === 'vote') head.push(h('p', { class: 'muted', id: 'vote-note' }, t('This rezoning needs a council vote: every member holder, then the Mayor, votes. If it fails, the card comes back to your hand.')));
        }
        buttons.push(confirmBtn(d ? `${d.kind === 'event' ? t('Play {name}', { name: d.name }) : t('Build {name}', { name: d.name })}${o && o.mode !== 'event' ? ` · +$${o.score}` : ''}` : t('Build')), passBtn());
        if (sel.card !== null) buttons.push(h('button', { type: 'button', class: 'ghost', id: 'cancel', onclick: () => { sel = emptySel(); ctx.drawAction(); board.drawCity(); } }, t('Cancel')));
        cardState = (c) => {
          if (c.id === sel.card) return { state: 'build', badge: t('Play') };
          const plays = playsOf(c.id);
          if (!plays.length) return { dim: true, mark: t('cannot play now'), label: t('Cannot be played now{why}', { why: whyNot(c.id) }) };
          const best = Math.max(...plays.map((e) => e.score ?? 0));
          return plays[0].mode === 'event' ? { mark: t('event') } : { mark: t('up to +${n}', { n: best }), label: t('Scores up to ${n}', { n: best }) };
        };
        break;
      }
      case 'council': {
        const d = sel.card !== null ? design(slugOf(sel.card)) : null;
        head.push(h('h2', { id: 'action-title' }, t('Buy a council member?')),
          h('p', {}, t('You have ${money}. A member costs money now and votes on every rezoning the council decides. Pick a highlighted member of your hand, or do not buy.', { money: mySeat.money })));
        buttons.push(confirmBtn(d ? t('Buy {name} for ${cost}', { name: d.name, cost: d.cost }) : t('Buy')), passBtn(t('Do not buy')));
        cardState = (c) => (c.id === sel.card ? { state: 'build', badge: t('Buy') } : isOption({ card: c.id }) ? { mark: t('buy for ${cost}', { cost: design(c.card).cost }) } : { dim: true, disabled: true });
        break;
      }
      case 'target': {
        head.push(h('h2', { id: 'action-title' }, t('A timed event strikes')),
          h('p', {}, t('{event} acts this turn: pick the highlighted block it strikes.', { event: (v.timed ?? []).map((e) => design(e.card).name).join(', ') || t('An event') })));
        buttons.push(confirmBtn(sel.x !== null ? t('Strike {x}, {y}', { x: sel.x, y: sel.y }) : t('Strike')));
        break;
      }
      case 'vote': {
        const vote = v.vote;
        const what = vote ? t('{name} proposes {card} at {x}, {y} (a rezoning)', { name: nameOf(vote.proposer), card: design(vote.card.card).name, x: vote.x, y: vote.y }) : t('A rezoning');
        if (p.mayor) {
          head.push(h('h2', { id: 'action-title' }, t('Rezoning vote: you are the Mayor')),
            h('p', {}, t('{what}. So far {yes} yes, {no} no. Your vote counts 2; if it ends tied you may break the tie.', { what, yes: vote?.yes ?? 0, no: vote?.no ?? 0 })),
            h('label', { class: 'field tie' }, h('span', {}, t('If it is a tie')),
              h('select', { id: 'tie', onchange: (e) => { sel.tie = e.target.value; ctx.drawAction(); } },
                [['none', t('Do not break it (it fails)')], ['yes', t('Break it: yes')], ['no', t('Break it: no')]].map(([k, w]) => h('option', { value: k, selected: sel.tie === k }, w)))));
          for (const [b, label] of BALLOTS) buttons.push(optionButton({ mayor: b, tie: sel.tie }, label, { primary: b === 'yes', id: `vote-${b}` }));
        } else {
          const members = mySeat.council ?? [];
          head.push(h('h2', { id: 'action-title' }, t('Rezoning vote: your council votes')),
            h('p', {}, t('{what}. So far {yes} yes, {no} no. More yes than no passes it.', { what, yes: vote?.yes ?? 0, no: vote?.no ?? 0 })),
            h('p', { class: 'muted' }, t('Your members: {list}.', { list: members.map((m) => `${design(m.card).name} (${tn(m.votes, '{count} vote', '{count} votes')}${m.vote ? t(', always {ballot}', { ballot: ballotWord(m.vote) }) : ''})`).join(', ') })));
          for (const [b, label] of BALLOTS) {
            const body = { ballots: members.map((m) => m.vote ?? b) };
            buttons.push(optionButton(body, label, { primary: b === 'yes', id: `vote-${b}` }));
          }
          // Two or more free members may split their ballots, where the options allow it.
          const free = members.map((m, i) => (m.vote ? -1 : i)).filter((i) => i >= 0);
          if (free.length >= 2 && options().some((o) => new Set(o.ballots ?? []).size > 1)) {
            if (!sel.ballots || sel.ballots.length !== members.length) sel.ballots = members.map((m) => m.vote ?? 'yes');
            const split = { ballots: [...sel.ballots] };
            extra.push(h('fieldset', { class: 'split-vote', id: 'split-vote' }, h('legend', {}, t('Or vote member by member')),
              free.map((i) => h('label', { class: 'field' }, h('span', {}, design(members[i].card).name),
                h('select', { id: `ballot-${i}`, onchange: (e) => { sel.ballots[i] = e.target.value; ctx.drawAction(); } },
                  BALLOTS.map(([b]) => h('option', { value: b, selected: sel.ballots[i] === b }, ballotWord(b)))))),
              optionButton(split, t('Cast these ballots'), { id: 'vote-split' })));
          }
        }
        break;
      }
      case 'mayor_pay': {
        const bill = p.bill ?? v.bills?.[0]?.amount ?? 0;
        head.push(h('h2', { id: 'action-title' }, t("The Mayor's bill: ${bill}", { bill })),
          h('p', {}, t('A disaster left the city a bill. As Mayor you pay it in full, or pay half (${half}) and leave office, which opens an election. You have ${money}.', { half: Math.ceil(bill / 2), money: mySeat.money })));
        buttons.push(optionButton({ vacate: false }, t('Pay ${n}', { n: bill }), { primary: true, id: 'pay-full' }),
          optionButton({ vacate: true }, t('Pay ${n} and leave office', { n: Math.ceil(bill / 2) }), { id: 'pay-half' }));
        break;
      }
      case 'election': {
        const e = v.election;
        const cands = [...new Set(options().filter((o) => o.candidate !== undefined).map((o) => o.candidate))];
        if (sel.candidate === null && cands.length) sel.candidate = cands.includes(me()) ? me() : cands[0];
        const amounts = options().filter((o) => o.candidate === sel.candidate).map((o) => o.votes);
        if (sel.votes !== null && !amounts.includes(sel.votes)) sel.votes = null;
        if (sel.votes === null && amounts.length) sel.votes = amounts[0];
        const r2 = orderBody();
        head.push(h('h2', { id: 'action-title' }, t('Election for Mayor')),
          h('p', {}, t('The office is vacant. Each seat in turn may buy votes at $1 each for any candidate, or pass; it ends when everyone passes in a row. Most votes wins. You have ${money}.', { money: mySeat.money })),
          e ? h('p', { class: 'muted', id: 'tally' }, t('Votes so far: {list}.', { list: e.votes.map((n, s) => `${nameOf(s)} ${n}`).join(', ') })) : null);
        if (cands.length) {
          extra.push(h('div', { class: 'bid-form' },
            h('label', { class: 'field' }, h('span', {}, t('Candidate')),
              h('select', { id: 'candidate', onchange: (ev) => { sel.candidate = Number(ev.target.value); sel.votes = null; ctx.drawAction(); } },
                cands.map((c) => h('option', { value: c, selected: sel.candidate === c }, c === me() ? t('{name} (you)', { name: nameOf(c) }) : nameOf(c))))),
            h('label', { class: 'field' }, h('span', {}, t('Votes')),
              h('select', { id: 'votes', onchange: (ev) => { sel.votes = Number(ev.target.value); ctx.drawAction(); } },
                amounts.map((n) => h('option', { value: n, selected: sel.votes === n }, `${n} ($${n})`))))));
        }
        buttons.push(h('button', { type: 'button', class: 'primary', id: 'confirm', 'data-focus-key': 'confirm', disabled: !r2.body || st.busy, onclick: confirm },
          r2.body ? tn(sel.votes, 'Buy {count} vote for {name}', 'Buy {count} votes for {name}', { name: sel.candidate === me() ? t('yourself') : nameOf(sel.candidate) }) : t('Buy votes')), passBtn());
        break;
      }
      case 'draw': {
        head.push(h('h2', { id: 'action-title' }, t('Draw a card')), h('p', {}, t('Draw the top card of the deck, or take the top of the discard pile.')));
        buttons.push(optionButton({ from: 'deck' }, t('Draw from the deck'), { primary: true, id: 'draw-deck' }), optionButton({ from: 'discard' }, t('Take the top discard'), { id: 'draw-discard' }));
        break;
      }
      case 'discard': {
        head.push(h('h2', { id: 'action-title' }, t('Hand limit: discard one card')), h('p', {}, t('You hold {n} cards; the limit is 7.', { n: hand().length })));
        buttons.push(confirmBtn(sel.card !== null ? t('Discard {name}', { name: design(slugOf(sel.card)).name }) : t('Discard')));
        cardState = (c) => (c.id === sel.card ? { state: 'discard', badge: t('Discard') } : {});
        break;
      }
      default: {
        head.push(h('h2', { id: 'action-title' }, t('Your move: {what}', { what: STEP_TITLES[p.step] ?? p.step })));
        options().forEach((o, i) => buttons.push(optionButton(o, JSON.stringify(o), { id: `option-${i}` })));
      }
    }
    if (p.suggestion || ctx.hints.left() !== 0) buttons.push(ctx.hints.button({ onclick: suggest, disabled: st.busy }));
    // What is still needed, on a line kept (empty) once nothing is: the hand below does not jump.
    if (['play', 'target'].includes(p.step)) {
      const need = !r.body && r.why && !hint ? r.why : '';
      head.push(h('p', { class: 'muted need', id: 'need', 'aria-hidden': need ? null : 'true' }, need || '\u00a0'));
    }
    // The view's last event number on the title: a test (or a person's tool) tells a point asked
    // again (an election goes round) from the one just answered.
    head[0]?.setAttribute?.('data-seq', String(v.last_seq ?? ''));
    return { head, extra, buttons, hint, cardOpts: (c) => cardState(c) };
  }

  /** Under the grid, once a cell is chosen: confirm the play there without scrolling back up. */
  function confirmBar() {
    const p = pending();
    if (!p || st.hand?.order || sel.x === null || !['play', 'target'].includes(p.step)) return null;
    const r = orderBody();
    const label = p.step === 'target' ? t('Strike {x}, {y}', { x: sel.x, y: sel.y }) : `${t('Build {name} here', { name: design(slugOf(sel.card)).name })}${r.option && r.option.mode !== 'event' ? ` · +$${r.option.score}` : ''}`;
    return h('button', { type: 'button', class: 'primary small', id: 'confirm-here', disabled: !r.body || st.busy, onclick: confirm }, label);
  }

  /** The game in five lines for a newcomer, above the table: what to do without the rule book. */
  function quickGuide() {
    return h('details', { class: 'sc-guide', id: 'sc-guide' },
      h('summary', {}, t('New to SimCity? The game in five lines')),
      h('ol', {},
        h('li', {}, t('Money is your score. Once someone reaches the money target, the round is played out and the richest player wins.')),
        h('li', {}, t('On your turn pick a card of your hand, then a highlighted cell of the city: each shows the money that play pays you. A block goes next to the city, or on top of a block to upgrade or rezone it.')),
        h('li', {}, t('Blocks that need sims must reach blocks that provide them by road or rail; blocks of one zone together pay a bonus. The cells offered already follow every rule.')),
        h('li', {}, t('After the first Power Plant the city has a Mayor, events and a council: members vote on rezonings, the Mayor pays disaster bills (or pays half and leaves office, and an election follows).')),
        h('li', {}, t('Unsure? Suggest fills in a good choice; the city panel shows money, the Mayor and what is in force. '), h('a', { href: '#/rules/simcity' }, t('The full rules')), '.')));
  }

  /** The panels, and the guide open by itself in round 1 (closed on a phone: the hand comes first). */
  function draw() {
    const v = st.view;
    if (!guideSet && v && v.status === 'playing') {
      guideSet = true;
      guide.open = v.round <= 1 && me() !== null && !matchMedia('(max-width: 700px)').matches;
    }
    guide.hidden = !v || v.status !== 'playing';
    board.draw();
  }

  /** A hand card's face: a button that picks it, and shows its text on hover and focus. */
  function handCard(c, o, fresh) {
    return scCard(c.id, c.card, { ...o, fresh, disabled: o.disabled || st.busy, onClick: () => clickHand(c.id), onInfo: () => board.showCard(c.card) });
  }

  return {
    top: [board.whose, guide],
    main: [board.cityBox],
    sideBefore: [board.status],
    jump: [[t('City'), () => board.cityBox, 'jump-city'], [t('Money'), () => board.status, 'jump-status']],
    opening: [t('Your hand'), t('The game starts when every seat is taken.')],
    watching: t('You are watching this game. Hands stay secret; the city, money, the council and every vote are public.'),
    sorts: HAND_SORTS,
    sortHand: sortScHand,
    ...markNewByPoint,
    stepLabel: (v) => t('Round {n} · {step}', { n: v.round, step: STEP_TITLES[v.step] ?? v.step }),
    pointText: (p) => t('round {n}, {step}', { n: p.round, step: STEP_TITLES[p.step] ?? p.step }),
    stats: (v) => [
      { label: t('Phase'), value: PHASES[v.phase] ?? v.phase },
      { label: t('Mayor'), value: v.mayor === null || v.mayor === undefined ? '—' : nameOf(v.mayor) },
      v.seat !== undefined || me() !== null ? { label: t('Your money'), value: `$${v.seats[me()]?.money ?? 0}` } : null,
      v.target ? { label: t('To win'), value: `$${v.target}` } : null,
      { label: t('Deck'), value: v.deck_count },
    ].filter(Boolean),
    forceText: (v, names) => t('Resolve this decision now? {who} will get the default.', { who: names }),
    endLead: (v, names) => `${t('{names} with ${money}', { names: joinNames(names), money: (v.winners ?? []).length ? v.seats[v.winners[0]].money : 0 })}${v.end_reason ? ` · ${endReason(v.end_reason)}` : ''}.`,
    rankExtra: (v, seat) => [h('span', { class: 'r-vp' }, `$${v.seats[seat].money}`),
      h('span', { class: 'r-hand' }, `${tn(v.seats[seat].council.length, '{count} council member', '{count} council members')} · ${t('{n} in hand', { n: v.seats[seat].hand_count })}`)],
    sync,
    action,
    actionSig: () => [st.view?.last_seq, st.view?.city, st.view?.seats, st.view?.vote, st.view?.election, st.view?.timed, sel, hint, suggested],
    card: handCard,
    draw,
    logLines: scLog,
  };
}

/** Why the game ended, in words (the view's end_reason). */
function endReason(r) {
  return { target: t('the money target was reached'), surface_full: t('the city is full'), deck_out: t('the deck ran out'), all_passed: t('a whole round of passes') }[r] ?? r;
}
