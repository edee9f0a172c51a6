// setup.js: the set-up of a game at each seat count: grid side, deck size, hands, target default,
// the deck's composition against simcity.md ("The deck (ours)").
'use strict';
const S = require('./scorer.js');
const U = process.env.AUDIT_URL;
async function j(m, p, b, t) { const r = await fetch(U + p, { method: m, headers: { 'content-type': 'application/json', ...(t ? { authorization: 'Bearer ' + t } : {}) }, body: b ? JSON.stringify(b) : undefined }); return { s: r.status, b: await r.json() }; }
(async () => {
  for (let P = 1; P <= 6; P++) {
    const c = await j('POST', '/games', { game: 'simcity', seats: P, bots: Array(P - 1).fill('greedy'), name: 'Audit', seed: 42 });
    const v = (await j('GET', `/games/${c.b.id}`)).b;
    const hands = v.seats.map(s => s.hand_count);
    const total = v.deck_count + hands.reduce((a, b) => a + b, 0) + v.city.length + v.discard.length;
    let base = 0, pack = 0; const by = { white: 0, providers: 0, requirers: 0, sims: 0, power: 0 };
    for (const k in S.CARDS) {
      const cd = S.CARDS[k]; const n = (cd.copies.base || 0) + (P > 2 ? (P - 2) * (cd.copies.pack || 0) : 0);
      base += cd.copies.base || 0; pack += cd.copies.pack || 0;
      if (cd.phase === 1) by.white += n;
      if (cd.phase === 1 && (cd.sims || 0) > 0) by.providers += n;
      if (cd.phase <= 2 && (cd.sims || 0) < 0) by.requirers += n;
      if ((cd.sims || 0) > 0) by.sims += n * cd.sims;
      if (cd.id === 'power_plant') by.power += n;
    }
    const want = P <= 2 ? 60 : 60 + 30 * (P - 2);
    console.log(JSON.stringify({ P, side: v.side, wantSide: P <= 4 ? 12 : 14, target: v.target, cardsInGame: total, wantDeck: want, hands, first: v.first, actor: v.actor, datafile: { base, pack, ...by, whiteShare: +(by.white / want).toFixed(2), minProviders: Math.max(12, 3 * P), minRequirers: Math.max(16, 4 * P), minSims: Math.max(40, 10 * P) } }));
  }
})();
