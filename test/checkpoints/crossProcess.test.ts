/**
 * The store across processes, on one database file: claims racing from several processes, and
 * a writer killed with SIGKILL at many moments (store level; the executeTool-level crash test
 * is separate).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteCheckpointStore } from '../../electron/checkpoints/sqliteStore.js';
import type { CheckpointRecord } from '../../electron/checkpoints/types.js';
import type { Database } from '../../electron/storage/database.js';
import { openAppDatabase } from '../../electron/core/database.js';
import { schemaVersion } from '../../electron/storage/migrate.js';
import { APP_MIGRATIONS } from '../../electron/core/database.js';
import { childPool } from './childProcess.js';
import { CHILD_SCRIPT, childInput, childResult } from './childProtocol.js';
import { tempDir } from './tempDir.js';

let scratch: ReturnType<typeof tempDir>;
const children = childPool(CHILD_SCRIPT);
const start = children.start;
beforeEach(() => {
  scratch = tempDir('mh-xproc-');
});
afterEach(async () => {
  await children.stopAll();
  scratch.cleanup();
});

function allRecords(store: SqliteCheckpointStore, sessionId: string): CheckpointRecord[] {
  const records: CheckpointRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = store.history({ sessionId, limit: 500, ...(cursor ? { cursor } : {}) });
    // A page row leaves large results out (a preview instead); the whole record comes from get().
    for (const row of page.records) records.push(store.get(row.sessionId, row.callId) ?? row);
    cursor = page.nextCursor;
  } while (cursor);
  return records;
}

describe('claims from several processes on one file', () => {
  it('give exactly one owner per call overall', { timeout: 120_000 }, async () => {
    const file = join(scratch.dir, 'race.db');
    openAppDatabase(file).close(); // created and migrated before the race
    const calls = 200;
    const workers = ['w0', 'w1', 'w2'].map((worker) => start(['race', file, 'race', String(calls), worker]));
    await Promise.all(workers.map((w) => w.waitFor('ready')));
    for (const w of workers) w.process.send('go');
    const results = await Promise.all(workers.map((w) => w.waitFor('done')));

    const contended = { in_progress: 0, replay: 0 };
    for (let i = 0; i < calls; i++) {
      const outcomes = results.map((r) => r.outcomes[`c${i}`]);
      expect(
        outcomes.filter((o) => o === 'owner'),
        `c${i}: ${outcomes.join(', ')}`,
      ).toHaveLength(1);
      for (const o of outcomes) {
        expect(['owner', 'replay', 'in_progress']).toContain(o);
        if (o === 'replay' || o === 'in_progress') contended[o]++;
      }
    }
    expect(contended.in_progress + contended.replay).toBe(2 * calls);

    const db = openAppDatabase(file);
    const records = allRecords(new SqliteCheckpointStore(db), 'race');
    expect(records).toHaveLength(calls);
    for (const record of records) {
      expect(record.status).toBe('completed');
      expect(record.result).toStrictEqual(childResult(record.callId));
    }
    db.close();
  });
});

describe('a writer killed with SIGKILL', () => {
  function verify(file: string, log: string, kills: number): { completed: number; started: number } {
    let db: Database | undefined;
    try {
      db = openAppDatabase(file);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(schemaVersion(db)).toBe(APP_MIGRATIONS.length);
      const store = new SqliteCheckpointStore(db);
      const records = allRecords(store, 'crash');
      const byCall = new Map(records.map((r) => [r.callId, r]));

      const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
      const owners = lines.filter((l) => l.startsWith('owner ')).map((l) => l.slice('owner '.length));
      // No call was ever owned twice, across all the runs.
      expect(new Set(owners).size).toBe(owners.length);
      for (const callId of owners) expect(byCall.has(callId), `owned ${callId} has a record`).toBe(true);
      for (const line of lines.filter((l) => l.startsWith('completed '))) {
        expect(byCall.get(line.slice('completed '.length))?.status).toBe('completed');
      }

      let completed = 0;
      let started = 0;
      for (const record of records) {
        if (record.status === 'completed') {
          completed++;
          const replay = store.claim(childInput('crash', record.callId, 'verifier'));
          expect(replay.kind).toBe('replay');
          expect(replay.record.result).toStrictEqual(childResult(record.callId));
        } else {
          expect(record.status).toBe('started');
          expect(record.result).toBeUndefined();
          expect(() => store.claim(childInput('crash', record.callId, 'verifier'))).toThrow(
            /in progress or its result is unknown/,
          );
          started++;
        }
      }
      // Each run had at most one call between claim and complete when it was killed.
      expect(started).toBeLessThanOrEqual(kills);
      return { completed, started };
    } finally {
      db?.close();
    }
  }

  it(
    'leaves a file that opens cleanly, replays every completed call and keeps interrupted ones started — 20 kills',
    { timeout: 240_000 },
    async () => {
      const file = join(scratch.dir, 'crash.db');
      const log = join(scratch.dir, 'crash.log');
      writeFileSync(log, '');
      // Milliseconds after the child is ready: the first ones land in its first writes, the
      // others spread over claims, 4–32 KB result writes and WAL checkpoints.
      const delays = [0, 1, 2, 3, 4, 6, 8, 11, 15, 20, 26, 33, 41, 50, 62, 75, 90, 110, 135, 165];
      let previous = { completed: 0, started: 0 };
      for (const [index, delay] of delays.entries()) {
        const child = start(['crash', file, log]);
        await child.waitFor('ready');
        if (delay > 0) await sleep(delay);
        child.process.kill('SIGKILL');
        const exit = await child.exited;
        expect(child.errors).toEqual([]);
        expect(exit.signal).toBe('SIGKILL');

        const now = verify(file, log, index + 1);
        expect(now.completed).toBeGreaterThanOrEqual(previous.completed);
        expect(now.started).toBeGreaterThanOrEqual(previous.started);
        previous = now;
      }
      expect(previous.completed).toBeGreaterThan(5); // the runs did real work between kills
    },
  );

  it('while creating and migrating a new file, leaves one that opens and works', { timeout: 120_000 }, async () => {
    for (const [index, delay] of [0, 0, 1, 2].entries()) {
      const file = join(scratch.dir, `fresh${index}.db`);
      const child = start(['crash', file, join(scratch.dir, `fresh${index}.log`)]);
      await child.waitFor('booted');
      if (delay > 0) await sleep(delay);
      child.process.kill('SIGKILL');
      await child.exited;

      const db = openAppDatabase(file);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(schemaVersion(db)).toBe(APP_MIGRATIONS.length);
      const store = new SqliteCheckpointStore(db);
      const claimed = store.claim(childInput('after', 'c0', 't'));
      expect(claimed.kind).toBe('owner');
      db.close();
    }
  });
});
