/** Reading traces back: the GUI's list (keyset pages), one trace with its events, export. */
import type { Database, Statement } from 'better-sqlite3';
import { addRangeAndCursor, checkTimeRange, explainQueryPlan, keysetPage, pageSize } from '../storage/paging.js';
import type {
  TraceDetail,
  TraceError,
  TraceEvent,
  TraceExport,
  TraceStatus,
  TraceSummary,
} from '../../shared/traces.js';

export interface TraceQuery {
  toolName?: string;
  serverId?: string;
  status?: TraceStatus;
  sessionId?: string;
  /** Only the calls of this caller: `gui`, or an agent's name. */
  userId?: string;
  /** Inclusive bounds on startedAt, epoch ms. */
  from?: number;
  to?: number;
  /** Page size; capped at 500. */
  limit: number;
  cursor?: string;
}

export interface TracePage {
  /** Newest first (startedAt desc, then start order desc). */
  traces: TraceSummary[];
  nextCursor?: string;
}

export interface TraceRow {
  seq: number;
  trace_id: string;
  session_id: string;
  call_id: string;
  user_id: string;
  tool_name: string;
  server_id: string;
  status: TraceStatus;
  started_at: number;
  ended_at: number | null;
  duration_ms: number | null;
  error: string | null;
}

export interface EventRow {
  trace_id: string;
  seq: number;
  type: TraceEvent['type'];
  at: number;
  duration_ms: number | null;
  data: string;
}

export const TRACE_COLUMNS =
  'seq, trace_id, session_id, call_id, user_id, tool_name, server_id, status, started_at, ended_at, duration_ms, error';

/** Equality filters. Both list indexes carry every filter column, tested on the index entry before the row is read. */
const FILTERS = [
  ['sessionId', 'session_id'],
  ['toolName', 'tool_name'],
  ['serverId', 'server_id'],
  ['status', 'status'],
] as const;

export class TraceReader {
  readonly #db: Database;
  readonly #trace: Statement<[string], TraceRow & { events: string | null }>;
  readonly #events: Statement<[string], EventRow>;
  readonly #listStatements = new Map<string, Statement<Record<string, unknown>, TraceRow>>();

  constructor(db: Database) {
    this.#db = db;
    this.#trace = db.prepare(`SELECT ${TRACE_COLUMNS}, events FROM traces WHERE trace_id = ?`);
    this.#events = db.prepare(
      'SELECT trace_id, seq, type, at, duration_ms, data FROM trace_events WHERE trace_id = ? ORDER BY seq',
    );
  }

  listTraces(query: TraceQuery): TracePage {
    const { sql, params, limit } = this.#listSql(query);
    let statement = this.#listStatements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#listStatements.set(sql, statement);
    }
    const { page, nextCursor } = keysetPage(statement.all(params), limit, (row) => ({
      at: row.started_at,
      seq: row.seq,
    }));
    return { traces: page.map(toSummary), ...(nextCursor ? { nextCursor } : {}) };
  }

  /** The query plan of a list page (EXPLAIN QUERY PLAN details), to check index use. */
  explainList(query: TraceQuery): string[] {
    const { sql, params } = this.#listSql(query);
    return explainQueryPlan(this.#db, sql, params);
  }

  getTrace(traceId: string): TraceDetail | undefined {
    const row = this.#trace.get(traceId);
    if (!row) return undefined;
    // A trace written whole carries its events in its row (schema.ts, TRACES_V6); the others have them in trace_events.
    const events = row.events === null ? this.#events.all(traceId).map(toEvent) : unpackEvents(traceId, row.events);
    return { trace: toSummary(row), events };
  }

  /** A self-describing JSON object; undefined when there is no such trace. */
  exportTrace(traceId: string, exportedAt: number): TraceExport | undefined {
    const detail = this.getTrace(traceId);
    if (!detail) return undefined;
    return { format: 'miniharness-trace', version: 1, exportedAt, trace: detail.trace, events: detail.events };
  }

  #listSql(query: TraceQuery): { sql: string; params: Record<string, unknown>; limit: number } {
    const limit = pageSize(query.limit);
    checkTimeRange(query.from, query.to);
    const where: string[] = [];
    const params: Record<string, unknown> = { fetch: limit + 1 };
    for (const [key, column] of FILTERS) {
      const value = query[key];
      if (value === undefined) continue;
      where.push(`${column} = @${key}`);
      params[key] = value;
    }
    if (query.userId !== undefined) {
      where.push('user_id = @userId');
      params.userId = query.userId;
    }
    // One session: its range of the session index; otherwise the time index, newest first.
    const index = query.sessionId !== undefined ? 'traces_by_session' : 'traces_by_time';
    addRangeAndCursor(query, 'started_at', where, params);
    const sql =
      `SELECT ${TRACE_COLUMNS} FROM traces INDEXED BY ${index}` +
      (where.length ? ` WHERE ${where.join(' AND ')}` : '') +
      ' ORDER BY started_at DESC, seq DESC LIMIT @fetch';
    return { sql, params, limit };
  }
}

export function toSummary(row: TraceRow): TraceSummary {
  return {
    traceId: row.trace_id,
    sessionId: row.session_id,
    callId: row.call_id,
    userId: row.user_id,
    toolName: row.tool_name,
    serverId: row.server_id,
    status: row.status,
    startedAt: row.started_at,
    ...(row.ended_at !== null ? { endedAt: row.ended_at } : {}),
    ...(row.duration_ms !== null ? { durationMs: row.duration_ms } : {}),
    ...(row.error !== null ? { error: JSON.parse(row.error) as TraceError } : {}),
  };
}

export function toEvent(row: EventRow): TraceEvent {
  return {
    traceId: row.trace_id,
    seq: row.seq,
    type: row.type,
    at: row.at,
    ...(row.duration_ms !== null ? { durationMs: row.duration_ms } : {}),
    data: JSON.parse(row.data) as never,
  } as TraceEvent;
}

/** The events a trace's row carries (`[seq, type, at, duration_ms, data]` each). */
function unpackEvents(traceId: string, json: string): TraceEvent[] {
  const packed = JSON.parse(json) as Array<[number, TraceEvent['type'], number, number | null, never]>;
  return packed.map(
    ([seq, type, at, durationMs, data]) =>
      ({ traceId, seq, type, at, ...(durationMs !== null ? { durationMs } : {}), data }) as TraceEvent,
  );
}
