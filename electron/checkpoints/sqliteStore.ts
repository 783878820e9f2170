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
 * another, up to LATER_MS later), and each promise settles once its own write is committed.
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
import { explainQueryPlan, keysetPage } from '../storage/paging.js';
import { CheckpointLeaseLostError, CheckpointNotFoundError, CheckpointNotResolvableError } from './errors.js';
import { LeaseKeeper } from './leaseKeeper.js';
import type { PreviewRow, Row } from './records.js';
import {
  HISTORY_INLINE_BYTES,
  HISTORY_PAGE_MAX_BYTES,
  HISTORY_PREVIEW_CHARS,
  answerRecorded,
  budgetPage,
  checkClaimInput,
  failureParams,
  historyFilter,
  leaseLostReason,
  resultJson,
  toEntry,
  toJson,
  toRecord,
} from './records.js';
import { CHECKPOINT_MIGRATIONS } from './schema.js';
import type { CheckpointTaskLinks } from './taskLinks.js';
import type {
  CheckpointStores,
  CheckpointRecord,
  CheckpointResult,
  CheckpointStorage,
  CheckpointStore,
  ClaimInput,
  ClaimResult,
  FailureInfo,
  GroupedCheckpointWrites,
  HistoryPage,
  HistoryQuery,
  ManualResolution,
  SessionSummary,
} from './types.js';

export { HISTORY_PAGE_MAX_BYTES } from './records.js';

export interface SqliteCheckpointStoreOptions {
  clock?: Clock;
  /** Arguments or a result up to this many bytes of JSON come whole in a history row. */
  inlineBytes?: number;
  /** A left-out value's preview: its first this many characters. */
  previewChars?: number;
  /** A history page stops once its rows add up to about this many bytes (at least one row). */
  maxPageBytes?: number;
  /**
   * Leases expire this many ms after their last renewal (see `CheckpointStorage`). Absent (the
   * desktop default): a lease never expires — one app owns the file, and its death ends its calls.
   */
  leaseMs?: number;
  /** Renew held leases on a timer (default true when `leaseMs` is set); false leaves renewal to `renew`. */
  heartbeat?: boolean;
}
const COLUMNS = `seq, session_id, call_id, user_id, tool_name, server_id, status, args_hash, args_json, result_json, lease,
  last_error_json, attempts, trace_id, created_at, updated_at, resolved_by, resolved_at, resolution_note, task_id, lease_expires_at`;

const PREVIEW_COLUMNS = `seq, session_id, call_id, user_id, tool_name, server_id, status, args_hash, lease,
  last_error_json, attempts, trace_id, created_at, updated_at, resolved_by, resolved_at, resolution_note, task_id,
  lease_expires_at, octet_length(args_json) AS args_bytes,
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
  readonly #renew: Statement<unknown[]>;
  readonly #group: GroupCommit;
  readonly #leaseMs: number | undefined;
  readonly #keeper: LeaseKeeper | undefined;
  readonly grouped: GroupedCheckpointWrites;

  /** `db` comes from the app's database opener, which ran the migrations (CHECKPOINT_MIGRATIONS among them). */
  constructor(db: Database, options: SqliteCheckpointStoreOptions = {}) {
    requireMigrations(db, 'checkpoints', CHECKPOINT_MIGRATIONS);
    this.#db = db;
    this.#clock = options.clock ?? systemClock;
    this.#inlineBytes = options.inlineBytes ?? HISTORY_INLINE_BYTES;
    this.#previewChars = options.previewChars ?? HISTORY_PREVIEW_CHARS;
    this.#maxPageBytes = options.maxPageBytes ?? HISTORY_PAGE_MAX_BYTES;
    this.#leaseMs = options.leaseMs;
    if (this.#leaseMs !== undefined && options.heartbeat !== false) {
      this.#keeper = new LeaseKeeper(
        (leases) =>
          Promise.resolve(
            new Set(leases.filter((l) => this.renew(l.sessionId, l.callId, l.lease)).map((l) => l.lease)),
          ),
        Math.max(1, Math.floor(this.#leaseMs / 3)),
      );
    }
    this.#select = db.prepare(`SELECT ${COLUMNS} FROM checkpoints WHERE session_id = ? AND call_id = ?`);
    this.#recordBytes = db.prepare(
      `SELECT octet_length(args_json) + COALESCE(octet_length(result_json), 0) + COALESCE(octet_length(last_error_json), 0) AS bytes
       FROM checkpoints WHERE session_id = ? AND call_id = ?`,
    );
    // Positional parameters on the per-call statements: binding by name costs a lookup per parameter.
    // ON CONFLICT DO NOTHING: a claim whose arguments are already serialized inserts first and
    // reads the existing row only when there is one (one statement for a new call, not two).
    this.#insert = db.prepare(
      `INSERT INTO checkpoints (session_id, call_id, user_id, tool_name, server_id, status, args_hash, args_json, lease, trace_id, created_at, updated_at, lease_expires_at)
       VALUES (?, ?, ?, ?, ?, 'started', ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session_id, call_id) DO NOTHING`,
    );
    this.#complete = db.prepare(
      `UPDATE checkpoints SET status = 'completed', result_json = @result, is_error = @isError, lease = NULL, updated_at = @now
       WHERE session_id = @sessionId AND call_id = @callId AND status = 'started' AND lease = @lease AND (lease_expires_at IS NULL OR lease_expires_at > @now)
       RETURNING ${COLUMNS}`,
    );
    this.#recordFailure = db.prepare(
      `UPDATE checkpoints SET last_error_json = @error, attempts = COALESCE(@attempts, attempts + 1), updated_at = @now,
         status = CASE WHEN @notRun = 1 THEN 'failed' ELSE status END, lease = CASE WHEN @notRun = 1 THEN NULL ELSE lease END
       WHERE session_id = @sessionId AND call_id = @callId AND status = 'started' AND lease = @lease AND (lease_expires_at IS NULL OR lease_expires_at > @now)
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
       WHERE session_id = ? AND call_id = ? AND status = 'started' AND lease = ? AND (lease_expires_at IS NULL OR lease_expires_at > ?)`,
    );
    // The heartbeat: a live lease moves its expiry on; an expired one stays expired (fenced).
    this.#renew = db.prepare(
      `UPDATE checkpoints SET lease_expires_at = ?
       WHERE session_id = ? AND call_id = ? AND status = 'started' AND lease = ? AND lease_expires_at > ?`,
    );
    this.#recordFailureOnly = db.prepare(
      `UPDATE checkpoints SET last_error_json = @error, attempts = COALESCE(@attempts, attempts + 1), updated_at = @now,
         status = CASE WHEN @notRun = 1 THEN 'failed' ELSE status END, lease = CASE WHEN @notRun = 1 THEN NULL ELSE lease END
       WHERE session_id = @sessionId AND call_id = @callId AND status = 'started' AND lease = @lease AND (lease_expires_at IS NULL OR lease_expires_at > @now)`,
    );
    this.#group = groupCommitFor(db);
    this.grouped = {
      claim: (input) =>
        this.#deferred(() => {
          checkClaimInput(input);
          const lease = randomUUID();
          return this.#group
            .commit(() => this.#claimLocked(input, nowMs(this.#clock), lease))
            .then((claimed) => this.#held(claimed));
        }),
      complete: (sessionId, callId, lease, result) =>
        this.#deferred(() => {
          const json = resultJson(sessionId, callId, result);
          return this.#group.commit(() => {
            const now = nowMs(this.#clock);
            if (
              this.#completeOnly.run([json, Number(result.isError), now, sessionId, callId, lease, now]).changes !== 1
            ) {
              throw this.#leaseLost(sessionId, callId, 'complete');
            }
            this.#keeper?.release(lease);
          });
        }),
      recordFailure: (sessionId, callId, lease, error) =>
        this.#deferred(() => {
          const params = failureParams(error, nowMs(this.#clock));
          return this.#group.commit(() => {
            if (this.#recordFailureOnly.run({ sessionId, callId, lease, ...params }).changes !== 1)
              throw this.#leaseLost(sessionId, callId, 'recordFailure');
            if (params.notRun === 1) this.#keeper?.release(lease);
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
    return this.#held(this.#claimTransaction(input, nowMs(this.#clock), randomUUID()));
  }

  /** Extends a live lease by `leaseMs`; false when it is not the owner's any more (or leases do not expire). */
  renew(sessionId: string, callId: string, lease: string): boolean {
    if (this.#leaseMs === undefined) return false;
    const now = nowMs(this.#clock);
    return this.#renew.run([now + this.#leaseMs, sessionId, callId, lease, now]).changes === 1;
  }

  /** Stops the heartbeat: the leases this store holds then expire (as when its process dies). */
  stopLeases(): void {
    this.#keeper?.stop();
  }

  /** An owned claim's lease joins the heartbeat. */
  #held(claimed: ClaimResult): ClaimResult {
    if (claimed.kind === 'owner')
      this.#keeper?.hold({ sessionId: claimed.record.sessionId, callId: claimed.record.callId, lease: claimed.lease });
    return claimed;
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
        this.#leaseMs === undefined ? null : now + this.#leaseMs,
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
    return answerRecorded(row, input, now);
  }

  peek(input: ClaimInput): ClaimResult | undefined {
    const row = this.#select.get(input.sessionId, input.callId);
    return row ? answerRecorded(row, input, nowMs(this.#clock)) : undefined;
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
    this.#keeper?.release(lease);
    return toRecord(row);
  }

  recordFailure(sessionId: string, callId: string, lease: string, error: FailureInfo): CheckpointRecord {
    const row = this.#recordFailure.get({ sessionId, callId, lease, ...failureParams(error, nowMs(this.#clock)) });
    if (!row) throw this.#leaseLost(sessionId, callId, 'recordFailure');
    if (row.status !== 'started') this.#keeper?.release(lease);
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
    const budgeted = budgetPage(rows, limit, this.#maxPageBytes);
    const { page, nextCursor } = keysetPage(budgeted.rows, budgeted.limit, (row) => ({
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
    const params: Record<string, unknown> = { inlineBytes: this.#inlineBytes, previewChars: this.#previewChars };
    const { where, limit } = historyFilter(query, CANCELLED_FAILURE, params);
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
    const reason = leaseLostReason(this.#select.get(sessionId, callId), nowMs(this.#clock));
    return new CheckpointLeaseLostError(sessionId, callId, operation, reason);
  }
}

/** The SQLite store behind the asynchronous interface both implementations share (`db` stays the caller's to close). */
export function sqliteCheckpointStorage(store: SqliteCheckpointStore): CheckpointStorage {
  // async: a synchronous throw becomes a rejection, as from the PostgreSQL store.
  return {
    claim: async (input) => store.claim(input),
    peek: async (input) => store.peek(input),
    complete: async (sessionId, callId, lease, result) => store.complete(sessionId, callId, lease, result),
    recordFailure: async (sessionId, callId, lease, error) => store.recordFailure(sessionId, callId, lease, error),
    renew: async (sessionId, callId, lease) => store.renew(sessionId, callId, lease),
    resolveManually: async (sessionId, callId, resolution) => store.resolveManually(sessionId, callId, resolution),
    get: async (sessionId, callId) => store.get(sessionId, callId),
    recordBytes: async (sessionId, callId) => store.recordBytes(sessionId, callId),
    history: async (query) => store.history(query),
    listSessions: async () => store.listSessions(),
    close: async () => store.stopLeases(),
  };
}

/**
 * The core's checkpoints on the app's SQLite file: the tool-call path writes through group commit
 * and reads synchronously (no extra turn of the event loop), everything else through `storage`.
 */
export function sqliteCheckpointStores(store: SqliteCheckpointStore, taskLinks: CheckpointTaskLinks): CheckpointStores {
  return {
    storage: sqliteCheckpointStorage(store),
    pipeline: {
      claim: (input) => store.grouped.claim(input),
      peek: (input) => store.peek(input),
      get: (sessionId, callId) => store.get(sessionId, callId),
      complete: (sessionId, callId, lease, result) => store.grouped.complete(sessionId, callId, lease, result),
      recordFailure: (sessionId, callId, lease, error) => store.grouped.recordFailure(sessionId, callId, lease, error),
    },
    taskLinks,
  };
}
