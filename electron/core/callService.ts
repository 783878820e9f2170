/**
 * Tool calls made through the contract: each runs through `HarnessApplication.executeTool` under
 * its caller's identity; a running call can be cancelled (the server is told); History can
 * replay a completed call or run a recorded one again as a new call. A caller that can answer a
 * downstream server's questions itself (an agent, through the gateway: `ask` / `sample`) gets
 * them; the GUI's calls have no such hooks, and the person is asked.
 *
 * The caller's identity (user + session) keys the checkpoints, so it must be as stable as the
 * callIds the caller may re-send: a callId re-sent after a restart, a reload or a lost answer
 * must meet its own record and replay (or get "in progress or result unknown"), never run again.
 * The GUI's identity is created once per data folder and kept in the database
 * (`persistentGuiCaller`); an agent supplies its own (gateway: its agent id and the session id it
 * passes in `_meta`), and `call` takes it as given.
 */
import { randomUUID } from 'node:crypto';
import type { CallOutcome, EventName, EventOf, RequestOf } from '../../shared/contract.js';
import type { PipelineCheckpoints } from '../checkpoints/types.js';
import type { ExecuteResult, HarnessApplication } from '../harness/application.js';
import type { CallServerRequestHandlers, CallQuestion, ProgressUpdate, RoundRelay } from '../mcp/types.js';
import type { TaskEvent } from '../mcp/tasks/followTask.js';
import type { SamplingParams, SamplingResult } from '../mcp/retiredFeatures.js';
import type { ElicitResult } from '@modelcontextprotocol/client';
import type { AppMeta } from '../storage/appMeta.js';
import type { CallerWait } from '../security/approvals.js';
import { WaitEnded } from '../security/waitEnded.js';
import { PermissionDeniedError } from '../security/errors.js';
import { AppError } from './errors.js';
import { currentActor } from './requestActor.js';

type Emit = <E extends EventName>(event: E, payload: EventOf<E>) => void;

/** Who the GUI's calls are attributed to. */
export const GUI_USER = 'gui';

/** Who makes a call: the identity its checkpoints are keyed by (with the callId). */
export interface Caller {
  userId: string;
  /** Stable for as long as the caller may re-send a callId — across restarts, for the GUI. */
  sessionId: string;
}

export interface CallOptions {
  signal?: AbortSignal;
  onProgress?: (update: ProgressUpdate) => void;
  /**
   * The caller answers a downstream server's elicitation during this call itself (an agent that
   * declared it can: the gateway asks it in its era's way). Absent: the person is asked.
   */
  elicit?: (question: CallQuestion, signal: AbortSignal) => Promise<ElicitResult>;
  /** The same for a downstream sampling request: the caller's model answers it (its text is relayed). */
  sample?: (request: SamplingParams, signal: AbortSignal) => Promise<SamplingResult>;
  /** A 2026-07-28 caller: a modern server's rounds relayed whole (mcp/types.ts). */
  relay?: RoundRelay;
  /** How long the caller itself waits for an approval, when known: the dialog shows it. */
  callerWait?: CallerWait;
  /** The call started (or stopped) waiting for the person's approval. */
  onApprovalWait?: (waiting: { expiresAt: number } | undefined) => void;
  /** Not the GUI's call: where the task's id and statuses go (the gateway's tasks, gateway/agentTasks.ts). */
  onTask?: (task: TaskEvent) => void;
}

/**
 * How a call was decided: allowed (it ran, or runs), denied (a rule or the person refused it, or it
 * was cancelled while it waited), or never decided (refused before anyone decided: bad arguments, …).
 */
type CallDecision = 'allowed' | 'denied' | 'undecided';

/** A running call as others may ask about it: its tool, and its decision (resolves once known). */
export interface RunningCall {
  serverId: string;
  toolName: string;
  decided: Promise<CallDecision>;
}

/** The caller's answerers as the MCP layer takes them; none when the caller can answer nothing (the GUI). */
function callServerRequestHandlersOf(options: CallOptions): CallServerRequestHandlers | undefined {
  if (!options.elicit && !options.sample && !options.relay) return undefined;
  return {
    ...(options.elicit ? { elicit: options.elicit } : {}),
    ...(options.sample ? { sample: options.sample } : {}),
    ...(options.relay ? { relay: options.relay } : {}),
  };
}

const GUI_SESSION_KEY = 'gui_session_id';

/**
 * The GUI's identity in this data folder: created at the first start, the same at every later
 * one (and in every process sharing the database — with PostgreSQL selected, every instance on it). Records of the per-start sessions earlier
 * versions made stay readable in History under their own ids.
 */
export async function persistentGuiCaller(meta: AppMeta): Promise<Caller> {
  return { userId: GUI_USER, sessionId: await meta.persistentValue(GUI_SESSION_KEY, () => `gui-${randomUUID()}`) };
}

function runningKey(caller: Caller, callId: string): string {
  return `${caller.sessionId}\0${callId}`;
}

function containsRedacted(value: unknown): boolean {
  if (typeof value === 'string') return value === '[redacted]';
  if (Array.isArray(value)) return value.some(containsRedacted);
  if (value && typeof value === 'object') return Object.values(value).some(containsRedacted);
  return false;
}

export class CallService {
  /** Running calls by caller session and callId (NUL-separated), with the server each runs on and how it was decided. */
  private readonly running = new Map<string, { controller: AbortController; call: RunningCall }>();

  constructor(
    private readonly harness: HarnessApplication,
    /** Either store (SQLite answers at once, PostgreSQL later). */
    private readonly checkpoints: Pick<PipelineCheckpoints, 'get'>,
    private readonly emit: Emit,
    /** The GUI's identity, from `persistentGuiCaller`. */
    readonly gui: Caller,
  ) {}

  /** The GUI's identity, or — in the GUI's session — the signed-in person or the CLI who asked (requestActor.ts). */
  private guiCaller(): Caller {
    const actor = currentActor();
    return actor === undefined ? this.gui : { userId: actor, sessionId: this.gui.sessionId };
  }

  /** The GUI's checkpoint session (History's "current" one). */
  get sessionId(): string {
    return this.gui.sessionId;
  }

  /**
   * `options.signal`: the caller's own cancel (an agent's `notifications/cancelled`);
   * `options.onProgress`: where progress goes instead of the GUI's `call.progress` event.
   */
  async call(
    request: RequestOf<'tools.call'>,
    caller: Caller = this.guiCaller(),
    options: CallOptions = {},
  ): Promise<CallOutcome> {
    const key = runningKey(caller, request.callId);
    if (this.running.has(key)) throw new AppError('duplicate_call', 'A call with this id is already running.');
    const controller = new AbortController();
    // The caller's reason goes along (waitEnded.ts: the app ended its wait, and the answer says why).
    const onAbort = (): void => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) controller.abort(options.signal.reason);
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    let decide: (decision: CallDecision) => void = () => undefined;
    const decided = new Promise<CallDecision>((resolve) => (decide = resolve));
    this.running.set(key, { controller, call: { serverId: request.serverId, toolName: request.name, decided } });
    const serverRequests = callServerRequestHandlersOf(options);
    try {
      const result = await this.harness.executeTool(request.name, request.args, {
        userId: caller.userId,
        sessionId: caller.sessionId,
        callId: request.callId,
        serverId: request.serverId,
        signal: controller.signal,
        ...(request.timeoutMs !== undefined ? { timeoutMs: request.timeoutMs } : {}),
        onProgress:
          options.onProgress ?? ((update) => this.emit('call.progress', { callId: request.callId, ...update })),
        // The GUI's own calls: the call panel shows the task's status (its message already redacted by the harness).
        ...(caller.sessionId === this.gui.sessionId
          ? {
              onTask: (task: TaskEvent) =>
                this.emit('call.task', {
                  callId: request.callId,
                  taskId: task.taskId,
                  status: task.status,
                  ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
                }),
            }
          : options.onTask
            ? { onTask: options.onTask }
            : {}),
        ...(serverRequests ? { serverRequests } : {}),
        ...(options.callerWait ? { callerWait: options.callerWait } : {}),
        ...(options.onApprovalWait ? { onApprovalWait: options.onApprovalWait } : {}),
        onAuthorized: () => decide('allowed'),
      });
      return this.outcome(caller.sessionId, request.callId, result);
    } catch (error) {
      // Only the first settlement counts: a call allowed before it failed stays allowed.
      decide(error instanceof PermissionDeniedError ? 'denied' : 'undecided');
      throw error;
    } finally {
      decide('undecided');
      options.signal?.removeEventListener('abort', onAbort);
      this.running.delete(key);
    }
  }

  /** The call of a session still running (waiting for its approval, or executing), whoever made it. */
  runningCall(sessionId: string, callId: string): RunningCall | undefined {
    return this.running.get(`${sessionId}\0${callId}`)?.call;
  }

  cancel(callId: string, caller: Caller = this.gui): boolean {
    const entry = this.running.get(runningKey(caller, callId));
    entry?.controller.abort();
    return entry !== undefined;
  }

  /**
   * The server was removed, disabled or went away: every call of it still running or waiting
   * (for approval, for a reconnect) ends now, whoever made it, with `why` in its answer
   * (waitEnded.ts) — a waiting caller is answered at once, not when its own timeout runs out.
   */
  endCallsOf(serverId: string, why: string): number {
    let ended = 0;
    for (const entry of this.running.values()) {
      if (entry.call.serverId !== serverId || entry.controller.signal.aborted) continue;
      entry.controller.abort(new WaitEnded(why));
      ended++;
    }
    return ended;
  }

  async replay(sessionId: string, callId: string): Promise<CallOutcome> {
    return this.outcome(sessionId, callId, await this.harness.replay(sessionId, callId));
  }

  /** Runs a recorded call's tool and arguments again, as a new call of the GUI's session. */
  async rerun(sessionId: string, callId: string, newCallId: string): Promise<CallOutcome> {
    const record = await this.checkpoints.get(sessionId, callId);
    if (!record) throw new AppError('not_found', `No call "${callId}" is recorded in session "${sessionId}".`);
    if (containsRedacted(record.args)) {
      throw new AppError(
        'args_redacted',
        'This call’s arguments held secrets, which are never stored; run it again from the Tools view and enter them.',
      );
    }
    if (!record.args || typeof record.args !== 'object' || Array.isArray(record.args))
      throw new AppError('not_rerunnable', 'This call has no stored arguments to run again.');
    return this.call({
      name: record.toolName,
      serverId: record.serverId,
      args: record.args as Record<string, unknown>,
      callId: newCallId,
    });
  }

  private outcome(sessionId: string, callId: string, result: ExecuteResult): CallOutcome {
    return {
      callId,
      sessionId,
      traceId: result.traceId,
      toolName: result.toolName,
      serverId: result.serverId,
      replayed: result.replayed,
      attempts: result.attempts,
      result: {
        content: result.result.content,
        ...(result.result.structuredContent ? { structuredContent: result.result.structuredContent } : {}),
        isError: result.result.isError,
      },
      warnings: result.warnings,
    };
  }
}
