/**
 * The tool calls in flight on one connection, for what a 2025-era server asks during a call.
 * Such a server sends its elicitation or sampling request as a request of its own. When it can be
 * tied to one call (client.ts: on HTTP the response stream it arrived on, on stdio the only call
 * in flight — `only()`), that call alone waits for it (`waitOf`). Otherwise nothing says which
 * call it belongs to, so every call in flight when the question arrives counts as waiting for it
 * (`personWaitBegins`). While someone answers, the waiting calls' deadlines pause
 * (requestDeadline.ts) — the server is not slow, the person (or the agent) is answering; once
 * all of them have ended, the question has nobody left to answer to, and its dialog is withdrawn
 * (the abort reason is `ServerRequestCallEnded`, so the dialog says the call ended).
 *
 * A question that arrives with no call in flight (a server asking on its own) is tied to none:
 * its dialog lasts until the person answers, it expires, or the server withdraws it.
 * A 2026-07-28 call asks through its own rounds and pauses only itself (inputRounds.ts).
 */
import type { CallDeadline } from './requestDeadline.js';
import type { PersonWait } from './serverRequests.js';
import { ServerRequestCallEnded } from './serverRequests.js';

/** A call in flight: at least its deadline; the client keeps what else it needs to answer for it (`T`). */
export interface TrackedCall {
  deadline: CallDeadline;
}

/** The call waits while its own question is answered: its deadline pauses, and the wait ends with the call. */
export function waitOf(call: TrackedCall): PersonWait {
  return { signal: call.deadline.ended, answered: call.deadline.waitForPerson() };
}

export class CallsInFlight<T extends TrackedCall = TrackedCall> {
  private readonly calls = new Set<T>();

  /** Tracks a call until it ends. */
  track(call: T): void {
    this.calls.add(call);
    call.deadline.whenOver(() => this.calls.delete(call));
  }

  /** The call in flight when it is the only one (a question can then only be its), else undefined. */
  only(): T | undefined {
    if (this.calls.size !== 1) return undefined;
    const [call] = this.calls;
    return call && !call.deadline.signal.aborted ? call : undefined;
  }

  /** A person is being asked: every call in flight waits for the answer, and the dialog ends when they all have. */
  personWaitBegins(): PersonWait {
    const waiting = [...this.calls].map((call) => call.deadline);
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
