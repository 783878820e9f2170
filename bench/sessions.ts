/**
 * Benchmark: what checking a person's session costs per HTTP request (`find`: the page, `/session`,
 * `/auth/me`, a bridge upgrade) — in memory (one instance on SQLite) and in PostgreSQL (the
 * server at MINIHARNESS_TEST_POSTGRES_URL, a database of its own for the run; skipped without it),
 * where every such request reads the session's row, and how long a sign-out on one instance takes
 * to reach another's open bridges (end → the other's `onEnded` sees it not alive, over NOTIFY).
 * BENCH_CALLS finds (default 2,000) over BENCH_SESSIONS live sessions (default 1,000); prints a
 * table, then one JSON line. Run: npm run bench:sessions
 */
import type { IncomingMessage } from 'node:http';
import { loadavg } from 'node:os';
import { PostgresSessions } from '../electron/serve/postgresSessions.js';
import { SERVE_SESSION_MIGRATIONS } from '../electron/serve/serveMigrations.js';
import type { NewSession, Sessions } from '../electron/serve/sessions.js';
import { MemorySessions } from '../electron/serve/sessions.js';
import { openPostgres } from '../electron/storage/postgres/pool.js';
import { createTestDatabase } from '../test/storage/postgres.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 2_000);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1_000);

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function findTimes(sessions: Sessions): Promise<{ p50: number; p99: number }> {
  const made: NewSession[] = [];
  for (let i = 0; i < SESSIONS; i++)
    made.push(await sessions.create({ issuer: 'https://idp.example', subject: `person-${i}` }, 'viewer'));
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const one = made[i % made.length] as NewSession;
    const req = { headers: { cookie: `${sessions.cookieName}=${one.cookie}` } } as IncomingMessage;
    const start = performance.now();
    const found = await sessions.find(req, one.bridgeToken);
    times.push(performance.now() - start);
    if (!found) throw new Error('a live session was not found');
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

/** ms from `end` on one store until the other store's onEnded finds the session not alive, over `rounds`. */
async function signOutReach(a: Sessions, b: Sessions, rounds: number): Promise<{ p50: number; max: number }> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const made = await a.create({ issuer: 'https://idp.example', subject: `leaver-${i}` }, 'viewer');
    const req = { headers: { cookie: `${a.cookieName}=${made.cookie}` } } as IncomingMessage;
    const held = await b.find(req, made.bridgeToken);
    if (!held) throw new Error('not found on the other instance');
    const start = performance.now();
    const reached = new Promise<void>((resolve) => {
      const stop = b.onEnded(() => {
        if (!b.alive(held)) {
          stop();
          resolve();
        }
      });
    });
    await a.end(made.session);
    await reached;
    times.push(performance.now() - start);
  }
  times.sort((x, y) => x - y);
  return { p50: percentile(times, 50), max: times.at(-1) ?? NaN };
}

const memory = await findTimes(new MemorySessions(false));
let postgres: { p50: number; p99: number } | undefined;
let reach: { p50: number; max: number } | undefined;
if (process.env.MINIHARNESS_TEST_POSTGRES_URL) {
  const database = await createTestDatabase('benchsessions');
  const open = () => openPostgres(database.url, { max: 4, migrations: { serve_sessions: SERVE_SESSION_MIGRATIONS } });
  const [dbA, dbB] = [await open(), await open()];
  const a = await PostgresSessions.open(dbA.pool, database.url, false);
  const b = await PostgresSessions.open(dbB.pool, database.url, false);
  try {
    postgres = await findTimes(a);
    reach = await signOutReach(a, b, 50);
  } finally {
    await a.close();
    await b.close();
    await dbA.close();
    await dbB.close();
    await database.drop();
  }
} else console.log('PostgreSQL skipped: set MINIHARNESS_TEST_POSTGRES_URL (see README "PostgreSQL").');

const ms = (n: number | undefined): string => (n === undefined ? '—' : n.toFixed(3));
console.log(`sessions: ${CALLS} finds over ${SESSIONS} live sessions (load ${loadavg()[0]?.toFixed(2)})`);
console.log(`  memory      find p50 ${ms(memory.p50)} ms  p99 ${ms(memory.p99)} ms`);
console.log(`  PostgreSQL  find p50 ${ms(postgres?.p50)} ms  p99 ${ms(postgres?.p99)} ms`);
console.log(`  sign-out on A reaches B's open bridges: p50 ${ms(reach?.p50)} ms, max ${ms(reach?.max)} ms (50 rounds)`);
console.log(
  JSON.stringify({ bench: 'sessions', calls: CALLS, sessions: SESSIONS, memory, postgres, signOutReach: reach }),
);
