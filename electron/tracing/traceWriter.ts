/**
 * The tracer's writes, gathered between two group commits (storage/groupCommit.ts `later`) and
 * written as one piece of the next one: a trace that starts and finishes in the same batch — a
 * short call — is inserted once, already finished (no INSERT then UPDATE, whose status change
 * rewrites its index entries), and events go in multi-row INSERTs. Listeners are told, in the
 * order the changes were made, once the batch is committed.
 *
 * A batch is closed — the next change opens another, a write of its own — once a call finishing
 * brings it to BATCH_CHANGES changes, or any change to BATCH_MAX_CHANGES (a burst): each write
 * then blocks the event loop for a short while only, the answers of calls in flight are read
 * between two, and a short call's trace still goes in whole (its start, events and finish in one batch).
 * Such a whole trace carries its events in its own row (`traces.events`): one row per call, not
 * one per event, in one b-tree fewer; a trace written across batches has its events in `trace_events`.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { TraceNotification } from '../../shared/traces.js';
import type { GroupCommit } from '../storage/groupCommit.js';

/** trace_id, session_id, call_id, user_id, tool_name, server_id, started_at, owner. */
export type TraceStartRow = [string, string, string, string, string, string, number, string];
/** status, ended_at, duration_ms, error (JSON or null). */
export type TraceFinishRow = [string, number, number, string | null];
/** trace_id, seq, type, at, duration_ms, data (JSON). */
export type TraceEventRow = [string, number, string, number, number | null, string];

/** Events per multi-row INSERT. */
const EVENTS_PER_STATEMENT = 16;

/**
 * A batch this large is closed when a trace finishes in it (about 37 short calls: trace, 5 events, finish each).
 * Each batch rewrites the last leaf of the traces table and of each of its indexes whatever it holds: at 64
 * changes (nine calls) a sequential gateway call wrote 37.4 KB, at 256 31.7 KB (bench:gateway-cpu, issue 33),
 * and one batch's write blocks the event loop for about as long as 37 calls' traces take to insert (about
 * 0.6 ms here, 0.2 ms at 64; a sequential gateway call's p99 is about 5 ms).
 */
export const BATCH_CHANGES = 256;

/** A batch is closed at this size whatever changes (a burst of calls starting together). */
const BATCH_MAX_CHANGES = 512;

/** Where the tracer hands its changes (synchronously, off the call path): SQLite's TraceWriter, or PostgresTraceStore's sink. */
export interface TraceSink {
  start(row: TraceStartRow, notification: TraceNotification): void;
  event(row: TraceEventRow, notification: TraceNotification): void;
  finish(traceId: string, row: TraceFinishRow, notification: TraceNotification): void;
}

interface Batch {
  starts: Map<string, TraceStartRow>;
  finishes: Map<string, TraceFinishRow>;
  events: TraceEventRow[];
  notifications: TraceNotification[];
}

export class TraceWriter implements TraceSink {
  readonly #group: GroupCommit;
  readonly #insertTrace: Statement<unknown[]>;
  readonly #finishTrace: Statement<unknown[]>;
  readonly #insertEvents = new Map<number, Statement<unknown[]>>();
  readonly #db: Database;
  /** A batch is one write of the group transaction, all or nothing (a savepoint inside it). */
  readonly #writeAll: (batch: Batch) => void;
  #batch: Batch | undefined;

  constructor(
    db: Database,
    group: GroupCommit,
    private readonly publish: (notification: TraceNotification) => void,
  ) {
    this.#db = db;
    this.#group = group;
    this.#insertTrace = db.prepare(
      `INSERT INTO traces (trace_id, session_id, call_id, user_id, tool_name, server_id, started_at, owner, status, ended_at, duration_ms, error, events)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#finishTrace = db.prepare(
      `UPDATE traces SET status = ?, ended_at = ?, duration_ms = ?, error = ? WHERE trace_id = ? AND status = 'running'`,
    );
    this.#writeAll = db.transaction((batch: Batch) => this.#write(batch));
  }

  start(row: TraceStartRow, notification: TraceNotification): void {
    const batch = this.#open();
    batch.starts.set(row[0], row);
    batch.notifications.push(notification);
    this.#closeAt(batch, BATCH_MAX_CHANGES);
  }

  event(row: TraceEventRow, notification: TraceNotification): void {
    const batch = this.#open();
    batch.events.push(row);
    batch.notifications.push(notification);
    this.#closeAt(batch, BATCH_MAX_CHANGES);
  }

  finish(traceId: string, row: TraceFinishRow, notification: TraceNotification): void {
    const batch = this.#open();
    batch.finishes.set(traceId, row);
    batch.notifications.push(notification);
    this.#closeAt(batch, BATCH_CHANGES);
  }

  /** Closes `batch` once it holds `changes` changes: the next change opens another. */
  #closeAt(batch: Batch, changes: number): void {
    if (batch.notifications.length >= changes && this.#batch === batch) this.#batch = undefined;
  }

  #open(): Batch {
    if (this.#batch) return this.#batch;
    const batch: Batch = { starts: new Map(), finishes: new Map(), events: [], notifications: [] };
    this.#batch = batch;
    this.#group.later(
      () => this.#writeAll(batch),
      () => {
        for (const notification of batch.notifications) this.publish(notification);
      },
      // The calls themselves are unaffected; only their trace detail is lost. Say so loudly.
      (error) =>
        process.emitWarning(
          `Trace data could not be stored (${batch.notifications.length} changes lost): ${error instanceof Error ? error.message : String(error)}`,
        ),
    );
    return batch;
  }

  /** Runs inside the group transaction: traces first (events reference them), then events. */
  #write(batch: Batch): void {
    if (this.#batch === batch) this.#batch = undefined;
    // A trace started and finished in this batch carries its events in its own row; the others' go to trace_events.
    const packed = new Map<string, string[]>();
    const rows: TraceEventRow[] = [];
    for (const event of batch.events) {
      const traceId = event[0];
      if (!batch.starts.has(traceId) || !batch.finishes.has(traceId)) {
        rows.push(event);
        continue;
      }
      let list = packed.get(traceId);
      if (!list) packed.set(traceId, (list = []));
      list.push(packedEvent(event));
    }
    for (const [traceId, start] of batch.starts) {
      const finish = batch.finishes.get(traceId);
      batch.finishes.delete(traceId);
      const events = finish ? `[${(packed.get(traceId) ?? []).join(',')}]` : null;
      this.#insertTrace.run([...start, ...(finish ?? ['running', null, null, null]), events]);
    }
    for (const [traceId, finish] of batch.finishes) this.#finishTrace.run([...finish, traceId]);
    for (let from = 0; from < rows.length; from += EVENTS_PER_STATEMENT) {
      const slice = rows.slice(from, from + EVENTS_PER_STATEMENT);
      this.#eventsStatement(slice.length).run(slice.flat());
    }
  }

  #eventsStatement(rows: number): Statement<unknown[]> {
    let statement = this.#insertEvents.get(rows);
    if (!statement) {
      statement = this.#db.prepare(
        `INSERT INTO trace_events (trace_id, seq, type, at, duration_ms, data) VALUES ${Array(rows).fill('(?, ?, ?, ?, ?, ?)').join(', ')}`,
      );
      this.#insertEvents.set(rows, statement);
    }
    return statement;
  }
}

/** One event as a finished trace's row carries it (schema.ts, TRACES_V6): `[seq, type, at, duration_ms, data]`, data already JSON. */
function packedEvent([, seq, type, at, durationMs, data]: TraceEventRow): string {
  return `[${seq},${JSON.stringify(type)},${at},${durationMs ?? 'null'},${data}]`;
}
