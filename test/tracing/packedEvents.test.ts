/**
 * A trace written whole in one batch carries its events in its own row (tracing/schema.ts,
 * TRACES_V6); a trace written across batches keeps them in trace_events; both read back the
 * same. A file at the previous version keeps every trace and event on upgrade.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_MIGRATIONS, openAppDatabase } from '../../electron/core/database.js';
import { openDatabase } from '../../electron/storage/database.js';
import { Tracer } from '../../electron/tracing/tracer.js';
import { TraceDetailSchema } from '../../shared/traces.js';
import { tempDir } from '../checkpoints/tempDir.js';

const T0 = 1_700_000_000_000;

const call = (callId: string) => ({ sessionId: 's1', callId, userId: 'u1', toolName: 'echo', serverId: 'fx' });

function eventRows(db: ReturnType<typeof openAppDatabase>, traceId: string): number {
  return (db.prepare('SELECT COUNT(*) AS n FROM trace_events WHERE trace_id = ?').get(traceId) as { n: number }).n;
}

function packed(db: ReturnType<typeof openAppDatabase>, traceId: string): string | null {
  return (db.prepare('SELECT events FROM traces WHERE trace_id = ?').get(traceId) as { events: string | null }).events;
}

describe("a trace's events in its own row", () => {
  it('a short trace is one row with its events; a trace across batches keeps event rows; both read the same', () => {
    let time = T0;
    const db = openAppDatabase(':memory:');
    try {
      const tracer = new Tracer(db, { clock: () => time });
      const short = tracer.start(call('short'));
      short.event('claim', { outcome: 'owner' });
      short.event('attempt_started', { attempt: 1 });
      time += 7;
      short.event('attempt_finished', { attempt: 1, outcome: 'ok' });
      short.event('completed', { isError: false, contentBlocks: 1 });
      short.finish('ok');
      const long = tracer.start(call('long'));
      long.event('claim', { outcome: 'owner' });
      tracer.flush(); // its start and first event are written: the rest goes in a later batch
      long.event('attempt_started', { attempt: 1 });
      long.event('attempt_finished', { attempt: 1, outcome: 'error', error: { code: 'timeout', message: 'slow' } });
      long.finish('error', new Error('slow'));
      tracer.flush();

      expect(eventRows(db, short.traceId)).toBe(0);
      expect(JSON.parse(packed(db, short.traceId) ?? 'null')).toEqual([
        [1, 'claim', T0, null, { outcome: 'owner' }],
        [2, 'attempt_started', T0, null, { attempt: 1 }],
        [3, 'attempt_finished', T0 + 7, 7, { attempt: 1, outcome: 'ok', durationMs: 7 }],
        [4, 'completed', T0 + 7, null, { isError: false, contentBlocks: 1 }],
      ]);
      expect(eventRows(db, long.traceId)).toBe(3);
      expect(packed(db, long.traceId)).toBeNull();

      const detail = tracer.getTrace(short.traceId);
      expect(TraceDetailSchema.parse(detail)).toEqual(detail);
      expect(detail?.events).toEqual([
        { traceId: short.traceId, seq: 1, type: 'claim', at: T0, data: { outcome: 'owner' } },
        { traceId: short.traceId, seq: 2, type: 'attempt_started', at: T0, data: { attempt: 1 } },
        {
          traceId: short.traceId,
          seq: 3,
          type: 'attempt_finished',
          at: T0 + 7,
          durationMs: 7,
          data: { attempt: 1, outcome: 'ok', durationMs: 7 },
        },
        { traceId: short.traceId, seq: 4, type: 'completed', at: T0 + 7, data: { isError: false, contentBlocks: 1 } },
      ]);
      expect(tracer.getTrace(long.traceId)?.events.map((e) => [e.seq, e.type])).toEqual([
        [1, 'claim'],
        [2, 'attempt_started'],
        [3, 'attempt_finished'],
      ]);
      expect(tracer.exportTrace(short.traceId).events).toEqual(detail?.events);
    } finally {
      db.close();
    }
  });

  it('a file at the previous version keeps its traces and their events on upgrade, and new ones are packed', () => {
    const scratch = tempDir();
    try {
      const file = join(scratch.dir, 'old.db');
      const previous = APP_MIGRATIONS.filter((m) => m.version < 13);
      expect(previous.at(-1)?.version).toBe(12);
      const old = openDatabase(file, { migrations: previous });
      old
        .prepare(
          `INSERT INTO traces (trace_id, session_id, call_id, user_id, tool_name, server_id, status, started_at, ended_at, duration_ms, error) VALUES ('t-old', 's1', 'c1', 'u1', 'echo', 'fx', 'ok', ?, ?, 3, NULL)`,
        )
        .run(T0, T0 + 3);
      const event = old.prepare(
        'INSERT INTO trace_events (trace_id, seq, type, at, duration_ms, data) VALUES (?, ?, ?, ?, ?, ?)',
      );
      event.run('t-old', 1, 'claim', T0, null, '{"outcome":"owner"}');
      event.run('t-old', 2, 'completed', T0 + 3, null, '{"isError":false}');
      old.close();

      const db = openAppDatabase(file);
      try {
        expect(db.pragma('user_version', { simple: true })).toBe(13);
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        const tracer = new Tracer(db);
        expect(tracer.getTrace('t-old')?.events.map((e) => [e.seq, e.type, e.data])).toEqual([
          [1, 'claim', { outcome: 'owner' }],
          [2, 'completed', { isError: false }],
        ]);
        const fresh = tracer.start(call('c2'));
        fresh.event('claim', { outcome: 'owner' });
        fresh.finish('ok');
        tracer.flush();
        expect(eventRows(db, fresh.traceId)).toBe(0);
        expect(tracer.getTrace(fresh.traceId)?.events.map((e) => e.type)).toEqual(['claim']);
        expect(tracer.listTraces({ limit: 10 }).traces.map((t) => t.callId)).toEqual(['c2', 'c1']);
      } finally {
        db.close();
      }
    } finally {
      scratch.cleanup();
    }
  });
});
