// scorer.js: an independent SimCity scorer and legality checker written from the rule text only
// (/work/shared/seeds/003_* and /work/shared/simcity.md), with the card data of cards/simcity.json.
// It never looks at the engine's code. A city is the public view's `city` list; a play is
// {card (design id), x, y}. legalPlays() lists every legal block play of a hand; score() prices one.
'use strict';
const fs = require('fs');
const path = require('path');

const CARDS = {};
for (const c of JSON.parse(fs.readFileSync(path.join(__dirname, '../../cards/simcity.json'))).cards) CARDS[c.id] = c;

const DIRS = { N: [0, -1], S: [0, 1], E: [1, 0], W: [-1, 0] };
const OPP = { N: 'S', S: 'N', E: 'W', W: 'E' };

// ---- the city model -------------------------------------------------------------------------
// cells: Map "x,y" -> {x, y, top: design|null, scorched, stack}
function cityFrom(view) {
  const cells = new Map();
  for (const c of view.city) {
    cells.set(c.x + ',' + c.y, {
      x: c.x, y: c.y, top: c.block ? CARDS[c.block.card] : null, scorched: !!c.scorched,
      stack: c.stack,
    });
  }
  return { cells, side: view.side, players: view.players, phase: view.phase, power: view.power_played,
           mayor: view.mayor, timed: view.timed || [] };
}
function topAt(city, x, y) { const c = city.cells.get(x + ',' + y); return c ? c.top : null; }
function blocks(city) { const r = []; for (const c of city.cells.values()) if (c.top) r.push(c); return r; }
function dist(a, b) { return Math.abs(a.x - b.x) + Math.abs(a.y - b.y); }
function edges(card, svc) { return (card && card[svc]) || ''; }

// a city with the play applied (the new card on top of the cell)
function withPlay(city, card, x, y) {
  const cells = new Map(city.cells);
  const old = cells.get(x + ',' + y);
  cells.set(x + ',' + y, { x, y, top: card, scorched: false, stack: [...(old && old.stack ? old.stack : []), { id: null, card: card.id, overturned: false }], isNew: true });
  return Object.assign({}, city, { cells });
}

// the selector language of simcity.md: name, zone, land, complex, service, sims
function matches(card, sel) {
  if (!card) return false;
  if (sel.name && card.id !== sel.name) return false;
  if (sel.zone && card.zone !== sel.zone) return false;
  if (sel.land && card.land !== sel.land) return false;
  if (sel.complex && !(card.complex && card.complex.name === sel.complex)) return false;
  return true;
}

// blocks connected to (x,y) by a continuous homogeneous route of service svc (road, rail):
// neighbours join when each has an edge facing the other. Returns the set of keys (with x,y itself).
function serviceComponent(city, x, y, svc) {
  const seen = new Set([x + ',' + y]);
  const q = [[x, y]];
  while (q.length) {
    const [cx, cy] = q.shift();
    const card = topAt(city, cx, cy);
    for (const d of edges(card, svc)) {
      const [dx, dy] = DIRS[d];
      const nx = cx + dx, ny = cy + dy, k = nx + ',' + ny;
      if (seen.has(k)) continue;
      const n = topAt(city, nx, ny);
      if (n && edges(n, svc).includes(OPP[d])) { seen.add(k); q.push([nx, ny]); }
    }
  }
  return seen;
}
function powerComponent(city, x, y) {
  const seen = new Set([x + ',' + y]);
  const q = [[x, y]];
  while (q.length) {
    const [cx, cy] = q.shift();
    if (!(topAt(city, cx, cy) || {}).power) continue;
    for (const d of 'NESW') {
      const [dx, dy] = DIRS[d];
      const nx = cx + dx, ny = cy + dy, k = nx + ',' + ny;
      if (seen.has(k)) continue;
      const n = topAt(city, nx, ny);
      if (n && n.power) { seen.add(k); q.push([nx, ny]); }
    }
  }
  return seen;
}
function simsVia(city, comp) {
  let s = 0;
  for (const k of comp) { const c = city.cells.get(k); if (c && c.top && (c.top.sims || 0) > 0) s += c.top.sims; }
  return s;
}
// is the sim requirement of `card` at (x,y) met in city2 (the city with the card placed)?
function simsMet(city2, card, x, y) {
  const need = -(card.sims || 0);
  if (need <= 0) return true;
  if (!edges(card, 'road') && !edges(card, 'rail')) {
    // no road nor rail: touch a road or rail block whose connected providers (itself too) give >= N
    for (const d of 'NESW') {
      const [dx, dy] = DIRS[d];
      const n = topAt(city2, x + dx, y + dy);
      if (!n) continue;
      for (const svc of ['road', 'rail'])
        if (edges(n, svc) && simsVia(city2, serviceComponent(city2, x + dx, y + dy, svc)) >= need) return true;
    }
    return false;
  }
  for (const svc of ['road', 'rail'])
    if (edges(card, svc) && simsVia(city2, serviceComponent(city2, x, y, svc)) >= need) return true;
  return false;
}

// condition language: adjacent, within N, city_has, city_lacks (evaluated for a card at x,y in
// the city before the play, the covered cell excluded)
function neighboursOf(city, x, y, within) {
  const r = [];
  for (const c of city.cells.values()) {
    if (!c.top || (c.x === x && c.y === y) || c.isNew) continue;
    const d = Math.abs(c.x - x) + Math.abs(c.y - y);
    if (d <= within) r.push(c);
  }
  return r;
}
function countCond(city, x, y, cond) {
  if (cond.adjacent) return neighboursOf(city, x, y, 1).filter(c => matches(c.top, cond.adjacent)).length;
  if (cond.within) return neighboursOf(city, x, y, cond.within).filter(c => matches(c.top, cond.of)).length;
  if (cond.city_has) return blocks(city).filter(c => !(c.x === x && c.y === y) && matches(c.top, cond.city_has)).length > 0 ? 1 : 0;
  if (cond.city_lacks) return blocks(city).filter(c => !(c.x === x && c.y === y) && matches(c.top, cond.city_lacks)).length > 0 ? 0 : 1;
  throw new Error('unknown condition ' + JSON.stringify(cond));
}

// ---- phases ---------------------------------------------------------------------------------
function largestResidentialBonus(city) {
  // zone bonus of the largest residential group (grays wild), >= 3 blocks, else 0
  const seen = new Set(); let best = 0;
  for (const c of city.cells.values()) {
    if (!c.top || c.top.zone !== 'residential' || seen.has(c.x + ',' + c.y)) continue;
    const comp = new Set([c.x + ',' + c.y]); const q = [c];
    while (q.length) {
      const cur = q.shift();
      for (const d of 'NESW') {
        const [dx, dy] = DIRS[d]; const k = (cur.x + dx) + ',' + (cur.y + dy);
        const n = city.cells.get(k);
        if (!n || !n.top || comp.has(k)) continue;
        if (n.top.zone === 'residential' || n.top.zone === 'services') { comp.add(k); q.push(n); }
      }
    }
    for (const k of comp) if (city.cells.get(k).top.zone === 'residential') seen.add(k);
    if (comp.size >= 3 && comp.size > best) best = comp.size;
  }
  return best;
}
function phaseAfter(city, phase) {
  const P = city.players;
  const bl = blocks(city);
  let p = phase;
  if (p < 2 && bl.filter(c => (c.top.sims || 0) > 0).length >= Math.max(4, P)) p = 2;
  if (p === 2 && bl.filter(c => (c.top.sims || 0) < 0).length >= Math.max(8, 2 * P)) p = 3;
  if (p === 3) {
    const sims = bl.reduce((s, c) => s + Math.max(0, c.top.sims || 0), 0);
    if (sims > Math.max(40, 10 * P) - largestResidentialBonus(city)) p = 4;
  }
  return p;
}

// ---- legality -------------------------------------------------------------------------------
function isUpgrade(old, card) {
  if (old.zone !== card.zone || old.zone === 'special') return false;
  if (old.zone === 'land' && old.land !== card.land) return false;
  for (const svc of ['road', 'rail']) for (const e of edges(old, svc)) if (!edges(card, svc).includes(e)) return false;
  if (old.power && !card.power) return false;
  if ((card.value || 0) < (old.value || 0)) return false;
  let adds = (card.value || 0) > (old.value || 0) || (card.power && !old.power);
  for (const svc of ['road', 'rail']) for (const e of edges(card, svc)) if (!edges(old, svc).includes(e)) adds = true;
  return adds;
}
function specials(card) { return card.specials || []; }
function freeRezone(old, card) {
  if (specials(old).some(s => s.rezonable)) return true;
  return specials(card).some(s => s.rezones && matches(old, s.rezones));
}
// the mode of putting `card` on (x,y) ignoring the card's own restrictions: 'new', 'upgrade',
// 'rezone', 'vote' or null (not placeable there)
function modeAt(city, card, x, y) {
  if (x < 0 || y < 0 || x >= city.side || y >= city.side) return null;
  const bl = blocks(city);
  const old = topAt(city, x, y);
  if (bl.length === 0) {
    const c = Math.floor(city.side / 2);
    return (x === c && y === c) ? 'new' : null;
  }
  if (!old) {
    for (const d of 'NESW') { const [dx, dy] = DIRS[d]; if (topAt(city, x + dx, y + dy)) return 'new'; }
    return null;
  }
  if (isUpgrade(old, card)) return 'upgrade';
  if (freeRezone(old, card)) return 'rezone';
  return city.mayor !== null && city.mayor !== undefined ? 'vote' : null;
}
function phaseOk(city, card) {
  if (card.phase > city.phase) return false;
  if (!city.power && card.phase >= 3 && card.id !== 'power_plant') return false;
  return true;
}
// the card's own restrictions and the timed forbids
function restrictionsOk(city, card, x, y) {
  for (const s of specials(card)) {
    if (s.only_if && countCond(city, x, y, s.only_if) === 0) return false;
    if (s.must_cover) { const old = topAt(city, x, y); if (!old || !matches(old, s.must_cover)) return false; }
    if (s.limit) {
      const others = blocks(city).filter(c => !(c.x === x && c.y === y) && c.top.id === card.id &&
        (s.within === undefined || dist(c, { x, y }) <= s.within));
      if (others.length >= s.limit) return false;
    }
  }
  for (const t of city.timed) {
    const def = CARDS[t.card] && (CARDS[t.card].effects || []).find(e => e.forbid_adjacent);
    const f = t.effect === 'forbid_adjacent' && def ? def.forbid_adjacent : null;
    if (f && neighboursOf(city, x, y, 1).some(c => matches(c.top, f))) return false;
  }
  return true;
}
function legalAt(city, card, x, y) {
  if (card.kind !== 'block' || !phaseOk(city, card)) return null;
  const mode = modeAt(city, card, x, y);
  if (!mode) return null;
  if (!restrictionsOk(city, card, x, y)) return null;
  if (!simsMet(withPlay(city, card, x, y), card, x, y)) return null;
  return mode;
}
function candidateCells(city) {
  const r = new Set();
  const bl = blocks(city);
  if (!bl.length) { const c = Math.floor(city.side / 2); r.add(c + ',' + c); return r; }
  for (const c of bl) {
    r.add(c.x + ',' + c.y);
    for (const d of 'NESW') { const [dx, dy] = DIRS[d]; r.add((c.x + dx) + ',' + (c.y + dy)); }
  }
  return r;
}
function legalPlays(city, hand) {
  const out = [];
  const cells = [...candidateCells(city)].map(k => k.split(',').map(Number));
  for (const h of hand) {
    const card = CARDS[h.card];
    if (card.kind !== 'block') continue;
    for (const [x, y] of cells) {
      const mode = legalAt(city, card, x, y);
      if (mode) out.push({ card: h.id, design: card.id, x, y, mode });
    }
  }
  return out;
}

// ---- scoring --------------------------------------------------------------------------------
function zoneKey(card) {
  if (['residential', 'commercial', 'industrial'].includes(card.zone)) return { zone: card.zone };
  if (card.zone === 'land' && card.land !== 'plains') return { zone: 'land', land: card.land };
  return null;
}
function inZone(card, key) {
  if (!card) return false;
  if (card.zone === 'services') return true;
  if (card.zone !== key.zone) return false;
  return key.land ? card.land === key.land : true;
}
function zoneBonus(city, card, x, y) {
  const key = zoneKey(card);
  if (!key) return 0;
  const seen = new Set([x + ',' + y]); const q = [[x, y]]; let n = 0;
  while (q.length) {
    const [cx, cy] = q.shift();
    for (const d of 'NESW') {
      const [dx, dy] = DIRS[d]; const nx = cx + dx, ny = cy + dy, k = nx + ',' + ny;
      if (seen.has(k)) continue;
      const t = topAt(city, nx, ny);
      if (inZone(t, key)) { seen.add(k); q.push([nx, ny]); n++; }
    }
  }
  return n >= 3 ? n : 0;
}
// complex bonus for the new card (city2 = with the card placed)
function complexBonus(city2, card, x, y) {
  if (!card.complex) return { bonus: 0 };
  const D = card.complex.name;
  const isD = c => c && c.complex && c.complex.name === D;
  const remoteType = c => c.complex.within !== undefined;
  // connected group through non-remote designator cards, from the new cell
  const self = x + ',' + y;
  const grow = (start) => {
    const g = new Set([start]); const q = [start.split(',').map(Number)];
    while (q.length) {
      const [cx, cy] = q.shift();
      for (const d of 'NESW') {
        const [dx, dy] = DIRS[d]; const nx = cx + dx, ny = cy + dy, k = nx + ',' + ny;
        if (g.has(k)) continue;
        const t = topAt(city2, nx, ny);
        if (isD(t) && !remoteType(t)) { g.add(k); q.push([nx, ny]); }
      }
    }
    return g;
  };
  // one complex: a connected group plus the remote members in range of any of its cards
  const evalGroup = (group) => {
    const members = new Set(group);
    for (const c of blocks(city2)) {
      if (!isD(c.top) || !remoteType(c.top)) continue;
      const k = c.x + ',' + c.y; if (members.has(k)) continue;
      for (const g of group) {
        const [gx, gy] = g.split(',').map(Number);
        if (Math.abs(gx - c.x) + Math.abs(gy - c.y) <= c.top.complex.within) { members.add(k); break; }
      }
    }
    const providesSims = [...members].some(k => (topAt(city2, ...k.split(',').map(Number)).sims || 0) > 0);
    const counted = [...members].filter(k => {
      const t = topAt(city2, ...k.split(',').map(Number));
      return !(t.complex.if === 'sims' && !providesSims);
    });
    if (!counted.includes(self)) return { bonus: 0, n: 0 };
    const others = counted.filter(k => k !== self);
    if (others.length < 3) return { bonus: 0, n: others.length };
    return { bonus: others.reduce((s, k) => s + topAt(city2, ...k.split(',').map(Number)).complex.bonus, 0), n: others.length };
  };
  if (!remoteType(card)) return evalGroup(grow(self));
  // a remote card: the best complex among the groups in its range (each group on its own)
  let best = { bonus: 0, n: 0 }; const done = new Set();
  for (const c of blocks(city2)) {
    if (c.isNew || !isD(c.top) || remoteType(c.top)) continue;
    const k0 = c.x + ',' + c.y; if (done.has(k0)) continue;
    const g = grow(k0); for (const k of g) done.add(k);
    if (![...g].some(k => { const [gx, gy] = k.split(',').map(Number); return Math.abs(gx - x) + Math.abs(gy - y) <= card.complex.within; })) continue;
    const r = evalGroup(g);
    if (r.bonus > best.bonus) best = r;
  }
  return best;
}
// blocks covered by a service kind in a city (keys), by the given providers (cells)
function coveredBy(city, kind, providers) {
  const r = new Set();
  for (const p of providers) {
    const spec = specials(p.top).find(s => s.coverage === kind);
    if (kind === 'power') {
      for (const k of powerComponent(city, p.x, p.y)) r.add(k);
      continue;
    }
    for (const c of blocks(city)) {
      let d = dist(c, p);
      if (kind === 'police') d += (c.top.crime || 0);
      if (d <= spec.range) r.add(c.x + ',' + c.y);
    }
  }
  return r;
}
function providersOf(city, kind, exceptKey) {
  return blocks(city).filter(c => (c.x + ',' + c.y) !== exceptKey && specials(c.top).some(s => s.coverage === kind));
}
function coverageBonus(city, city2, card, x, y) {
  let total = 0; const k0 = x + ',' + y;
  for (const s of specials(card)) {
    if (!s.coverage) continue;
    // baseline: covered before the play, the covered card's own coverage counting
    const before = coveredBy(city, s.coverage, providersOf(city, s.coverage, null));
    const mine = coveredBy(city2, s.coverage, [city2.cells.get(k0)]);
    let n = 0;
    for (const k of mine) if (k !== k0 && (!s.new_only || !before.has(k))) n++;
    total += n * s.per_block;
  }
  return total;
}
function score(city, cardId, x, y) {
  const card = CARDS[cardId];
  const city2 = withPlay(city, card, x, y);
  const parts = { value: card.value || 0, bonus: 0, zone: 0, complex: 0, scorched: 0, coverage: 0 };
  // own receive / lose
  for (const s of specials(card)) {
    if (s.receive !== undefined || s.lose !== undefined) {
      const amt = s.receive !== undefined ? s.receive : -s.lose;
      const n = s.if ? countCond(city, x, y, s.if) : 1;
      parts.bonus += s.each ? amt * n : (n > 0 ? amt : 0);
    }
  }
  // earlier cards' add / deduct
  for (const c of blocks(city)) {
    if (c.x === x && c.y === y) continue;
    for (const s of specials(c.top)) {
      if (s.add === undefined && s.deduct === undefined) continue;
      if (!matches(card, s.to)) continue;
      let ok = true;
      if (s.within !== undefined && dist(c, { x, y }) > s.within) ok = false;
      if (s.connected && !serviceComponent(city2, x, y, s.connected).has(c.x + ',' + c.y)) ok = false;
      if (ok) parts.bonus += s.add !== undefined ? s.add : -s.deduct;
    }
  }
  if (card.zone !== 'services') parts.zone = zoneBonus(city, card, x, y);
  parts.complex = complexBonus(city2, card, x, y).bonus;
  const cell = city.cells.get(x + ',' + y);
  if (cell && !cell.top && cell.scorched) parts.scorched = 5;
  parts.coverage = coverageBonus(city, city2, card, x, y);
  const total = Object.values(parts).reduce((a, b) => a + b, 0);
  return { total, parts };
}

module.exports = { CARDS, cityFrom, withPlay, legalPlays, legalAt, score, phaseAfter, blocks, simsMet, topAt };
