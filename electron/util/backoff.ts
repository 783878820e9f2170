/**
 * The one backoff formula of the app: exponential with "equal jitter" — half the capped
 * exponential delay, plus a random share of the other half — so retries of many calls (or
 * reconnects of many servers dropped together) spread out but never come back at once, and a
 * wait is never shorter than half its step. Used by the tool-call retries
 * (harness/retryPolicy.ts) and the registry's reconnects (mcp/reconnectPolicy.ts); README
 * "Retries" lists every place that retries and what it may retry.
 */

export interface BackoffSteps {
  /** The delay of step 0; doubled at each step. */
  baseDelayMs: number;
  /** The cap of the exponential (before jitter). */
  maxDelayMs: number;
}

/** The wait before step `step` (0-based: 0 waits about `baseDelayMs`), between half and all of the capped exponential. */
export function backoffDelayMs(step: number, steps: BackoffSteps, random: () => number = Math.random): number {
  const exponential = Math.min(steps.maxDelayMs, steps.baseDelayMs * 2 ** Math.max(0, step));
  return Math.round(exponential / 2 + random() * (exponential / 2));
}
