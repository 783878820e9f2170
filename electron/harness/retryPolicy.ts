/**
 * Which failures are retried, and how long to wait between attempts.
 *
 * A retry must never repeat a side effect the server may already have performed. So only
 * failures that prove the request did not run are recoverable: the server could not be reached
 * (connection refused, not connected), or it answered with a configured "not processed, try
 * again" HTTP status (429, 503). A timeout, a server that died mid-call, a proxy's 502 or 504
 * (the proxy reached — or waited for — the server, which may have acted: they prove nothing
 * about the server) or a cancelled call leaves the outcome unknown: those are retried only for
 * tools known to be idempotent (annotations are trusted only for local tools and trusted
 * servers), and never after the caller cancelled. README "Retries" lists every retry site.
 */
import { MCPError, MCPServerUnavailableError, MCPTransportError, MCPUnreachableError } from '../mcp/errors.js';
import { backoffDelayMs } from '../util/backoff.js';

export interface RetryPolicy {
  /** Attempts in all, the first included (1 = never retry). */
  maxAttempts: number;
  /** Delay before the second attempt; doubles each time, up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** HTTP statuses that mean "not processed, try again" (the server's own refusal, never a proxy's guess). */
  retryHttpStatuses: number[];
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  maxAttempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 5_000,
  retryHttpStatuses: [429, 503],
});

export interface RetryContext {
  /** The tool is idempotent by a trusted annotation: repeating it is harmless. */
  idempotent: boolean;
  /** The caller cancelled: nothing is retried. */
  cancelled: boolean;
}

export type RetryVerdict = { retry: true; reason: string } | { retry: false; reason: string };

/** Outcome unknown: the request may have reached the server and acted. */
const UNKNOWN_OUTCOME_CODES = new Set(['timeout', 'server_exited']);
/** A proxy's Bad Gateway / Gateway Timeout: the server behind it may have received the request and acted. */
const UNKNOWN_OUTCOME_HTTP_STATUSES = new Set([502, 504]);

export function classifyFailure(error: unknown, policy: RetryPolicy, context: RetryContext): RetryVerdict {
  if (context.cancelled) return { retry: false, reason: 'the call was cancelled' };
  if (error instanceof MCPUnreachableError)
    return { retry: true, reason: 'the server could not be reached; the request was not sent' };
  if (error instanceof MCPServerUnavailableError)
    return { retry: true, reason: 'the server was not connected; the request was not sent' };
  if (
    error instanceof MCPTransportError &&
    error.httpStatus !== undefined &&
    policy.retryHttpStatuses.includes(error.httpStatus)
  ) {
    return { retry: true, reason: `the server answered HTTP ${error.httpStatus} (not processed)` };
  }
  if (
    error instanceof MCPTransportError &&
    error.httpStatus !== undefined &&
    UNKNOWN_OUTCOME_HTTP_STATUSES.has(error.httpStatus)
  ) {
    return context.idempotent
      ? { retry: true, reason: `a proxy answered HTTP ${error.httpStatus}; the tool is idempotent` }
      : {
          retry: false,
          reason: `a proxy answered HTTP ${error.httpStatus}: the server behind it may have acted, and the tool is not known to be idempotent`,
        };
  }
  if (error instanceof MCPError && UNKNOWN_OUTCOME_CODES.has(error.code)) {
    return context.idempotent
      ? {
          retry: true,
          reason: `${error.code === 'timeout' ? 'timed out' : 'the server was lost'}; the tool is idempotent`,
        }
      : { retry: false, reason: 'the outcome is unknown and the tool is not known to be idempotent' };
  }
  return { retry: false, reason: 'this kind of failure is not retried' };
}

/** The wait before attempt `nextAttempt` (2 = the first retry, about `baseDelayMs`): the app's one backoff (util/backoff.ts). */
export function backoffDelay(nextAttempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  return backoffDelayMs(nextAttempt - 2, policy, random);
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason instanceof Error ? signal.reason : new Error('cancelled'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
