/**
 * The calls whose owner died while the server ran them as a task (the tasks extension) are
 * resolved by asking the server, not left "in progress or unknown": every `started` checkpoint
 * with a task id (taskLinks.ts) is looked up with `tasks/get` once its server is ready —
 * - completed → the server's result is stored (secrets redacted) and the call replays from then on;
 * - failed, or cancelled → the record is `failed` with the server's reason;
 * - still working (or waiting for input) → followed to its end in the background (`following`),
 *   with the same outcomes when it ends;
 * - the server not ready in time, not offering tasks, not answering, or no longer knowing the task
 *   (a stdio server that keeps its tasks per process, restarted with the app) → left `started`
 *   (nothing is made up: whether the tool acted is unknown), reported as `unresolved`, and the
 *   record's last error says why (`task_unknown_to_server`, …) so History tells what is true.
 * Only a call that died before the server named a task stays "unknown" for good.
 *
 * Start order: recovery runs while discovery is still connecting the servers, so each server is
 * waited for (bounded, `waitMs`, an `idle` server included) — servers in parallel, each in its own
 * time. `TaskRecoveryService` asks again whenever a server becomes ready later (a slow one, a
 * reconnect, a person fixing its configuration) for that server's records not being asked already.
 *
 * Every attempt is a trace of the call (`tracer`): a `task_check` event (what triggered it, how
 * long it waited, the outcome), then — when answered — the task's statuses as `task` events and
 * `completed` or `failed`: the task's life after the app lost the call, in Traces.
 */
import type { DetailedTaskV2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import type { TaskLinkedCall, TaskLinks } from '../checkpoints/types.js';
import { MCPRemoteError } from '../mcp/errors.js';
import type { MCPToolRegistry } from '../mcp/registry.js';
import { followTask } from '../mcp/tasks/followTask.js';
import type { NormalizedToolResult } from '../results/toolResult.js';
import type { TraceHandle, Tracer } from '../tracing/tracer.js';
import { normalizeToolResult } from '../results/toolResult.js';

/** Why asking did not settle a call: also the code of the record's last error (`task_<why>`). */
type TaskUnresolvedWhy = 'server_unavailable' | 'unknown_to_server' | 'not_supported' | 'no_answer' | 'moved_on';

export type TaskRecoveryOutcome =
  | { kind: 'completed'; call: TaskLinkedCall; isError?: boolean; traceId?: string }
  | { kind: 'failed'; call: TaskLinkedCall; reason: string; traceId?: string }
  | { kind: 'unresolved'; call: TaskLinkedCall; reason: string; why?: TaskUnresolvedWhy; traceId?: string };

type TaskCheckTrigger = 'start' | 'server_ready' | 'person';

export interface TaskRecoveryOptions {
  links: TaskLinks;
  registry: Pick<MCPToolRegistry, 'whenReady' | 'taskClient'>;
  /** Known secrets out of a stored result, and out of a server's reason. */
  redactResult: (result: NormalizedToolResult) => NormalizedToolResult;
  redactText: (text: string) => string;
  /** How long to wait for each server to be ready. */
  waitMs: number;
  /** Ends the background following (the app is closing). */
  signal?: AbortSignal;
  note?: (line: string) => void;
  /** Where each attempt's trace is recorded; absent: not traced. */
  tracer?: Pick<Tracer, 'start'>;
  /** Only this record (History's "Ask the server now"); default: every pending one. */
  only?: { sessionId: string; callId: string };
  /** Only the records of this server (it became ready). */
  serverId?: string;
  /** What started this look (default `start`). */
  trigger?: TaskCheckTrigger;
  /** A record to leave alone now: run live in this process, or asked about already. */
  skip?: (call: TaskLinkedCall) => boolean;
  /** Each record once its look begins, and again once settled (for `skip`). */
  onAsking?: (call: TaskLinkedCall, asking: boolean) => void;
}

export interface TaskRecovery {
  /** What was settled by the first look. */
  settled: TaskRecoveryOutcome[];
  /** The tasks still running, each settling when it ends (or when `signal` ends the wait). */
  following: Promise<TaskRecoveryOutcome[]>;
}

type TaskClient = NonNullable<ReturnType<MCPToolRegistry['taskClient']>>;

export async function recoverTaskCalls(options: TaskRecoveryOptions): Promise<TaskRecovery> {
  const signal = options.signal ?? new AbortController().signal;
  const pending = (await options.links.pending()).filter(
    (call) =>
      (!options.only || (call.sessionId === options.only.sessionId && call.callId === options.only.callId)) &&
      (options.serverId === undefined || call.serverId === options.serverId) &&
      !options.skip?.(call),
  );
  const byServer = new Map<string, TaskLinkedCall[]>();
  for (const call of pending) byServer.set(call.serverId, [...(byServer.get(call.serverId) ?? []), call]);
  const following: Array<Promise<TaskRecoveryOutcome>> = [];
  // Servers in parallel: a slow or absent one must not hold back the others' records.
  const looks = await Promise.all(
    [...byServer].map(([serverId, calls]) => recoverServer(serverId, calls, options, signal, following)),
  );
  return { settled: looks.flat(), following: Promise.all(following) };
}

async function recoverServer(
  serverId: string,
  calls: TaskLinkedCall[],
  options: TaskRecoveryOptions,
  signal: AbortSignal,
  following: Array<Promise<TaskRecoveryOutcome>>,
): Promise<TaskRecoveryOutcome[]> {
  for (const call of calls) options.onAsking?.(call, true);
  // Each attempt is traced from its start: a kill while it waits leaves an interrupted trace, not nothing.
  const traces = new Map(calls.map((call) => [call, startTrace(call, options)]));
  const began = performance.now();
  const client = await clientFor(serverId, options, signal);
  const waitedMs = Math.round(performance.now() - began);
  const settled: TaskRecoveryOutcome[] = [];
  for (const call of calls) {
    const trace = traces.get(call);
    const check = (outcome: 'answered' | TaskUnresolvedWhy, reason?: string): void => {
      trace?.event('task_check', {
        taskId: call.taskId,
        trigger: options.trigger ?? 'start',
        outcome: outcome === 'moved_on' ? 'no_answer' : outcome,
        ...(reason !== undefined ? { reason } : {}),
        waitedMs,
      });
    };
    const done = (outcome: TaskRecoveryOutcome): TaskRecoveryOutcome => {
      options.onAsking?.(call, false);
      return ended(trace, outcome);
    };
    if (!('getTask' in client)) {
      check(client.why, client.reason);
      settled.push(done(await unresolved(call, client.why, client.reason, options)));
      continue;
    }
    let task: DetailedTaskV2;
    try {
      task = await client.getTask(call.taskId, { signal });
    } catch (error) {
      const reason = options.redactText(error instanceof Error ? error.message : String(error));
      // -32602 is the answer to a task id the server does not know (MCP tasks, both forms).
      const why: TaskUnresolvedWhy =
        error instanceof MCPRemoteError && error.rpcCode === -32602 ? 'unknown_to_server' : 'no_answer';
      check(why, reason);
      settled.push(done(await unresolved(call, signal.aborted ? 'moved_on' : why, reason, options)));
      continue;
    }
    check('answered');
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
          async (result) => done(await store(call, { status: 'completed', result }, options)),
          async (error: unknown) => {
            const reason = options.redactText(error instanceof Error ? error.message : String(error));
            // The wait ended (the app closing): the record stays started, with its task id, for the next start.
            if (signal.aborted) return done({ kind: 'unresolved', call, reason, why: 'moved_on' });
            await options.links.fail(call, { code: 'task_failed', message: reason });
            return done({ kind: 'failed', call, reason });
          },
        ),
      );
      continue;
    }
    traceTask(task);
    settled.push(done(await store(call, task, options)));
  }
  return settled;
}

/** What the record says when asking did not settle it: the sentence History shows as its text. */
const UNRESOLVED_TEXT: Record<
  Exclude<TaskUnresolvedWhy, 'moved_on'>,
  (call: TaskLinkedCall, reason: string) => string
> = {
  unknown_to_server: (call, reason) =>
    `The server no longer knows task ${call.taskId} (it may have restarted since): whether the tool acted is unknown. The server said: ${reason}`,
  server_unavailable: (call, reason) =>
    `The server could not be asked about task ${call.taskId}: ${reason}. It is asked again when it is ready.`,
  not_supported: (call) =>
    `The server's connection offers no way to ask about task ${call.taskId} now; whether the tool acted is unknown.`,
  no_answer: (call, reason) => `Asking the server about task ${call.taskId} failed: ${reason}`,
};

async function unresolved(
  call: TaskLinkedCall,
  why: TaskUnresolvedWhy,
  reason: string,
  options: TaskRecoveryOptions,
): Promise<TaskRecoveryOutcome> {
  // The app closing mid-ask is not news about the call: its record is left as it was.
  if (why !== 'moved_on') {
    const text = UNRESOLVED_TEXT[why](call, reason);
    await options.links.note(call, { code: `task_${why}`, message: text });
  }
  return { kind: 'unresolved', call, reason, why };
}

function startTrace(call: TaskLinkedCall, options: TaskRecoveryOptions): TraceHandle | undefined {
  return options.tracer?.start({
    sessionId: call.sessionId,
    callId: call.callId,
    userId: call.userId,
    toolName: call.toolName,
    serverId: call.serverId,
  });
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
  } else if (outcome.why === 'moved_on' || outcome.why === undefined) {
    // The record moved on meanwhile, or the app closed while asking or following: nothing was stored.
    trace.finish('interrupted');
  } else {
    // Asked, but not settled: the attempt is an error of its own; the record stays unknown.
    trace.finish('error', { code: `task_${outcome.why}`, message: outcome.reason });
  }
  return { ...outcome, traceId: trace.traceId };
}

/** The server's task client once it is ready, or why there is none. */
async function clientFor(
  serverId: string,
  options: TaskRecoveryOptions,
  signal: AbortSignal,
): Promise<TaskClient | { why: TaskUnresolvedWhy; reason: string }> {
  try {
    // `throughIdle`: at start the server may not be connecting yet (discovery opens it in a moment).
    await options.registry.whenReady(serverId, { timeoutMs: options.waitMs, signal, throughIdle: true });
  } catch (error) {
    const reason = options.redactText(error instanceof Error ? error.message : String(error));
    return { why: signal.aborted ? 'moved_on' : 'server_unavailable', reason: `it did not become ready: ${reason}` };
  }
  return options.registry.taskClient(serverId) ?? { why: 'not_supported', reason: 'its client cannot ask about tasks' };
}

/** A task that ended: its end becomes the record's. */
async function store(
  call: TaskLinkedCall,
  task: Pick<DetailedTaskV2, 'status'> & {
    result?: Record<string, unknown>;
    error?: { code: number; message: string };
  },
  options: TaskRecoveryOptions,
): Promise<TaskRecoveryOutcome> {
  if (task.status === 'completed') {
    const result = options.redactResult(normalizeToolResult(task.result));
    if (await options.links.complete(call, result)) return { kind: 'completed', call, isError: result.isError };
    return { kind: 'unresolved', call, reason: 'the record was resolved meanwhile', why: 'moved_on' };
  }
  const reason = options.redactText(
    task.status === 'failed' && task.error
      ? `the server's task failed (${task.error.code}): ${task.error.message}`
      : 'the server cancelled the task',
  );
  if (
    await options.links.fail(call, {
      code: task.status === 'failed' ? 'task_failed' : 'task_cancelled',
      message: reason,
    })
  )
    return { kind: 'failed', call, reason };
  return { kind: 'unresolved', call, reason: 'the record was resolved meanwhile', why: 'moved_on' };
}

/**
 * Task recovery for the app's life: the look at start, a look at one server's records whenever
 * it becomes ready later, and the person's "Ask the server now" — never two looks at one record
 * at once, never a record the app runs live now.
 */
export class TaskRecoveryService {
  /** Records being asked about or followed now (`session\0call`). */
  private readonly asking = new Set<string>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly options: Omit<TaskRecoveryOptions, 'only' | 'serverId' | 'trigger' | 'skip' | 'onAsking'> & {
      registry: TaskRecoveryOptions['registry'] & Pick<MCPToolRegistry, 'subscribe'>;
      /** Whether this process runs the call now (its own follower has the task). */
      isRunning: (sessionId: string, callId: string) => boolean;
      /** How long the person's ask waits for the server. */
      askWaitMs?: number;
    },
  ) {}

  /** The look at start; from now on a server becoming ready is looked at again. */
  start(): Promise<TaskRecovery> {
    this.unsubscribe ??= this.options.registry.subscribe((event) => {
      if (event.type !== 'status' || event.status.state !== 'ready') return;
      if (this.options.signal?.aborted) return;
      void this.look({ serverId: event.serverId, trigger: 'server_ready' })
        .then((r) => r.following)
        .catch((error: unknown) =>
          this.options.note?.(`asking ${event.serverId} about its tasks failed: ${String(error)}`),
        );
    });
    return this.look({ trigger: 'start' });
  }

  /**
   * History's "Ask the server now": that one record, at once (its server waited for briefly).
   * `busy`: another look has it now (waiting for its server, or following its task); none settled: it is followed now.
   */
  async ask(sessionId: string, callId: string): Promise<TaskRecoveryOutcome[] | 'busy'> {
    if (this.asking.has(`${sessionId}\0${callId}`)) return 'busy';
    return (
      await this.look({ only: { sessionId, callId }, trigger: 'person', waitMs: this.options.askWaitMs ?? 10_000 })
    ).settled;
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  private look(
    options: Pick<TaskRecoveryOptions, 'only' | 'serverId' | 'trigger'> & { waitMs?: number },
  ): Promise<TaskRecovery> {
    const key = (call: TaskLinkedCall): string => `${call.sessionId}\0${call.callId}`;
    return recoverTaskCalls({
      ...this.options,
      ...options,
      skip: (call) =>
        this.asking.has(key(call)) ||
        this.options.isRunning(call.sessionId, call.callId) ||
        // A server coming back (a reconnect) is not asked again about a task it said it does not know.
        (options.trigger === 'server_ready' && call.lastErrorCode === 'task_unknown_to_server'),
      onAsking: (call, asking) => {
        if (asking) this.asking.add(key(call));
        else this.asking.delete(key(call));
      },
    });
  }
}
