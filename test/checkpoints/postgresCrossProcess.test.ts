/**
 * Exactly once across processes on PostgreSQL: several cores (child processes, pgChild.ts) on
 * one database. The same calls sent to all at once run once; an owner killed with SIGKILL
 * mid-call leaves its call "in progress", its lease expires with it (nobody renews it), the
 * duplicate is then told the owner is gone, and the dead owner's lease is fenced off. Over many
 * kills, no call ever runs twice.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { CheckpointInProgressError, CheckpointLeaseLostError } from '../../electron/checkpoints/errors.js';
import { POSTGRES_CHECKPOINT_MIGRATIONS } from '../../electron/checkpoints/postgresSchema.js';
import { PostgresCheckpointStore } from '../../electron/checkpoints/postgresStore.js';
import type { CheckpointRecord } from '../../electron/checkpoints/types.js';
import type { PostgresDatabase } from '../../electron/storage/postgres/pool.js';
import { openPostgres } from '../../electron/storage/postgres/pool.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase, describePostgres } from '../storage/postgres.js';
import { childPool } from './childProcess.js';
import { childInput, childResult } from './childProtocol.js';
import { tempDir } from './tempDir.js';

const PG_CHILD = new URL('./pgChild.ts', import.meta.url).pathname;
const LEASE_MS = 1_500;

describePostgres('checkpoints across processes on PostgreSQL', () => {
  let database: TestDatabase;
  let db: PostgresDatabase;
  let store: PostgresCheckpointStore;
  let scratch: ReturnType<typeof tempDir>;
  const children = childPool(PG_CHILD);
  const start = children.start;

  beforeAll(async () => {
    database = await createTestDatabase('xproc');
    db = await openPostgres(database.url, { migrations: { checkpoints: POSTGRES_CHECKPOINT_MIGRATIONS } });
    store = new PostgresCheckpointStore(db.pool, db.where, { heartbeat: false });
  });
  afterAll(async () => {
    await store?.close();
    await db?.close();
    await database?.drop();
  });
  beforeEach(() => {
    scratch = tempDir('mh-pgx-');
  });
  afterEach(async () => {
    await children.stopAll();
    scratch.cleanup();
  });

  async function allRecords(sessionId: string): Promise<CheckpointRecord[]> {
    const records: CheckpointRecord[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.history({ sessionId, limit: 500, ...(cursor ? { cursor } : {}) });
      records.push(...page.records);
      cursor = page.nextCursor;
    } while (cursor);
    return records;
  }

  it('runs each call once when three cores get the same 300 calls at once', { timeout: 120_000 }, async () => {
    const calls = 300;
    const effects = join(scratch.dir, 'effects.log');
    writeFileSync(effects, '');
    const workers = ['w0', 'w1', 'w2'].map((w) => start(['race', database.url, 'race', String(calls), w, effects]));
    await Promise.all(workers.map((w) => w.waitFor('ready')));
    for (const w of workers) w.process.send('go');
    const results = await Promise.all(workers.map((w) => w.waitFor('done')));

    const ran = readFileSync(effects, 'utf8').split('\n').filter(Boolean);
    const perCall = new Map<string, number>();
    for (const line of ran)
      perCall.set(line.split(' ')[1] as string, (perCall.get(line.split(' ')[1] as string) ?? 0) + 1);
    expect(perCall.size).toBe(calls);
    expect([...perCall.values()].every((n) => n === 1)).toBe(true); // no duplicate side effect
    let contended = 0;
    for (let i = 0; i < calls; i++) {
      const outcomes = results.map((r) => r.outcomes[`c${i}`]);
      expect(
        outcomes.filter((o) => o === 'owner'),
        `c${i}: ${outcomes.join(', ')}`,
      ).toHaveLength(1);
      for (const o of outcomes) expect(['owner', 'replay', 'in_progress']).toContain(o);
      contended += outcomes.filter((o) => o === 'in_progress').length;
    }
    const records = await allRecords('race');
    expect(records).toHaveLength(calls);
    expect(records.every((r) => r.status === 'completed')).toBe(true);
    console.info(
      `PostgreSQL race: 3 cores × ${calls} calls, ${ran.length} ran (0 duplicates), ${contended} answered "in progress"`,
    );
  });

  it(
    "never runs a call twice over 30 SIGKILLs of the owner, and the dead owner's leases expire and are fenced",
    { timeout: 240_000 },
    async () => {
      const log = join(scratch.dir, 'crash.log');
      writeFileSync(log, '');
      const delays = [
        0, 1, 2, 3, 5, 8, 12, 17, 23, 30, 38, 47, 57, 68, 80, 93, 107, 122, 138, 155, 173, 192, 212, 233, 255, 400, 600,
        800, 1_000, 1_500,
      ];
      for (const delay of delays) {
        const child = start(['crash', database.url, log, String(LEASE_MS)]);
        await child.waitFor('ready');
        if (delay > 0) await sleep(delay);
        child.process.kill('SIGKILL');
        const exit = await child.exited;
        expect(child.errors).toEqual([]);
        expect(exit.signal).toBe('SIGKILL');
      }

      const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
      const owned = lines.filter((l) => l.startsWith('owner ')).map((l) => l.split(' ') as [string, string, string]);
      const ownedIds = owned.map(([, callId]) => callId);
      expect(new Set(ownedIds).size).toBe(ownedIds.length); // 0 duplicates: no call ran twice
      const records = await allRecords('crash');
      const byCall = new Map(records.map((r) => [r.callId, r]));
      for (const callId of ownedIds) expect(byCall.has(callId)).toBe(true);
      const interrupted = records.filter((r) => r.status === 'started');
      expect(interrupted.length).toBeLessThanOrEqual(delays.length);
      for (const record of records.filter((r) => r.status === 'completed')) {
        const replay = await store.claim(childInput('crash', record.callId, 'verifier'));
        expect(replay.record.result).toStrictEqual(childResult(record.callId));
      }

      // The interrupted calls: "in progress" until their leases expire — nobody renews a dead owner's lease.
      const leases = new Map(owned.map(([, callId, lease]) => [callId, lease]));
      for (const record of interrupted) {
        let gone = false;
        while (!gone) {
          const error = await store.claim(childInput('crash', record.callId, 'verifier')).then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(error).toBeInstanceOf(CheckpointInProgressError);
          gone = (error as CheckpointInProgressError).ownerGone;
          if (!gone) await sleep(100); // expiry is a time: poll the store until it says so
        }
        const lease = leases.get(record.callId);
        if (lease)
          await expect(store.complete('crash', record.callId, lease, childResult(record.callId))).rejects.toThrow(
            CheckpointLeaseLostError,
          );
        expect((await store.get('crash', record.callId))?.status).toBe('started');
      }
      console.info(
        `PostgreSQL kill loop: ${delays.length} SIGKILLs, ${ownedIds.length} calls owned, ` +
          `${records.length - interrupted.length} completed, ${interrupted.length} interrupted (lease expired, fenced), 0 duplicates`,
      );
    },
  );
});
