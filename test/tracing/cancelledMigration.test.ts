/**
 * The migration that adds the Cancelled trace status: a database written before it keeps every
 * trace, event and link; the traces it had recorded as cancelled (denied with approval_cancelled,
 * error with cancelled) read as cancelled; the others keep their status; the new status is
 * accepted, anything else still refused.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_MIGRATIONS, openAppDatabase } from '../../electron/core/database.js';
import { openDatabase } from '../../electron/storage/database.js';
import { Tracer } from '../../electron/tracing/tracer.js';
import { tempDir } from '../checkpoints/tempDir.js';

const T0 = 1_700_000_000_000;

describe('the migration that adds the cancelled status', () => {
  it('maps the traces recorded as cancelled, keeps the rest, their events and their link', () => {
    const scratch = tempDir();
    try {
      const file = join(scratch.dir, 'old.db');
      const old = openDatabase(file, { migrations: APP_MIGRATIONS.slice(0, 7) });
      const insert = old.prepare(
        `INSERT INTO traces (trace_id, session_id, call_id, user_id, tool_name, server_id, status, started_at, ended_at, duration_ms, error) VALUES (?, 's', ?, 'u', 'tool', 'srv', ?, ?, ?, 1, ?)`,
      );
      insert.run(
        't-waited',
        'c1',
        'denied',
        T0,
        T0 + 1,
        JSON.stringify({ code: 'approval_cancelled', message: 'cancelled before it was approved' }),
      );
      insert.run(
        't-ran',
        'c2',
        'error',
        T0 + 2,
        T0 + 3,
        JSON.stringify({ code: 'cancelled', message: 'was cancelled' }),
      );
      insert.run(
        't-denied',
        'c3',
        'denied',
        T0 + 4,
        T0 + 5,
        JSON.stringify({ code: 'permission_denied', message: 'the user denied it' }),
      );
      insert.run('t-failed', 'c4', 'error', T0 + 6, T0 + 7, JSON.stringify({ code: 'timeout', message: 'too slow' }));
      insert.run('t-ok', 'c5', 'ok', T0 + 8, T0 + 9, null);
      old
        .prepare('INSERT INTO trace_events (trace_id, seq, type, at, data) VALUES (?, 1, ?, ?, ?)')
        .run('t-ran', 'failed', T0 + 3, '{}');
      expect(() => old.prepare(`UPDATE traces SET status = 'cancelled' WHERE trace_id = 't-ok'`).run()).toThrow(
        /CHECK/,
      );
      old.close();

      const db = openAppDatabase(file);
      try {
        expect(db.prepare('SELECT trace_id, status FROM traces ORDER BY seq').all()).toEqual([
          { trace_id: 't-waited', status: 'cancelled' },
          { trace_id: 't-ran', status: 'cancelled' },
          { trace_id: 't-denied', status: 'denied' },
          { trace_id: 't-failed', status: 'error' },
          { trace_id: 't-ok', status: 'ok' },
        ]);
        expect(db.pragma('foreign_key_list(trace_events)')).toMatchObject([
          { table: 'traces', from: 'trace_id', to: 'trace_id', on_delete: 'CASCADE' },
        ]);
        expect(db.pragma('foreign_key_check')).toEqual([]);
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        expect(() => db.prepare(`UPDATE traces SET status = 'lost' WHERE trace_id = 't-ok'`).run()).toThrow(/CHECK/);
        const tracer = new Tracer(db);
        expect(tracer.getTrace('t-ran')?.events.map((e) => e.type)).toEqual(['failed']);
        expect(
          tracer
            .listTraces({ status: 'cancelled', limit: 10 })
            .traces.map((t) => t.traceId)
            .sort(),
        ).toEqual(['t-ran', 't-waited']);
      } finally {
        db.close();
      }
    } finally {
      scratch.cleanup();
    }
  });
});
