/**
 * Keyset pagination helpers shared by the checkpoint history and the trace list. A page is
 * "rows strictly after the last key seen" in (time desc, seq desc) order, so a page query is
 * one index range read whatever page you are on (OFFSET would scan every skipped row).
 */
import type { Database } from 'better-sqlite3';
import { InvalidCursorError, InvalidQueryError } from './errors.js';

/** The ordering key of the last row of a page: its time column and its unique seq. */
export interface PageKey {
  at: number;
  seq: number;
}

const MAX_PAGE_SIZE = 500;

/** Opaque to callers: base64url of the last key. Callers must not build or parse it. */
function encodeCursor(key: PageKey): string {
  return Buffer.from(JSON.stringify([key.at, key.seq]), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): PageKey {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || !parsed.every((n) => Number.isSafeInteger(n))) {
    throw new InvalidCursorError();
  }
  return { at: parsed[0] as number, seq: parsed[1] as number };
}

/** Page size: a positive integer, capped at MAX_PAGE_SIZE so one query stays bounded. */
export function pageSize(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new InvalidQueryError(`limit must be a positive integer (got ${String(limit)}).`);
  }
  return Math.min(limit, MAX_PAGE_SIZE);
}

export function checkTimeRange(from: number | undefined, to: number | undefined): void {
  for (const [name, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (value !== undefined && !Number.isFinite(value))
      throw new InvalidQueryError(`${name} must be a time in epoch milliseconds.`);
  }
}

/**
 * Cuts the `limit + 1` rows a page query fetched into the page and, when a row was left over,
 * the cursor after the page's last row.
 */
export function keysetPage<Row>(
  rows: Row[],
  limit: number,
  keyOf: (row: Row) => PageKey,
): { page: Row[]; nextCursor?: string } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { page, ...(rows.length > limit && last ? { nextCursor: encodeCursor(keyOf(last)) } : {}) };
}

/** The EXPLAIN QUERY PLAN details of a query, to check index use in tests. */
export function explainQueryPlan(db: Database, sql: string, params: Record<string, unknown>): string[] {
  return db
    .prepare<Record<string, unknown>, { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
    .all(params)
    .map((row) => row.detail);
}

/**
 * Adds the time-range and cursor conditions of a keyset page on `timeColumn` (plus `seq`) to a
 * query being built. The two row-value comparisons let SQLite read one index range.
 */
export function addRangeAndCursor(
  query: { from?: number; to?: number; cursor?: string },
  timeColumn: string,
  where: string[],
  params: Record<string, unknown>,
): void {
  if (query.from !== undefined) {
    where.push(`${timeColumn} >= @from`);
    params.from = Math.ceil(query.from);
  }
  if (query.to !== undefined) {
    where.push(`${timeColumn} <= @to`);
    params.to = Math.floor(query.to);
  }
  if (query.cursor !== undefined) {
    const key = decodeCursor(query.cursor);
    where.push(`(${timeColumn}, seq) < (@cursorAt, @cursorSeq)`);
    params.cursorAt = key.at;
    params.cursorSeq = key.seq;
  }
}
