/**
 * The server task a checkpointed call became, on PostgreSQL: the same rules as the SQLite
 * implementation (taskLinks.ts) — each write one conditional UPDATE that changes a record only
 * while it is `started` and carries that very task (READ COMMITTED re-checks the WHERE against a
 * row another process changed meanwhile, so the first writer wins and the others change nothing).
 * Settling a record clears its lease: its owner, were it alive, can no longer complete it.
 */
import type { Clock } from '../storage/clock.js';
import { nowMs, systemClock } from '../storage/clock.js';
import type { PgPool } from '../storage/postgres/pool.js';
import { toStorageError } from '../storage/postgres/pool.js';
import { CheckpointInvalidResultError } from './errors.js';
import type { TaskLinkRow } from './taskLinks.js';
import { taskLinkedCall } from './taskLinks.js';
import type { CheckpointResult, TaskLinkedCall, TaskLinks } from './types.js';

type TaskCall = Pick<TaskLinkedCall, 'sessionId' | 'callId' | 'taskId'>;

/** As on SQLite: a hostile server cannot fill the database with its task id. */
const MAX_TASK_ID_LENGTH = 256;

export class PostgresTaskLinks implements TaskLinks {
  readonly #pool: PgPool;
  readonly #where: string;
  readonly #clock: Clock;

  /** `pool` has the checkpoints' migrations applied (openPostgres); `where` is its redacted URL. */
  constructor(pool: PgPool, where: string, options: { clock?: Clock } = {}) {
    this.#pool = pool;
    this.#where = where;
    this.#clock = options.clock ?? systemClock;
  }

  async #changes(operation: string, sql: string, params: unknown[]): Promise<boolean> {
    try {
      return (await this.#pool.query(sql, params)).rowCount === 1;
    } catch (error) {
      throw toStorageError(error, this.#where, operation);
    }
  }

  async link(sessionId: string, callId: string, lease: string, taskId: string): Promise<boolean> {
    if (taskId.length === 0 || taskId.length > MAX_TASK_ID_LENGTH) return false;
    return this.#changes(
      'record a server task',
      `UPDATE checkpoints SET task_id = $1, updated_at = $2
       WHERE session_id = $3 AND call_id = $4 AND status = 'started' AND lease = $5 AND task_id IS NULL`,
      [taskId, nowMs(this.#clock), sessionId, callId, lease],
    );
  }

  async pending(): Promise<TaskLinkedCall[]> {
    let rows;
    try {
      rows = (
        await this.#pool.query<TaskLinkRow>(
          `SELECT session_id, call_id, user_id, server_id, tool_name, task_id, trace_id,
             last_error_json::jsonb ->> 'code' AS last_code
           FROM checkpoints WHERE status = 'started' AND task_id IS NOT NULL ORDER BY server_id, task_id`,
        )
      ).rows;
    } catch (error) {
      throw toStorageError(error, this.#where, 'list server tasks');
    }
    return rows.map(taskLinkedCall);
  }

  async complete(call: TaskCall, result: CheckpointResult): Promise<boolean> {
    if (!Array.isArray(result.content) || typeof result.isError !== 'boolean')
      throw new CheckpointInvalidResultError(
        call.sessionId,
        call.callId,
        'expected { content: [...], structuredContent?, isError }',
      );
    return this.#changes(
      'store a server task result',
      `UPDATE checkpoints SET status = 'completed', result_json = $1, is_error = $2, lease = NULL, updated_at = $3
       WHERE session_id = $4 AND call_id = $5 AND status = 'started' AND task_id = $6`,
      [JSON.stringify(result), Number(result.isError), nowMs(this.#clock), call.sessionId, call.callId, call.taskId],
    );
  }

  async note(call: TaskCall, error: { code: string; message: string }): Promise<boolean> {
    return this.#writeError('note a server task', `last_error_json = $1, updated_at = $2`, call, error);
  }

  async fail(call: TaskCall, error: { code: string; message: string }): Promise<boolean> {
    return this.#writeError(
      'fail a server task',
      `status = 'failed', last_error_json = $1, lease = NULL, updated_at = $2`,
      call,
      error,
    );
  }

  #writeError(operation: string, set: string, call: TaskCall, error: { code: string; message: string }) {
    const now = nowMs(this.#clock);
    const lastError = JSON.stringify({ code: error.code, message: error.message, at: now });
    return this.#changes(
      operation,
      `UPDATE checkpoints SET ${set} WHERE session_id = $3 AND call_id = $4 AND status = 'started' AND task_id = $5`,
      [lastError, now, call.sessionId, call.callId, call.taskId],
    );
  }
}
