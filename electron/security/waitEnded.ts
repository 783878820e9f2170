/**
 * Why the app itself ended a call that was waiting — for the person's approval, or for its
 * server — rather than the caller cancelling it: the agent was revoked or removed, the server was
 * removed, disabled or went away. It travels as the abort signal's `reason`, so whoever turns the
 * cancellation into an answer (secureExecutor.ts's ApprovalCancelledError, the gateway's tool
 * result) can say what happened instead of a bare "cancelled". `why` is one clause a person or a
 * model can read ("this agent's access was revoked in MiniHarness"), never arguments or secrets.
 */
export class WaitEnded extends Error {
  constructor(readonly why: string) {
    super(why);
    this.name = 'WaitEnded';
  }
}

/** The app's reason a signal was aborted, when the app (not the caller) ended the wait. */
export function waitEndedOf(signal: AbortSignal | undefined): WaitEnded | undefined {
  return signal?.aborted && signal.reason instanceof WaitEnded ? signal.reason : undefined;
}
