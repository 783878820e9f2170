/**
 * The gateway's requests in flight that run or wait on something (a tool call, a resource read,
 * a prompt get), per agent and per 2025 session. Two uses:
 *
 * - Answer first, then close. Revoking or removing an agent ends its sessions and streams; a
 *   request waiting for the person's approval must still be answered, with a sentence saying what
 *   happened, before its connection goes. `endAgent` aborts the agent's work with the reason
 *   (waitEnded.ts: the approval closes as cancelled, and the answer names the revocation), and
 *   resolves once every handler has returned and the SDK has written its answer — only then may
 *   the caller close the transports. (The SDK writes a handler's response in the microtasks after
 *   it returns, without I/O: one macrotask later it is in the response stream, which closing
 *   drains instead of dropping.) Aborting here, not the SDK's own request signal, is what keeps
 *   the answer: the SDK sends nothing for a request whose own signal was aborted.
 * - A 2025 session with work in flight is busy: it is not the one evicted to make room for a new
 *   session (gateway.ts), so a running call keeps the connection that will carry its answer.
 */
import { WaitEnded } from '../security/waitEnded.js';
import { settledWithin } from '../util/settledWithin.js';

/** One request's work: the signal it runs under, and how it ends. */
export interface Work {
  /** Aborted when the request's own signal is, or when the app ends the agent's work (its reason a WaitEnded). */
  readonly signal: AbortSignal;
  /** The handler is done (answered or failed). */
  done(): void;
}

interface Entry {
  agentId: string;
  session: string | undefined;
  controller: AbortController;
  settled: Promise<void>;
}

/** Bounds the wait for answers when ending an agent: a handler that ignores its abort must not hold a revocation. */
const END_WAIT_MS = 5_000;

export class CallsInFlight {
  private readonly entries = new Set<Entry>();

  /** Registers a request's work; `session`: its 2025 session id (none on 2026-07-28). */
  begin(agentId: string, session: string | undefined, requestSignal: AbortSignal): Work {
    const controller = new AbortController();
    let settle!: () => void;
    const entry: Entry = { agentId, session, controller, settled: new Promise<void>((resolve) => (settle = resolve)) };
    this.entries.add(entry);
    // The request's abort passes on to the one signal (AbortSignal.any per call cost more, and holds its sources until collected).
    const follow = (): void => controller.abort(requestSignal.reason);
    if (requestSignal.aborted) follow();
    else requestSignal.addEventListener('abort', follow, { once: true });
    return {
      signal: controller.signal,
      done: () => {
        requestSignal.removeEventListener('abort', follow);
        if (!this.entries.delete(entry)) return;
        // The SDK writes the handler's answer in the microtasks after it returns: one macrotask later it is written.
        setImmediate(settle);
      },
    };
  }

  /** The session has a request running or waiting. */
  busy(session: string): boolean {
    for (const entry of this.entries) if (entry.session === session) return true;
    return false;
  }

  /** Resolves once no request runs or waits (those in flight answered), or after `boundMs`. */
  async whenIdle(boundMs: number): Promise<void> {
    const until = Date.now() + boundMs;
    while (this.entries.size > 0 && Date.now() < until)
      await settledWithin(Promise.all([...this.entries].map((e) => e.settled)), until - Date.now());
  }

  /** Ends the agent's work with `why` (waitEnded.ts) and resolves once each request is answered (at most END_WAIT_MS). */
  async endAgent(agentId: string, why: string): Promise<void> {
    const mine = [...this.entries].filter((e) => e.agentId === agentId);
    if (mine.length === 0) return;
    const reason = new WaitEnded(why);
    for (const entry of mine) entry.controller.abort(reason);
    await settledWithin(Promise.all(mine.map((e) => e.settled)), END_WAIT_MS);
  }
}
