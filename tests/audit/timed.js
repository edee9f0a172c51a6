// timed.js FILES...: lists each timed event (fire, blight, flood) with the turns it acted on and
// when it ended, in the event player's own following turns (simcity.md, "Timed effects").
'use strict';
const fs = require('fs');
for (const f of process.argv.slice(2)) {
  const g = JSON.parse(fs.readFileSync(f)); const ev = g.events; const P = g.view.players;
  for (let i = 0; i < ev.length; i++) {
    const e = ev[i];
    if (e.type !== 'event' || !['fire', 'blight', 'flood'].includes(e.card)) continue;
    // turns: each 'step' event of step play opening a seat's turn after the event
    const acts = []; let own = 0; let ended = null; const turnsSeen = [];
    for (let k = i + 1; k < ev.length; k++) {
      const x = ev[k];
      if (x.type === 'drew' && x.from) { turnsSeen.push(x.seat); if (x.seat === e.seat) own++; }
      if (x.type === 'timed' && x.id === e.id) {
        if (x.ended) { ended = { own, seatTurnsAfter: turnsSeen.length, round: x.round }; break; }
        acts.push({ seat: x.seat, own, x: x.x, y: x.y, hit: (ev[k + 1] || {}).type });
      }
      if (x.type === 'game_over') { ended = { gameOver: true, own, seatTurnsAfter: turnsSeen.length }; break; }
    }
    console.log(g.view.id, 'P' + P, e.card, 'by seat', e.seat, 'round', e.round, 'acts', acts.length, JSON.stringify(acts.map(a => a.seat + '@own' + a.own + (a.hit === 'destroyed' || a.hit === 'removed' ? '' : '(' + a.hit + ')'))), 'ended', JSON.stringify(ended));
  }
}
