/**
 * Tool calls made by the person at the GUI: each gets a fresh callId in the GUI's session and
 * runs through `HarnessApplication.executeTool`; a running call can be cancelled (the server is
 * told); History can replay a completed call or run a recorded one again as a new call.
 */
import { randomUUID } from 'node:crypto';
import type { CallOutcome, EventName, EventOf, RequestOf } from '../../shared/contract.js';
import type { CheckpointStore } from '../checkpoints/types.js';
import type { ExecuteResult, HarnessApplication } from '../harness/application.js';
import { AppError } from './errors.js';

type Emit = <E extends EventName>(event: E, payload: EventOf<E>) => void;

/** Who the GUI's calls are attributed to. */
export const GUI_USER = 'gui';

function containsRedacted(value: unknown): boolean {
  if (typeof value === 'string') return value === '[redacted]';
  if (Array.isArray(value)) return value.some(containsRedacted);
  if (value && typeof value === 'object') return Object.values(value).some(containsRedacted);
  return false;
}

export class CallService {
  /** One session per app start: History groups the GUI's calls by it. */
  readonly sessionId = `gui-${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}`;
  private readonly running = new Map<string, AbortController>();

  constructor(
    private readonly harness: () => HarnessApplication,
    private readonly checkpoints: CheckpointStore,
    private readonly emit: Emit,
  ) {}

  async call(request: RequestOf<'tools.call'>): Promise<CallOutcome> {
    if (this.running.has(request.callId)) throw new AppError('duplicate_call', 'A call with this id is already running.');
    const controller = new AbortController();
    this.running.set(request.callId, controller);
    try {
      const result = await this.harness().executeTool(request.name, request.args, {
        userId: GUI_USER,
        sessionId: this.sessionId,
        callId: request.callId,
        serverId: request.serverId,
        signal: controller.signal,
        ...(request.timeoutMs !== undefined ? { timeoutMs: request.timeoutMs } : {}),
        onProgress: (update) => this.emit('call.progress', { callId: request.callId, ...update }),
      });
      return this.outcome(this.sessionId, request.callId, result);
    } finally {
      this.running.delete(request.callId);
    }
  }

  cancel(callId: string): boolean {
    const controller = this.running.get(callId);
    controller?.abort();
    return controller !== undefined;
  }

  replay(sessionId: string, callId: string): CallOutcome {
    return this.outcome(sessionId, callId, this.harness().replay(sessionId, callId));
  }

  /** Runs a recorded call's tool and arguments again, as a new call of the GUI's session. */
  async rerun(sessionId: string, callId: string, newCallId: string): Promise<CallOutcome> {
    const record = this.checkpoints.get(sessionId, callId);
    if (!record) throw new AppError('not_found', `No call "${callId}" is recorded in session "${sessionId}".`);
    if (containsRedacted(record.args)) {
      throw new AppError('args_redacted', 'This call’s arguments held secrets, which are never stored; run it again from the Tools view and enter them.');
    }
    if (!record.args || typeof record.args !== 'object' || Array.isArray(record.args)) throw new AppError('not_rerunnable', 'This call has no stored arguments to run again.');
    return this.call({ name: record.toolName, serverId: record.serverId, args: record.args as Record<string, unknown>, callId: newCallId });
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
      result: { content: result.result.content, ...(result.result.structuredContent ? { structuredContent: result.result.structuredContent } : {}), isError: result.result.isError },
      warnings: result.warnings,
    };
  }
}
