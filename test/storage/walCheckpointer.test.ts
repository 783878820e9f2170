/**
 * WAL checkpoints off the call path: the app's connections never checkpoint inside a commit
 * (SQLite's auto-checkpoint is off), and the checkpointer copies the WAL into the database file
 * once writes pause — or after at most `maxDelayMs` under a steady load — and stops with the
 * connection.
 */
import { readdirSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openAppDatabase } from '../../electron/core/database.js';
import { SqliteCheckpointStore } from '../../electron/checkpoints/sqliteStore.js';
import type { Database } from '../../electron/storage/database.js';
import { WAL_SIZE_LIMIT_BYTES, walCheckpointerOf } from '../../electron/storage/database.js';
import type { CheckpointResult } from '../../electron/storage/walCheckpointer.js';
import { WalCheckpointer } from '../../electron/storage/walCheckpointer.js';
import { callInput } from '../checkpoints/conformance.js';
import { tempDir } from '../checkpoints/tempDir.js';
import { waitFor } from '../helpers/fixtures.js';

let scratch: ReturnType<typeof tempDir>;
let file: string;
let db: Database;

/** How many descriptors of this process have the database file (not its -wal/-shm) open (Linux). */
function openHandles(path: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false; // closed meanwhile
    }
  }).length;
}

beforeEach(() => {
  scratch = tempDir('mh-wal-');
  file = join(scratch.dir, 'harness.db');
  db = openAppDatabase(file);
});
afterEach(() => {
  vi.useRealTimers();
  if (db.open) db.close();
  scratch.cleanup();
});

describe('the app database', () => {
  it('never checkpoints inside a commit: the WAL keeps every frame until the checkpointer runs', () => {
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    const store = new SqliteCheckpointStore(db);
    // Synchronous claims: one transaction each, several WAL frames each. With SQLite's default
    // (a checkpoint inside the commit that passes 1000 frames) the WAL would restart below that.
    for (let i = 0; i < 600; i++) store.claim(callInput(`c${i}`));
    const checkpointer = walCheckpointerOf(db);
    expect(checkpointer?.runs).toBe(0);
    const result = checkpointer?.checkpoint();
    expect(result?.log).toBeGreaterThan(1_000);
    expect(result?.checkpointed).toBe(result?.log);
  });

  it('checkpoints by itself after the group commits of tool calls, on a connection of its own, and stops when closed', async () => {
    const store = new SqliteCheckpointStore(db);
    const checkpointer = walCheckpointerOf(db);
    const pragmas = vi.spyOn(db, 'pragma');
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.grouped.claim(callInput(`c${i}`))));
    await waitFor(() => (checkpointer?.runs ?? 0) > 0);
    // Not on the app's connection: a worker thread's connection ran it, the event loop never waited.
    expect(pragmas.mock.calls.filter(([sql]) => /checkpoint/i.test(String(sql)))).toEqual([]);
    expect(openHandles(file)).toBe(2); // this connection and the checkpoint worker's
    // The timer's checkpoint copied every frame of the claims' commit into the database file.
    expect(checkpointer?.last?.log).toBeGreaterThan(0);
    expect(checkpointer?.last).toMatchObject({ busy: 0, checkpointed: checkpointer?.last?.log });
    db.close();
    expect(openHandles(file)).toBe(0); // close() waited for the worker's connection to close too
    const runs = checkpointer?.runs;
    checkpointer?.noteWrite(); // a stopped checkpointer schedules nothing
    expect(checkpointer?.runs).toBe(runs);
  });

  it('has no checkpointer in memory (there is no WAL)', () => {
    const memory = openAppDatabase(':memory:');
    expect(walCheckpointerOf(memory)).toBeUndefined();
    memory.close();
  });
});

describe('WalCheckpointer', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });

  it('waits for writes to pause before checkpointing', () => {
    const checkpointer = new WalCheckpointer(db, { idleMs: 25, maxDelayMs: 1_000 });
    checkpointer.noteWrite();
    vi.advanceTimersByTime(10);
    checkpointer.noteWrite();
    vi.advanceTimersByTime(20); // 30 ms since the first write, 20 since the last: not idle yet
    expect(checkpointer.runs).toBe(0);
    vi.advanceTimersByTime(5);
    expect(checkpointer.runs).toBe(1);
    vi.advanceTimersByTime(5_000);
    expect(checkpointer.runs).toBe(1); // nothing written since: no timer, no checkpoint
    expect(vi.getTimerCount()).toBe(0);
  });

  it('checkpoints at least every maxDelayMs under a steady load', () => {
    const checkpointer = new WalCheckpointer(db, { idleMs: 25, maxDelayMs: 1_000 });
    for (let t = 0; t < 2_500; t += 10) {
      checkpointer.noteWrite();
      vi.advanceTimersByTime(10);
    }
    expect(checkpointer.runs).toBe(2); // at about 1 s and 2 s, writes never pausing
    vi.advanceTimersByTime(25);
    expect(checkpointer.runs).toBe(3); // and once they pause
  });

  it('falls back to checkpointing on the connection itself when its runner fails (no worker thread, say)', () => {
    const warnings = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const checkpointer = new WalCheckpointer(db, {
      idleMs: 25,
      runner: (done) => done(new Error('the worker could not start')),
    });
    checkpointer.noteWrite();
    vi.advanceTimersByTime(25);
    expect(checkpointer.runs).toBe(0);
    expect(warnings).toHaveBeenCalledWith(expect.stringMatching(/the worker could not start.*the app's connection/));
    checkpointer.noteWrite();
    vi.advanceTimersByTime(25);
    expect(checkpointer.runs).toBe(1);
    expect(checkpointer.last).toMatchObject({ busy: 0 });
    warnings.mockRestore();
  });

  it('after a pass elsewhere during which the app wrote, copies the rest on the app’s connection, so the WAL starts over', () => {
    const store = new SqliteCheckpointStore(db);
    const elsewhere = new BetterSqlite3(file); // a connection of its own, as the worker's
    // The worker copies what was committed when its pass began; a reader's snapshot taken then
    // stands for that moment (a pass copies no frame past the oldest reader's).
    const passBegan = new BetterSqlite3(file);
    try {
      let n = 0;
      const write = (): void => {
        store.claim(callInput(`c${n++}`));
        checkpointer.noteWrite();
      };
      const checkpointer: WalCheckpointer = new WalCheckpointer(db, {
        idleMs: 25,
        runner: (done) => {
          passBegan.prepare('BEGIN').run();
          passBegan.prepare('SELECT count(*) FROM checkpoints').get();
          for (let i = 0; i < 5; i++) write(); // the app commits while the pass runs elsewhere
          const [result] = elsewhere.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[];
          passBegan.prepare('COMMIT').run();
          expect(result!.checkpointed).toBeLessThan(result!.log); // the frames committed meanwhile are left
          done(result!);
        },
      });
      for (let i = 0; i < 200; i++) write();
      vi.advanceTimersByTime(25);
      expect(checkpointer.catchUps).toBe(1);
      // Everything is copied, the frames committed during the pass too …
      expect(checkpointer.last?.log).toBeGreaterThan(600);
      expect(checkpointer.last).toMatchObject({ busy: 0, checkpointed: checkpointer.last?.log });
      // … so the next commit starts the WAL over: it holds that commit's frames only, not 200 more.
      write();
      const [after] = elsewhere.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[];
      expect(after?.log).toBeLessThan(20);
      expect(statSync(`${file}-wal`).size).toBeLessThanOrEqual(WAL_SIZE_LIMIT_BYTES);
    } finally {
      elsewhere.close();
      passBegan.close();
    }
  });

  it('schedules nothing once stopped', () => {
    const checkpointer = new WalCheckpointer(db, { idleMs: 25 });
    checkpointer.noteWrite();
    checkpointer.stop();
    checkpointer.noteWrite();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(1_000);
    expect(checkpointer.runs).toBe(0);
  });
});
