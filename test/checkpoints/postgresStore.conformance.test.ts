import { afterAll, beforeAll, expect, it } from 'vitest';
import { PostgresCheckpointStore } from '../../electron/checkpoints/postgresStore.js';
import { POSTGRES_CHECKPOINT_MIGRATIONS } from '../../electron/checkpoints/postgresSchema.js';
import type { PostgresDatabase } from '../../electron/storage/postgres/pool.js';
import { openPostgres } from '../../electron/storage/postgres/pool.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase, describePostgres } from '../storage/postgres.js';
import { LEASE_MS, callInput, describeCheckpointStoreConformance } from './conformance.js';

const MIGRATIONS = { checkpoints: POSTGRES_CHECKPOINT_MIGRATIONS };

describePostgres('PostgresCheckpointStore', () => {
  let database: TestDatabase;
  let db: PostgresDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('checkpoints');
    db = await openPostgres(database.url, { migrations: MIGRATIONS });
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  describeCheckpointStoreConformance('PostgresCheckpointStore', async (clock) => {
    await db.pool.query('TRUNCATE checkpoints RESTART IDENTITY');
    return {
      store: new PostgresCheckpointStore(db.pool, db.where, { clock, leaseMs: LEASE_MS, heartbeat: false }),
      reopen: async () => {
        const other = await openPostgres(database.url, { migrations: MIGRATIONS, max: 4 });
        return {
          store: new PostgresCheckpointStore(other.pool, other.where, { clock, leaseMs: LEASE_MS, heartbeat: false }),
          close: () => other.close(),
        };
      },
      storedText: async () =>
        (await db.pool.query<{ text: string }>(`SELECT row_to_json(c)::text AS text FROM checkpoints c`)).rows
          .map((row) => row.text)
          .join('\n'),
      seedHistory: async (sessionId, count, t0) => {
        await db.pool.query(
          `INSERT INTO checkpoints (session_id, call_id, user_id, tool_name, server_id, status, args_hash, args_json, result_json,
             is_error, trace_id, created_at, updated_at)
           SELECT $1, 'h' || i, 'u1', 'write_file', 'fs', 'completed', 'h', '{}',
             '{"content":[{"type":"text","text":"r' || i || '"}],"isError":' || CASE WHEN i % 10 = 0 THEN 'true' ELSE 'false' END || '}',
             CASE WHEN i % 10 = 0 THEN 1 ELSE 0 END, 't', $2::bigint + i, $2::bigint + i
           FROM generate_series(0, $3::integer - 1) AS i`,
          [sessionId, t0, count],
        );
      },
      close: () => undefined,
    };
  });

  it('grants fencing tokens that only grow, across connections', async () => {
    await db.pool.query('TRUNCATE checkpoints RESTART IDENTITY');
    const store = new PostgresCheckpointStore(db.pool, db.where, { heartbeat: false });
    const fences: number[] = [];
    for (let i = 0; i < 20; i++) {
      const claimed = await store.claim(callInput(`f${i}`));
      if (claimed.kind !== 'owner') throw new Error('expected an owner');
      fences.push(Number(/^f(\d+)-/.exec(claimed.lease)?.[1]));
    }
    expect(fences.every((fence, i) => i === 0 || fence > (fences[i - 1] as number))).toBe(true);
    await store.close();
  });
});
