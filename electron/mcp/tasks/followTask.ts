/**
 * Follows a task (the tasks extension, 2026-07-28) to its end: `tasks/get` at the interval the
 * server asks for (`pollIntervalMs`; a floor and a ceiling of our own keep a bad value harmless),
 * every status reported to the caller (`onEvent`: the task id first of all, so it can be recorded
 * before anything else happens), and the end mapped onto the call:
 * - completed → the task's `result`, the call's result (the caller checks and normalizes it);
 * - failed → `MCPRemoteError` with the server's code and reason;
 * - cancelled (by the server, or by us) → `MCPRequestCancelled`;
 * - input_required (2026-07-28: `inputRequests` on the task) → each request answered by
 *   `answerInput` (the same answerers as a call's input rounds: the call's agent, else the
 *   person's dialogs) and sent back with `tasks/update`; each request key is answered once;
 * - the caller cancels → `tasks/cancel` is sent, then the call ends as cancelled. Its deadline
 *   ending the wait does not cancel the task: the server keeps it, and the checkpoint's task id
 *   lets it be asked again at the next start (harness/taskRecovery.ts).
 * Every `tasks/get` answer is validated with the extension's schema; a malformed one fails the
 * call as a protocol error. Nothing of a result reaches `onEvent` (only status and message).
 */
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { DetailedTaskV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';
import type { DetailedTaskV2, TaskStatusV2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import { MCPProtocolError, MCPRemoteError, MCPRequestCancelled } from '../errors.js';

/** Bounds on the server's poll interval: never hammer a server, never wait minutes between looks. */
const MIN_POLL_MS = 20;
const MAX_POLL_MS = 5_000;
/** Without a server interval. */
const DEFAULT_POLL_MS = 500;

/** One observed state of a task: no result, no input — what the call panel and the trace may show. */
export interface TaskEvent {
  taskId: string;
  status: TaskStatusV2;
  statusMessage?: string;
  at: number;
}

/** The two requests a follower sends; the client binds them to its connection. */
export interface TaskRequester {
  get(taskId: string, signal: AbortSignal): Promise<unknown>;
  cancel(taskId: string): Promise<void>;
  /** `tasks/update` (2026-07-28): the answers to the task's input requests. */
  update?(taskId: string, inputResponses: Record<string, unknown>, signal: AbortSignal): Promise<void>;
}

export interface FollowOptions {
  serverId: string;
  operation: string;
  /** Ends the wait: the caller's cancel or the call's deadline. */
  signal: AbortSignal;
  /** The caller's own cancel: only this one cancels the task on the server. */
  callerSignal?: AbortSignal | undefined;
  onEvent?: ((event: TaskEvent) => void) | undefined;
  /** Answers a task's input requests (by key); absent: nobody here answers, the task waits. */
  answerInput?:
    ((inputRequests: Record<string, unknown>, signal: AbortSignal) => Promise<Record<string, unknown>>) | undefined;
}

/** The task's state as the server answered `tasks/get`, validated. */
export function parseTask(serverId: string, raw: unknown): DetailedTaskV2 {
  const parsed = DetailedTaskV2Schema.safeParse(raw);
  if (!parsed.success)
    throw new MCPProtocolError(
      serverId,
      `tasks/get answered something that is not a task (${parsed.error.issues
        .map((issue) => issue.message)
        .join('; ')
        .slice(0, 200)})`,
    );
  return parsed.data;
}

/** Waits for the task's end (see the header); resolves with the completed task's result. */
export async function followTask(
  created: {
    taskId: string;
    status: TaskStatusV2;
    statusMessage?: string | undefined;
    pollIntervalMs?: number | undefined;
  },
  requester: TaskRequester,
  options: FollowOptions,
): Promise<Record<string, unknown>> {
  const { taskId } = created;
  let last: { status: TaskStatusV2; statusMessage?: string | undefined } | undefined;
  const report = (state: { status: TaskStatusV2; statusMessage?: string | undefined }): void => {
    if (last && last.status === state.status && last.statusMessage === state.statusMessage) return;
    last = state;
    options.onEvent?.({
      taskId,
      status: state.status,
      ...(state.statusMessage !== undefined ? { statusMessage: state.statusMessage } : {}),
      at: Date.now(),
    });
  };
  report(created);
  let interval = pollInterval(created.pollIntervalMs);
  const answered = new Set<string>();
  try {
    for (;;) {
      await waitFor(interval, options.signal);
      const task = parseTask(options.serverId, await requester.get(taskId, options.signal));
      report(task);
      if (task.status === 'completed') return task.result as Record<string, unknown>;
      if (task.status === 'failed')
        throw new MCPRemoteError(options.serverId, task.error.code, `task ${taskId} failed: ${task.error.message}`);
      if (task.status === 'cancelled')
        throw new MCPRequestCancelled(
          options.serverId,
          `${options.operation} (task ${taskId}, cancelled by the server)`,
        );
      if (task.status === 'input_required') await answerInput(taskId, task.inputRequests, answered, requester, options);
      interval = pollInterval(task.pollIntervalMs);
    }
  } catch (error) {
    if (options.callerSignal?.aborted) {
      await requester.cancel(taskId).then(
        () => report({ status: 'cancelled', statusMessage: 'cancelled by the caller' }),
        () => undefined,
      );
    }
    throw error;
  }
}

/** The task's input requests not answered yet, answered and sent back (`tasks/update`). */
async function answerInput(
  taskId: string,
  inputRequests: Record<string, unknown>,
  answered: Set<string>,
  requester: TaskRequester,
  options: FollowOptions,
): Promise<void> {
  const fresh = Object.fromEntries(Object.entries(inputRequests).filter(([key]) => !answered.has(key)));
  if (Object.keys(fresh).length === 0 || !options.answerInput || !requester.update) return;
  for (const key of Object.keys(fresh)) answered.add(key);
  const responses = await options.answerInput(fresh, options.signal);
  await requester.update(taskId, responses, options.signal);
}

function pollInterval(serverMs: number | undefined): number {
  if (serverMs === undefined) return DEFAULT_POLL_MS;
  return Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, serverMs));
}

/** The server's poll interval, ended early by the signal (as an aborted SDK request fails). */
function waitFor(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (): void => {
      clearTimeout(timer);
      const reason: unknown = signal.reason;
      reject(reason instanceof SdkError ? reason : new SdkError(SdkErrorCode.RequestTimeout, String(reason)));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', fail);
      resolve();
    }, ms);
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}
