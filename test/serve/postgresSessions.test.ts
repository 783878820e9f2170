/**
 * People's sessions and sign-ins in flight in PostgreSQL (electron/serve/postgresSessions.ts), two
 * stores on one database as two instances hold them: what is stored (hashes only), expiry by the
 * database's clock, a person's sessions ended on one seen by the other (its `onEnded` fires, its
 * open sessions are no longer alive), the same after the other's listening connection was cut (the
 * notice lost: it re-reads), and a sign-in's state taken once, by either instance, before it expires.
 * The in-memory stores keep the same promises for one instance.
 */
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryPendingSignIns } from '../../electron/serve/oidcSignIn.js';
import { PostgresPendingSignIns, PostgresSessions } from '../../electron/serve/postgresSessions.js';
import { SERVE_SESSION_MIGRATIONS } from '../../electron/serve/serveMigrations.js';
import { MemorySessions } from '../../electron/serve/sessions.js';
import { hashToken } from '../../electron/security/tokenHash.js';
import type { PostgresDatabase } from '../../electron/storage/postgres/pool.js';
import { openPostgres } from '../../electron/storage/postgres/pool.js';
import { waitFor } from '../helpers/fixtures.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase, describePostgres } from '../storage/postgres.js';

const alice = { issuer: 'https://idp.example', subject: 'alice', name: 'Alice' };
const bob = { issuer: 'https://idp.example', subject: 'bob', name: 'Bob' };
const requestWith = (cookie: string): IncomingMessage => ({ headers: { cookie } }) as IncomingMessage;

describePostgres('people’s sessions in PostgreSQL, two instances', () => {
  let database: TestDatabase;
  const dbs: PostgresDatabase[] = [];
  let a: PostgresSessions;
  let b: PostgresSessions;

  beforeAll(async () => {
    database = await createTestDatabase('pgsessions');
    for (let i = 0; i < 2; i++)
      dbs.push(await openPostgres(database.url, { max: 3, migrations: { serve_sessions: SERVE_SESSION_MIGRATIONS } }));
    a = await PostgresSessions.open((dbs[0] as PostgresDatabase).pool, database.url, false);
    b = await PostgresSessions.open((dbs[1] as PostgresDatabase).pool, database.url, false);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    for (const db of dbs) await db.close();
    await database?.drop();
  });

  const pool = () => (dbs[0] as PostgresDatabase).pool;

  it('stores only the secrets’ hashes; the other instance finds the session by cookie and token together', async () => {
    const made = await a.create(alice, 'approver');
    const req = requestWith(`${a.cookieName}=${made.cookie}`);
    expect(await b.find(req, made.bridgeToken)).toMatchObject({ person: alice, role: 'approver' });
    expect(await b.find(req, 'x'.repeat(43))).toBeUndefined();
    expect(await b.find(requestWith(`${a.cookieName}=${'y'.repeat(43)}`), made.bridgeToken)).toBeUndefined();
    const { rows } = await pool().query<{ row: string }>('SELECT row_to_json(s)::text AS row FROM serve_sessions s');
    const stored = rows.map((r) => r.row).join('\n');
    expect(stored).not.toContain(made.cookie);
    expect(stored).not.toContain(made.bridgeToken);
    expect(stored).toContain(hashToken(made.cookie));
  });

  it('refuses an expired session by the database’s clock', async () => {
    const made = await a.create(bob, 'viewer');
    const req = requestWith(`${a.cookieName}=${made.cookie}`);
    expect(await b.signedIn(req)).toBe(true);
    await pool().query(`UPDATE serve_sessions SET expires_at = now() - interval '1 second' WHERE cookie_sha256 = $1`, [
      made.session.id,
    ]);
    expect(await b.signedIn(req)).toBe(false);
    expect(await b.find(req, made.bridgeToken)).toBeUndefined();
  });

  it('a person’s sessions ended on one instance end on the other: onEnded fires, alive turns false', async () => {
    const made = await a.create(alice, 'admin');
    const held = await b.find(requestWith(`${a.cookieName}=${made.cookie}`), made.bridgeToken);
    expect(held && b.alive(held)).toBe(true);
    const ended = new Promise<void>((resolve) => {
      const stop = b.onEnded(() => {
        if (held && !b.alive(held)) {
          stop();
          resolve();
        }
      });
    });
    expect(await a.endFor(alice)).toBeGreaterThanOrEqual(1);
    await ended;
    expect(await b.find(requestWith(`${a.cookieName}=${made.cookie}`), made.bridgeToken)).toBeUndefined();
  });

  it('after its listening connection was cut, an instance re-reads the sessions it handed out', async () => {
    const made = await a.create(bob, 'approver');
    const held = await b.find(requestWith(`${a.cookieName}=${made.cookie}`), made.bridgeToken);
    expect(held && b.alive(held)).toBe(true);
    // Cut every listening connection, then end the session without a notice (as if sent while away).
    await pool().query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN%'`,
    );
    await pool().query('DELETE FROM serve_sessions WHERE cookie_sha256 = $1', [made.session.id]);
    await waitFor(() => held !== undefined && !b.alive(held), 10_000);
  });

  it('a sign-in’s state is taken once, by either instance, and not after it expires', async () => {
    const onA = new PostgresPendingSignIns(pool());
    const onB = new PostgresPendingSignIns((dbs[1] as PostgresDatabase).pool);
    await onA.put('state-1', { verifier: 'v', nonce: 'n', bootstrapSha256: 'b00t' }, 60_000);
    expect(await onB.take('state-1')).toEqual({ verifier: 'v', nonce: 'n', bootstrapSha256: 'b00t' });
    expect(await onA.take('state-1')).toBeUndefined();
    await onA.put('state-2', { verifier: 'v', nonce: 'n' }, 60_000);
    await pool().query(`UPDATE serve_signins SET expires_at = now() - interval '1 second'`);
    expect(await onB.take('state-2')).toBeUndefined();
    const { rows } = await pool().query<{ n: number }>('SELECT count(*)::int AS n FROM serve_signins');
    expect(rows[0]?.n).toBe(0);
  });
});

describe('the in-memory stores (one instance)', () => {
  it('endFor ends that person’s sessions only, and says so to onEnded', async () => {
    const sessions = new MemorySessions(false);
    const mine = await sessions.create(alice, 'admin');
    const other = await sessions.create(bob, 'viewer');
    let ended = 0;
    sessions.onEnded(() => ended++);
    expect(await sessions.endFor(alice)).toBe(1);
    expect([sessions.alive(mine.session), sessions.alive(other.session), ended]).toEqual([false, true, 1]);
  });

  it('a sign-in’s state is taken once', async () => {
    const pending = new MemoryPendingSignIns();
    await pending.put('s', { verifier: 'v', nonce: 'n' }, 60_000);
    expect(await pending.take('s')).toEqual({ verifier: 'v', nonce: 'n' });
    expect(await pending.take('s')).toBeUndefined();
  });
});
