/**
 * At start (and later on demand), the calls whose owner died while the server ran them as a task
 * (the tasks extension) are resolved by asking the server, not left "in progress or unknown":
 * every `started` checkpoint with a task id (taskLinks.ts) is looked up with `tasks/get` once its
 * server is connected —
 * - completed → the server's result is stored (secrets redacted) and the call replays from then on;
 * - failed, or cancelled → the record is `failed` with the server's reason;
 * - still working (or waiting for input) → followed to its end in the background (`following`),
 *   with the same outcomes when it ends;
 * - the server not reachable, not offering tasks, or not knowing the task → left `started`
 *   (nothing is made up), reported as `unresolved` with why.
 * Only a call that died before the server named a task stays "unknown" for good.
 * On demand (History's "Ask the server now"): `only` names the one record to ask about.
 * Each answer the server gives is a trace of the call (`tracer`): the task's statuses as `task`
 * events, then `completed` or `failed` — the task's life after the app lost the call, in Traces.
 */
import type { DetailedTaskV2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import type { CheckpointTaskLinks, TaskLinkedCall } from '../checkpoints/taskLinks.js';
import type { MCPToolRegistry } from '../mcp/registry.js';
import { followTask } from '../mcp/tasks/followTask.js';
import type { NormalizedToolResult } from '../results/toolResult.js';
import type { TraceHandle, Tracer } from '../tracing/tracer.js';
import { normalizeToolResult } from '../results/toolResult.js';

export type TaskRecoveryOutcome =
  | { kind: 'completed'; call: TaskLinkedCall; isError?: boolean }
  | { kind: 'failed'; call: TaskLinkedCall; reason: string }
  | { kind: 'unresolved'; call: TaskLinkedCall; reason: string };

export interface TaskRecoveryOptions {
  links: CheckpointTaskLinks;
  registry: Pick<MCPToolRegistry, 'whenReady' | 'taskClient'>;
  /** Known secrets out of a stored result, and out of a server's reason. */
  redactResult: (result: NormalizedToolResult) => NormalizedToolResult;
  redactText: (text: string) => string;
  /** How long to wait for each server to connect. */
  waitMs: number;
  /** Ends the background following (the app is closing). */
  signal?: AbortSignal;
  note?: (line: string) => void;
  /** Where each answered call's trace is recorded; absent: not traced. */
  tracer?: Pick<Tracer, 'start'>;
  /** Only this record (History's "Ask the server now"); default: every pending one. */
  only?: { sessionId: string; callId: string };
}

export interface TaskRecovery {
  /** What was settled by the first look. */
  settled: TaskRecoveryOutcome[];
  /** The tasks still running, each settling when it ends (or when `signal` ends the wait). */
  following: Promise<TaskRecoveryOutcome[]>;
}

export async function recoverTaskCalls(options: TaskRecoveryOptions): Promise<TaskRecovery> {
  const settled: TaskRecoveryOutcome[] = [];
  const following: Array<Promise<TaskRecoveryOutcome>> = [];
  const signal = options.signal ?? new AbortController().signal;
  const pending = options.links
    .pending()
    .filter(
      (call) => !options.only || (call.sessionId === options.only.sessionId && call.callId === options.only.callId),
    );
  for (const call of pending) {
    const client = await clientFor(call.serverId, options, signal);
    if (typeof client === 'string') {
      settled.push({ kind: 'unresolved', call, reason: client });
      continue;
    }
    let task: DetailedTaskV2;
    try {
      task = await client.getTask(call.taskId, { signal });
    } catch (error) {
      settled.push({
        kind: 'unresolved',
        call,
        reason: options.redactText(error instanceof Error ? error.message : String(error)),
      });
      continue;
    }
    const trace = options.tracer?.start({
      sessionId: call.sessionId,
      callId: call.callId,
      userId: call.userId,
      toolName: call.toolName,
      serverId: call.serverId,
    });
    const traceTask = (state: { status: DetailedTaskV2['status']; statusMessage?: string | undefined }): void => {
      trace?.event('task', {
        taskId: call.taskId,
        status: state.status,
        ...(state.statusMessage !== undefined ? { statusMessage: state.statusMessage } : {}),
      });
    };
    if (task.status === 'working' || task.status === 'input_required') {
      options.note?.(`call ${call.callId}: task ${call.taskId} on ${call.serverId} is still running; following it`);
      const requester = {
        get: (taskId: string, s: AbortSignal) => client.getTask(taskId, { signal: s }),
        cancel: (taskId: string) => client.cancelTask(taskId),
      };
      following.push(
        followTask(task, requester, {
          serverId: call.serverId,
          operation: `task ${call.taskId}`,
          signal,
          onEvent: traceTask,
        }).then(
          (result) => ended(trace, store(call, { status: 'completed', result }, options)),
          (error: unknown) => {
            const reason = options.redactText(error instanceof Error ? error.message : String(error));
            // The wait ended (the app closing): the record stays started, with its task id, for the next start.
            if (signal.aborted) return ended(trace, { kind: 'unresolved', call, reason });
            options.links.fail(call, { code: 'task_failed', message: reason });
            return ended(trace, { kind: 'failed', call, reason });
          },
        ),
      );
      continue;
    }
    traceTask(task);
    settled.push(ended(trace, store(call, task, options)));
  }
  return { settled, following: Promise.all(following) };
}

/** The outcome, closing the call's recovery trace with it. */
function ended(trace: TraceHandle | undefined, outcome: TaskRecoveryOutcome): TaskRecoveryOutcome {
  if (!trace) return outcome;
  if (outcome.kind === 'completed') {
    trace.event('completed', { isError: outcome.isError === true });
    trace.finish('ok');
  } else if (outcome.kind === 'failed') {
    const error = { code: 'task_failed', message: outcome.reason };
    trace.event('failed', { error });
    trace.finish('error', error);
  } else {
    // The record moved on meanwhile, or the app closed while following: nothing was stored.
    trace.finish('interrupted');
  }
  return outcome;
}

/** The server's client once connected, or why there is none. */
async function clientFor(
  serverId: string,
  options: TaskRecoveryOptions,
  signal: AbortSignal,
): Promise<(ReturnType<MCPToolRegistry['taskClient']> & object) | string> {
  try {
    await options.registry.whenReady(serverId, { timeoutMs: options.waitMs, signal });
  } catch (error) {
    return `the server did not connect: ${options.redactText(error instanceof Error ? error.message : String(error))}`;
  }
  return options.registry.taskClient(serverId) ?? 'its client cannot ask about tasks';
}

/** A task that ended: its end becomes the record's. */
function store(
  call: TaskLinkedCall,
  task: Pick<DetailedTaskV2, 'status'> & {
    result?: Record<string, unknown>;
    error?: { code: number; message: string };
  },
  options: TaskRecoveryOptions,
): TaskRecoveryOutcome {
  if (task.status === 'completed') {
    const result = options.redactResult(normalizeToolResult(task.result));
    if (options.links.complete(call, result)) return { kind: 'completed', call, isError: result.isError };
    return { kind: 'unresolved', call, reason: 'the record was resolved meanwhile' };
  }
  const reason = options.redactText(
    task.status === 'failed' && task.error
      ? `the server's task failed (${task.error.code}): ${task.error.message}`
      : 'the server cancelled the task',
  );
  if (options.links.fail(call, { code: task.status === 'failed' ? 'task_failed' : 'task_cancelled', message: reason }))
    return { kind: 'failed', call, reason };
  return { kind: 'unresolved', call, reason: 'the record was resolved meanwhile' };
}
