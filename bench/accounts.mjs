// accounts.mjs: the bench's accounts part (bench/service.sh runs it against its daemon): what a
// sign-in costs and what finishing a rated game costs, as "key value" lines on stdout.
//   signin_ms_p50, signin_ms_p99: POST /api/v1/sessions, one at a time (BENCH_SIGNINS of them),
//     each a full argon2id check of the password (crypto_pwhash_str_verify at the daemon's cost);
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
