// accounts.mjs: the bench's accounts part (bench/service.sh runs it against its daemon): what a
// sign-in costs and what finishing a rated game costs, as "key value" lines on stdout.
//   signin_ms_p50, signin_ms_p99: POST /api/v1/sessions, one at a time (BENCH_SIGNINS of them),
//     each a full argon2id check of the password (crypto_pwhash_str_verify at the daemon's cost);
//   view_ms_p99_quiet, view_ms_p99_during_signins, view_p99_ratio_during_signins: a game view's
//     latency alone and while a crowd signs in (BENCH_SIGNIN_CLIENTS at once), and how many of
//     the crowd's sign-ins were answered 201 or refused 503 busy meanwhile;
//   rated_finish_ms_p99, unrated_finish_ms_p99: the order that finishes a game of one account
//     against a greedy bot (the step's resolution, the game's end and, when rated, both
//     players' ratings written in the same transaction), over BENCH_FINISHES games of each,
//     every game played to its end by sending its hand view's suggestion.
// Usage: node bench/accounts.mjs BASE_URL
const base = process.argv[2];
const signins = Number(process.env.BENCH_SIGNINS ?? 200);
const finishes = Number(process.env.BENCH_FINISHES ?? 100);
const pw = 'correct horse battery staple';

async function call(method, path, body, token) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const t0 = process.hrtime.bigint();
  const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (res.status >= 300) throw new Error(`${method} ${path} -> ${res.status}: ${text.slice(0, 200)}`);
  return { json: JSON.parse(text), ms };
}

function pct(v, p) {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.round(p * (s.length - 1)))];
}

const name = `Bench ${process.pid % 100000}`;
await call('POST', '/api/v1/accounts', { name, password: pw });
const times = [];
let token;
for (let i = 0; i < signins; i++) {
  const r = await call('POST', '/api/v1/sessions', { name, password: pw });
  times.push(r.ms);
  token = r.json.token;
}
console.log(`signin_ms_p50 ${pct(times, 0.5).toFixed(1)}`);
console.log(`signin_ms_p99 ${pct(times, 0.99).toFixed(1)}`);

// Whether a crowd signing in starves the other routes: a game view's latency, read one after
// another (BENCH_VIEWS of them), alone and then while BENCH_SIGNIN_CLIENTS clients sign in as
// fast as they are answered (each waits the Retry-After of a 503 busy, past --hash-threads).
const views = Number(process.env.BENCH_VIEWS ?? 300);
const crowd = Number(process.env.BENCH_SIGNIN_CLIENTS ?? 8);
const viewed = (await call('POST', '/api/v1/games', { seats: 2, bots: ['greedy'] }, token)).json;
async function viewTimes() {
  const ms = [];
  for (let i = 0; i < views; i++) ms.push((await call('GET', `/api/v1/games/${viewed.id}`)).ms);
  return ms;
}
const quiet = await viewTimes();
let flooding = true;
const answered = { ok: 0, busy: 0 };
const flood = Array.from({ length: crowd }, async () => {
  while (flooding) {
    const res = await fetch(`${base}/api/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, password: pw }) });
    await res.text();
    if (res.status === 201) answered.ok++;
    else {
      answered.busy++; // a 503 busy: the crowd waits its Retry-After, as clients do
      await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') ?? 1)));
    }
  }
});
await new Promise((r) => setTimeout(r, 300));
const crowded = await viewTimes();
flooding = false;
await Promise.all(flood);
console.log(`view_ms_p99_quiet ${pct(quiet, 0.99).toFixed(2)}`);
console.log(`view_ms_p99_during_signins ${pct(crowded, 0.99).toFixed(2)}`);
console.log(`view_p99_ratio_during_signins ${(pct(crowded, 0.99) / pct(quiet, 0.99)).toFixed(2)}`);
console.log(`signins_during_views ${answered.ok}`);
console.log(`signins_refused_busy_during_views ${answered.busy}`);

// Plays a game of the account against a greedy bot to its end; returns the finishing order's ms.
async function finish(rated) {
  const g = (await call('POST', '/api/v1/games', { seats: 2, bots: ['greedy'], rated }, token)).json;
  for (let i = 0; i < 10000; i++) {
    const h = (await call('GET', `/api/v1/games/${g.id}/hand`, undefined, token)).json;
    if (!h.pending) throw new Error(`game ${g.id}: nothing to decide (${h.status})`);
    const r = await call('POST', `/api/v1/games/${g.id}/orders`, h.pending.suggestion, token);
    if (r.json.game?.status === 'finished') return r.ms;
  }
  throw new Error(`game ${g.id} did not end`);
}
for (const rated of [true, false]) {
  const ms = [];
  for (let i = 0; i < finishes; i++) ms.push(await finish(rated));
  console.log(`${rated ? 'rated' : 'unrated'}_finish_ms_p99 ${pct(ms, 0.99).toFixed(1)}`);
  console.log(`${rated ? 'rated' : 'unrated'}_finish_ms_p50 ${pct(ms, 0.5).toFixed(1)}`);
}
