// client.mjs: the order load of `make ha-test` (scripts/ha-test.sh) and its checks. It plays
// all-human games of The City on two cityd instances that share a Patroni cluster, while the
// script kills and switches the primary under it.
//
//   node client.mjs load BASE1,BASE2 SECONDS GAMES OUTDIR
//     keeps GAMES games playing (each finished one replaced by a new one) for SECONDS or until
//     the file OUTDIR/stop appears, then plays the games still going to their end (at most 60 s
//     more). Every request that fails
//     with 503 or a broken connection is sent again (to the other instance, 100 ms later): an
//     order is idempotent, so a resend of one whose outcome was unknown is safe. Writes
//     OUTDIR/acks.csv (game,seat,round,step,ms of every 202), OUTDIR/attempts.csv
//     (start_ms,end_ms,ok of every order attempt), OUTDIR/games.txt (the games played) and prints a summary as JSON.
//   node client.mjs replay BASE CITYD CARDS OUTDIR
//     checks every game of OUTDIR/games.txt: its replay (seed and decisions, GET .../replay) run
//     through `cityd replay` ends where the stored game is (winners, round, each seat's points,
//     tableau and hand size). Prints {"games": N, "replayed": N, "mismatched": N}.
//   node client.mjs figures OUTDIR MARKS
//     from acks.csv and MARKS (lines "name ms": load_start, first_fault, last_fault_done,
//     load_end): the longest time between two answered orders (202, or 409/422 for a step
//     that had moved on) while the load ran: the time during which orders failed or hung;
//     and the 202s per second before the first fault and after the last one.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const REQUEST_MS = 20000; // a request unanswered this long is a failure (and retried)

/** One request; {status, json} or {status: 0} when no answer came. */
async function call(base, method, path, token, body) {
  const headers = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  try {
    const res = await fetch(base + path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_MS),
    });
    const text = await res.text();
    let json = null;
    try { json = JSON.parse(text); } catch { /* not JSON */ }
    return { status: res.status, json, text };
  } catch (e) {
    return { status: 0, json: null, text: String(e) };
  }
}

/** This seat's order from its hand view (as tests/client.h's choose_order). */
function chooseOrder(hand) {
  const p = hand.pending;
  if (!p || typeof p !== 'object') return null;
  const order = { round: p.round, step: p.step };
  const opts = p.options ?? {};
  const cards = hand.hand ?? [];
  if (p.step === 'build') {
    const builds = opts.builds ?? [];
    if (builds.length > 0) {
      const b = builds[builds.length - 1];
      const pay = cards.filter((c) => c.id !== b.id).slice(0, b.cost).map((c) => c.id);
      order.build = { card: b.id, pay };
    } else if (opts.contractor === true) {
      order.contractor = true;
    } else {
      order.survey = true;
    }
  } else {
    order.discard = cards.slice(0, opts.discard ?? 0).map((c) => c.id);
  }
  return order;
}

async function load(bases, seconds, ngames, outdir) {
  const acks = [];
  const attempts = [];
  const games = [];
  const unexpected = [];
  let turn = 0;
  const pick = () => bases[turn++ % bases.length];
  let until = Date.now() + seconds * 1000;
  let hardStop = until + 60000;
  const stopFile = join(outdir, 'stop');
  const stopWatch = setInterval(() => {
    if (existsSync(stopFile) && until > Date.now()) { until = Date.now(); hardStop = until + 60000; }
  }, 200);
  let seed = 1000;
  let retriesOrders = 0, unknown = 0, refusedStale = 0;

  // A read or a write that must get through: retried on 503 and broken connections.
  async function must(method, path, token, body, ok) {
    for (;;) {
      const r = await call(pick(), method, path, token, body);
      if (ok.includes(r.status)) return r;
      if (r.status !== 0 && r.status !== 503) return r;
      if (Date.now() > hardStop) return r;
      await sleep(100);
    }
  }

  async function newGame() {
    for (;;) {
      if (Date.now() > until) return null;
      const g = await call(pick(), 'POST', '/api/v1/games', null, { seats: 3, bots: [], seed: seed++ });
      if (g.status !== 201) { await sleep(100); continue; }
      const id = g.json.id;
      const tokens = [];
      for (let s = 0; s < 3; s++) {
        // A join whose answer was lost may have taken a seat: give such a game up.
        const j = await call(pick(), 'POST', `/api/v1/games/${id}/join`, null, { name: `Seat ${s + 1}` });
        if (j.status !== 201) break;
        tokens.push(j.json.token);
      }
      if (tokens.length === 3) return { id, tokens };
      await sleep(100);
    }
  }

  async function sendOrder(g, seat, order) {
    let first = true;
    for (;;) {
      const t0 = Date.now();
      const r = await call(pick(), 'POST', `/api/v1/games/${g.id}/orders`, g.tokens[seat], order);
      const ok = r.status === 202 || r.status === 409 || r.status === 422;
      attempts.push(`${t0},${Date.now()},${ok ? 1 : 0}`);
      if (r.status === 202) {
        acks.push(`${g.id},${seat},${order.round},${order.step},${Date.now()}`);
        return;
      }
      if (r.status === 409 && !first) { refusedStale++; return; } // an earlier try stood
      if (r.status === 409 || r.status === 422) {
        // Stale answers are expected: the hand was read from the other daemon, whose cache hears
        // of this client's last order a moment after its 202 (LISTEN/NOTIFY), so it may still
        // show the step that order resolved, or, when that order ended the game, a decision in
        // a game that is over (seen once in 9,231 orders).
        if (!['stale_step', 'nothing_to_decide', 'game_over'].includes(r.json?.code)) unexpected.push(`${r.status} ${r.text}`);
        return;
      }
      if (r.status !== 0 && r.status !== 503) { unexpected.push(`${r.status} ${r.text}`); return; }
      if (r.json?.code === 'outcome_unknown') unknown++;
      retriesOrders++;
      first = false;
      if (Date.now() > hardStop) { unexpected.push('an order never got through'); return; }
      await sleep(100);
    }
  }

  async function play() {
    for (;;) {
      const g = await newGame();
      if (!g) return;
      games.push(g.id);
      for (let steps = 0; steps < 2000; steps++) {
        if (Date.now() > hardStop) { unexpected.push(`game ${g.id} did not end in time`); return; }
        const v = await must('GET', `/api/v1/games/${g.id}`, null, undefined, [200]);
        if (v.status !== 200) { unexpected.push(`view ${v.status}`); return; }
        if (v.json.status === 'finished') break;
        for (let s = 0; s < 3; s++) {
          const h = await must('GET', `/api/v1/games/${g.id}/hand`, g.tokens[s], undefined, [200]);
          if (h.status !== 200) { unexpected.push(`hand ${h.status}`); continue; }
          const order = chooseOrder(h.json);
          if (order) await sendOrder(g, s, order);
        }
      }
    }
  }

  const started = Date.now();
  await Promise.all(Array.from({ length: ngames }, () => play()));
  clearInterval(stopWatch);
  writeFileSync(join(outdir, 'acks.csv'), acks.join('\n') + '\n');
  writeFileSync(join(outdir, 'attempts.csv'), attempts.join('\n') + '\n');
  writeFileSync(join(outdir, 'games.txt'), games.join('\n') + '\n');
  console.log(JSON.stringify({
    seconds: (Date.now() - started) / 1000, games: games.length, acknowledged: acks.length,
    order_attempts: attempts.length, resent: retriesOrders, outcome_unknown: unknown,
    stale_after_resend: refusedStale, unexpected: unexpected.length, first_unexpected: unexpected.slice(0, 3),
  }));
}

async function replay(base, cityd, cards, outdir) {
  const ids = readFileSync(join(outdir, 'games.txt'), 'utf8').split('\n').filter(Boolean);
  const dir = mkdtempSync(join(tmpdir(), 'city-ha-replay-'));
  const run = promisify(execFile);
  let replayed = 0;
  const mismatched = [];
  async function one(id) {
    const rep = await call(base, 'GET', `/api/v1/games/${id}/replay`);
    const view = await call(base, 'GET', `/api/v1/games/${id}`);
    if (rep.status !== 200 || view.status !== 200) { mismatched.push(`${id}: replay ${rep.status}, view ${view.status}`); return; }
    const file = join(dir, `${id}.json`);
    writeFileSync(file, rep.text);
    let out;
    try {
      out = JSON.parse((await run(cityd, ['replay', file, '--cards', cards], { encoding: 'utf8' })).stdout);
    } catch (e) { mismatched.push(`${id}: cityd replay failed: ${e.message}`); return; }
    const v = view.json;
    const same = JSON.stringify(out.winners) === JSON.stringify(v.winners) && out.round === v.round &&
      v.seats.every((b, s) => {
        const a = out.seats[s];
        return a && a.vp === b.vp && a.hand_count === b.hand_count && JSON.stringify(a.tableau) === JSON.stringify(b.tableau);
      });
    if (same) replayed++; else mismatched.push(`${id}: the replay ends elsewhere than the stored game`);
  }
  try {
    let next = 0;
    await Promise.all(Array.from({ length: 4 }, async () => {
      while (next < ids.length) await one(ids[next++]);
    }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(JSON.stringify({ games: ids.length, replayed, mismatched: mismatched.length, first_mismatched: mismatched.slice(0, 3) }));
}

function figures(outdir, marksFile) {
  const marks = Object.fromEntries(readFileSync(marksFile, 'utf8').split('\n').filter(Boolean)
    .map((l) => { const [k, v] = l.split(' '); return [k, Number(v)]; }));
  const done = readFileSync(join(outdir, 'attempts.csv'), 'utf8').split('\n').filter(Boolean)
    .map((l) => l.split(',').map(Number)).filter(([, , ok]) => ok).map(([, t1]) => t1)
    .filter((t) => t >= marks.load_start && t <= marks.load_end).sort((a, b) => a - b);
  let maxGap = 0;
  for (let i = 1; i < done.length; i++) maxGap = Math.max(maxGap, done[i] - done[i - 1]);
  const acked = readFileSync(join(outdir, 'acks.csv'), 'utf8').split('\n').filter(Boolean)
    .map((l) => Number(l.split(',')[4]));
  const rate = (from, to) => to > from ? acked.filter((t) => t >= from && t < to).length / ((to - from) / 1000) : 0;
  const before = rate(marks.load_start + 2000, marks.first_fault);
  const after = rate(marks.last_fault_done, Math.min(marks.load_end, marks.last_fault_done + 20000));
  console.log(JSON.stringify({ max_unavailable_s: maxGap / 1000, orders_per_sec_before: before, orders_per_sec_after: after }));
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'load') await load(args[0].split(','), Number(args[1]), Number(args[2]), args[3]);
else if (mode === 'replay') await replay(args[0], args[1], args[2], args[3]);
else if (mode === 'figures') figures(args[0], args[1]);
else { console.error('usage: client.mjs load|replay|figures ...'); process.exit(2); }
