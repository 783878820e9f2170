/**
 * The SQLite checkpoint store (better-sqlite3, the app's shared database file).
 *
 * Atomicity: a claim reads and inserts inside one BEGIN IMMEDIATE transaction, which takes the
 * file's write lock before reading, so claims from any number of processes on one file serialize
 * and exactly one caller ever inserts a given (session, call). `complete`, `recordFailure` and
 * `resolveManually` are single conditional UPDATEs, atomic on their own.
 *
 * Two ways to write. The synchronous methods commit one transaction each before they return
 * (History's manual resolution, tools, tests). The tool-call path uses `grouped`: its writes join
 * the connection's group commit (storage/groupCommit.ts), so the claims and completions of
 * concurrent calls share one transaction per turn of the event loop (their trace events share
 * another, a few milliseconds later), and each promise settles once its own write is committed.
 * Same statements, same rules.
 *
 * Size: a history page never carries a large JSON value. SQL decides per row (octet_length,
 * substr) whether the arguments and result come whole or as a short preview, so a 9 MB result
 * never reaches JavaScript for a list page, and a page stops at a byte budget as well as a row
 * count. The whole record comes from `get`.
 */
import { randomUUID } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';
import type { Clock } from '../storage/clock.js';
import { nowMs, systemClock } from '../storage/clock.js';
import type { GroupCommit } from '../storage/groupCommit.js';
import { groupCommitFor } from '../storage/groupCommit.js';
import { requireMigrations } from '../storage/migrate.js';
import { addRangeAndCursor, checkTimeRange, explainQueryPlan, keysetPage, pageSize } from '../storage/paging.js';
import {
  CheckpointArgumentsMismatchError,
  CheckpointFailedError,
  CheckpointInProgressError,
  CheckpointInvalidResultError,
  CheckpointLeaseLostError,
  CheckpointNotFoundError,
  CheckpointNotResolvableError,
} from './errors.js';
import type { MismatchField } from './errors.js';
import { CHECKPOINT_MIGRATIONS } from './schema.js';
import type {
  CheckpointRecord,
  CheckpointResult,
  CheckpointStatus,
  CheckpointStore,
  ClaimInput,
  ClaimResult,
  FailureInfo,
  GroupedCheckpointWrites,
  HistoryEntry,
  HistoryPage,
  HistoryQuery,
  ManualResolution,
  SessionSummary,
} from './types.js';

export interface SqliteCheckpointStoreOptions {
  clock?: Clock;
  /** Arguments or a result up to this many bytes of JSON come whole in a history row. */
  inlineBytes?: number;
  /** A left-out value's preview: its first this many characters. */
  previewChars?: number;
  /** A history page stops once its rows add up to about this many bytes (at least one row). */
  maxPageBytes?: number;
}

const HISTORY_INLINE_BYTES = 4 * 1024;
const HISTORY_PREVIEW_CHARS = 1024;
export const HISTORY_PAGE_MAX_BYTES = 1024 * 1024;
/** What a history row costs besides its values (ids, names, times), for the page budget. */
const ROW_OVERHEAD_BYTES = 400;

interface Row {
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
}

const COLUMNS = `seq, session_id, call_id, user_id, tool_name, server_id, status, args_hash, args_json, result_json, lease,
  last_error_json, attempts, trace_id, created_at, updated_at, resolved_by, resolved_at, resolution_note, task_id`;

/** A history row: large values become NULL plus their size and a preview, decided in SQL. */
interface PreviewRow extends Omit<Row, 'args_json'> {
  args_json: string | null;
  args_bytes: number;
  args_preview: string | null;
  result_bytes: number | null;
  result_preview: string | null;
  /** 1 or 0 when the result was left out (its `isError`), else NULL. */
  result_is_error: number | null;
}

const PREVIEW_COLUMNS = `seq, session_id, call_id, user_id, tool_name, server_id, status, args_hash, lease,
  last_error_json, attempts, trace_id, created_at, updated_at, resolved_by, resolved_at, resolution_note, task_id,
  octet_length(args_json) AS args_bytes,
  CASE WHEN octet_length(args_json) <= @inlineBytes THEN args_json END AS args_json,
  CASE WHEN octet_length(args_json) > @inlineBytes THEN substr(args_json, 1, @previewChars) END AS args_preview,
  octet_length(result_json) AS result_bytes,
  CASE WHEN octet_length(result_json) <= @inlineBytes THEN result_json END AS result_json,
  CASE WHEN octet_length(result_json) > @inlineBytes THEN substr(result_json, 1, @previewChars) END AS result_preview,
  CASE WHEN octet_length(result_json) > @inlineBytes THEN is_error END AS result_is_error`;

/** A record's recorded failure is a cancellation (the code of MCPRequestCancelled, or of an abort). */
const CANCELLED_FAILURE = `COALESCE(json_valid(last_error_json) AND json_extract(last_error_json, '$.code') = 'cancelled', 0)`;

export class SqliteCheckpointStore implements CheckpointStore {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #inlineBytes: number;
  readonly #previewChars: number;
  readonly #maxPageBytes: number;
  readonly #select: Statement<[string, string], Row>;
  readonly #recordBytes: Statement<[string, string], { bytes: number }>;
  readonly #insert: Statement<unknown[]>;
  readonly #complete: Statement<Record<string, unknown>, Row>;
  readonly #recordFailure: Statement<Record<string, unknown>, Row>;
  readonly #resolve: Statement<Record<string, unknown>, Row>;
  readonly #sessions: Statement<[], { session_id: string; count: number; started: number; last: number }>;
  readonly #historyStatements = new Map<string, Statement<Record<string, unknown>, PreviewRow>>();
  readonly #claimTransaction: (input: ClaimInput, now: number, lease: string) => ClaimResult;
  readonly #completeOnly: Statement<unknown[]>;
  readonly #recordFailureOnly: Statement<Record<string, unknown>>;
  readonly #group: GroupCommit;
  readonly grouped: GroupedCheckpointWrites;

  /** `db` comes from the app's database opener, which ran the migrations (CHECKPOINT_MIGRATIONS among them). */
  constructor(db: Database, options: SqliteCheckpointStoreOptions = {}) {
    requireMigrations(db, 'checkpoints', CHECKPOINT_MIGRATIONS);
    this.#db = db;
    this.#clock = options.clock ?? systemClock;
    this.#inlineBytes = options.inlineBytes ?? HISTORY_INLINE_BYTES;
    this.#previewChars = options.previewChars ?? HISTORY_PREVIEW_CHARS;
    this.#maxPageBytes = options.maxPageBytes ?? HISTORY_PAGE_MAX_BYTES;
    this.#select = db.prepare(`SELECT ${COLUMNS} FROM checkpoints WHERE session_id = ? AND call_id = ?`);
    this.#recordBytes = db.prepare(
      `SELECT octet_length(args_json) + COALESCE(octet_length(result_json), 0) + COALESCE(octet_length(last_error_json), 0) AS bytes
       FROM checkpoints WHERE session_id = ? AND call_id = ?`,
    );
    // Positional parameters on the per-call statements: binding by name costs a lookup per parameter.
    // ON CONFLICT DO NOTHING: a claim whose arguments are already serialized inserts first and
    // reads the existing row only when there is one (one statement for a new call, not two).
    this.#insert = db.prepare(
      `INSERT INTO checkpoints (session_id, call_id, user_id, tool_name, server_id, status, args_hash, args_json, lease, trace_id, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'started', ?, ?, ?, ?, ?, ?) ON CONFLICT (session_id, call_id) DO NOTHING`,
    );
    this.#complete = db.prepare(
      `UPDATE checkpoints SET status = 'completed', result_json = @result, is_error = @isError, lease = NULL, updated_at = @now
       WHERE session_id = @sessionId AND call_id = @callId AND status = 'started' AND lease = @lease
       RETURNING ${COLUMNS}`,
    );
    this.#recordFailure = db.prepare(
      `UPDATE checkpoints SET last_error_json = @error, attempts = COALESCE(@attempts, attempts + 1), updated_at = @now,
         status = CASE WHEN @notRun = 1 THEN 'failed' ELSE status END, lease = CASE WHEN @notRun = 1 THEN NULL ELSE lease END
       WHERE session_id = @sessionId AND call_id = @callId AND status = 'started' AND lease = @lease
       RETURNING ${COLUMNS}`,
    );
    // Clearing the lease makes a late `complete` from the original owner fail with LeaseLost.
    this.#resolve = db.prepare(
      `UPDATE checkpoints SET status = @status, result_json = @result, is_error = @isError, lease = NULL, resolved_by = 'manual',
         resolved_at = @now, resolution_note = @note, updated_at = @now
       WHERE session_id = @sessionId AND call_id = @callId AND status = 'started'
       RETURNING ${COLUMNS}`,
    );
    this.#sessions = db.prepare(
      `SELECT session_id, COUNT(*) AS count, SUM(status = 'started') AS started, MAX(updated_at) AS last
       FROM checkpoints GROUP BY session_id ORDER BY last DESC, session_id`,
    );
    const claim = db.transaction((input: ClaimInput, now: number, lease: string) =>
      this.#claimLocked(input, now, lease),
    );
    this.#claimTransaction = (input, now, lease) => claim.immediate(input, now, lease);
    // The grouped path reads nothing back: the caller does not need the stored row.
    this.#completeOnly = db.prepare(
      `UPDATE checkpoints SET status = 'completed', result_json = ?, is_error = ?, lease = NULL, updated_at = ?
       WHERE session_id = ? AND call_id = ? AND status = 'started' AND lease = ?`,
    );
    this.#recordFailureOnly = db.prepare(
      `UPDATE checkpoints SET last_error_json = @error, attempts = COALESCE(@attempts, attempts + 1), updated_at = @now,
         status = CASE WHEN @notRun = 1 THEN 'failed' ELSE status END, lease = CASE WHEN @notRun = 1 THEN NULL ELSE lease END
       WHERE session_id = @sessionId AND call_id = @callId AND status = 'started' AND lease = @lease`,
    );
    this.#group = groupCommitFor(db);
    this.grouped = {
      claim: (input) =>
        this.#deferred(() => {
          checkClaimInput(input);
          const lease = randomUUID();
          return this.#group.commit(() => this.#claimLocked(input, nowMs(this.#clock), lease));
        }),
      complete: (sessionId, callId, lease, result) =>
        this.#deferred(() => {
          const json = resultJson(sessionId, callId, result);
          return this.#group.commit(() => {
            if (
              this.#completeOnly.run([json, Number(result.isError), nowMs(this.#clock), sessionId, callId, lease])
                .changes !== 1
            ) {
              throw this.#leaseLost(sessionId, callId, 'complete');
            }
          });
        }),
      recordFailure: (sessionId, callId, lease, error) =>
        this.#deferred(() => {
          const params = failureParams(error, nowMs(this.#clock));
          return this.#group.commit(() => {
            if (this.#recordFailureOnly.run({ sessionId, callId, lease, ...params }).changes !== 1)
              throw this.#leaseLost(sessionId, callId, 'recordFailure');
          });
        }),
    };
  }

  /** Statistics of the connection's group commit (transactions, writes), shared with the tracer. */
  get groupCommitStats(): GroupCommit['stats'] {
    return this.#group.stats;
  }

  claim(input: ClaimInput): ClaimResult {
    checkClaimInput(input);
    // randomUUID: 122 random bits from the CSPRNG, served from Node's batched entropy cache —
    // randomBytes per claim was the single largest cost of a claim.
    return this.#claimTransaction(input, nowMs(this.#clock), randomUUID());
  }

  /** A bad argument rejects the promise (as the synchronous method would throw), never throws. */
  #deferred<T>(start: () => Promise<T>): Promise<T> {
    try {
      return start();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #claimLocked(input: ClaimInput, now: number, lease: string): ClaimResult {
    const insert = (argsJson: string): boolean =>
      this.#insert.run([
        input.sessionId,
        input.callId,
        input.userId,
        input.toolName,
        input.serverId,
        input.argsHash,
        argsJson,
        lease,
        input.traceId,
        now,
        now,
      ]).changes === 1;
    const row =
      input.argsJson !== undefined && insert(input.argsJson)
        ? undefined
        : this.#select.get(input.sessionId, input.callId);
    if (!row) {
      const argsJson = input.argsJson ?? toJson(input.args ?? null, 'claim: args');
      if (input.argsJson === undefined) insert(argsJson);
      const record: CheckpointRecord = {
        sessionId: input.sessionId,
        callId: input.callId,
        userId: input.userId,
        toolName: input.toolName,
        serverId: input.serverId,
        status: 'started',
        argsHash: input.argsHash,
        // Serialized by the caller from this very value: no need to parse it back.
        args: input.argsJson !== undefined ? input.args : (JSON.parse(argsJson) as unknown),
        attempts: 0,
        traceId: input.traceId,
        createdAt: now,
        updatedAt: now,
      };
      return { kind: 'owner', lease, record };
    }
    return this.#answerRecorded(row, input);
  }

  peek(input: ClaimInput): ClaimResult | undefined {
    const row = this.#select.get(input.sessionId, input.callId);
    return row ? this.#answerRecorded(row, input) : undefined;
  }

  /** A key already recorded: its replay, or why it may not run again. */
  #answerRecorded(row: Row, input: ClaimInput): ClaimResult {
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
        throw new CheckpointInProgressError(input.sessionId, input.callId, row.created_at);
      case 'failed':
        throw new CheckpointFailedError(input.sessionId, input.callId);
    }
  }

  complete(sessionId: string, callId: string, lease: string, result: CheckpointResult): CheckpointRecord {
    const row = this.#complete.get({
      sessionId,
      callId,
      lease,
      result: resultJson(sessionId, callId, result),
      isError: Number(result.isError),
      now: nowMs(this.#clock),
    });
    if (!row) throw this.#leaseLost(sessionId, callId, 'complete');
    return toRecord(row);
  }

  recordFailure(sessionId: string, callId: string, lease: string, error: FailureInfo): CheckpointRecord {
    const row = this.#recordFailure.get({ sessionId, callId, lease, ...failureParams(error, nowMs(this.#clock)) });
    if (!row) throw this.#leaseLost(sessionId, callId, 'recordFailure');
    return toRecord(row);
  }

  resolveManually(sessionId: string, callId: string, resolution: ManualResolution): CheckpointRecord {
    const result = resolution.status === 'completed' ? resultJson(sessionId, callId, resolution.result) : null;
    const row = this.#resolve.get({
      sessionId,
      callId,
      status: resolution.status,
      result,
      isError: resolution.status === 'completed' ? Number(resolution.result.isError) : null,
      note: resolution.note ?? null,
      now: nowMs(this.#clock),
    });
    if (row) return toRecord(row);
    const current = this.#select.get(sessionId, callId);
    if (!current) throw new CheckpointNotFoundError(sessionId, callId);
    throw new CheckpointNotResolvableError(sessionId, callId, current.status);
  }

  get(sessionId: string, callId: string): CheckpointRecord | undefined {
    const row = this.#select.get(sessionId, callId);
    return row ? toRecord(row) : undefined;
  }

  recordBytes(sessionId: string, callId: string): number | undefined {
    return this.#recordBytes.get(sessionId, callId)?.bytes;
  }

  history(query: HistoryQuery): HistoryPage {
    const { sql, params, limit } = this.#historySql(query);
    const rows = this.#historyStatement(sql).all(params);
    // The byte budget may end the page before `limit` rows; the cursor then follows its last row.
    let budget = this.#maxPageBytes;
    let count = 0;
    while (count < Math.min(limit, rows.length)) {
      const cost = rowBytes(rows[count] as PreviewRow);
      if (count > 0 && cost > budget) break;
      budget -= cost;
      count++;
    }
    const cut = count < Math.min(limit, rows.length);
    const { page, nextCursor } = keysetPage(cut ? rows.slice(0, count + 1) : rows, cut ? count : limit, (row) => ({
      at: row.updated_at,
      seq: row.seq,
    }));
    return { records: page.map(toEntry), ...(nextCursor ? { nextCursor } : {}) };
  }

  /** The query plan of a history page (EXPLAIN QUERY PLAN details), to check index use. */
  explainHistory(query: HistoryQuery): string[] {
    const { sql, params } = this.#historySql(query);
    return explainQueryPlan(this.#db, sql, params);
  }

  listSessions(): SessionSummary[] {
    return this.#sessions
      .all()
      .map((row) => ({ sessionId: row.session_id, count: row.count, started: row.started, lastActivity: row.last }));
  }

  #historySql(query: HistoryQuery): { sql: string; params: Record<string, unknown>; limit: number } {
    const limit = pageSize(query.limit);
    checkTimeRange(query.from, query.to);
    const where: string[] = [];
    const params: Record<string, unknown> = {
      fetch: limit + 1,
      inlineBytes: this.#inlineBytes,
      previewChars: this.#previewChars,
    };
    if (query.sessionId !== undefined) {
      where.push('session_id = @sessionId');
      params.sessionId = query.sessionId;
    }
    if (query.status === 'tool_error' || query.status === 'completed') {
      // A tool error is a completed call whose stored result says isError (kept in is_error), tested in SQL so paging stays exact.
      where.push(`status = 'completed'`, `is_error = ${query.status === 'tool_error' ? 1 : 0}`);
    } else if (query.status === 'cancelled' || query.status === 'started') {
      // A cancelled call is a started record whose recorded failure is a cancellation (the record status in core/views.ts).
      where.push(`status = 'started'`, `${query.status === 'cancelled' ? '' : 'NOT '}${CANCELLED_FAILURE}`);
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
    // The History view always pages one session: one range of the session index, whose entries
    // carry status, is_error and tool_name, so the other filters never read a row they reject.
    // Across sessions (the API allows it) there is no index by time: the table is read and sorted.
    const sql =
      `SELECT ${PREVIEW_COLUMNS} FROM checkpoints${query.sessionId !== undefined ? ' INDEXED BY checkpoints_by_session' : ''}` +
      (where.length ? ` WHERE ${where.join(' AND ')}` : '') +
      ' ORDER BY updated_at DESC, seq DESC LIMIT @fetch';
    return { sql, params, limit };
  }

  #historyStatement(sql: string): Statement<Record<string, unknown>, PreviewRow> {
    let statement = this.#historyStatements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#historyStatements.set(sql, statement);
    }
    return statement;
  }

  #leaseLost(sessionId: string, callId: string, operation: 'complete' | 'recordFailure'): CheckpointLeaseLostError {
    const row = this.#select.get(sessionId, callId);
    const reason = !row
      ? 'there is no checkpoint for it'
      : row.status === 'started'
        ? 'another owner holds its lease'
        : row.resolved_by === 'manual'
          ? `it was resolved by hand in History as ${row.status}`
          : `it is already ${row.status}`;
    return new CheckpointLeaseLostError(sessionId, callId, operation, reason);
  }
}

function checkClaimInput(input: ClaimInput): void {
  for (const key of ['sessionId', 'callId', 'userId', 'toolName', 'serverId', 'argsHash', 'traceId'] as const) {
    if (typeof input[key] !== 'string' || input[key] === '')
      throw new TypeError(`claim: ${key} must be a non-empty string.`);
  }
}

/** The stored form of a reported failure (the UPDATE's parameters). */
function failureParams(
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
function toEntry(row: PreviewRow): HistoryEntry {
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

function toRecord(row: Row): CheckpointRecord {
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

function resultJson(sessionId: string, callId: string, result: CheckpointResult): string {
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

function toJson(value: unknown, what: string): string {
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
