/** History rows: small values whole, large ones as previews decided in SQL, pages cut by bytes. */
import { describe, expect, it } from 'vitest';
import { SqliteCheckpointStore } from '../../electron/checkpoints/sqliteStore.js';
import type { HistoryEntry } from '../../electron/checkpoints/types.js';
import { openAppDatabase } from '../../electron/core/database.js';

function fill(
  store: SqliteCheckpointStore,
  count: number,
  textOf: (i: number) => string,
  argsOf: (i: number) => unknown = (i) => ({ i }),
): void {
  for (let i = 0; i < count; i++) {
    const claim = store.claim({
      sessionId: 's',
      callId: `c${i}`,
      userId: 'u',
      toolName: 't',
      serverId: 'x',
      argsHash: `h${i}`,
      args: argsOf(i),
      traceId: `t${i}`,
    });
    if (claim.kind !== 'owner') throw new Error('expected owner');
    store.complete('s', `c${i}`, claim.lease, {
      content: [{ type: 'text', text: textOf(i) }],
      structuredContent: undefined,
      isError: false,
    });
  }
}

function allPages(store: SqliteCheckpointStore, limit: number): { pages: HistoryEntry[][]; bytes: number[] } {
  const pages: HistoryEntry[][] = [];
  const bytes: number[] = [];
  let cursor: string | undefined;
  do {
    const page = store.history({ sessionId: 's', limit, ...(cursor ? { cursor } : {}) });
    pages.push(page.records);
    bytes.push(Buffer.byteLength(JSON.stringify(page)));
    cursor = page.nextCursor;
  } while (cursor);
  return { pages, bytes };
}

describe('history rows and pages by size', () => {
  it('keeps small arguments and results whole, and previews large ones', () => {
    const db = openAppDatabase(':memory:');
    const store = new SqliteCheckpointStore(db, { inlineBytes: 1_000, previewChars: 50 });
    fill(
      store,
      2,
      (i) => (i === 0 ? 'small' : 'L'.repeat(5_000)),
      (i) => (i === 0 ? { i } : { blob: 'A'.repeat(3_000) }),
    );
    const [large, small] = store.history({ sessionId: 's', limit: 10 }).records;
    expect(small).toEqual(store.get('s', 'c0')); // whole: exactly the stored record
    expect(large?.args).toBeUndefined();
    expect(large?.result).toBeUndefined();
    expect(large?.preview).toEqual({
      truncated: true,
      argsBytes: Buffer.byteLength(JSON.stringify({ blob: 'A'.repeat(3_000) })),
      resultBytes: Buffer.byteLength(
        JSON.stringify({ content: [{ type: 'text', text: 'L'.repeat(5_000) }], isError: false }),
      ),
      args: JSON.stringify({ blob: 'A'.repeat(3_000) }).slice(0, 50),
      result: '{"content":[{"type":"text","text":"LLLLLLLLLLLLLLL',
      resultIsError: false,
    });
    db.close();
  });

  it('says whether a left-out result was a tool error', () => {
    const db = openAppDatabase(':memory:');
    const store = new SqliteCheckpointStore(db, { inlineBytes: 1_000, previewChars: 50 });
    const claim = store.claim({
      sessionId: 's',
      callId: 'big-error',
      userId: 'u',
      toolName: 't',
      serverId: 'x',
      argsHash: 'h',
      args: {},
      traceId: 'tr',
    });
    if (claim.kind !== 'owner') throw new Error('expected owner');
    store.complete('s', 'big-error', claim.lease, {
      content: [{ type: 'text', text: 'E'.repeat(5_000) }],
      structuredContent: undefined,
      isError: true,
    });
    const [row] = store.history({ sessionId: 's', status: 'tool_error', limit: 10 }).records;
    expect(row?.callId).toBe('big-error');
    expect(row?.result).toBeUndefined();
    expect(row?.preview?.resultIsError).toBe(true);
    expect(store.history({ sessionId: 's', status: 'completed', limit: 10 }).records).toEqual([]);
    db.close();
  });

  it('cuts a page at the byte budget and continues exactly after it', () => {
    const db = openAppDatabase(':memory:');
    const store = new SqliteCheckpointStore(db, { inlineBytes: 4_000, maxPageBytes: 20_000 });
    // 3 KB results: inline, so only the byte budget can end a page before the row limit.
    fill(store, 40, (i) => `${i}:`.padEnd(3_000, '.'));
    const { pages, bytes } = allPages(store, 500);
    expect(pages.length).toBeGreaterThan(4);
    for (const size of bytes) expect(size).toBeLessThan(20_000 + 4_000); // the budget, plus at most the row that reaches it
    const ids = pages.flat().map((r) => r.callId);
    expect(ids).toEqual(Array.from({ length: 40 }, (_, i) => `c${39 - i}`)); // all, once, in order
    db.close();
  });

  it('always returns at least one row, however large', () => {
    const db = openAppDatabase(':memory:');
    const store = new SqliteCheckpointStore(db, { inlineBytes: 100_000, maxPageBytes: 1_000 });
    fill(store, 3, () => 'B'.repeat(50_000));
    const { pages } = allPages(store, 500);
    expect(pages.map((p) => p.length)).toEqual([1, 1, 1]);
    db.close();
  });
});
