/**
 * What is specific to the SQLite store: persistence and index use (query plans). Speed at
 * 100,000 records is measured by bench/pipeline.ts (history pages, first and deep), not here.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashArguments } from '../../electron/checkpoints/hash.js';
import { SqliteCheckpointStore } from '../../electron/checkpoints/sqliteStore.js';
import type { HistoryQuery } from '../../electron/checkpoints/types.js';
import type { Database } from '../../electron/storage/database.js';
import { openDatabase } from '../../electron/storage/database.js';
import { APP_MIGRATIONS, openAppDatabase } from '../../electron/core/database.js';
import { callInput, textResult } from './conformance.js';
import { tempDir } from './tempDir.js';

describe('SqliteCheckpointStore', () => {
  it('keeps records across closing and reopening the file', () => {
    const scratch = tempDir();
    try {
      const file = join(scratch.dir, 'nested', 'harness.db');
      const first = openAppDatabase(file);
      const store = new SqliteCheckpointStore(first);
      const claimed = store.claim(callInput('c1'));
      if (claimed.kind !== 'owner') throw new Error('expected owner');
      store.complete('s1', 'c1', claimed.lease, textResult('kept', { n: 1 }));
      store.claim(callInput('c2'));
      first.close();

      const second = openAppDatabase(file);
      const reopened = new SqliteCheckpointStore(second);
      const replay = reopened.claim(callInput('c1'));
      expect(replay.kind).toBe('replay');
      expect(replay.record.result).toStrictEqual(textResult('kept', { n: 1 }));
      expect(() => reopened.claim(callInput('c2'))).toThrow(/in progress or its result is unknown/);
      second.close();
    } finally {
      scratch.cleanup();
    }
  });

  it('rejects a result that cannot be replayed, and saves nothing', () => {
    const db = openAppDatabase(':memory:');
    const store = new SqliteCheckpointStore(db);
    const claimed = store.claim(callInput('c1'));
    if (claimed.kind !== 'owner') throw new Error('expected owner');
    expect(() => store.complete('s1', 'c1', claimed.lease, { content: 'nope' } as never)).toThrow(
      /cannot be saved for replay/,
    );
    expect(() =>
      store.complete('s1', 'c1', claimed.lease, { content: [], structuredContent: { n: 1n }, isError: false } as never),
    ).toThrow(/cannot be saved for replay/);
    expect(store.get('s1', 'c1')?.status).toBe('started');
    db.close();
  });

  // 20,000 records with the shape of the bench's 100,000: enough rows that a scan or a sort would
  // show in the plan; the plans, not the size, are what this proves.
  describe('with 20,000 records', () => {
    let db: Database;
    let store: SqliteCheckpointStore;
    let time = 1_700_000_000_000;

    beforeAll(() => {
      db = openAppDatabase(':memory:');
      store = new SqliteCheckpointStore(db, { clock: () => time });
      const base = callInput('c'); // one arguments hash for all: hashing 20,000 times is not what is measured
      db.transaction(() => {
        for (let i = 0; i < 20_000; i++) {
          time += i % 3 === 0 ? 0 : 1;
          const claimed = store.claim({
            ...base,
            callId: `c${i}`,
            sessionId: `s${i % 1_000}`,
            toolName: `tool${i % 20}`,
          });
          // One in eight completes with a tool error (a result with isError).
          if (claimed.kind === 'owner' && i % 4 !== 0)
            store.complete(`s${i % 1_000}`, `c${i}`, claimed.lease, { ...textResult(`r${i}`), isError: i % 8 === 1 });
        }
      })();
    }, 120_000); // 20,000 claims in one transaction: generous for a loaded 2-core box
    afterAll(() => db.close());

    // The History view always pages one session, optionally by status, tool error or tool: all
    // served by one range of the session index. [name, filter]
    const queries: [string, Omit<HistoryQuery, 'limit'>][] = [
      ['of a session', { sessionId: 's42' }],
      ['by session and status', { sessionId: 's42', status: 'completed' }],
      ['of calls in progress in a session', { sessionId: 's40', status: 'started' }],
      ['of tool errors in a session', { sessionId: 's41', status: 'tool_error' }],
      ['by session and tool', { sessionId: 's47', toolName: 'tool7' }],
      ['by session and time', { sessionId: 's42', from: 1_700_000_000_000, to: time + 50_000 }],
    ];

    /** One ordered range read of the session index: no table scan, no sort. */
    function expectIndexRead(plan: string) {
      expect(plan).not.toMatch(/TEMP B-TREE/);
      expect(plan).toMatch(/^SEARCH checkpoints USING INDEX checkpoints_by_session \(session_id=\?/);
    }

    it.each(queries)('reads a page %s from the session index, with no table scan and no sort', (_, filter) => {
      const first = store.history({ ...filter, limit: 3 });
      expect(first.records.length).toBeGreaterThan(0);
      expect(first.nextCursor).toBeDefined();
      expectIndexRead(store.explainHistory({ ...filter, limit: 3 }).join(' | '));
      expectIndexRead(store.explainHistory({ ...filter, limit: 3, cursor: first.nextCursor as string }).join(' | '));
    });

    it('has the History filters in the session index, so a rejected record is never read', () => {
      const columns = db.pragma('index_info(checkpoints_by_session)') as Array<{ name: string }>;
      expect(columns.map((c) => c.name)).toEqual([
        'session_id',
        'updated_at',
        'seq',
        'status',
        'is_error',
        'tool_name',
      ]);
    });

    it('keeps no index that no History query uses (each one is written by every claim and completion)', () => {
      const indexes = db
        .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'checkpoints' ORDER BY name`)
        .all() as Array<{ name: string }>;
      // The unique (session, call) index is the claim's own; the session index serves History; the
      // partial index of started calls with a task id holds only those (a claim has none: no entry).
      expect(indexes.map((i) => i.name)).toEqual([
        'checkpoints_by_session',
        'checkpoints_started_tasks',
        'sqlite_autoindex_checkpoints_1',
      ]);
    });

    it('still pages across sessions (an API query the History view does not make), reading the table', () => {
      const page = store.history({ status: 'started', limit: 10 });
      expect(page.records).toHaveLength(10);
      expect(page.records.every((r) => r.status === 'started')).toBe(true);
      const next = store.history({ status: 'started', limit: 10, cursor: page.nextCursor as string });
      expect(next.records[0]?.updatedAt).toBeLessThanOrEqual(page.records[9]?.updatedAt as number);
      expect(store.explainHistory({ limit: 10 }).join(' | ')).toMatch(/SCAN checkpoints/);
    });

    it('pages tool errors (completed with isError) apart from completed calls, each exactly once', () => {
      const walk = (status: 'tool_error' | 'completed', sessionId: string) => {
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const page = store.history({ sessionId, status, limit: 7, ...(cursor ? { cursor } : {}) });
          for (const r of page.records) {
            expect(r.status).toBe('completed');
            expect(r.result?.isError).toBe(status === 'tool_error');
            seen.push(r.callId);
          }
          cursor = page.nextCursor;
        } while (cursor);
        return seen;
      };
      // Session s41 holds c41, c1041, … (20,000 calls over 1,000 sessions: 20 each): i % 8 === 1
      // for every one of them, i % 4 !== 0 too.
      const errors = walk('tool_error', 's41');
      expect(errors).toHaveLength(20);
      expect(new Set(errors).size).toBe(20);
      expect(walk('completed', 's41')).toEqual([]);
      // s42: i % 8 is 2 or 6, never a tool error; i % 4 is 2, so all completed.
      expect(walk('tool_error', 's42')).toEqual([]);
      expect(walk('completed', 's42')).toHaveLength(20);
    });

    it('keeps the plans after ANALYZE', () => {
      db.exec('ANALYZE');
      for (const [, filter] of queries) expectIndexRead(store.explainHistory({ ...filter, limit: 50 }).join(' | '));
    });

    it('reaches a deep page of a large session by cursor from the same index read', () => {
      const big = openAppDatabase(':memory:');
      try {
        const bigStore = new SqliteCheckpointStore(big, { clock: () => time });
        big.transaction(() => {
          for (let i = 0; i < 6_000; i++) {
            time += 1;
            const claimed = bigStore.claim({ ...callInput(`b${i}`), sessionId: 'gui' });
            if (claimed.kind === 'owner' && i % 50 !== 0)
              bigStore.complete('gui', `b${i}`, claimed.lease, textResult(`r${i}`));
          }
        })();
        let cursor: string | undefined;
        for (let i = 0; i < 100; i++)
          cursor = bigStore.history({ sessionId: 'gui', limit: 50, ...(cursor ? { cursor } : {}) }).nextCursor;
        expect(cursor).toBeDefined();
        const deep = bigStore.history({ sessionId: 'gui', status: 'started', limit: 50, cursor: cursor as string });
        expect(deep.records.length).toBeGreaterThan(0);
        expect(deep.records.every((r) => r.status === 'started')).toBe(true);
        expectIndexRead(
          bigStore
            .explainHistory({ sessionId: 'gui', status: 'started', limit: 50, cursor: cursor as string })
            .join(' | '),
        );
      } finally {
        big.close();
      }
    });

    it('lists 1,000 sessions, latest activity first', () => {
      time += 1_000;
      for (let i = 0; i < 100; i++) {
        const claimed = store.claim(callInput(`late${i}`)); // session s1
        if (claimed.kind === 'owner') store.complete('s1', `late${i}`, claimed.lease, textResult('x'));
      }
      const sessions = store.listSessions();
      expect(sessions).toHaveLength(1_000);
      expect(sessions.reduce((n, s) => n + s.count, 0)).toBe(20_000 + 100);
      expect(sessions[0]?.sessionId).toBe('s1'); // the late* claims above were its latest activity
    });
  });
});

describe('hashArguments', () => {
  it('ignores key order at every depth and undefined properties', () => {
    expect(hashArguments({ a: 1, b: { c: [1, 2], d: 'x' } })).toBe(
      hashArguments({ b: { d: 'x', c: [1, 2] }, a: 1, e: undefined }),
    );
    expect(hashArguments({ a: 1 })).toMatch(/^[0-9a-f]{64}$/);
  });

  it('tells different arguments apart', () => {
    const hashes = new Set(
      [{ a: 1 }, { a: '1' }, { a: [1, 2] }, { a: [2, 1] }, { a: null }, {}, [], 'a', { a: { b: 1 } }].map(
        hashArguments,
      ),
    );
    expect(hashes.size).toBe(9);
  });

  it('refuses what JSON cannot carry instead of guessing', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => hashArguments(undefined)).toThrow(/pass \{\}/);
    expect(() => hashArguments({ n: NaN })).toThrow();
    expect(() => hashArguments({ n: 1n })).toThrow();
    expect(() => hashArguments(cycle)).toThrow();
  });
});

describe('the migration to the session index alone', () => {
  it('fills is_error from the stored results, so tool errors recorded before it still filter right', () => {
    const scratch = tempDir();
    try {
      const file = join(scratch.dir, 'old.db');
      const old = openDatabase(file, { migrations: APP_MIGRATIONS.slice(0, 4) }); // as shipped before it
      const insert = old.prepare(
        `INSERT INTO checkpoints (session_id, call_id, user_id, tool_name, server_id, status, args_hash, args_json, result_json, trace_id, created_at, updated_at)
         VALUES ('s', ?, 'u', 't', 'x', ?, 'h', '{}', ?, 'tr', ?, ?)`,
      );
      insert.run('ok', 'completed', JSON.stringify(textResult('fine')), 1, 1);
      insert.run('bad', 'completed', JSON.stringify({ ...textResult('broke'), isError: true }), 2, 2);
      insert.run('open', 'started', null, 3, 3);
      old.close();

      const db = openAppDatabase(file);
      try {
        const store = new SqliteCheckpointStore(db);
        expect(store.history({ sessionId: 's', status: 'tool_error', limit: 10 }).records.map((r) => r.callId)).toEqual(
          ['bad'],
        );
        expect(store.history({ sessionId: 's', status: 'completed', limit: 10 }).records.map((r) => r.callId)).toEqual([
          'ok',
        ]);
        expect(store.history({ sessionId: 's', status: 'started', limit: 10 }).records.map((r) => r.callId)).toEqual([
          'open',
        ]);
        const indexes = db
          .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'checkpoints' ORDER BY name`)
          .all();
        expect(indexes).toEqual([
          { name: 'checkpoints_by_session' },
          { name: 'checkpoints_started_tasks' },
          { name: 'sqlite_autoindex_checkpoints_1' },
        ]);
      } finally {
        db.close();
      }
    } finally {
      scratch.cleanup();
    }
  });
});
