/**
 * What every checkpoint store shares, whatever its database: the row shape both SQL schemas
 * have, the checks of a claim's input, how a stored row becomes a record or a History entry, how
 * a recorded key answers a new claim, and where a History page stops. Moved out of sqliteStore.ts
 * unchanged so the SQLite and PostgreSQL stores give the same answers from the same rows.
 */
import {
  CheckpointArgumentsMismatchError,
  CheckpointFailedError,
  CheckpointInProgressError,
  CheckpointInvalidResultError,
} from './errors.js';
import type { MismatchField } from './errors.js';
import type {
  CheckpointRecord,
  CheckpointResult,
  CheckpointStatus,
  ClaimInput,
  ClaimResult,
  FailureInfo,
  HistoryEntry,
  HistoryQuery,
} from './types.js';
import { addRangeAndCursor, checkTimeRange, pageSize } from '../storage/paging.js';

export const HISTORY_INLINE_BYTES = 4 * 1024;
export const HISTORY_PREVIEW_CHARS = 1024;
export const HISTORY_PAGE_MAX_BYTES = 1024 * 1024;

/** What a history row costs besides its values (ids, names, times), for the page budget. */
const ROW_OVERHEAD_BYTES = 400;

export interface Row {
  seq: number;
  session_id: string;
  call_id: string;
  user_id: string;
  tool_name: string;
  server_id: string;
  status: CheckpointStatus;
  args_hash: string;
  args_json: string;
  result_json: string | null;
  lease: string | null;
  last_error_json: string | null;
  attempts: number;
  trace_id: string;
  created_at: number;
  updated_at: number;
  resolved_by: 'manual' | null;
  resolved_at: number | null;
  resolution_note: string | null;
  task_id: string | null;
  /** When the lease expires (epoch ms); NULL when leases do not expire (or the row left `started`). */
  lease_expires_at?: number | null;
}

/** A history row: large values become NULL plus their size and a preview, decided in SQL. */
export interface PreviewRow extends Omit<Row, 'args_json'> {
  args_json: string | null;
  args_bytes: number;
  args_preview: string | null;
  result_bytes: number | null;
  result_preview: string | null;
  /** 1 or 0 when the result was left out (its `isError`), else NULL. */
  result_is_error: number | null;
}

export function checkClaimInput(input: ClaimInput): void {
  for (const key of ['sessionId', 'callId', 'userId', 'toolName', 'serverId', 'argsHash', 'traceId'] as const) {
    if (typeof input[key] !== 'string' || input[key] === '')
      throw new TypeError(`claim: ${key} must be a non-empty string.`);
  }
}

/** The stored form of a reported failure (the UPDATE's parameters). */
export function failureParams(
  error: FailureInfo,
  now: number,
): { error: string; attempts: number | null; now: number; notRun: number } {
  if (error.attempts !== undefined && (!Number.isInteger(error.attempts) || error.attempts < 0)) {
    throw new TypeError('recordFailure: attempts must be a non-negative integer.');
  }
  const stored = { ...(error.code !== undefined ? { code: error.code } : {}), message: String(error.message), at: now };
  return {
    error: JSON.stringify(stored),
    attempts: error.attempts ?? null,
    now,
    notRun: error.notRun === true || error.ended === true ? 1 : 0,
  };
}

/** About what a history row weighs once serialized. */
function rowBytes(row: PreviewRow): number {
  return (
    ROW_OVERHEAD_BYTES +
    (row.args_json ?? row.args_preview ?? '').length +
    (row.result_json ?? row.result_preview ?? '').length +
    (row.last_error_json?.length ?? 0) +
    (row.resolution_note?.length ?? 0)
  );
}

/** A history row as a record: whole values parsed, left-out ones replaced by their preview. */
export function toEntry(row: PreviewRow): HistoryEntry {
  const argsLeftOut = row.args_json === null;
  const resultLeftOut = row.result_bytes !== null && row.result_json === null;
  const record = toRecord({
    ...row,
    args_json: argsLeftOut ? 'null' : row.args_json,
    result_json: resultLeftOut ? null : row.result_json,
  } as Row);
  if (argsLeftOut) delete record.args;
  if (!argsLeftOut && !resultLeftOut) return record;
  return {
    ...record,
    preview: {
      argsBytes: row.args_bytes,
      ...(row.result_bytes !== null ? { resultBytes: row.result_bytes } : {}),
      ...(argsLeftOut && row.args_preview !== null ? { args: row.args_preview } : {}),
      ...(resultLeftOut && row.result_preview !== null ? { result: row.result_preview } : {}),
      ...(resultLeftOut && row.result_is_error !== null ? { resultIsError: row.result_is_error === 1 } : {}),
      truncated: true,
    },
  };
}

export function toRecord(row: Row): CheckpointRecord {
  return {
    sessionId: row.session_id,
    callId: row.call_id,
    userId: row.user_id,
    toolName: row.tool_name,
    serverId: row.server_id,
    status: row.status,
    argsHash: row.args_hash,
    args: JSON.parse(row.args_json) as unknown,
    ...(row.result_json !== null ? { result: parseResult(row.result_json) } : {}),
    ...(row.last_error_json !== null
      ? { lastError: JSON.parse(row.last_error_json) as CheckpointRecord['lastError'] }
      : {}),
    attempts: row.attempts,
    traceId: row.trace_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.resolved_by !== null ? { resolvedBy: row.resolved_by } : {}),
    ...(row.resolved_at !== null ? { resolvedAt: row.resolved_at } : {}),
    ...(row.resolution_note !== null ? { resolutionNote: row.resolution_note } : {}),
    ...(row.task_id !== null && row.task_id !== undefined ? { taskId: row.task_id } : {}),
  };
}

/** JSON drops an undefined `structuredContent`; put the key back so a replay has the shape it was saved with. */
function parseResult(json: string): CheckpointResult {
  const parsed = JSON.parse(json) as CheckpointResult;
  return Object.hasOwn(parsed, 'structuredContent') ? parsed : { ...parsed, structuredContent: undefined };
}

export function resultJson(sessionId: string, callId: string, result: CheckpointResult): string {
  if (
    typeof result !== 'object' ||
    result === null ||
    !Array.isArray(result.content) ||
    typeof result.isError !== 'boolean'
  ) {
    throw new CheckpointInvalidResultError(
      sessionId,
      callId,
      'expected { content: [...], structuredContent?, isError }',
    );
  }
  try {
    return JSON.stringify(result);
  } catch (error) {
    throw new CheckpointInvalidResultError(
      sessionId,
      callId,
      `it is not JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

export function toJson(value: unknown, what: string): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new TypeError(
      `${what} must be JSON (${error instanceof Error ? error.message : String(error)}); pass them through redact() first.`,
    );
  }
  if (json === undefined) throw new TypeError(`${what} must be JSON; pass them through redact() first.`);
  return json;
}

/** The lease of a `started` row no longer holds: it expired (its owner stopped renewing it) or was cleared. */
function ownerGone(row: Pick<Row, 'lease' | 'lease_expires_at'>, now: number): boolean {
  return row.lease === null || (row.lease_expires_at != null && row.lease_expires_at <= now);
}

/** A key already recorded: its replay, or why it may not run again. */
export function answerRecorded(row: Row, input: ClaimInput, now: number): ClaimResult {
  // Checked before the status: another call's result must never be replayed, whatever its state.
  const mismatched: MismatchField[] = [];
  if (row.args_hash !== input.argsHash) mismatched.push('arguments');
  if (row.tool_name !== input.toolName) mismatched.push('tool');
  if (row.server_id !== input.serverId) mismatched.push('server');
  if (row.user_id !== input.userId) mismatched.push('user');
  if (mismatched.length > 0) throw new CheckpointArgumentsMismatchError(input.sessionId, input.callId, mismatched);

  switch (row.status) {
    case 'completed': {
      const record = toRecord(row);
      return { kind: 'replay', record: record as typeof record & { status: 'completed'; result: CheckpointResult } };
    }
    case 'started':
      throw new CheckpointInProgressError(input.sessionId, input.callId, row.created_at, ownerGone(row, now));
    case 'failed':
      throw new CheckpointFailedError(input.sessionId, input.callId);
  }
}

/** Why `complete` or `recordFailure` found no row its lease owns, from the row as it is now. */
export function leaseLostReason(row: Row | undefined, now: number): string {
  return !row
    ? 'there is no checkpoint for it'
    : row.status === 'started'
      ? row.lease !== null && ownerGone(row, now)
        ? "its lease expired: the call is in progress or its result unknown, and no longer this caller's"
        : 'another owner holds its lease'
      : row.resolved_by === 'manual'
        ? `it was resolved by hand in History as ${row.status}`
        : `it is already ${row.status}`;
}

/**
 * How many of the `limit + 1` rows a History query fetched make the page: at most `limit`, and
 * fewer once the rows add up to `maxBytes` (at least one row). Returns the rows to hand to
 * `keysetPage` and the page size to cut at.
 */
export function budgetPage<R extends PreviewRow>(
  rows: R[],
  limit: number,
  maxBytes: number,
): { rows: R[]; limit: number } {
  let budget = maxBytes;
  let count = 0;
  while (count < Math.min(limit, rows.length)) {
    const cost = rowBytes(rows[count] as R);
    if (count > 0 && cost > budget) break;
    budget -= cost;
    count++;
  }
  const cut = count < Math.min(limit, rows.length);
  return cut ? { rows: rows.slice(0, count + 1), limit: count } : { rows, limit };
}

/**
 * A History page's WHERE clauses and named parameters, the same for both stores; `cancelledFailure`
 * is the store's own SQL test of "the recorded failure is a cancellation" (its JSON functions differ).
 */
export function historyFilter(
  query: HistoryQuery,
  cancelledFailure: string,
  params: Record<string, unknown>,
): { where: string[]; limit: number } {
  const limit = pageSize(query.limit);
  checkTimeRange(query.from, query.to);
  const where: string[] = [];
  params.fetch = limit + 1;
  if (query.sessionId !== undefined) {
    where.push('session_id = @sessionId');
    params.sessionId = query.sessionId;
  }
  if (query.status === 'tool_error' || query.status === 'completed') {
    // A tool error is a completed call whose stored result says isError (kept in is_error), tested in SQL so paging stays exact.
    where.push(`status = 'completed'`, `is_error = ${query.status === 'tool_error' ? 1 : 0}`);
  } else if (query.status === 'cancelled' || query.status === 'started') {
    // A cancelled call is a started record whose recorded failure is a cancellation (the record status in core/views.ts).
    where.push(`status = 'started'`, `${query.status === 'cancelled' ? '' : 'NOT '}${cancelledFailure}`);
  } else if (query.status !== undefined) {
    where.push('status = @status');
    params.status = query.status;
  }
  if (query.toolName !== undefined) {
    where.push('tool_name = @toolName');
    params.toolName = query.toolName;
  }
  if (query.userId !== undefined) {
    where.push('user_id = @userId');
    params.userId = query.userId;
  }
  addRangeAndCursor(query, 'updated_at', where, params);
  return { where, limit };
}
