/**
 * The tool calls in flight on one connection, for what a 2025-era server asks the person during
 * a call. Such a server sends its elicitation or sampling request as a request of its own, and
 * nothing on the wire says which call it belongs to (stdio has no such link at all): so every
 * call in flight when the question arrives counts as waiting for it. While the person is asked,
 * their deadlines pause (requestDeadline.ts) — the server is not slow, the person is answering;
 * once all of them have ended, the question has nobody left to answer to, and its dialog is
 * withdrawn (the abort reason is `ServerRequestCallEnded`, so the dialog says the call ended).
 *
 * A question that arrives with no call in flight (a server asking on its own) is tied to none:
 * its dialog lasts until the person answers, it expires, or the server withdraws it.
 * A 2026-07-28 call asks through its own rounds and pauses only itself (inputRounds.ts).
 */
import type { CallDeadline } from './requestDeadline.js';
import type { PersonWait } from './serverRequests.js';
import { ServerRequestCallEnded } from './serverRequests.js';

export class CallsInFlight {
  private readonly calls = new Set<CallDeadline>();

  /** Tracks a call until it ends. */
  track(deadline: CallDeadline): void {
    this.calls.add(deadline);
    deadline.whenOver(() => this.calls.delete(deadline));
  }

  /** A person is being asked: every call in flight waits for the answer, and the dialog ends when they all have. */
  personWaitBegins(): PersonWait {
    const waiting = [...this.calls];
    if (waiting.length === 0) return { signal: undefined, answered: () => undefined };
    const resumes = waiting.map((call) => call.waitForPerson());
    const allEnded = new AbortController();
    let open = waiting.length;
    for (const call of waiting) {
      const onEnd = (): void => {
        if (--open === 0) allEnded.abort(new ServerRequestCallEnded());
      };
      if (call.ended.aborted) onEnd();
      else call.ended.addEventListener('abort', onEnd, { once: true });
    }
    return {
      signal: allEnded.signal,
      answered: () => {
        for (const resume of resumes) resume();
      },
    };
  }
}
