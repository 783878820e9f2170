/**
 * Traces and their events in PostgreSQL, shared by every core on the database (`--database`): the
 * Traces view of one instance lists and opens the traces the others record.
 *
 * Writes stay off the call path, as on SQLite: the tracer hands rows over synchronously
 * (TraceSink), they gather in a batch that is written on a later turn of the event loop in one
 * transaction, batches strictly one after another (a finish never overtakes its start), and the
 * listeners hear of the changes once they are committed. Reads wait for the batches handed over
 * before them, so a process always sees its own traces. A failed write loses that trace detail
 * only (loudly), never a call or its checkpoint.
 */
import type { TraceDetail, TraceError, TraceNotification, TraceSummary } from '../../shared/traces.js';
import type { PgPool } from '../storage/postgres/pool.js';
import { toStorageError } from '../storage/postgres/pool.js';
import type { PostgresMigration } from '../storage/postgres/migrate.js';
import { checkTimeRange, decodeCursor, keysetPage, pageSize } from '../storage/paging.js';
import type { ProcessOwner } from '../storage/processOwner.js';
import { decodeOwner, ownerState } from '../storage/processOwner.js';
import { INTERRUPTED_BEFORE_RUN_ERROR, INTERRUPTED_ERROR } from './interrupted.js';
import type { CallerStats } from './callerStats.js';
import type { EventRow, TracePage, TraceQuery, TraceRow } from './traceReader.js';
import { TRACE_COLUMNS, toEvent, toSummary } from './traceReader.js';
import type { TraceEventRow, TraceFinishRow, TraceSink, TraceStartRow } from './traceWriter.js';

export const POSTGRES_TRACE_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'traces: the traces and trace_events tables, list indexes newest first',
    sql: `
      CREATE TABLE traces (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        trace_id text NOT NULL UNIQUE,
        session_id text NOT NULL,
        call_id text NOT NULL,
        user_id text NOT NULL,
        tool_name text NOT NULL,
        server_id text NOT NULL,
        status text NOT NULL CHECK (status IN ('running', 'ok', 'error', 'denied', 'replayed', 'interrupted', 'cancelled')),
        started_at bigint NOT NULL,
        ended_at bigint,
        duration_ms bigint,
        error text, -- JSON {code?, message}, redacted
        owner text -- JSON ProcessOwner of the recording process
      );
      CREATE INDEX traces_by_time ON traces (started_at DESC, seq DESC);
      CREATE INDEX traces_by_session ON traces (session_id, started_at DESC, seq DESC);
      CREATE INDEX traces_by_user ON traces (user_id, started_at DESC, seq DESC);
      CREATE INDEX traces_running ON traces (trace_id) WHERE status = 'running';
      CREATE TABLE trace_events (
        trace_id text NOT NULL REFERENCES traces (trace_id) ON DELETE CASCADE,
        seq integer NOT NULL,
        type text NOT NULL,
        at bigint NOT NULL,
        duration_ms bigint,
        data text NOT NULL, -- JSON, redacted
        PRIMARY KEY (trace_id, seq)
      );
    `,
  },
];

const FILTERS = [
  ['sessionId', 'session_id'],
  ['toolName', 'tool_name'],
  ['serverId', 'server_id'],
  ['status', 'status'],
  ['userId', 'user_id'],
] as const;

interface Batch {
  starts: Map<string, TraceStartRow>;
  finishes: Map<string, TraceFinishRow>;
  events: TraceEventRow[];
  notifications: TraceNotification[];
}

export class PostgresTraceStore {
  #batch: Batch | undefined;
  /** The last batch's write: the next one starts after it, reads wait for it. */
  #tail: Promise<void> = Promise.resolve();
  #publish: (notification: TraceNotification) => void = () => undefined;

  /** `pool` has POSTGRES_TRACE_MIGRATIONS applied (openPostgres); `where` is its redacted URL. */
  constructor(
    private readonly pool: PgPool,
    private readonly where: string,
  ) {}

  /** The tracer's write side; `publish` hears each change once committed. */
  sink(publish: (notification: TraceNotification) => void): TraceSink {
    this.#publish = publish;
    return {
      start: (row, notification) => {
        const batch = this.#open();
        batch.starts.set(row[0], row);
        batch.notifications.push(notification);
      },
      event: (row, notification) => {
        const batch = this.#open();
        batch.events.push(row);
        batch.notifications.push(notification);
      },
      finish: (traceId, row, notification) => {
        const batch = this.#open();
        batch.finishes.set(traceId, row);
        batch.notifications.push(notification);
      },
    };
  }

  /** Resolves once every change handed over so far is written (or its loss reported). */
  async drain(): Promise<void> {
    if (this.#batch) this.#schedule(this.#batch);
    await this.#tail;
  }

  async listTraces(query: TraceQuery): Promise<TracePage> {
    const limit = pageSize(query.limit);
    checkTimeRange(query.from, query.to);
    const where: string[] = [];
    const params: unknown[] = [];
    const param = (value: unknown): string => `$${params.push(value)}`;
    for (const [key, column] of FILTERS) {
      const value = query[key];
      if (value !== undefined) where.push(`${column} = ${param(value)}`);
    }
    if (query.from !== undefined) where.push(`started_at >= ${param(Math.ceil(query.from))}`);
    if (query.to !== undefined) where.push(`started_at <= ${param(Math.floor(query.to))}`);
    if (query.cursor !== undefined) {
      const key = decodeCursor(query.cursor);
      where.push(`(started_at, seq) < (${param(key.at)}, ${param(key.seq)})`);
    }
    const sql =
      `SELECT ${TRACE_COLUMNS} FROM traces` +
      (where.length ? ` WHERE ${where.join(' AND ')}` : '') +
      ` ORDER BY started_at DESC, seq DESC LIMIT ${param(limit + 1)}`;
    const rows = await this.#read<TraceRow>(sql, params, 'list the traces');
    const { page, nextCursor } = keysetPage(rows, limit, (row) => ({ at: row.started_at, seq: row.seq }));
    return { traces: page.map(toSummary), ...(nextCursor ? { nextCursor } : {}) };
  }

  async getTrace(traceId: string): Promise<TraceDetail | undefined> {
    const [row] = await this.#read<TraceRow>(
      `SELECT ${TRACE_COLUMNS} FROM traces WHERE trace_id = $1`,
      [traceId],
      'read a trace',
    );
    if (!row) return undefined;
    const events = await this.#read<EventRow>(
      'SELECT trace_id, seq, type, at, duration_ms, data FROM trace_events WHERE trace_id = $1 ORDER BY seq',
      [traceId],
      'read a trace',
    );
    return { trace: toSummary(row), events: events.map(toEvent) };
  }

  /** Per caller, the calls recorded and the latest one (the Agents view; tracing/callerStats.ts on SQLite). */
  async callerStats(userIds: readonly string[]): Promise<Map<string, CallerStats>> {
    const stats = new Map<string, CallerStats>();
    for (const userId of userIds) {
      const [count] = await this.#read<{ calls: number }>(
        'SELECT COUNT(*)::integer AS calls FROM traces WHERE user_id = $1',
        [userId],
      );
      const [row] = await this.#read<{ tool_name: string; server_id: string; started_at: number; status: string }>(
        'SELECT tool_name, server_id, started_at, status FROM traces WHERE user_id = $1 ORDER BY started_at DESC, seq DESC LIMIT 1',
        [userId],
      );
      stats.set(userId, {
        calls: count?.calls ?? 0,
        ...(row
          ? { lastCall: { toolName: row.tool_name, serverId: row.server_id, at: row.started_at, status: row.status } }
          : {}),
      });
    }
    return stats;
  }

  /**
   * Closes as `interrupted` the running traces whose recording process is provably gone (another
   * machine's processes are never provably gone: unsure means alive, see storage/processOwner.ts).
   * Whether the call may have run: its checkpoint, when the checkpoints share this database.
   */
  async closeInterrupted(self: ProcessOwner): Promise<TraceSummary[]> {
    await this.drain();
    const running = await this.#read<{ trace_id: string; owner: string | null; session_id: string; call_id: string }>(
      `SELECT trace_id, owner, session_id, call_id FROM traces WHERE status = 'running'`,
      [],
      'close interrupted traces',
    );
    const [{ has } = { has: false }] = await this.#read<{ has: boolean }>(
      `SELECT to_regclass('checkpoints') IS NOT NULL AS has`,
      [],
      'close interrupted traces',
    );
    const closed: TraceSummary[] = [];
    for (const row of running) {
      const owner = decodeOwner(row.owner);
      const dead = row.owner === null || (owner !== undefined && ownerState(owner, self) === 'dead');
      if (!dead) continue;
      const ran =
        !has ||
        (
          await this.#read('SELECT 1 FROM checkpoints WHERE session_id = $1 AND call_id = $2', [
            row.session_id,
            row.call_id,
          ])
        ).length > 0;
      const error: TraceError = ran ? INTERRUPTED_ERROR : INTERRUPTED_BEFORE_RUN_ERROR;
      const [updated] = await this.#read<TraceRow>(
        `UPDATE traces SET status = 'interrupted',
           ended_at = GREATEST(started_at, COALESCE((SELECT MAX(at) FROM trace_events e WHERE e.trace_id = traces.trace_id), started_at)),
           duration_ms = GREATEST(0, COALESCE((SELECT MAX(at) FROM trace_events e WHERE e.trace_id = traces.trace_id), started_at) - started_at),
           error = $2
         WHERE trace_id = $1 AND status = 'running' RETURNING ${TRACE_COLUMNS}`,
        [row.trace_id, JSON.stringify(error)],
        'close interrupted traces',
      );
      if (updated) closed.push(toSummary(updated));
    }
    return closed;
  }

  async #read<Row>(sql: string, params: unknown[], operation = 'read the traces'): Promise<Row[]> {
    await this.#tail;
    try {
      return (await this.pool.query(sql, params)).rows as Row[];
    } catch (error) {
      throw toStorageError(error, this.where, operation);
    }
  }

  #open(): Batch {
    if (this.#batch) return this.#batch;
    const batch: Batch = { starts: new Map(), finishes: new Map(), events: [], notifications: [] };
    this.#batch = batch;
    // A later turn: every change made meanwhile (by any call) joins this batch.
    setImmediate(() => this.#schedule(batch));
    return batch;
  }

  #schedule(batch: Batch): void {
    if (this.#batch !== batch) return; // already scheduled
    this.#batch = undefined;
    this.#tail = this.#tail.then(() =>
      this.#write(batch).then(
        () => {
          for (const notification of batch.notifications) this.#publish(notification);
        },
        (error: unknown) =>
          process.emitWarning(
            `Trace data could not be stored in ${this.where} (${batch.notifications.length} changes lost): ${error instanceof Error ? error.message : String(error)}`,
          ),
      ),
    );
  }

  /** One transaction: traces first (events reference them), a short call's trace inserted already finished. */
  async #write(batch: Batch): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const starts = [...batch.starts].map(([traceId, start]) => {
        const finish = batch.finishes.get(traceId);
        batch.finishes.delete(traceId);
        return [...start, ...(finish ?? ['running', null, null, null])];
      });
      if (starts.length)
        await client.query(
          `INSERT INTO traces (trace_id, session_id, call_id, user_id, tool_name, server_id, started_at, owner, status, ended_at, duration_ms, error)
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::text[], $9::text[], $10::bigint[], $11::bigint[], $12::text[])`,
          columns(starts, 12),
        );
      for (const [traceId, [status, endedAt, durationMs, error]] of batch.finishes)
        await client.query(
          `UPDATE traces SET status = $1, ended_at = $2, duration_ms = $3, error = $4 WHERE trace_id = $5 AND status = 'running'`,
          [status, endedAt, durationMs, error, traceId],
        );
      if (batch.events.length)
        await client.query(
          `INSERT INTO trace_events (trace_id, seq, type, at, duration_ms, data)
           SELECT * FROM unnest($1::text[], $2::integer[], $3::text[], $4::bigint[], $5::bigint[], $6::text[])`,
          columns(batch.events, 6),
        );
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}

/** Rows as one array per column (unnest's parameters: one round trip whatever the batch's size). */
function columns(rows: ReadonlyArray<readonly unknown[]>, width: number): unknown[][] {
  return Array.from({ length: width }, (_, i) => rows.map((row) => row[i]));
}
