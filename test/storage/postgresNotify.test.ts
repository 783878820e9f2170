import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PostgresDatabase } from '../../electron/storage/postgres/pool.js';
import { openPostgres } from '../../electron/storage/postgres/pool.js';
import type { Channel, Notice } from '../../electron/storage/postgres/notify.js';
import { listen, publish } from '../../electron/storage/postgres/notify.js';
import type { TestDatabase } from './postgres.js';
import { createTestDatabase, describePostgres } from './postgres.js';

describePostgres('LISTEN/NOTIFY: events other processes see', () => {
  let database: TestDatabase;
  let a: PostgresDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('notify');
    a = await openPostgres(database.url);
  });
  afterAll(async () => {
    await a?.close();
    await database?.drop();
  });

  it('delivers a notice to another connection after its transaction commits, never before, and drops forged payloads', async () => {
    const heard: [Channel, Notice][] = [];
    let wake: () => void = () => undefined;
    const listener = await listen(database.url, ['mh_approvals', 'mh_runs'], (channel, notice) => {
      heard.push([channel, notice]);
      wake();
    });
    const next = () => new Promise<void>((resolve) => (wake = resolve));
    try {
      let arrived = next();
      await publish(a.pool, 'mh_approvals', { kind: 'approval_asked', ids: { approvalId: 'ap1' }, from: 'core-a' });
      await arrived;
      expect(heard).toEqual([['mh_approvals', { kind: 'approval_asked', ids: { approvalId: 'ap1' }, from: 'core-a' }]]);

      // Inside a transaction: nothing is heard until it commits (and a rolled-back one is never heard).
      const client = await a.pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(`SELECT pg_notify('mh_runs', $1)`, [
          JSON.stringify({ kind: 'rolled_back', from: 'core-a' }),
        ]);
        await client.query('ROLLBACK');
        await client.query('BEGIN');
        await client.query(`SELECT pg_notify('mh_runs', 'not json')`); // a forged payload: dropped
        await client.query(`SELECT pg_notify('mh_runs', $1)`, [JSON.stringify({ kind: 'x', secret: 1 })]); // no `from`: dropped
        await client.query(`SELECT pg_notify('mh_runs', $1)`, [
          JSON.stringify({ kind: 'run_updated', from: 'core-a' }),
        ]);
        arrived = next();
        expect(heard).toHaveLength(1);
        await client.query('COMMIT');
      } finally {
        client.release();
      }
      await arrived;
      expect(heard.slice(1)).toEqual([['mh_runs', { kind: 'run_updated', from: 'core-a' }]]);
      await expect(
        publish(a.pool, 'mh_lists', { kind: 'big', ids: { blob: 'x'.repeat(300) }, from: 'a' }),
      ).rejects.toThrow();
    } finally {
      await listener.close();
    }
  });
});
