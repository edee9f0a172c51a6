// rating.test.mjs: the C rating (src/rating.c, through `cityd rate`) against its oracle, the npm
// package openskill 5.x: rate() with its default options (Weng–Lin Plackett–Luce) on 2,000
// random matches of 2 to 6 players, each a team of one, with ties (shared places), new players
// and seasoned ones; every mu and sigma must agree to 1e-6.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rate } from 'openskill';

const cityd = process.env.CITYD ?? 'build/cityd';

// A small seeded generator (mulberry32), so that a failure names a match that comes back.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('cityd rate agrees with openskill rate() to 1e-6 over 2,000 matches of 2 to 6 players with ties', () => {
  const r = rng(20261125);
  const matches = [];
  for (let m = 0; m < 2000; m++) {
    const n = 2 + Math.floor(r() * 5);
    const ratings = Array.from({ length: n }, () => (r() < 0.3
      ? [25, 25 / 3] // a new player
      : [10 + r() * 30, 0.5 + r() * 8]));
    // places 1..n with ties: each player's place drawn from fewer values than players
    const values = 1 + Math.floor(r() * n);
    const ranks = Array.from({ length: n }, () => 1 + Math.floor(r() * values));
    matches.push({ ratings, ranks });
  }
  const out = execFileSync(cityd, ['rate'], { input: matches.map((x) => JSON.stringify(x)).join('\n') + '\n' })
    .toString().trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(out.length, matches.length);
  let ties = 0;
  let worst = 0;
  matches.forEach((x, i) => {
    const oracle = rate(x.ratings.map(([mu, sigma]) => [{ mu, sigma }]), { rank: x.ranks });
    assert.ok(out[i].ratings, `match ${i}: ${JSON.stringify(out[i])}`);
    if (new Set(x.ranks).size < x.ranks.length) ties++;
    oracle.forEach(([o], k) => {
      const [mu, sigma] = out[i].ratings[k];
      const d = Math.max(Math.abs(mu - o.mu), Math.abs(sigma - o.sigma));
      worst = Math.max(worst, d);
      assert.ok(d <= 1e-6, `match ${i} ${JSON.stringify(x)}, player ${k}: C ${mu}, ${sigma}; openskill ${o.mu}, ${o.sigma}`);
    });
  });
  assert.ok(ties > 500, `only ${ties} matches with a shared place`);
  assert.ok(worst < 1e-6);
});

test('cityd rate refuses what it cannot rate, line by line', () => {
  const lines = ['{"ratings": [[25, 8]], "ranks": [1]}', 'not json', '{"ratings": [[25, 0], [25, 8]], "ranks": [1, 2]}',
    '{"ratings": [[25, 8], [25, 8]], "ranks": [1, 2]}'];
  const out = execFileSync(cityd, ['rate'], { input: lines.join('\n') + '\n' }).toString().trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(out.length, 4);
  assert.ok(out[0].error && out[1].error && out[2].error, JSON.stringify(out));
  assert.equal(out[3].ratings.length, 2);
  assert.ok(out[3].ratings[0][0] > 25 && out[3].ratings[1][0] < 25, 'the winner gains, the loser loses');
});
