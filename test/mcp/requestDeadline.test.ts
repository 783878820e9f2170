/**
 * A tool call's deadline alone, on fake timers (its integration with real servers is in
 * personWaits.test.ts): the server's silence is timed only while a request is on the wire and
 * starts over on progress; the total runs across rounds; both pause while a person is asked and
 * go on from where they were; the end is told to whatever waited (`ServerRequestCallEnded`), however the
 * call ended.
 */
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CallDeadline } from '../../electron/mcp/requestDeadline.js';
import { ServerRequestCallEnded } from '../../electron/mcp/serverRequests.js';

/** A request on the wire until `settle` is called. */
function onTheWire(deadline: CallDeadline): { settle: () => void; done: Promise<unknown> } {
  let settle = (): void => undefined;
  const done = deadline.leg(() => new Promise<void>((resolve) => (settle = resolve))).catch((error: unknown) => error);
  return { settle: () => settle(), done };
}

function timeoutData(signal: AbortSignal): unknown {
  const reason: unknown = signal.reason;
  return reason instanceof SdkError && reason.code === SdkErrorCode.RequestTimeout ? reason.data : undefined;
}

describe('CallDeadline', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("times the server's silence only while a request is on the wire; progress starts it over", () => {
    const deadline = new CallDeadline(100, 10_000, undefined);
    vi.advanceTimersByTime(500); // between requests: nobody's silence
    expect(deadline.signal.aborted).toBe(false);
    onTheWire(deadline);
    vi.advanceTimersByTime(90);
    deadline.progress();
    vi.advanceTimersByTime(90);
    expect(deadline.signal.aborted).toBe(false);
    vi.advanceTimersByTime(10);
    expect(timeoutData(deadline.signal)).toEqual({ timeout: 100 });
    expect(deadline.ended.reason).toBeInstanceOf(ServerRequestCallEnded);
  });

  it("pauses while a person is asked: the server's silence starts over after the answer, the total goes on from where it was", () => {
    const deadline = new CallDeadline(100, 300, undefined);
    onTheWire(deadline);
    vi.advanceTimersByTime(80);
    const answered = deadline.waitForPerson();
    vi.advanceTimersByTime(60_000); // the person takes a minute
    expect(deadline.signal.aborted).toBe(false);
    answered();
    answered(); // once is enough; again changes nothing
    vi.advanceTimersByTime(99);
    deadline.progress();
    vi.advanceTimersByTime(99);
    deadline.progress();
    expect(deadline.signal.aborted).toBe(false);
    // 80 + 99 + 99 of the total's 300 ms are spent: it ends 22 ms later, not a minute ago.
    vi.advanceTimersByTime(22);
    expect(timeoutData(deadline.signal)).toEqual({ maxTotalTimeout: 300 });
  });

  it("the caller's cancel and a normal end both tell the waiting ask that the call ended", () => {
    const caller = new AbortController();
    const cancelled = new CallDeadline(100, 300, caller.signal);
    caller.abort(new Error('stop'));
    expect(cancelled.signal.reason).toEqual(new Error('stop'));
    expect(cancelled.ended.reason).toBeInstanceOf(ServerRequestCallEnded);

    const finished = new CallDeadline(100, 300, undefined);
    const { settle } = onTheWire(finished);
    settle();
    finished.end();
    expect(finished.signal.aborted).toBe(false);
    expect(finished.ended.reason).toBeInstanceOf(ServerRequestCallEnded);
    vi.advanceTimersByTime(1_000); // no timer is left running
    expect(finished.signal.aborted).toBe(false);
  });
});
