/**
 * Carries approval requests from the secure executor to the GUI and answers back. Each request
 * has a one-time random id; an answer is accepted once, for a request still pending — a stale,
 * repeated or unknown id is refused, so an answer cannot be replayed or forged for another call.
 * A request the executor stops waiting for (timeout → deny, or the call was cancelled) closes.
 *
 * A sandboxed server's connection to a host its profile does not decide (issue 29) is asked
 * through the same queue, dialog and notification (`requestEgress`), as its own kind of request.
 *
 * On `miniharness serve` over PostgreSQL (`share`, sharedApprovals.ts), the queue is the
 * database's: a request waiting here is shown on every instance, the first decision anywhere wins
 * (`decide`), and this broker resolves the call with it.
 */
import type { ApprovalView, EventName, EventOf } from '../../shared/contract.js';
import { SANDBOX_CALLER } from '../../shared/contract.js';
import type { ApprovalAnswer, ApprovalCallback, ApprovalRequest } from '../security/approvals.js';
import type { EgressApprovalRequest } from '../sandbox/egressAsk.js';
import { AppError } from './errors.js';
import { currentActor } from './requestActor.js';
import type { SharedApprovalEvents, SharedApprovals } from './sharedApprovals.js';

type Emit = <E extends EventName>(event: E, payload: EventOf<E>) => void;

/** A close waits this long for its UPDATE; past it the call is denied without knowing who won. */
const CLOSE_WAIT_MS = 10_000;

/** A decision that lost: who or what won instead. */
function staleDecision(lost: {
  decidedBy: string | undefined;
  answer: ApprovalAnswer | undefined;
  closed: 'expired' | 'cancelled' | 'past_expiry' | undefined;
}): AppError {
  if (lost.answer)
    return new AppError(
      'stale_approval',
      `${lost.decidedBy ?? 'Someone'} already decided this approval (${lost.answer}); your answer was not used.`,
    );
  if (lost.closed === 'expired')
    return new AppError(
      'stale_approval',
      'This approval request expired before your answer was recorded: the call was denied and your answer was not used.',
    );
  if (lost.closed === 'past_expiry')
    return new AppError(
      'stale_approval',
      "This approval request's time ran out before your answer was recorded (no one had decided it, and the instance where the call waits had not closed it yet, or is gone): your answer was not used.",
    );
  if (lost.closed === 'cancelled')
    return new AppError(
      'stale_approval',
      'The caller stopped waiting before your answer was recorded: the call was not run and your answer was not used.',
    );
  return new AppError(
    'stale_approval',
    'This approval request is not pending: it was already answered, it expired, or it never existed. Nothing was run.',
  );
}

export class ApprovalBroker {
  private readonly pending = new Map<
    string,
    { view: ApprovalView; resolve: (answer: ApprovalAnswer) => void; offered?: Promise<void> }
  >();
  /** Requests waiting on other instances (shared mode), each dropped at its expiry if no word came. */
  private readonly elsewhere = new Map<string, { view: ApprovalView; timer: NodeJS.Timeout }>();
  private shared: SharedApprovals | undefined;

  constructor(
    private readonly emit: Emit,
    private readonly redact: (value: unknown) => unknown,
    /** Shared: how long the close of a request (one UPDATE) may take; past it the call is denied here. */
    private readonly closeBoundMs = CLOSE_WAIT_MS,
  ) {}

  /** Shared: how long a waiting call gives the close of its request (one UPDATE) to learn who won. */
  private readonly closeWaitMs = () => (this.shared ? this.closeBoundMs : 0);

  /** The executor's approval callback. */
  readonly request: ApprovalCallback = Object.assign(
    (request: ApprovalRequest, signal: AbortSignal) => this.ask(request, signal),
    { closeWaitMs: this.closeWaitMs },
  );

  private ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    return this.wait(
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
  }

  /** The egress ask's approval callback: the same queue as calls, its caller the sandbox. */
  readonly requestEgress = Object.assign(
    (request: EgressApprovalRequest, signal: AbortSignal) => this.askEgress(request, signal),
    { closeWaitMs: this.closeWaitMs },
  );

  private askEgress(request: EgressApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    return this.wait(
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
  }

  private wait(view: ApprovalView, signal: AbortSignal): Promise<ApprovalAnswer> {
    return new Promise<ApprovalAnswer>((resolve) => {
      // Shared: written for the other instances (a decision here waits for that row). If the database
      // cannot be reached, the request is still answerable on this instance.
      const offered = this.shared?.offer(view).catch(() => undefined);
      this.pending.set(view.requestId, { view, resolve, ...(offered ? { offered } : {}) });
      signal.addEventListener(
        'abort',
        () => {
          if (!this.pending.has(view.requestId)) return;
          const outcome = Date.now() >= view.expiresAt ? 'expired' : 'cancelled';
          const shared = this.shared;
          if (!shared) return this.close(view.requestId, outcome);
          // Shared: the close is a conditional UPDATE like a decision; exactly one wins, and the
          // call does what the winner says. Until then the request stays pending here — at most the
          // bound the executor waits too (a hung query): then it is closed here, the call denied, and
          // the late answer of the database ignored (the entry is gone, so close and settle do nothing;
          // a decision that won there after the bound does not reach the call).
          const bound = setTimeout(() => this.close(view.requestId, outcome), this.closeBoundMs);
          void Promise.resolve(offered)
            .then(() => shared.withdraw(view.requestId, outcome))
            .then(
              (won) =>
                won.closed
                  ? this.close(view.requestId, outcome)
                  : this.settle(view.requestId, won.answer, won.decidedBy),
              // The database is gone: closed here (a decision here still wins if it came first).
              () => this.close(view.requestId, outcome),
            )
            .finally(() => clearTimeout(bound));
        },
        { once: true },
      );
      this.emit('approval.requested', view);
    });
  }

  /** Shares the queue with the other instances on the database (serve on PostgreSQL only). */
  share(open: (events: SharedApprovalEvents) => Promise<SharedApprovals>): Promise<SharedApprovals> {
    return open({
      requested: (view) => this.showElsewhere(view),
      decided: (requestId, answer, decidedBy) => this.settle(requestId, answer, decidedBy),
      closed: (requestId, outcome) => {
        if (this.dropElsewhere(requestId)) this.emit('approval.closed', { requestId, outcome });
      },
      resync: () => void this.loadElsewhere(),
    }).then(async (shared) => {
      this.shared = shared;
      await this.loadElsewhere();
      return shared;
    });
  }

  /**
   * A person's answer. Shared: the first decision on any instance wins, and a later one is refused
   * naming who decided; otherwise, `answer`.
   */
  async decide(requestId: string, answer: ApprovalAnswer): Promise<void> {
    const shared = this.shared;
    if (!shared) return this.answer(requestId, answer);
    const decidedBy = currentActor();
    await this.pending.get(requestId)?.offered;
    const decision = await shared.decide(requestId, answer, decidedBy).catch((error: unknown) => {
      // The database is gone: a call waiting here can still be answered here.
      if (this.pending.has(requestId)) return { won: true as const };
      throw error;
    });
    // Never written to the database (it was unreachable then), and still waiting here: decided here.
    const localOnly = !decision.won && !decision.known;
    if (!decision.won && !(localOnly && this.pending.has(requestId))) throw staleDecision(decision);
    this.settle(requestId, answer, decidedBy);
  }

  /** The wait ended without a decision (expired or cancelled): denied, and every page closes the dialog. */
  private close(requestId: string, outcome: 'expired' | 'cancelled'): void {
    const entry = this.pending.get(requestId);
    if (!entry) return;
    this.pending.delete(requestId);
    this.emit('approval.closed', { requestId, outcome });
    entry.resolve('deny');
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
    return [...this.pending.values(), ...this.elsewhere.values()].map((p) => p.view);
  }

  /** A decision (here or on another instance): the waiting call gets it, and every page closes the dialog. */
  private settle(requestId: string, answer: ApprovalAnswer, decidedBy: string | undefined): void {
    const entry = this.pending.get(requestId);
    this.pending.delete(requestId);
    if (!entry && !this.dropElsewhere(requestId)) return;
    entry?.resolve(answer);
    this.emit('approval.closed', { requestId, outcome: 'answered', ...(decidedBy ? { decidedBy, answer } : {}) });
  }

  private showElsewhere(view: ApprovalView): void {
    if (this.pending.has(view.requestId) || this.elsewhere.has(view.requestId)) return;
    const timer = setTimeout(
      () => {
        if (this.dropElsewhere(view.requestId))
          this.emit('approval.closed', { requestId: view.requestId, outcome: 'expired' });
      },
      Math.max(0, view.expiresAt - Date.now()),
    );
    timer.unref();
    this.elsewhere.set(view.requestId, { view, timer });
    this.emit('approval.requested', view);
  }

  private dropElsewhere(requestId: string): boolean {
    const entry = this.elsewhere.get(requestId);
    if (!entry) return false;
    clearTimeout(entry.timer);
    return this.elsewhere.delete(requestId);
  }

  private async loadElsewhere(): Promise<void> {
    const open = await this.shared?.openElsewhere().catch(() => undefined);
    if (!open) return;
    const ids = new Set(open.map((v) => v.requestId));
    for (const id of [...this.elsewhere.keys()])
      if (!ids.has(id) && this.dropElsewhere(id)) this.emit('approval.closed', { requestId: id, outcome: 'cancelled' });
    for (const view of open) this.showElsewhere(view);
  }
}
