/**
 * The deadline of one tool call, kept here rather than by the SDK (whose requests get a timer
 * too long to matter and this deadline's signal):
 * - the server's silence: while a request of the call is on the wire, the server must answer or
 *   report progress within `idleMs` (progress starts the wait over);
 * - the call's total: at most `maxTotalMs` in all, every round included (the SDK checks its own
 *   `maxTotalTimeout` only when progress arrives, and then rejects without telling the server);
 * - both pause while the call waits for a person (an elicitation or sampling dialog): a person
 *   thinking is not a slow server. The person's wait is bounded by the dialog's own expiry.
 *
 * Expiry aborts `signal` with the SDK's timeout error, so the SDK cancels the request on the
 * wire (`notifications/cancelled`, or on modern HTTP the response stream closed) and
 * errorMapping.ts words it. `ended` aborts once the call is over, however it ended (answered,
 * failed, cancelled, timed out), with `ServerRequestCallEnded` as its reason: a dialog still open for the
 * call closes saying so.
 */
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { ServerRequestCallEnded } from './serverRequests.js';

/** How long a progress-reporting call may run in all when the server's config sets no maximum: 10 minutes. */
export const DEFAULT_MAX_TOTAL_TIMEOUT_MS = 600_000;

/** The longest timer Node keeps (about 24.8 days): the SDK's own deadline, never reached. */
export const NEVER_MS = 2_147_483_647;

export class CallDeadline {
  /** Aborts when the call must end: the caller's cancel, the server's silence, the total. */
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  /** Made when someone first asks for `ended`: most calls have no dialog waiting on them, and an
   *  abort with its reason costs about as much as the rest of the deadline's work per call. */
  private endController: AbortController | undefined;
  private over = false;
  /** Told when the call is over, without a signal (the per-call bookkeeping of calls in flight). */
  private readonly overListeners: Array<() => void> = [];
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private totalTimer: ReturnType<typeof setTimeout> | undefined;
  private totalLeftMs: number;
  /** When the total's timer last started (performance.now()). */
  private totalSince = 0;
  /** Requests of the call on the wire now (the server's silence is timed only then). */
  private legs = 0;
  /** Dialogs waiting for a person now. */
  private pauses = 0;
  private readonly onCallerAbort: () => void;

  constructor(
    private readonly idleMs: number,
    private readonly maxTotalMs: number,
    private readonly callerSignal: AbortSignal | undefined,
  ) {
    this.signal = this.controller.signal;
    this.totalLeftMs = maxTotalMs;
    this.onCallerAbort = () => this.expire(callerSignal?.reason);
    if (callerSignal?.aborted) this.onCallerAbort();
    else callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
    this.startTotal();
  }

  /** Aborts (reason `ServerRequestCallEnded`) once the call is over, however it ended. */
  get ended(): AbortSignal {
    if (!this.endController) {
      this.endController = new AbortController();
      if (this.over) this.endController.abort(new ServerRequestCallEnded());
    }
    return this.endController.signal;
  }

  /** Runs `listener` once the call is over (at once if it is): cheaper than `ended` for bookkeeping. */
  whenOver(listener: () => void): void {
    if (this.over) listener();
    else this.overListeners.push(listener);
  }

  /** Sends one request of the call: the server's silence is timed while it is on the wire. */
  async leg<T>(send: (signal: AbortSignal) => Promise<T>): Promise<T> {
    this.legs++;
    this.armIdle();
    try {
      return await send(this.signal);
    } finally {
      if (--this.legs === 0) this.clearIdle();
    }
  }

  /** The server reported progress: its silence starts over. */
  progress(): void {
    this.armIdle();
  }

  /** The call waits for a person from now until the returned function is called (once; again does nothing). */
  waitForPerson(): () => void {
    if (this.signal.aborted) return () => undefined;
    if (this.pauses++ === 0) {
      this.clearIdle();
      this.stopTotal();
    }
    let resumed = false;
    return () => {
      if (resumed) return;
      resumed = true;
      if (--this.pauses > 0 || this.signal.aborted) return;
      this.startTotal();
      this.armIdle();
    };
  }

  /** The call is over: timers stop, and whatever waited on it (`ended`) is told. */
  end(): void {
    this.clearIdle();
    this.stopTotal();
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
    if (this.over) return;
    this.over = true;
    this.endController?.abort(new ServerRequestCallEnded());
    for (const listener of this.overListeners.splice(0)) listener();
  }

  private armIdle(): void {
    this.clearIdle();
    if (this.legs === 0 || this.pauses > 0 || this.signal.aborted) return;
    this.idleTimer = setTimeout(
      () => this.expire(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: this.idleMs })),
      this.idleMs,
    );
  }

  private clearIdle(): void {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  private startTotal(): void {
    if (this.signal.aborted) return;
    this.totalSince = performance.now();
    this.totalTimer = setTimeout(
      () =>
        this.expire(
          new SdkError(SdkErrorCode.RequestTimeout, 'Maximum total timeout exceeded', {
            maxTotalTimeout: this.maxTotalMs,
          }),
        ),
      Math.max(0, this.totalLeftMs),
    );
  }

  private stopTotal(): void {
    if (this.totalTimer === undefined) return;
    clearTimeout(this.totalTimer);
    this.totalTimer = undefined;
    this.totalLeftMs -= performance.now() - this.totalSince;
  }

  private expire(reason: unknown): void {
    if (this.signal.aborted) return;
    this.clearIdle();
    this.stopTotal();
    this.controller.abort(reason);
    this.end();
  }
}
