/**
 * The server task a call became (TaskLinks), the same on both stores: recorded only by the
 * lease's owner and only once, listed while the record is `started`, and settled — completed
 * (then replayed), failed, or noted — only while the record is `started` with that very task.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_CHECKPOINT_MIGRATIONS } from '../../electron/checkpoints/postgresSchema.js';
import { postgresCheckpointStores } from '../../electron/checkpoints/postgresStore.js';
import { SqliteCheckpointStore, sqliteCheckpointStorage } from '../../electron/checkpoints/sqliteStore.js';
import { CheckpointTaskLinks } from '../../electron/checkpoints/taskLinks.js';
import type { CheckpointStorage, TaskLinks } from '../../electron/checkpoints/types.js';
import { openAppDatabase } from '../../electron/core/database.js';
import type { PostgresDatabase } from '../../electron/storage/postgres/pool.js';
import { openPostgres } from '../../electron/storage/postgres/pool.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase, describePostgres } from '../storage/postgres.js';
import { callInput, textResult } from './conformance.js';

type Subject = { storage: CheckpointStorage; links: TaskLinks };

function describeTaskLinks(name: string, open: () => Promise<Subject>): void {
  describe(`${name}: server task links`, () => {
    let storage: CheckpointStorage;
    let links: TaskLinks;
    beforeAll(async () => ({ storage, links } = await open()));

    const owned = async (callId: string): Promise<string> => {
      const claimed = await storage.claim(callInput(callId));
      if (claimed.kind !== 'owner') throw new Error(`expected to own ${callId}`);
      return claimed.lease;
    };

    it('records a task for the lease owner only, once, and lists it while started', async () => {
      const lease = await owned('t1');
      expect(await links.link('s1', 't1', 'not-the-lease', 'task-x')).toBe(false);
      expect(await links.link('s1', 't1', lease, '')).toBe(false);
      expect(await links.link('s1', 't1', lease, 'x'.repeat(257))).toBe(false);
      expect(await links.link('s1', 't1', lease, 'task-1')).toBe(true);
      expect(await links.link('s1', 't1', lease, 'task-2')).toBe(false);
      expect((await storage.get('s1', 't1'))?.taskId).toBe('task-1');
      expect(await links.pending()).toContainEqual(
        expect.objectContaining({ sessionId: 's1', callId: 't1', taskId: 'task-1', serverId: 'fs' }),
      );
    });

    it('a note keeps it started and says why; completing it stores the result, replayed from then on', async () => {
      const lease = await owned('t2');
      await links.link('s1', 't2', lease, 'task-2');
      const call = { sessionId: 's1', callId: 't2', taskId: 'task-2' };
      expect(await links.note(call, { code: 'task_server_unavailable', message: 'not ready' })).toBe(true);
      expect((await links.pending()).find((c) => c.callId === 't2')?.lastErrorCode).toBe('task_server_unavailable');
      expect(await links.complete({ ...call, taskId: 'another-task' }, textResult('no'))).toBe(false);
      expect(await links.complete(call, textResult('done by the task'))).toBe(true);
      const replay = await storage.claim(callInput('t2'));
      expect(replay.kind).toBe('replay');
      expect(replay.record.result).toEqual(textResult('done by the task'));
      // Settled: no longer pending, and a second outcome changes nothing; the dead owner's lease is fenced.
      expect((await links.pending()).some((c) => c.callId === 't2')).toBe(false);
      expect(await links.fail(call, { code: 'task_failed', message: 'late' })).toBe(false);
      await expect(storage.complete('s1', 't2', lease, textResult('late'))).rejects.toThrow();
    });

    it('a failed task makes the record failed with the reason', async () => {
      const lease = await owned('t3');
      await links.link('s1', 't3', lease, 'task-3');
      expect(
        await links.fail({ sessionId: 's1', callId: 't3', taskId: 'task-3' }, { code: 'task_failed', message: 'boom' }),
      ).toBe(true);
      expect(await storage.get('s1', 't3')).toMatchObject({
        status: 'failed',
        lastError: { code: 'task_failed', message: 'boom' },
      });
    });
  });
}

describeTaskLinks('SQLite', async () => {
  const db = openAppDatabase(':memory:');
  return { storage: sqliteCheckpointStorage(new SqliteCheckpointStore(db)), links: new CheckpointTaskLinks(db) };
});

describePostgres('PostgreSQL task links', () => {
  let database: TestDatabase;
  let db: PostgresDatabase;
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });
  describeTaskLinks('PostgreSQL', async () => {
    database = await createTestDatabase('tasklinks');
    db = await openPostgres(database.url, { migrations: { checkpoints: POSTGRES_CHECKPOINT_MIGRATIONS } });
    const stores = postgresCheckpointStores(db.pool, db.where, { heartbeat: false });
    return { storage: stores.storage, links: stores.taskLinks };
  });
});
