/**
 * The PostgreSQL checkpoint store: several MiniHarness processes — on one machine or many — on
 * one database, with the guarantees of the SQLite store (CheckpointStorage, the one conformance
 * suite) and leases that expire with their owner.
 *
 * Isolation, per operation (PostgreSQL's default, READ COMMITTED, is enough for each, because
 * each is ONE statement whose WHERE clause carries the whole rule; no explicit transaction):
 * - claim: `INSERT … ON CONFLICT (session_id, call_id) DO NOTHING RETURNING`. The unique index
 *   decides: of any number of concurrent inserters exactly one inserts; the others wait for it to
 *   commit (or roll back, and then one of them inserts) and get no row. Only then does a loser
 *   read the row, in a SECOND statement — under READ COMMITTED a new statement takes a new
 *   snapshot and sees the winner's committed row (the same statement's snapshot might not). The
 *   owner's INSERT is committed before `claim` resolves, so the claim is durable before the side
 *   effect runs.
 * - complete / recordFailure: one conditional `UPDATE … WHERE status = 'started' AND lease = $
 *   AND lease_expires_at > now RETURNING`. A row being updated concurrently (a person resolving
 *   it, the heartbeat) is re-checked against the WHERE after the other commits, so exactly one of
 *   racing writers wins and a stale or expired lease changes nothing (the fencing). The result is
 *   committed before the promise resolves: stored before the answer.
 * - resolveManually, renew: the same single conditional UPDATE.
 * - history, get, listSessions: one SELECT each, a consistent snapshot of committed rows;
 *   keyset pages (updated_at, seq) never repeat or skip a row that did not move.
 * SERIALIZABLE would add retries and nothing these single-row statements need.
 *
 * Time: an injected clock (tests) or, by default, the database server's clock, so every process
 * on every machine judges a lease's expiry by one clock.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../storage/clock.js';
import { nowMs } from '../storage/clock.js';
import { keysetPage } from '../storage/paging.js';
import type { PgPool } from '../storage/postgres/pool.js';
import { openPostgres, toStorageError } from '../storage/postgres/pool.js';
import { CheckpointLeaseLostError, CheckpointNotFoundError, CheckpointNotResolvableError } from './errors.js';
import { LeaseKeeper } from './leaseKeeper.js';
import { POSTGRES_CHECKPOINT_MIGRATIONS } from './postgresSchema.js';
import { PostgresTaskLinks } from './postgresTaskLinks.js';
import type { HeldLease } from './leaseKeeper.js';
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
import type {
  CheckpointStores,
  CheckpointRecord,
  CheckpointResult,
  CheckpointStorage,
  ClaimInput,
  ClaimResult,
  FailureInfo,
  HistoryPage,
  HistoryQuery,
  ManualResolution,
  SessionSummary,
} from './types.js';

export interface PostgresCheckpointStoreOptions {
  /** Default: the database server's clock. */
  clock?: Clock;
  /** A lease expires this long after its last renewal (default 30 s). */
  leaseMs?: number;
  /** Renew held leases on a timer (default true); false leaves renewal to `renew` (tests). */
  heartbeat?: boolean;
  inlineBytes?: number;
  previewChars?: number;
  maxPageBytes?: number;
}

const DEFAULT_LEASE_MS = 30_000;

/** "Now" in epoch ms: parameter $1 when a clock is injected, else the server's statement time. */
const NOW = `COALESCE($1::bigint, (extract(epoch from statement_timestamp()) * 1000)::bigint)`;

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

const CANCELLED_FAILURE = `COALESCE((last_error_json::jsonb ->> 'code') = 'cancelled', false)`;

/** The owner still holds the row: it is started, the lease is this one, and it has not expired. */
const LIVE_LEASE = `status = 'started' AND lease = $4 AND lease_expires_at > ${NOW}`;

export class PostgresCheckpointStore implements CheckpointStorage {
  readonly #pool: PgPool;
  readonly #where: string;
  readonly #clock: Clock | undefined;
  readonly #leaseMs: number;
  readonly #keeper: LeaseKeeper | undefined;
  readonly #inlineBytes: number;
  readonly #previewChars: number;
  readonly #maxPageBytes: number;

  /** `pool` comes from `openPostgres` with POSTGRES_CHECKPOINT_MIGRATIONS among its migrations; `where` is its redacted URL. */
  constructor(pool: PgPool, where: string, options: PostgresCheckpointStoreOptions = {}) {
    this.#pool = pool;
    this.#where = where;
    this.#clock = options.clock;
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.#inlineBytes = options.inlineBytes ?? HISTORY_INLINE_BYTES;
    this.#previewChars = options.previewChars ?? HISTORY_PREVIEW_CHARS;
    this.#maxPageBytes = options.maxPageBytes ?? HISTORY_PAGE_MAX_BYTES;
    if (options.heartbeat !== false)
      this.#keeper = new LeaseKeeper((leases) => this.#renewAll(leases), Math.max(1, Math.floor(this.#leaseMs / 3)));
  }

  /** $1 of every statement: the injected clock's now, or NULL for the server's clock. */
  #now(): number | null {
    return this.#clock ? nowMs(this.#clock) : null;
  }

  async #query<R extends object>(operation: string, sql: string, params: unknown[]): Promise<R[]> {
    try {
      return (await this.#pool.query<R>(sql, params)).rows;
    } catch (error) {
      throw toStorageError(error, this.#where, operation);
    }
  }

  async claim(input: ClaimInput): Promise<ClaimResult> {
    checkClaimInput(input);
    const argsJson = input.argsJson ?? toJson(input.args ?? null, 'claim: args');
    const [inserted] = await this.#query<{ lease: string; created_at: number }>(
      'record a tool call',
      `INSERT INTO checkpoints (session_id, call_id, user_id, tool_name, server_id, status, args_hash, args_json, lease,
         trace_id, created_at, updated_at, lease_expires_at)
       VALUES ($2, $3, $4, $5, $6, 'started', $7, $8, 'f' || nextval('checkpoint_fence') || '-' || $9, $10, ${NOW}, ${NOW}, ${NOW} + $11)
       ON CONFLICT (session_id, call_id) DO NOTHING
       RETURNING lease, created_at`,
      [
        this.#now(),
        input.sessionId,
        input.callId,
        input.userId,
        input.toolName,
        input.serverId,
        input.argsHash,
        argsJson,
        randomUUID(),
        input.traceId,
        this.#leaseMs,
      ],
    );
    if (inserted) {
      this.#keeper?.hold({ sessionId: input.sessionId, callId: input.callId, lease: inserted.lease });
      const record: CheckpointRecord = {
        sessionId: input.sessionId,
        callId: input.callId,
        userId: input.userId,
        toolName: input.toolName,
        serverId: input.serverId,
        status: 'started',
        argsHash: input.argsHash,
        args: input.argsJson !== undefined ? input.args : (JSON.parse(argsJson) as unknown),
        attempts: 0,
        traceId: input.traceId,
        createdAt: inserted.created_at,
        updatedAt: inserted.created_at,
      };
      return { kind: 'owner', lease: inserted.lease, record };
    }
    // A new statement, so a new snapshot: it sees the row the winning claim committed.
    const existing = await this.#select(input.sessionId, input.callId);
    if (!existing) throw new Error('claim: the conflicting checkpoint vanished'); // rows are never deleted
    return answerRecorded(existing.row, input, existing.now);
  }

  async peek(input: ClaimInput): Promise<ClaimResult | undefined> {
    const existing = await this.#select(input.sessionId, input.callId);
    return existing ? answerRecorded(existing.row, input, existing.now) : undefined;
  }

  async #select(sessionId: string, callId: string): Promise<{ row: Row; now: number } | undefined> {
    const [row] = await this.#query<Row & { now_ms: number }>(
      'read a tool call',
      `SELECT ${COLUMNS}, ${NOW} AS now_ms FROM checkpoints WHERE session_id = $2 AND call_id = $3`,
      [this.#now(), sessionId, callId],
    );
    return row ? { row, now: row.now_ms } : undefined;
  }

  async complete(
    sessionId: string,
    callId: string,
    lease: string,
    result: CheckpointResult,
  ): Promise<CheckpointRecord> {
    const json = resultJson(sessionId, callId, result);
    const [row] = await this.#query<Row>(
      'store a tool result',
      `UPDATE checkpoints SET status = 'completed', result_json = $5, is_error = $6, lease = NULL, lease_expires_at = NULL,
         updated_at = ${NOW}
       WHERE session_id = $2 AND call_id = $3 AND ${LIVE_LEASE}
       RETURNING ${COLUMNS}`,
      [this.#now(), sessionId, callId, lease, json, Number(result.isError)],
    );
    if (!row) throw await this.#leaseLost(sessionId, callId, lease, 'complete');
    this.#keeper?.release(lease);
    return toRecord(row);
  }

  async recordFailure(sessionId: string, callId: string, lease: string, error: FailureInfo): Promise<CheckpointRecord> {
    const params = failureParams(error, this.#now() ?? Date.now());
    const [row] = await this.#query<Row>(
      'record a tool failure',
      // The stored error's `at` is this process's time when the server's clock is in use: it is shown, never compared.
      `UPDATE checkpoints SET last_error_json = $5, attempts = COALESCE($6::integer, attempts + 1), updated_at = ${NOW},
         status = CASE WHEN $7 = 1 THEN 'failed' ELSE status END, lease = CASE WHEN $7 = 1 THEN NULL ELSE lease END
       WHERE session_id = $2 AND call_id = $3 AND ${LIVE_LEASE}
       RETURNING ${COLUMNS}`,
      [this.#now(), sessionId, callId, lease, params.error, params.attempts, params.notRun],
    );
    if (!row) throw await this.#leaseLost(sessionId, callId, lease, 'recordFailure');
    if (row.status !== 'started') this.#keeper?.release(lease);
    return toRecord(row);
  }

  async renew(sessionId: string, callId: string, lease: string): Promise<boolean> {
    const renewed = await this.#renewAll([{ sessionId, callId, lease }]);
    return renewed.has(lease);
  }

  /** One statement renews every live lease given; an expired one stays expired (fenced). */
  async #renewAll(leases: HeldLease[]): Promise<ReadonlySet<string>> {
    const rows = await this.#query<{ lease: string }>(
      'renew leases',
      `UPDATE checkpoints SET lease_expires_at = ${NOW} + $5
       WHERE (session_id, call_id) IN (SELECT * FROM unnest($2::text[], $3::text[]))
         AND status = 'started' AND lease = ANY($4::text[]) AND lease_expires_at > ${NOW}
       RETURNING lease`,
      [
        this.#now(),
        leases.map((l) => l.sessionId),
        leases.map((l) => l.callId),
        leases.map((l) => l.lease),
        this.#leaseMs,
      ],
    );
    return new Set(rows.map((row) => row.lease));
  }

  async resolveManually(sessionId: string, callId: string, resolution: ManualResolution): Promise<CheckpointRecord> {
    const result = resolution.status === 'completed' ? resultJson(sessionId, callId, resolution.result) : null;
    // Clearing the lease makes a late `complete` from the original owner fail with LeaseLost.
    const [row] = await this.#query<Row>(
      'resolve a tool call',
      `UPDATE checkpoints SET status = $4, result_json = $5, is_error = $6, lease = NULL, lease_expires_at = NULL,
         resolved_by = 'manual', resolved_at = ${NOW}, resolution_note = $7, updated_at = ${NOW}
       WHERE session_id = $2 AND call_id = $3 AND status = 'started'
       RETURNING ${COLUMNS}`,
      [
        this.#now(),
        sessionId,
        callId,
        resolution.status,
        result,
        resolution.status === 'completed' ? Number(resolution.result.isError) : null,
        resolution.note ?? null,
      ],
    );
    if (row) return toRecord(row);
    const current = await this.#select(sessionId, callId);
    if (!current) throw new CheckpointNotFoundError(sessionId, callId);
    throw new CheckpointNotResolvableError(sessionId, callId, current.row.status);
  }

  async get(sessionId: string, callId: string): Promise<CheckpointRecord | undefined> {
    const found = await this.#select(sessionId, callId);
    return found ? toRecord(found.row) : undefined;
  }

  async recordBytes(sessionId: string, callId: string): Promise<number | undefined> {
    const [row] = await this.#query<{ bytes: number }>(
      'measure a tool call',
      `SELECT octet_length(args_json) + COALESCE(octet_length(result_json), 0) + COALESCE(octet_length(last_error_json), 0) AS bytes
       FROM checkpoints WHERE session_id = $1 AND call_id = $2`,
      [sessionId, callId],
    );
    return row?.bytes;
  }

  async history(query: HistoryQuery): Promise<HistoryPage> {
    const { sql, params, limit } = this.#historySql(query);
    const rows = await this.#query<PreviewRow>('read History', ...positional(sql, params));
    const budgeted = budgetPage(rows, limit, this.#maxPageBytes);
    const { page, nextCursor } = keysetPage(budgeted.rows, budgeted.limit, (row) => ({
      at: row.updated_at,
      seq: row.seq,
    }));
    return { records: page.map(toEntry), ...(nextCursor ? { nextCursor } : {}) };
  }

  #historySql(query: HistoryQuery): { sql: string; params: Record<string, unknown>; limit: number } {
    const params: Record<string, unknown> = { inlineBytes: this.#inlineBytes, previewChars: this.#previewChars };
    const { where, limit } = historyFilter(query, CANCELLED_FAILURE, params);
    const sql =
      `SELECT ${PREVIEW_COLUMNS} FROM checkpoints` +
      (where.length ? ` WHERE ${where.join(' AND ')}` : '') +
      ' ORDER BY updated_at DESC, seq DESC LIMIT @fetch';
    return { sql, params, limit };
  }

  async listSessions(): Promise<SessionSummary[]> {
    const rows = await this.#query<{ session_id: string; count: number; started: number; last: number }>(
      'list sessions',
      `SELECT session_id, COUNT(*)::integer AS count, COUNT(*) FILTER (WHERE status = 'started')::integer AS started,
         MAX(updated_at) AS last
       FROM checkpoints GROUP BY session_id ORDER BY last DESC, session_id COLLATE "C"`,
      [],
    );
    return rows.map((row) => ({
      sessionId: row.session_id,
      count: row.count,
      started: row.started,
      lastActivity: row.last,
    }));
  }

  /** Stops the heartbeat; the pool is its opener's to close. */
  async close(): Promise<void> {
    this.#keeper?.stop();
  }

  async #leaseLost(
    sessionId: string,
    callId: string,
    lease: string,
    operation: 'complete' | 'recordFailure',
  ): Promise<CheckpointLeaseLostError> {
    this.#keeper?.release(lease); // lost for good: no more renewals
    const found = await this.#select(sessionId, callId);
    return new CheckpointLeaseLostError(sessionId, callId, operation, leaseLostReason(found?.row, found?.now ?? 0));
  }
}

/** `@name` parameters (as the shared paging helpers write them) as PostgreSQL's `$n`, in order of first use. */
function positional(sql: string, params: Record<string, unknown>): [string, unknown[]] {
  const values: unknown[] = [];
  const index = new Map<string, number>();
  const text = sql.replace(/@(\w+)/g, (_, name: string) => {
    let n = index.get(name);
    if (n === undefined) {
      values.push(params[name]);
      n = values.length;
      index.set(name, n);
    }
    return `$${n}`;
  });
  return [text, values];
}

/** The core's checkpoint stores on an opened pool (POSTGRES_CHECKPOINT_MIGRATIONS applied); `close` stops the heartbeat. */
export function postgresCheckpointStores(
  pool: PgPool,
  where: string,
  options: PostgresCheckpointStoreOptions = {},
): CheckpointStores & { close(): Promise<void> } {
  const storage = new PostgresCheckpointStore(pool, where, options);
  return {
    storage,
    // Every write is committed when its promise resolves: the pipeline uses the store itself.
    pipeline: storage,
    taskLinks: new PostgresTaskLinks(pool, where, options.clock ? { clock: options.clock } : {}),
    close: () => storage.close(),
  };
}

/**
 * The checkpoint store on the PostgreSQL database at `url`: connects, migrates the checkpoints'
 * schema, and refuses a database a newer MiniHarness migrated — each failure a coded error whose
 * message names the database without its credentials.
 */
export async function openPostgresCheckpoints(
  url: string,
  options: PostgresCheckpointStoreOptions & { max?: number } = {},
): Promise<CheckpointStores & { where: string; close(): Promise<void> }> {
  const { max, ...storeOptions } = options;
  const db = await openPostgres(url, {
    migrations: { checkpoints: POSTGRES_CHECKPOINT_MIGRATIONS },
    ...(max !== undefined ? { max } : {}),
  });
  const stores = postgresCheckpointStores(db.pool, db.where, storeOptions);
  return {
    ...stores,
    where: db.where,
    close: async () => {
      await stores.close();
      await db.close();
    },
  };
}
