// logcheck.js FILES...: checks finished games' public logs (saved by drive.js as
// /tmp/scaudit-game-ID.json {view, events}) against the rule text: votes, bills, elections,
// council purchases, money arithmetic, the target's end of round and the end reasons.
'use strict';
const fs = require('fs');
const S = require('./scorer.js');
const out = []; const counts = {};
function bad(kind, g, info) { out.push({ kind, game: g.view.id, seed: g.view.seed, P: g.view.players, ...info }); }
function count(k, n = 1) { counts[k] = (counts[k] || 0) + n; }

for (const f of process.argv.slice(2)) {
  const g = JSON.parse(fs.readFileSync(f));
  const ev = g.events; const P = g.view.players; const target = g.view.target;
  count('games');
  const money = Array(P).fill(0);
  let mayor = null; let proposal = null; let ballots = null; let bill = null; let election = null;
  let reachedRound = null; let powerPlayed = false; let lastTurnSeat = null; let boughtTurn = {};
  let firstSeat = g.view.first;
  for (let i = 0; i < ev.length; i++) {
    const e = ev[i];
    if (e.type === 'money') {
      count('money events');
      const want = Math.max(0, money[e.seat] + e.amount);
      if (e.money !== want) bad('money_arith', g, { seq: e.seq, before: money[e.seat], amount: e.amount, after: e.money });
      if (e.money < 0) bad('money_negative', g, { seq: e.seq });
      money[e.seat] = e.money;
      if (target && P > 1 && e.money >= target && reachedRound === null) {
        // the next target_reached event should say so
        const tr = ev.slice(i + 1, i + 4).find(x => x.type === 'target_reached');
        if (!tr) bad('target_not_noted', g, { seq: e.seq, money: e.money });
      }
    }
    if (e.type === 'target_reached' && reachedRound === null) { reachedRound = e.round; count('target reached'); }
    if (e.type === 'played' && e.card === 'power_plant') {
      if (!powerPlayed) {
        count('first power plant');
        const m = ev.slice(i + 1, i + 6).find(x => x.type === 'mayor');
        if (!m || m.seat !== e.seat) bad('first_power_no_mayor', g, { seq: e.seq, seat: e.seat, mayorEv: m });
      }
      powerPlayed = true;
    }
    if (e.type === 'played' && (S.CARDS[e.card].specials || []).some(x => x.mayor_gains)) {
      const amt = S.CARDS[e.card].specials.find(x => x.mayor_gains).mayor_gains;
      const m = ev.slice(i + 1, i + 8).find(x => x.type === 'money' && x.source === 'mayor');
      count('mayor gains');
      if (mayor === null) { if (m) bad('mayor_gain_without_mayor', g, { seq: e.seq }); }
      else if (!m || m.seat !== mayor || m.amount !== amt) bad('mayor_gain', g, { seq: e.seq, mayor, ev: m });
    }
    if (e.type === 'played' && (S.CARDS[e.card].specials || []).some(x => x.extra_play)) {
      count('extra plays');
      // the same seat plays again before anybody else acts (no draw)
      const nxt = ev.slice(i + 1).find(x => x.type === 'step' && x.step === 'play');
      if (nxt && !(nxt.seats && nxt.seats[0] === e.seat)) {
        const over = ev.slice(i + 1).find(x => x.type === 'game_over' || x.type === 'step');
        if (!(over && over.type === 'game_over')) bad('extra_play_missing', g, { seq: e.seq, card: e.card, next: nxt });
      }
    }
    if (e.type === 'played') {
      // removal: a card with remove_when S is doomed when S is played (only a later play)
      for (const o of ev.slice(Math.max(0, i - 3), i).filter(x => x.type === 'doomed')) {
        const spec = (S.CARDS[o.card].specials || []).find(x => x.remove_when);
        if (!spec || spec.remove_when.name !== e.card) bad('doomed_wrong', g, { seq: o.seq, card: o.card, played: e.card });
        count('doomed');
        // removed at the start of the next player's turn
        const r = ev.slice(i + 1).find(x => x.type === 'removed' && x.id === o.id);
        const stepIdx = ev.slice(i + 1).findIndex(x => x.type === 'step');
        const rIdx = ev.slice(i + 1).findIndex(x => x.type === 'removed' && x.id === o.id);
        if (!r) bad('doomed_not_removed', g, { seq: o.seq });
        else count('removed after doom: ' + (stepIdx >= 0 && rIdx > stepIdx ? 'after next step' : 'before next step'));
      }
    }
    if (e.type === 'doomed' && !ev.slice(i + 1, i + 4).some(x => x.type === 'played')) bad('doomed_without_play', g, { seq: e.seq });
    if (e.type === 'mayor') { mayor = e.seat; }
    if (e.type === 'elected') { mayor = e.seat; }
    if ((e.type === 'played' || e.type === 'passed' || e.type === 'proposed' || e.type === 'event') && reachedRound !== null && e.round > reachedRound)
      bad('played_after_target_round', g, { seq: e.seq, round: e.round, reachedRound });
    if (e.type === 'bought') {
      count('council bought');
      if (!powerPlayed) bad('council_before_power', g, { seq: e.seq });
      if (e.cost > money[e.seat]) bad('council_unaffordable', g, { seq: e.seq, cost: e.cost, money: money[e.seat] });
      const k = e.seat + ':' + e.round;
      if (boughtTurn[k]) bad('council_twice', g, { seq: e.seq });
      boughtTurn[k] = true;
      const card = S.CARDS[e.card];
      if (card.cost !== e.cost) bad('council_cost', g, { seq: e.seq, cost: e.cost, card: card.cost });
    }
    // votes
    if (e.type === 'proposed') { proposal = e; ballots = { yes: 0, no: 0, members: [], order: [] }; count('votes'); }
    if ((e.type === 'ballot' || e.type === 'mayor_vote') && ballots) ballots.order.push(e.type === 'ballot' ? e.seat : 'mayor');
    if (e.type === 'vote_result' && ballots) {
      // clockwise from the proposer, the mayor last
      const seq = ballots.order.filter(x => x !== 'mayor');
      const rank = s2 => (s2 - proposal.seat + P) % P;
      for (let k = 1; k < seq.length; k++) if (rank(seq[k]) < rank(seq[k - 1])) { bad('ballot_order', g, { seq: e.seq, order: ballots.order, proposer: proposal.seat }); break; }
      if (ballots.order.includes('mayor') && ballots.order[ballots.order.length - 1] !== 'mayor') bad('mayor_not_last', g, { seq: e.seq, order: ballots.order });
      if (P === 1) count('solitaire votes');
    }
    if (e.type === 'ballot' && ballots) {
      if (e.ballot === 'yes') ballots.yes += e.votes; if (e.ballot === 'no') ballots.no += e.votes;
      const c = S.CARDS[e.card];
      if (c && c.votes !== e.votes) bad('ballot_votes', g, { seq: e.seq, votes: e.votes, card: c.votes });
      if (c && c.corrupt && e.ballot !== c.vote) bad('corrupt_ballot', g, { seq: e.seq, ballot: e.ballot, card: c.vote });
      ballots.members.push(e);
    }
    if (e.type === 'mayor_vote' && ballots) {
      if (e.ballot === 'yes') ballots.yes += 2; if (e.ballot === 'no') ballots.no += 2;
      ballots.tie = e.tie; ballots.mayorSeat = e.seat;
      if (mayor !== null && e.seat !== mayor) bad('mayor_vote_by_non_mayor', g, { seq: e.seq, seat: e.seat, mayor });
    }
    if (e.type === 'vote_result' && ballots) {
      const passed = ballots.yes > ballots.no || (ballots.yes === ballots.no && ballots.tie === 'yes');
      if (e.yes !== ballots.yes || e.no !== ballots.no || e.passed !== passed)
        bad('vote_result', g, { seq: e.seq, server: { yes: e.yes, no: e.no, passed: e.passed }, mine: { yes: ballots.yes, no: ballots.no, tie: ballots.tie, passed } });
      if (e.passed) count('votes passed'); else count('votes failed');
      // a passed vote is followed by the play
      const next = ev.slice(i + 1, i + 3).find(x => x.type === 'played');
      if (e.passed && !(next && next.id === e.id && next.mode === 'vote')) bad('vote_passed_not_played', g, { seq: e.seq });
      if (!e.passed && ev.slice(i + 1, i + 3).some(x => x.type === 'played' && x.id === e.id)) bad('vote_failed_played', g, { seq: e.seq });
      ballots = null;
    }
    // events and bills
    if (e.type === 'event') {
      const card = S.CARDS[e.card];
      const destroyed = []; let j = i + 1;
      for (; j < ev.length && ev[j].type === 'destroyed'; j++) destroyed.push(ev[j]);
      const b = ev.slice(i + 1, j + 2).find(x => x.type === 'bill');
      const billFx = (card.effects || []).filter(x => x.bill);
      const fixed = (card.effects || []).filter(x => x.mayor_pays).reduce((s, x) => s + x.mayor_pays, 0);
      let want = fixed + (billFx.length ? destroyed.reduce((s, d) => s + d.value, 0) : 0);
      if (mayor !== null && want > 0) {
        count('bills');
        if (!b) bad('bill_missing', g, { seq: e.seq, card: e.card, want });
        else if (b.amount !== want) bad('bill_amount', g, { seq: b.seq, card: e.card, amount: b.amount, want, destroyed: destroyed.map(d => d.card + ':' + d.value) });
        if (b && b.seat !== mayor) bad('bill_not_mayor', g, { seq: b.seq, seat: b.seat, mayor });
      }
      for (const d of destroyed) if (S.CARDS[d.card] && S.CARDS[d.card].value !== d.value) bad('destroyed_value', g, { seq: d.seq, card: d.card, value: d.value });
      const allPay = (card.effects || []).find(x => x.all_pay);
      if (allPay) {
        count('all_pay');
        const paid = ev.slice(i + 1, i + 4 + P * 2).filter(x => x.type === 'money' && x.source === 'events');
        if (paid.length !== P) bad('all_pay_count', g, { seq: e.seq, paid: paid.length });
      }
    }
    if (e.type === 'timed' && e.x !== undefined && e.card === 'blight') {
      const r = ev.slice(i + 1, i + 3).find(x => x.type === 'removed');
      count('blight removals');
      if (!r || !(S.CARDS[r.card].complex && S.CARDS[r.card].complex.name === 'farm')) bad('blight_target', g, { seq: e.seq, removed: r && r.card });
    }
    if (e.type === 'timed' && e.x !== undefined) {
      // a spreading fire destroys; a removal removes
      const d = ev.slice(i + 1, i + 3).find(x => x.type === 'destroyed' || x.type === 'removed');
      if (d) {
        const b = ev.slice(i + 1, i + 5).find(x => x.type === 'bill');
        if (b && d.type === 'destroyed' && b.amount !== d.value) bad('bill_amount_timed', g, { seq: b.seq, amount: b.amount, value: d.value });
      }
    }
    if (e.type === 'bill') {
      // the mayor's payment follows: full, or half rounded up with vacate
      let j = i + 1; let pay = null; let vac = false;
      for (; j < ev.length && j < i + 12; j++) {
        if (ev[j].type === 'money' && ev[j].source === 'bills') pay = ev[j];
        if (ev[j].type === 'vacated') { vac = true; break; }
        if (ev[j].type === 'played' || ev[j].type === 'passed' || ev[j].type === 'bill') break;
      }
      if (pay) {
        const before = pay.money - pay.amount; // before clamp unknown; use bookkeeping below
        const full = -e.amount, half = -Math.ceil(e.amount / 2);
        const m = money[e.seat]; // the mayor's money before paying (bookkeeping so far)
        // paid in full, or half rounded up and vacated, or everything left (then vacated)
        const ok = vac ? (pay.amount === half || pay.amount === full || (pay.money === 0 && -pay.amount < e.amount)) : pay.amount === full;
        if (!ok) bad('bill_paid', g, { seq: pay.seq, bill: e.amount, paid: pay.amount, vacated: vac });
        count('bills paid' + (vac ? ' (vacated)' : ''));
      }
    }
    if (e.type === 'drew' && P === 1 && e.hand_count > 8) bad('solitaire_hand', g, { seq: e.seq, hand: e.hand_count });
    if (e.type === 'vacated' && P === 1) bad('solitaire_vacated', g, { seq: e.seq });
    if (e.type === 'vacated') { election = { outgoing: e.seat, votes: {}, order: [] }; count('vacancies'); }
    if (e.type === 'bid' && election) {
      election.votes[e.candidate] = (election.votes[e.candidate] || 0) + e.votes;
      election.order.push({ c: e.candidate, total: election.votes[e.candidate], seq: e.seq });
      const pay = ev.slice(Math.max(0, i - 2), i + 2).find(x => x.type === 'money' && x.source === 'elections' && x.seat === e.seat);
      if (!pay || pay.amount !== -e.votes) bad('bid_payment', g, { seq: e.seq, votes: e.votes, pay: pay && pay.amount });
    }
    if (e.type === 'elected' && election) {
      count('elections');
      let want;
      const vs = Object.entries(election.votes);
      if (!vs.length) want = (election.outgoing + 1) % P;
      else {
        const max = Math.max(...vs.map(v => v[1]));
        const tied = vs.filter(v => v[1] === max).map(v => +v[0]);
        // among tied, the one who reached that total first
        want = election.order.find(o => o.total === max && tied.includes(o.c)).c;
      }
      if (e.seat !== want) bad('election_winner', g, { seq: e.seq, server: e.seat, mine: want, votes: election.votes });
      election = null;
    }
  }
  // a whole round of passes once the deck is out ends the game (simcity.md, decision)
  if (P > 1) {
    const deckSize = (P <= 2 ? 60 : 60 + 30 * (P - 2)) - 7 * P - 1; // the first draw is not logged
    let drawn = 0; let run = 0;
    for (let i = 0; i < ev.length; i++) {
      const e = ev[i];
      if (e.type === 'drew' && e.from === 'deck') drawn += e.count;
      if (drawn < deckSize) continue;
      // a failed proposal returns the card: no play (simcity.md, "not vote-only rezones")
      if (e.type === 'passed' || (e.type === 'vote_result' && !e.passed)) run++;
      else if (['played', 'event'].includes(e.type)) run = 0;
      if (run >= P) {
        const rest = ev.slice(i + 1).filter(x => ['played', 'passed', 'proposed', 'event'].includes(x.type));
        if (rest.length) bad('passes_round_no_end', g, { seq: e.seq, more: rest.length });
        break;
      }
    }
    count('deck emptied', drawn >= deckSize ? 1 : 0);
  }
  // the public view's earned breakdown against the log's money events by source
  const bySrc = Array.from({ length: P }, () => ({}));
  for (const e of ev) if (e.type === 'money') bySrc[e.seat][e.source] = (bySrc[e.seat][e.source] || 0) + e.amount;
  for (const st of g.view.seats) for (const [k, v] of Object.entries(st.earned)) {
    if ((bySrc[st.seat][k] || 0) !== v) { bad('earned', g, { seat: st.seat, source: k, view: v, log: bySrc[st.seat][k] || 0 }); }
  }
  count('earned checked', P);
  // end of game
  const over = ev.find(e => e.type === 'game_over');
  if (!over) { bad('no_game_over', g, {}); continue; }
  count('end ' + over.end_reason);
  for (let s = 0; s < P; s++) if (over.money[s] !== money[s]) bad('final_money', g, { seat: s, log: money[s], over: over.money[s] });
  const maxM = Math.max(...over.money);
  const winners = over.money.map((m, s) => m === maxM ? s : -1).filter(s => s >= 0);
  if (JSON.stringify(winners) !== JSON.stringify(over.winners)) bad('winners', g, { winners: over.winners, mine: winners });
  if (over.end_reason === 'target') {
    if (reachedRound === null) bad('target_end_without_target', g, {});
    // the round played out: the last seat of the reached round (first-1) acted in that round
    const lastSeat = (firstSeat + P - 1) % P;
    const acted = ev.some(x => (x.type === 'played' || x.type === 'passed' || x.type === 'event' || x.type === 'proposed') && x.round === reachedRound && x.seat === lastSeat);
    if (!acted) bad('target_round_not_played_out', g, { reachedRound, lastSeat, overRound: over.round });
  } else if (reachedRound !== null && P > 1) bad('target_reached_other_end', g, { end: over.end_reason });
  if (over.end_reason === 'all_passed') {
    // the last P turn actions are passes with the deck out
    const acts = ev.filter(x => x.type === 'played' || x.type === 'passed' || x.type === 'event' || (x.type === 'vote_result' && !x.passed));
    const tail = acts.slice(-P);
    if (!tail.every(x => x.type === 'passed' || x.type === 'vote_result')) bad('all_passed_not_passes', g, { tail: tail.map(x => x.type + ':' + x.seat) });
    if (g.view.deck_count !== 0) bad('all_passed_deck_left', g, { deck: g.view.deck_count });
  }
  if (over.end_reason === 'deck_out' && g.view.deck_count !== 0) bad('deck_out_with_deck', g, { deck: g.view.deck_count });
}
console.log(JSON.stringify(counts));
const byKind = {};
for (const o of out) byKind[o.kind] = (byKind[o.kind] || 0) + 1;
console.log(JSON.stringify(byKind));
fs.writeFileSync(process.env.LOGCHECK_OUT || '/tmp/scaudit-logcheck.jsonl', out.map(o => JSON.stringify(o)).join('\n') + '\n');
