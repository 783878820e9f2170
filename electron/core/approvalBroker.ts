/**
 * Carries approval requests from the secure executor to the GUI and answers back. Each request
 * has a one-time random id; an answer is accepted once, for a request still pending — a stale,
 * repeated or unknown id is refused, so an answer cannot be replayed or forged for another call.
 * A request the executor stops waiting for (timeout → deny, or the call was cancelled) closes.
 *
 * A sandboxed server's connection to a host its profile does not decide (issue 29) is asked
 * through the same queue, dialog and notification (`requestEgress`), as its own kind of request.
 */
import type { ApprovalView, EventName, EventOf } from '../../shared/contract.js';
import { SANDBOX_CALLER } from '../../shared/contract.js';
import type { ApprovalAnswer, ApprovalCallback, ApprovalRequest } from '../security/approvals.js';
import type { EgressApprovalRequest } from '../sandbox/egressAsk.js';
import { AppError } from './errors.js';
import { currentActor } from './requestActor.js';

type Emit = <E extends EventName>(event: E, payload: EventOf<E>) => void;

export class ApprovalBroker {
  private readonly pending = new Map<string, { view: ApprovalView; resolve: (answer: ApprovalAnswer) => void }>();

  constructor(
    private readonly emit: Emit,
    private readonly redact: (value: unknown) => unknown,
  ) {}

  /** The executor's approval callback. */
  readonly request: ApprovalCallback = (request: ApprovalRequest, signal: AbortSignal) =>
    this.wait(
      {
        requestId: request.requestId,
        sessionId: request.sessionId,
        userId: request.userId,
        toolName: request.toolName,
        serverId: request.serverId,
        // The dialog shows the arguments, but never a secret among them.
        args: this.redact(request.args) as Record<string, unknown>,
        ...(request.annotations ? { annotations: { ...request.annotations } } : {}),
        reason: request.reason,
        expiresAt: request.expiresAt,
        ...(request.callerWait ? { callerWait: { ...request.callerWait } } : {}),
        // A definition is the server's own text; redacted like the arguments.
        ...(request.change ? { change: this.redact(request.change) as NonNullable<ApprovalView['change']> } : {}),
        ...(request.flags ? { flags: this.redact(request.flags) as NonNullable<ApprovalView['flags']> } : {}),
      },
      signal,
    );

  /** The egress ask's approval callback: the same queue as calls, its caller the sandbox. */
  readonly requestEgress = (request: EgressApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> =>
    this.wait(
      {
        requestId: request.requestId,
        sessionId: request.sessionId ?? SANDBOX_CALLER,
        userId: SANDBOX_CALLER,
        toolName: `${request.ask.host}:${request.ask.port}`,
        serverId: request.serverId,
        args: {},
        reason: request.reason,
        expiresAt: request.expiresAt,
        egress: { ...request.ask, ...(request.ask.call ? { call: { ...request.ask.call } } : {}) },
      },
      signal,
    );

  private wait(view: ApprovalView, signal: AbortSignal): Promise<ApprovalAnswer> {
    return new Promise<ApprovalAnswer>((resolve) => {
      this.pending.set(view.requestId, { view, resolve });
      signal.addEventListener(
        'abort',
        () => {
          if (!this.pending.delete(view.requestId)) return;
          this.emit('approval.closed', {
            requestId: view.requestId,
            outcome: Date.now() >= view.expiresAt ? 'expired' : 'cancelled',
          });
          resolve('deny');
        },
        { once: true },
      );
      this.emit('approval.requested', view);
    });
  }

  answer(requestId: string, answer: ApprovalAnswer): void {
    const entry = this.pending.get(requestId);
    if (!entry) {
      throw new AppError(
        'stale_approval',
        'This approval request is not pending: it was already answered, it expired, or it never existed. Nothing was run.',
      );
    }
    this.pending.delete(requestId);
    entry.resolve(answer);
    // On a shared instance the others' pages learn who decided (requestActor.ts); the desktop's person is no one else.
    const decidedBy = currentActor();
    this.emit('approval.closed', { requestId, outcome: 'answered', ...(decidedBy ? { decidedBy, answer } : {}) });
  }

  list(): ApprovalView[] {
    return [...this.pending.values()].map((p) => p.view);
  }
}
