// drive.js: plays SimCity games against a running cityd and compares, at every play, the server's
// legal options and scores and the money it credits with scorer.js.
// usage: node drive.js GAMES [SEED0]   (AUDIT_URL set by run.sh)
// Each game: P seats (1..6 cycling), some seats real bots (greedy/random), the others driven here
// (strategy "sugg" = the server's suggestion, "rand" = a random legal option). Findings are
// appended to /tmp/scaudit-findings.jsonl, one JSON line each.
'use strict';
const fs = require('fs');
const S = require('./scorer.js');
const U = process.env.AUDIT_URL;
const OUT = process.env.AUDIT_OUT || '/tmp/scaudit-findings.jsonl';
let rng = 1;
function rand() { rng = (rng * 1103515245 + 12345) & 0x7fffffff; return rng / 0x80000000; }
function pick(a) { return a[Math.floor(rand() * a.length)]; }
async function j(m, p, b, t) {
  const r = await fetch(U + p, { method: m, headers: { 'content-type': 'application/json', ...(t ? { authorization: 'Bearer ' + t } : {}) }, body: b ? JSON.stringify(b) : undefined });
  const x = await r.text(); try { return { s: r.status, b: JSON.parse(x) }; } catch (e) { return { s: r.status, b: x }; }
}
const stats = { games: 0, checkedPlays: 0, optionSets: 0, optionsScored: 0, credited: 0, findings: 0, byKind: {} };
const seenSteps = new Set(); const lastStepEvent = new Map(); let curView = null; const dumped = new Set();
function finding(kind, info) {
  if (curView && info.game && !dumped.has(info.game + '-' + curView.turn)) { dumped.add(info.game + '-' + curView.turn); fs.mkdirSync('/tmp/scaudit-views', { recursive: true }); fs.writeFileSync(`/tmp/scaudit-views/${info.game}-${curView.turn}.json`, JSON.stringify(curView)); }
  info.viewTurn = curView ? curView.turn : null;
  stats.findings++; stats.byKind[kind] = (stats.byKind[kind] || 0) + 1;
  fs.appendFileSync(OUT, JSON.stringify({ kind, ...info }) + '\n');
}

async function allEvents(id, after) {
  let out = [];
  for (;;) {
    const e = await j('GET', `/games/${id}/events?after=${after}`);
    if (!e.b.events || !e.b.events.length) break;
    out = out.concat(e.b.events); after = e.b.events[e.b.events.length - 1].seq;
    if (after >= e.b.last_seq) break;
  }
  return out;
}

async function playGame(gi, P, seed, plan, tokensOut) {
  // plan: array of P entries: 'greedy' | 'random' (server bots) | 'sugg' | 'rand' (driven here); seat 0 driven
  const bots = plan.slice(1).filter(x => x === 'greedy' || x === 'random' || x === 'expert');
  // bots take the last seats: reorder plan so that driven seats come first
  const driven = plan.filter(x => x === 'sugg' || x === 'rand');
  const strategies = driven.concat(bots);
  const body = { game: 'simcity', seats: P, bots, name: 'Audit', seed };
  const c = await j('POST', '/games', body);
  if (c.s !== 201) { console.log('create', c.s, JSON.stringify(c.b)); return; }
  const id = c.b.id; const tokens = [c.b.token];
  for (let i = 1; i < driven.length; i++) {
    const r = await j('POST', `/games/${id}/join`, { name: 'Audit' + i });
    if (r.s !== 201 && r.s !== 200) { console.log('join', r.s, JSON.stringify(r.b)); return; }
    tokens[r.b.seat] = r.b.token;
  }
  let lastSeq = 0; const pendingExpect = new Map(); // hand card id -> expectation
  let steps = 0; let lastView = null;
  const tag = { game: id, seed, P, plan: strategies };
  while (steps++ < 3000) {
    const view = (await j('GET', `/games/${id}`)).b;
    // events since last time: check played/money against expectations
    const evs = await allEvents(id, lastSeq);
    if (evs.length) lastSeq = evs[evs.length - 1].seq;
    checkEvents(evs, pendingExpect, tag, view, lastView);
    for (let k = 0; k < evs.length; k++) if (evs[k].type === 'step') {
      const prev = evs.slice(0, k).reverse().find(x => x.type === 'played' || x.type === 'passed' || x.type === 'drew' || x.type === 'vote_result');
      lastStepEvent.set(id, { seats: evs[k].seats, prevPlayed: !!(prev && prev.type === 'played' && evs[k].seats && prev.seat === evs[k].seats[0]) });
    }
    lastView = view;
    if (view.over || view.status !== 'playing') {
      // an end at once: the seat whose turn it was must have had no legal play (votes aside)
      if (['deck_out', 'surface_full'].includes(view.end_reason) && P > 1) {
        const actor = view.actor; const t = tokens[actor];
        if (t) {
          const hv = (await j('GET', `/games/${id}/hand`, null, t)).b;
          if (hv.hand) {
            const city = S.cityFrom(view);
            const plays = S.legalPlays(city, hv.hand).filter(o => o.mode !== 'vote');
            const events = view.power_played ? hv.hand.filter(h => S.CARDS[h.card].kind === 'event') : [];
            stats.endsChecked = (stats.endsChecked || 0) + 1;
            if (plays.length || events.length) finding('end_with_legal_play', { ...tag, end: view.end_reason, actor, deck: view.deck_count, hand: hv.hand.map(h => h.card), plays: plays.slice(0, 3), events: events.length });
          }
        }
      }
      await endChecks(id, view, tag); break;
    }
    const seat = (view.pending || [])[0];
    if (seat === undefined || !tokens[seat]) { await new Promise(r => setTimeout(r, 30)); continue; }
    const hv = (await j('GET', `/games/${id}/hand`, null, tokens[seat])).b;
    const pend = hv.pending; if (!pend) { await new Promise(r => setTimeout(r, 30)); continue; }
    const strat = strategies[seat];
    const myMoney = view.seats[seat].money;
    if (pend.step === 'council') {
      // only members from hand whose cost the seat can pay
      const offered = pend.options.filter(o => o.card !== undefined).map(o => o.card).sort();
      const want = hv.hand.filter(h => S.CARDS[h.card].kind === 'council' && S.CARDS[h.card].cost <= myMoney).map(h => h.id).sort();
      stats.councilSets = (stats.councilSets || 0) + 1;
      if (JSON.stringify(offered) !== JSON.stringify(want)) finding('council_options', { ...tag, turn: pend.turn, seat, money: myMoney, offered, want, power: view.power_played });
    }
    if (pend.step === 'election') {
      stats.electionSets = (stats.electionSets || 0) + 1;
      if (pend.max_votes !== myMoney || pend.options.some(o => o.votes > myMoney)) finding('election_options', { ...tag, turn: pend.turn, seat, money: myMoney, max: pend.max_votes });
    }
    if (pend.step === 'play') {
      // event targets offered, for the record (analysed by hand)
      const evo = pend.options.filter(o => o.mode === 'event');
      if (evo.length) {
        const city = S.cityFrom(view);
        const byCard = {};
        for (const o of evo) { const d = (hv.hand.find(h => h.id === o.card) || {}).card; (byCard[d] = byCard[d] || []).push(o.x === undefined ? 'none' : o.x + ',' + o.y); }
        if (byCard.fire) {
          // the chosen block: a non-land block not covered by a fire station nor within a water tower's 1
          const bl = S.blocks(city);
          const st = bl.filter(c => (c.top.specials || []).some(sp => sp.coverage === 'fire'));
          const tw = bl.filter(c => (c.top.specials || []).some(sp => sp.protect === 'fire'));
          const mk = selfCovers => bl.filter(c => c.top.zone !== 'land' &&
            !st.some(p => (selfCovers || p !== c) && Math.abs(p.x - c.x) + Math.abs(p.y - c.y) <= 2) &&
            !tw.some(p => Math.abs(p.x - c.x) + Math.abs(p.y - c.y) <= 1)).map(c => c.x + ',' + c.y).sort();
          const off = [...byCard.fire].sort();
          stats.fireChoice = stats.fireChoice || { n: 0, selfCovered: 0, selfNotCovered: 0, neither: 0 };
          stats.fireChoice.n++;
          const a = JSON.stringify(off) === JSON.stringify(mk(true)), b = JSON.stringify(off) === JSON.stringify(mk(false));
          if (a) stats.fireChoice.selfCovered++; if (b) stats.fireChoice.selfNotCovered++;
          if (!a && !b) { stats.fireChoice.neither++; finding('fire_choice', { ...tag, turn: pend.turn, offered: off, mine: mk(true) }); }
        }
        for (const [d, cells] of Object.entries(byCard)) {
          const blocks = S.blocks(city).map(c => c.x + ',' + c.y + ':' + c.top.zone);
          fs.appendFileSync('/tmp/scaudit-event-options.jsonl', JSON.stringify({ game: id, turn: pend.turn, card: d, offered: cells, blocks }) + '\n');
        }
      }
    }
    if (!seenSteps.has(pend.step)) { seenSteps.add(pend.step); fs.appendFileSync('/tmp/scaudit-steps.jsonl', JSON.stringify(pend).slice(0, 3000) + '\n'); }
    let order;
    if (pend.step === 'play') {
      const city = S.cityFrom(view);
      const opts = pend.options;
      const blockOpts = opts.filter(o => o.card !== undefined && o.mode && o.mode !== 'event');
      curView = view;
      const mine = S.legalPlays(city, hv.hand);
      const evOpts = opts.filter(o => o.mode === 'event');
      if (evOpts.length && !view.power_played) finding('event_before_power', { ...tag, turn: pend.turn, option: evOpts[0] });
      const realPlays = opts.filter(o => !o.pass && o.mode !== 'vote');
      const prevStep = lastStepEvent.get(id);
      const firstPlay = !(prevStep && prevStep.seats && prevStep.seats[0] === seat && prevStep.prevPlayed);
      const full = S.blocks(city).length === view.side * view.side;
      if (!realPlays.length && firstPlay && (view.deck_count === 0 || full) && P > 1)
        finding('no_end_without_legal_play', { ...tag, turn: pend.turn, round: pend.round, seat, deck: view.deck_count, full, hand: hv.hand.map(h => h.card) });
      stats.optionSets++;
      const key = o => `${o.card}@${o.x},${o.y}:${o.mode}`;
      const srv = new Map(blockOpts.map(o => [key(o), o]));
      const me = new Map(mine.map(o => [key(o), o]));
      const design = idn => (hv.hand.find(h => h.id === idn) || {}).card;
      for (const [k, o] of srv) if (!me.has(k)) finding('extra_option', { ...tag, turn: pend.turn, round: pend.round, seat, option: o, design: design(o.card), phase: view.phase, power: view.power_played, timed: view.timed });
      for (const [k, o] of me) if (!srv.has(k)) finding('missing_option', { ...tag, turn: pend.turn, round: pend.round, seat, option: o, phase: view.phase, power: view.power_played, timed: view.timed });
      for (const [k, o] of srv) {
        if (!me.has(k)) continue;
        const sc = S.score(city, design(o.card), o.x, o.y);
        stats.optionsScored++;
        if (sc.total !== o.score) finding('option_score', { ...tag, turn: pend.turn, round: pend.round, seat, option: o, design: design(o.card), mine: sc });
      }
      // the suggestion is one of the options
      const sg = pend.suggestion;
      stats.suggestions = (stats.suggestions || 0) + 1;
      if (!opts.some(o => (o.pass && sg.pass) || (o.card === sg.card && o.x === sg.x && o.y === sg.y)))
        finding('suggestion_not_option', { ...tag, turn: pend.turn, seat, suggestion: sg });
      let choice;
      if (strat === 'sugg') choice = pend.suggestion;
      else {
        const nonpass = opts.filter(o => !o.pass);
        const o = (nonpass.length && rand() < 0.93) ? pick(nonpass) : opts.find(o => o.pass) || pick(opts);
        choice = Object.assign({}, o); delete choice.mode; delete choice.score;
        choice.round = pend.round; choice.step = pend.step; choice.turn = pend.turn;
      }
      if (choice.card !== undefined && choice.x !== undefined) {
        const d = design(choice.card);
        if (S.CARDS[d] && S.CARDS[d].kind === 'block') {
          const sc = S.score(city, d, choice.x, choice.y);
          const city2 = S.withPlay(city, S.CARDS[d], choice.x, choice.y);
          pendingExpect.set(choice.card, { design: d, x: choice.x, y: choice.y, seat, expect: sc, turn: pend.turn, round: pend.round,
            money: view.seats[seat].money, view, srvScore: (srv.get(`${choice.card}@${choice.x},${choice.y}:${(blockOpts.find(o => o.card === choice.card && o.x === choice.x && o.y === choice.y) || {}).mode}`) || {}).score });
        }
      }
      order = choice;
    } else {
      order = pend.suggestion;
      if (strat === 'rand' && Array.isArray(pend.options) && pend.options.length) {
        // a random legal option (elections: pass more often than not, so that they end)
        let o = pick(pend.options);
        if (pend.step === 'election' && rand() < 0.6) o = pend.options.find(x => x.pass) || o;
        order = Object.assign({}, o, { round: pend.round, step: pend.step, turn: pend.turn });
      }
    }
    const r = await j('POST', `/games/${id}/orders`, order, tokens[seat]);
    if (pend.step === 'play' && order.card !== undefined) {
      const d = (hv.hand.find(h => h.id === order.card) || {}).card;
      if (d && (S.CARDS[d].specials || []).some(x => x.extra_play)) {
        const after = (await j('GET', `/games/${id}/hand`, null, tokens[seat])).b;
        const v2 = (await j('GET', `/games/${id}`)).b;
        const city2 = S.cityFrom(v2);
        const mine2 = S.legalPlays(city2, after.hand || []).filter(o => o.mode !== 'vote');
        fs.appendFileSync('/tmp/scaudit-extra.jsonl', JSON.stringify({ game: id, seed, seat, card: d, turn: pend.turn, status: r.s, nextPending: after.pending && { step: after.pending.step, seat: v2.pending, n: (after.pending.options || []).length }, actor: v2.actor, myLegalAfter: mine2.length, hand: (after.hand || []).map(h => h.card) }) + '\n');
      }
    }
    if (r.s !== 202) {
      finding('order_refused', { ...tag, seat, order, status: r.s, body: r.b, pending: JSON.stringify(pend).slice(0, 600) });
      // fall back to the suggestion
      const r2 = await j('POST', `/games/${id}/orders`, pend.suggestion, tokens[seat]);
      if (r2.s !== 202) { console.log('stuck', id, r2.s, JSON.stringify(r2.b)); break; }
    }
  }
  stats.games++;
}

// a model of the city from the last view, moved on by the plays of the log (bots' plays are
// checked on it); any destroy, removal or event makes it stale until the next view
let model = null;
function advanceModel(e) {
  if (!model) return;
  if (e.type === 'played') {
    const card = S.CARDS[e.card];
    model = S.withPlay(model, card, e.x, e.y);
    model.cells.get(e.x + ',' + e.y).isNew = false;
    if (e.card === 'power_plant') model.power = true;
    model.phase = S.phaseAfter(model, model.phase);
  } else if (e.type === 'mayor' || e.type === 'elected') model.mayor = e.seat;
  else if (e.type === 'vacated') model.mayor = null;
  else if (e.type === 'destroyed') {
    // non-land cards turn over; the land beneath becomes the block, else the cell is scorched
    const cell = model.cells.get(e.x + ',' + e.y);
    if (!cell || !cell.stack) { model = null; return; }
    const cells = new Map(model.cells);
    const stack = cell.stack.map(c => (S.CARDS[c.card].zone === 'land' ? c : { ...c, overturned: true }));
    const land = [...stack].reverse().find(c => !c.overturned);
    cells.set(e.x + ',' + e.y, { x: e.x, y: e.y, stack, top: land ? S.CARDS[land.card] : null, scorched: !land });
    model = Object.assign({}, model, { cells });
  } else if (e.type === 'removed') {
    const cell = model.cells.get(e.x + ',' + e.y);
    if (!cell || !cell.stack || !cell.top || cell.top.id !== e.card) { model = null; return; }
    const cells = new Map(model.cells);
    const stack = cell.stack.slice(0, -1);
    const under = stack.length && !stack[stack.length - 1].overturned ? S.CARDS[stack[stack.length - 1].card] : null;
    cells.set(e.x + ',' + e.y, { x: e.x, y: e.y, stack, top: under, scorched: false });
    model = Object.assign({}, model, { cells });
  } else if (e.type === 'event' && e.card === 'flood') model = null; // a new timed forbid
  else if (e.type === 'timed' && e.ended) model = Object.assign({}, model, { timed: model.timed.filter(t => t.id !== e.id) });
}
// fires: the burning cells of each fire (by event card id), to check each spread
const fires = new Map();
function fireTargets(burning) {
  // blocks next to a burnt cell, not covered by a fire station (range), not within 1 of a water tower
  const bl = S.blocks(model);
  const stations = bl.filter(c => (c.top.specials || []).some(sp => sp.coverage === 'fire'));
  const towers = bl.filter(c => (c.top.specials || []).some(sp => sp.protect === 'fire'));
  const out = [];
  for (const c of bl) {
    if (c.top.zone === 'land') continue;
    if (![...burning].some(k => { const [x, y] = k.split(',').map(Number); return Math.abs(x - c.x) + Math.abs(y - c.y) === 1; })) continue;
    if (stations.some(p => Math.abs(p.x - c.x) + Math.abs(p.y - c.y) <= p.top.specials.find(sp => sp.coverage === 'fire').range)) continue;
    if (towers.some(p => Math.abs(p.x - c.x) + Math.abs(p.y - c.y) <= p.top.specials.find(sp => sp.protect === 'fire').within)) continue;
    out.push(c.x + ',' + c.y);
  }
  return out;
}
function checkFire(evs, i, tag) {
  const e = evs[i];
  if (e.type === 'event' && e.card === 'fire') { const f0 = new Set([e.x + ',' + e.y]); f0.chosen = e.x + ',' + e.y; f0.last = f0.chosen; f0.acts = 0; f0.P = tag.P; fires.set(tag.game + ':' + e.id, f0); return; }
  if (e.type !== 'timed') return;
  const f = fires.get(tag.game + ':' + e.id);
  if (!f) return;
  if (!model) { stats.fireUnchecked = (stats.fireUnchecked || 0) + 1; return; }
  stats.fireChecked = (stats.fireChecked || 0) + 1;
  const targets = fireTargets(f);
  const tChosen = fireTargets(new Set([f.chosen])), tLast = fireTargets(new Set([f.last]));
  const adj = (a, b) => { const [x1, y1] = a.split(',').map(Number); const [x2, y2] = b.split(',').map(Number); return Math.abs(x1 - x2) + Math.abs(y1 - y2) === 1; };
  if (!e.ended) {
    stats.fireReading = stats.fireReading || { nextToChosen: 0, nextToLast: 0, nextToAny: 0, n: 0 };
    const k = e.x + ',' + e.y; stats.fireReading.n++;
    if (adj(k, f.chosen)) stats.fireReading.nextToChosen++;
    if (adj(k, f.last)) stats.fireReading.nextToLast++;
    if ([...f].some(b => adj(k, b))) stats.fireReading.nextToAny++;
  } else {
    fs.appendFileSync('/tmp/scaudit-fire-ends.jsonl', JSON.stringify({ ...tag, seq: e.seq, acts: f.acts, full: 2 * f.P, any: targets.length, chosen: tChosen.length, last: tLast.length }) + '\n');
  }
  if (e.ended) {
    stats.fireEnds = stats.fireEnds || {};
    if (targets.length) { stats.fireEnds.endedWithTargets = (stats.fireEnds.endedWithTargets || 0) + 1; fs.appendFileSync('/tmp/scaudit-fire-ends.jsonl', JSON.stringify({ ...tag, seq: e.seq, id: e.id, round: e.round, targets, burning: [...f] }) + '\n'); }
    else stats.fireEnds.endedNoTargets = (stats.fireEnds.endedNoTargets || 0) + 1;
    return;
  }
  if (!targets.includes(e.x + ',' + e.y)) finding('fire_target', { ...tag, seq: e.seq, x: e.x, y: e.y, burning: [...f], targets });
  f.add(e.x + ',' + e.y); f.last = e.x + ',' + e.y; f.acts++;
}
// the blocks an event destroys, from the rule text and the card data, on the model
function expectedDestroyed(e) {
  const card = S.CARDS[e.card]; const out = [];
  const fx = (card.effects || []).find(f => f.destroy);
  if (!fx) return null;
  const bl = S.blocks(model).filter(c => c.top.zone !== 'land');
  if (fx.destroy === 'chosen') {
    for (const c of bl) if (Math.abs(c.x - e.x) + Math.abs(c.y - e.y) <= (fx.within || 0)) out.push(c);
  } else if (fx.destroy === 'crime') {
    const police = S.blocks(model).filter(c => (c.top.specials || []).some(sp => sp.coverage === 'police'));
    for (const c of bl) {
      if ((c.top.crime || 0) < fx.at_least) continue;
      const covered = police.some(p => { const sp = p.top.specials.find(x => x.coverage === 'police'); return Math.abs(c.x - p.x) + Math.abs(c.y - p.y) + (c.top.crime || 0) <= sp.range; });
      if (!covered) out.push(c);
    }
  } else if (fx.destroy === 'pollution') {
    for (const c of bl) if ((c.top.pollution || 0) >= fx.at_least) out.push(c);
  }
  return out.map(c => c.x + ',' + c.y + ':' + c.top.id).sort();
}
function checkEventDestroy(evs, i, tag) {
  const e = evs[i];
  if (!model) { stats.eventsUnchecked = (stats.eventsUnchecked || 0) + 1; return; }
  const want = expectedDestroyed(e);
  if (!want) return;
  stats.eventsChecked = (stats.eventsChecked || 0) + 1;
  const got = [];
  for (let k = i + 1; k < evs.length && evs[k].type === 'destroyed'; k++) got.push(evs[k].x + ',' + evs[k].y + ':' + evs[k].card);
  got.sort();
  if (JSON.stringify(got) !== JSON.stringify(want)) finding('event_destroyed', { ...tag, seq: e.seq, card: e.card, x: e.x, y: e.y, server: got, mine: want });
  // scorched iff no land beneath
  for (let k = i + 1; k < evs.length && evs[k].type === 'destroyed'; k++) {
    const d = evs[k]; const cell = model.cells.get(d.x + ',' + d.y);
    const land = cell && (cell.stack || []).some(c => !c.overturned && S.CARDS[c.card].zone === 'land');
    if (cell && cell.stack && cell.stack.length && d.scorched === land) finding('destroyed_scorched', { ...tag, seq: d.seq, card: d.card, scorched: d.scorched, landBeneath: land });
  }
}
function checkBotPlay(evs, i, tag) {
  const e = evs[i];
  if (!model) { stats.botUnchecked = (stats.botUnchecked || 0) + 1; return; }
  stats.botChecked = (stats.botChecked || 0) + 1;
  const card = S.CARDS[e.card];
  let mode = S.legalAt(model, card, e.x, e.y);
  if (e.mode === 'vote' && mode === null && model.mayor === null) mode = 'vote?';
  const sc = S.score(model, e.card, e.x, e.y);
  let credited = 0;
  for (let k = i + 1; k < evs.length && ((evs[k].type === 'money' && evs[k].seat === e.seat) || evs[k].type === 'target_reached'); k++)
    if (evs[k].type === 'money' && ['value', 'bonus', 'zone', 'complex', 'scorched', 'coverage'].includes(evs[k].source)) credited += evs[k].amount;
  if (mode !== e.mode || sc.total !== e.scored) {
    const snap = { side: model.side, players: model.players, phase: model.phase, power_played: model.power, mayor: model.mayor, timed: model.timed,
      city: [...model.cells.values()].map(c => ({ x: c.x, y: c.y, block: c.top ? { card: c.top.id } : null, scorched: c.scorched, stack: [] })) };
    fs.mkdirSync('/tmp/scaudit-views', { recursive: true });
    fs.writeFileSync(`/tmp/scaudit-views/${tag.game}-bot-${e.seq}.json`, JSON.stringify(snap));
    finding(mode !== e.mode ? 'bot_play_mode' : 'bot_play_score', { ...tag, seq: e.seq, turn: e.turn, round: e.round, seat: e.seat, design: e.card, x: e.x, y: e.y, mode: e.mode, myMode: mode, scored: e.scored, mine: sc });
  }
}

function checkEvents(evs, expect, tag, view, lastView) {
  model = lastView && lastView.city ? S.cityFrom(lastView) : null;
  for (let i = 0; i < evs.length; i++) {
    const e = evs[i];
    if (i > 0) advanceModel(evs[i - 1]);
    if (e.type === 'event') checkEventDestroy(evs, i, tag);
    if (e.type === 'event' || e.type === 'timed') checkFire(evs, i, tag);
    if (e.type === 'phase' && model) {
      // the model has applied the plays before this event (advanceModel of evs[i-1])
      if (model.phase < e.phase) finding('phase_event', { ...tag, seq: e.seq, turn: e.turn, server: e.phase, mine: model.phase });
      model.phase = Math.max(model.phase, e.phase);
    }
    if (e.type === 'money' && e.money < 0) finding('money_negative', { ...tag, ev: e });
    if (e.type !== 'played') continue;
    const ex = expect.get(e.id);
    if (!ex) { stats.unexpected = (stats.unexpected || 0) + 1; checkBotPlay(evs, i, tag); continue; }
    expect.delete(e.id);
    stats.checkedPlays++;
    let credited = 0; const srcs = {};
    for (let k = i + 1; k < evs.length && ((evs[k].type === 'money' && evs[k].seat === e.seat) || evs[k].type === 'target_reached'); k++) {
      if (evs[k].type !== 'money') continue;
      if (['value', 'bonus', 'zone', 'complex', 'scorched', 'coverage'].includes(evs[k].source)) { credited += evs[k].amount; srcs[evs[k].source] = (srcs[evs[k].source] || 0) + evs[k].amount; }
    }
    stats.credited++;
    curView = ex.view;
    if (e.scored !== ex.expect.total || (ex.srvScore !== undefined && ex.srvScore !== e.scored))
      finding('played_score', { ...tag, turn: ex.turn, round: ex.round, seat: e.seat, design: ex.design, x: e.x, y: e.y, mode: e.mode, scored: e.scored, optionScore: ex.srvScore, mine: ex.expect });
    const want = Math.max(-ex.money, e.scored);
    if (credited !== want && !(credited === 0 && want === 0))
      finding('credited', { ...tag, turn: ex.turn, seat: e.seat, design: ex.design, scored: e.scored, credited, srcs, moneyBefore: ex.money, parts: ex.expect.parts });
  }
  if (evs.length) advanceModel(evs[evs.length - 1]);
  if (model && model.phase !== view.phase) finding('phase_model', { ...tag, turn: view.turn, server: view.phase, mine: model.phase });
  // phase: recompute from the city now, from the phase before
  if (lastView && view.city) {
    const want = S.phaseAfter(S.cityFrom(view), lastView.phase);
    if (want !== view.phase && evs.filter(e => e.type === 'played').length <= 1 && !evs.some(e => e.type === 'destroyed' || e.type === 'removed'))
      finding('phase', { ...tag, turn: view.turn, round: view.round, before: lastView.phase, server: view.phase, mine: want });
  }
}

async function endChecks(id, view, tag) {
  const evs = await allEvents(id, 0);
  fs.writeFileSync(`/tmp/scaudit-game-${id}.json`, JSON.stringify({ view, events: evs }));
  stats.ends = stats.ends || {}; stats.ends[view.end_reason] = (stats.ends[view.end_reason] || 0) + 1;
  // money replay: each money event = previous + amount clamped at 0
  const money = {};
  for (const e of evs) {
    if (e.type !== 'money') continue;
    const prev = money[e.seat] || 0;
    const want = Math.max(0, prev + e.amount);
    if (e.money !== want && e.money !== prev + e.amount) finding('money_arith', { ...tag, ev: e, prev });
    money[e.seat] = e.money;
  }
  for (const s of view.seats) if ((money[s.seat] || 0) !== s.money) finding('money_total', { ...tag, seat: s.seat, log: money[s.seat], view: s.money });
}

(async () => {
  const games = Number(process.argv[2] || 4); const seed0 = Number(process.argv[3] || 1000);
  rng = seed0;
  const plans = {
    1: [['rand'], ['sugg']],
    2: [['rand', 'sugg'], ['rand', 'greedy'], ['sugg', 'random']],
    3: [['rand', 'sugg', 'rand'], ['rand', 'greedy', 'random']],
    4: [['rand', 'sugg', 'rand', 'sugg'], ['rand', 'greedy', 'random', 'greedy']],
    5: [['rand', 'sugg', 'rand', 'sugg', 'rand'], ['rand', 'greedy', 'greedy', 'random', 'random']],
    6: [['rand', 'sugg', 'rand', 'sugg', 'rand', 'sugg'], ['rand', 'greedy', 'random', 'greedy', 'random', 'greedy']],
  };
  const Ps = (process.env.AUDIT_P || '1,2,3,4,5,6').split(',').map(Number);
  for (let g = 0; g < games; g++) {
    const P = Ps[g % Ps.length];
    const pi = process.env.AUDIT_PLAN !== undefined ? Number(process.env.AUDIT_PLAN) : Math.floor(g / Ps.length) % plans[P].length;
    const plan = process.env.AUDIT_ALLSUGG ? Array(P).fill('sugg') : plans[P][pi];
    const tokensOut = {};
    rng = seed0 + g;
    try { await playGame(g, P, seed0 + g, plan, tokensOut); } catch (e) { console.log('error', e.stack); }
    console.log(JSON.stringify(stats));
  }
})();
