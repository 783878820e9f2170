/**
 * The server task a checkpointed call became (the tasks extension), kept on its record: written
 * as soon as the server names the task (durable before the call goes on), and read at start to
 * find the `started` records whose end the server can tell.
 *
 * A record is resolved from its task only while it is still `started` and carries that very task
 * id (one conditional UPDATE: never over a completed, failed or manually resolved record, never
 * another call's). Resolving clears the lease, so a late `complete` from a dead owner's lease
 * fails as LeaseLost. A completed task's result is stored as the record's result and replays
 * from then on; a failed or cancelled task makes the record `failed` with the server's reason.
 * `resolved_by` stays NULL: the server resolved it, not a person.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { Clock } from '../storage/clock.js';
import { nowMs, systemClock } from '../storage/clock.js';
import { requireMigrations } from '../storage/migrate.js';
import { CheckpointInvalidResultError } from './errors.js';
import { CHECKPOINT_MIGRATIONS } from './schema.js';
import type { CheckpointResult, TaskLinkedCall, TaskLinks } from './types.js';

export type { TaskLinkedCall } from './types.js';

/** A task id is the server's string: bounded, so a hostile server cannot fill the database with it. */
const MAX_TASK_ID_LENGTH = 256;

/** A task-linked record as both stores' `pending` query returns it. */
export interface TaskLinkRow {
  session_id: string;
  call_id: string;
  user_id: string;
  server_id: string;
  tool_name: string;
  task_id: string;
  trace_id: string;
  last_code: string | null;
}

export function taskLinkedCall(row: TaskLinkRow): TaskLinkedCall {
  return {
    sessionId: row.session_id,
    callId: row.call_id,
    userId: row.user_id,
    serverId: row.server_id,
    toolName: row.tool_name,
    taskId: row.task_id,
    traceId: row.trace_id,
    ...(typeof row.last_code === 'string' ? { lastErrorCode: row.last_code } : {}),
  };
}

export class CheckpointTaskLinks implements TaskLinks {
  readonly #clock: Clock;
  readonly #link: Statement<unknown[]>;
  readonly #pending: Statement<[], TaskLinkRow>;
  readonly #complete: Statement<unknown[]>;
  readonly #fail: Statement<unknown[]>;
  readonly #note: Statement<unknown[]>;

  constructor(db: Database, options: { clock?: Clock } = {}) {
    requireMigrations(db, 'checkpoints', CHECKPOINT_MIGRATIONS);
    this.#clock = options.clock ?? systemClock;
    this.#link = db.prepare(
      `UPDATE checkpoints SET task_id = ?, updated_at = ? WHERE session_id = ? AND call_id = ? AND status = 'started' AND lease = ? AND task_id IS NULL`,
    );
    this.#pending = db.prepare(
      `SELECT session_id, call_id, user_id, server_id, tool_name, task_id, trace_id,
         CASE WHEN json_valid(last_error_json) THEN json_extract(last_error_json, '$.code') END AS last_code
       FROM checkpoints WHERE status = 'started' AND task_id IS NOT NULL ORDER BY server_id, task_id`,
    );
    this.#complete = db.prepare(
      `UPDATE checkpoints SET status = 'completed', result_json = ?, is_error = ?, lease = NULL, updated_at = ?
       WHERE session_id = ? AND call_id = ? AND status = 'started' AND task_id = ?`,
    );
    this.#fail = db.prepare(
      `UPDATE checkpoints SET status = 'failed', last_error_json = ?, lease = NULL, updated_at = ?
       WHERE session_id = ? AND call_id = ? AND status = 'started' AND task_id = ?`,
    );
    this.#note = db.prepare(
      `UPDATE checkpoints SET last_error_json = ?, updated_at = ?
       WHERE session_id = ? AND call_id = ? AND status = 'started' AND task_id = ?`,
    );
  }

  /** Records the task the owner's call became; false when the lease is no longer the owner's (or a task is already recorded). */
  link(sessionId: string, callId: string, lease: string, taskId: string): boolean {
    if (taskId.length === 0 || taskId.length > MAX_TASK_ID_LENGTH) return false;
    return this.#link.run([taskId, nowMs(this.#clock), sessionId, callId, lease]).changes === 1;
  }

  /** Every `started` record that carries a task id. */
  pending(): TaskLinkedCall[] {
    return this.#pending.all().map(taskLinkedCall);
  }

  /** The task completed: its result is the record's (replayed from now on). False when the record moved on. */
  complete(call: Pick<TaskLinkedCall, 'sessionId' | 'callId' | 'taskId'>, result: CheckpointResult): boolean {
    if (!Array.isArray(result.content) || typeof result.isError !== 'boolean')
      throw new CheckpointInvalidResultError(
        call.sessionId,
        call.callId,
        'expected { content: [...], structuredContent?, isError }',
      );
    return (
      this.#complete.run([
        JSON.stringify(result),
        Number(result.isError),
        nowMs(this.#clock),
        call.sessionId,
        call.callId,
        call.taskId,
      ]).changes === 1
    );
  }

  /**
   * Asking the server did not settle the call (it did not connect, or no longer knows the task):
   * the record stays `started` — whether the tool acted is unknown — and says why as its last
   * error, so History tells what is true now. False when the record moved on.
   */
  note(
    call: Pick<TaskLinkedCall, 'sessionId' | 'callId' | 'taskId'>,
    error: { code: string; message: string },
  ): boolean {
    return this.#writeError(this.#note, call, error);
  }

  /** The task failed or was cancelled: the record is `failed` with the server's reason (already redacted by the caller). */
  fail(
    call: Pick<TaskLinkedCall, 'sessionId' | 'callId' | 'taskId'>,
    error: { code: string; message: string },
  ): boolean {
    return this.#writeError(this.#fail, call, error);
  }

  /** Writes `error` as the record's last error with one of the two statements above; false when the record moved on. */
  #writeError(
    statement: Statement<unknown[]>,
    call: Pick<TaskLinkedCall, 'sessionId' | 'callId' | 'taskId'>,
    error: { code: string; message: string },
  ): boolean {
    const now = nowMs(this.#clock);
    const lastError = JSON.stringify({ code: error.code, message: error.message, at: now });
    return statement.run([lastError, now, call.sessionId, call.callId, call.taskId]).changes === 1;
  }
}
