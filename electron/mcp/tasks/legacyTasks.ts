/**
 * The 2025-11-25 (pre-extension) form of tasks, as server-everything declares it
 * (`capabilities.tasks` with `list`, `cancel`, `requests.tools.call`), mapped onto the same
 * follower as the 2026-07-28 extension (followTask.ts), so the product behaves the same in both
 * eras: `call.task`, the checkpoint's task id, followed to the end, Cancel = `tasks/cancel`.
 *
 * The differences this file absorbs:
 * - a call is made a task by the client: `task: {}` in the `tools/call` params, only when the
 *   server declares `tasks.requests.tools.call` and the tool's `execution.taskSupport` is
 *   `required` or `optional` (the app prefers a task: a queryable status survives a restart);
 * - the answer is `{ task: Task }` (CreateTaskResult), recognised by TaskAwareClient;
 * - `tasks/get` carries no result: a completed task's result is fetched with `tasks/result`;
 * - `input_required` has no `inputRequests`: the server delivers its queued requests
 *   (elicitation, sampling) while the client waits on `tasks/result`, so that wait is started at
 *   the first `input_required` (or terminal) status; the requests reach the client's ordinary
 *   server-request handlers — the same dialogs as any elicitation.
 * Every answer is validated with the extension's own 2025-11-25 schemas (core/v1), then shown to
 * the follower in the 2026-07-28 shape (ttl → ttlMs, pollInterval → pollIntervalMs).
 */
import {
  CreateTaskResultV1Schema,
  TaskV1Schema,
  shouldCallToolAsTaskV1,
} from '@modelcontextprotocol/ext-tasks/core/v1';
import type { ServerTaskCapabilitiesV1, TaskV1, ToolV1 } from '@modelcontextprotocol/ext-tasks/core/v1';
import type { CreateTaskResultV2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import type { TaskRequester } from './followTask.js';

/** Whether this `tools/call` should be sent as a task (see the header); `capabilities` are the server's. */
export function callAsLegacyTask(capabilities: unknown, tool: unknown): boolean {
  const tasks = (capabilities as { tasks?: unknown } | undefined)?.tasks;
  if (typeof tasks !== 'object' || tasks === null || typeof tool !== 'object' || tool === null) return false;
  return shouldCallToolAsTaskV1(tasks as ServerTaskCapabilitiesV1, tool as ToolV1, true);
}

/** A 2025-11-25 task in the 2026-07-28 shape the follower reads. */
function asV2(task: TaskV1): {
  taskId: string;
  status: TaskV1['status'];
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
} {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttl,
    ...(task.pollInterval !== undefined ? { pollIntervalMs: task.pollInterval } : {}),
  };
}

/** A `tools/call` answer that is a 2025-11-25 CreateTaskResult, as the 2026-07-28 creation the follower takes; else undefined. */
export function legacyTaskCreated(result: unknown): CreateTaskResultV2 | undefined {
  if (typeof result !== 'object' || result === null || Object.hasOwn(result, 'content')) return undefined;
  const parsed = CreateTaskResultV1Schema.safeParse(result);
  if (!parsed.success) return undefined;
  return { ...asV2(parsed.data.task), resultType: 'task' } as CreateTaskResultV2;
}

/** The raw requests of one connection: a method, its params, the signal ending the wait. */
export type LegacySend = (
  method: 'tasks/get' | 'tasks/result' | 'tasks/cancel',
  params: { taskId: string },
  signal: AbortSignal | undefined,
) => Promise<unknown>;

/**
 * `tasks/get` answered in the 2026-07-28 detailed shape (the result fetched with `tasks/result`
 * once the task ended), and `tasks/cancel`. One requester per followed task: it remembers the
 * `tasks/result` wait it started.
 */
export function legacyTaskRequester(serverId: string, send: LegacySend): TaskRequester {
  const results = new Map<string, Promise<{ ok: true; result: unknown } | { ok: false; error: unknown }>>();
  const resultOf = (
    taskId: string,
    signal: AbortSignal,
  ): Promise<{ ok: true; result: unknown } | { ok: false; error: unknown }> => {
    let pending = results.get(taskId);
    if (!pending) {
      pending = send('tasks/result', { taskId }, signal).then(
        (result) => ({ ok: true as const, result }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      results.set(taskId, pending);
    }
    return pending;
  };
  return {
    async get(taskId, signal) {
      const parsed = TaskV1Schema.safeParse(await send('tasks/get', { taskId }, signal));
      // Not a task: handed on as is, so the follower reports the protocol error with its reason.
      if (!parsed.success) return { invalid: `not a 2025-11-25 task from ${serverId}` };
      const task = asV2(parsed.data);
      if (task.status === 'working' || task.status === 'cancelled') return task;
      // input_required: the server delivers its questions while we wait on tasks/result; keep polling meanwhile.
      if (task.status === 'input_required') {
        void resultOf(taskId, signal);
        return { ...task, inputRequests: {} };
      }
      const outcome = await resultOf(taskId, signal);
      if (task.status === 'completed' && outcome.ok && typeof outcome.result === 'object' && outcome.result !== null) {
        return { ...task, result: outcome.result as Record<string, unknown> };
      }
      if (task.status === 'completed' && !outcome.ok) throw outcome.error;
      // failed: the server's reason is its status message, or the error tasks/result answered with.
      const reason =
        !outcome.ok && outcome.error instanceof Error
          ? outcome.error.message
          : (task.statusMessage ?? 'the task failed');
      const code =
        !outcome.ok && typeof (outcome.error as { code?: unknown }).code === 'number'
          ? (outcome.error as { code: number }).code
          : -32603;
      return { ...task, status: 'failed', error: { code: Number.isInteger(code) ? code : -32603, message: reason } };
    },
    async cancel(taskId) {
      await send('tasks/cancel', { taskId }, undefined);
    },
  };
}
