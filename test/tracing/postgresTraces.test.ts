/**
 * Traces in PostgreSQL (tracing/postgresTraceStore.ts) under the tracer: another process lists
 * and opens them once committed, and at start a trace left running by a process that is gone is
 * closed as interrupted, while a live process's running trace is left alone.
 */
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openAppDatabase } from '../../electron/core/database.js';
import { currentProcessOwner } from '../../electron/storage/processOwner.js';
import type { PostgresDatabase } from '../../electron/storage/postgres/pool.js';
import { openPostgres } from '../../electron/storage/postgres/pool.js';
import { POSTGRES_TRACE_MIGRATIONS, PostgresTraceStore } from '../../electron/tracing/postgresTraceStore.js';
import { Tracer } from '../../electron/tracing/tracer.js';
import { scratchDir } from '../helpers/fixtures.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase, describePostgres } from '../storage/postgres.js';

describePostgres('traces in PostgreSQL', () => {
  const scratch = scratchDir('mh-pg-traces-');
  let database: TestDatabase;
  let one: PostgresDatabase;
  let two: PostgresDatabase;
  let db: Database;

  beforeAll(async () => {
    database = await createTestDatabase('traces');
    const migrations = { traces: POSTGRES_TRACE_MIGRATIONS };
    one = await openPostgres(database.url, { migrations });
    two = await openPostgres(database.url, { migrations });
    db = openAppDatabase(join(scratch.dir, 'miniharness.db'));
  });

  afterAll(async () => {
    db?.close();
    await one?.close();
    await two?.close();
    await database?.drop();
    scratch.cleanup();
  });

  it("a gone process's running trace is closed as interrupted at the next start; a live one's is not", async () => {
    const self = currentProcessOwner();
    // This pid with another start time: the process that had it is gone.
    const gone = { ...self, start: `${self.start ?? '0'}-before` };
    const deadStore = new PostgresTraceStore(one.pool, one.where);
    const dead = new Tracer(db, { shared: deadStore, owner: gone });
    const input = { sessionId: 's', userId: 'gui', toolName: 'append', serverId: 'fx' };
    const orphan = dead.start({ ...input, callId: 'orphan' });
    orphan.event('attempt_started', { attempt: 1 });
    const liveStore = new PostgresTraceStore(one.pool, one.where);
    const live = new Tracer(db, { shared: liveStore });
    const running = live.start({ ...input, callId: 'running' });
    await deadStore.drain();
    await liveStore.drain();

    const next = new Tracer(db, { shared: new PostgresTraceStore(two.pool, two.where) });
    const closed = await next.sweepInterrupted();
    expect(closed.map((t) => [t.traceId, t.status])).toEqual([[orphan.traceId, 'interrupted']]);
    const page = await next.list({ sessionId: 's', limit: 10 });
    // Two processes' batches: their order within one millisecond is the database's.
    expect(page.traces.map((t) => [t.callId, t.status]).sort()).toEqual([
      ['orphan', 'interrupted'],
      ['running', 'running'],
    ]);
    expect((await next.detail(orphan.traceId))?.events.map((e) => e.type)).toEqual(['attempt_started']);
    expect(() => next.listTraces({ limit: 1 })).toThrow(TypeError);
    running.finish('ok');
    await liveStore.drain();
    expect((await next.detail(running.traceId))?.trace.status).toBe('ok');
  });
});
