/**
 * Deadlines of a tool call beyond the SDK's own: a hard end at the maximum total time a call may
 * run while it reports progress. The SDK checks its `maxTotalTimeout` only when progress arrives,
 * and then rejects without telling the server; this timer ends the call on time, through the
 * SDK's cancel path (`notifications/cancelled`, or on modern HTTP the response stream closed).
 */
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';

/** How long a progress-reporting call may run in all when the server's config sets no maximum: 10 minutes. */
export const DEFAULT_MAX_TOTAL_TIMEOUT_MS = 600_000;

export async function withMaxTotal<T>(maxTotalMs: number, callerSignal: AbortSignal | undefined, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onCallerAbort = (): void => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted) onCallerAbort();
  callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  const timer = setTimeout(() => {
    controller.abort(new SdkError(SdkErrorCode.RequestTimeout, 'Maximum total timeout exceeded', { maxTotalTimeout: maxTotalMs }));
  }, maxTotalMs);
  try {
    return await run(controller.signal);
  } finally {
    clearTimeout(timer);
    callerSignal?.removeEventListener('abort', onCallerAbort);
  }
}
