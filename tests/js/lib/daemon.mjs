// daemon.mjs: starts a cityd daemon for a JavaScript test: a fresh database on the cluster of
// $DATABASE_URL (set by scripts/with-postgres.sh), a free loopback port, and a stop() that
// ends it. Used by the contract test and the browser tests.
import { spawn, execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdirSync, openSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(process.env.CITY_ROOT ?? join(import.meta.dirname, '..', '..', '..'));
const cityd = process.env.CITYD ?? join(root, 'build', 'cityd');

function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

/** Creates a database with a unique name on $DATABASE_URL's cluster; returns its URL. */
export function createDatabase() {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('DATABASE_URL is unset: run under scripts/with-postgres.sh');
  const name = `js_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  execFileSync('psql', [base, '-qc', `CREATE DATABASE ${name}`], { stdio: 'pipe' });
  const url = new URL(base);
  url.pathname = '/' + name;
  return url.toString();
}

/**
 * Starts `cityd serve` with its own database and the project's web/, cards and migrations.
 * Resolves to { base, port, log, stop() } once GET /healthz answers 200 (10 s at most).
 */
export async function startDaemon({ extraArgs = [] } = {}) {
  const database = createDatabase();
  const port = await freePort();
  // In build/js-logs/, which `make test-js` empties as it starts: a failed test's log is there to
  // read after the run, and runs do not pile logs up in /tmp.
  const logs = join(root, 'build', 'js-logs');
  mkdirSync(logs, { recursive: true });
  const log = join(logs, `cityd-js-${port}.log`);
  const out = openSync(log, 'w');
  const child = spawn(cityd, ['serve', '--port', String(port), '--database', database,
    '--web', join(root, 'web'), '--cards', join(root, 'cards', 'cards.json'),
    '--migrations', join(root, 'migrations'), '--openapi', join(root, 'openapi', 'openapi.yaml'),
    '--docs', join(root, 'docs'),
    ...extraArgs], {
    stdio: ['ignore', out, out],
    // Tests create and join many games from one address: no per-address rate limits here (a
    // test of a limit sets it with its flag). Hints too: a file's tests ask for more than an
    // address's 20 a minute once they run quickly (CI: tech.test's 17th hint in a minute, 429).
    env: { CITY_CREATE_RATE: '0', CITY_JOIN_RATE: '0', CITY_READ_RATE: '0', CITY_HINT_RATE: '0', CITY_MAX_STREAMS_PER_ADDRESS: '0', ...process.env },
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      const r = await fetch(`${base}/healthz`);
      if (r.status === 200) break;
    } catch { /* not up yet */ }
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`cityd did not start:\n${readFileSync(log, 'utf8').slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base, port, log, database,
    stop: () => new Promise((ok) => {
      if (child.exitCode !== null) return ok();
      child.once('exit', () => ok());
      child.kill('SIGTERM');
    }),
  };
}
