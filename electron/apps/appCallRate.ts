/**
 * How fast an MCP App may call tools: a token bucket per app instance (a rendered frame; the app
 * itself, server and tool, when the host page names no instance). Each call the bucket lets
 * through still goes through the whole pipeline (permission, approval, checkpoint, trace); a call
 * beyond it is refused before anything runs, with the code `app_rate_limited` and the rate named,
 * so the app can slow down. Before this, a hostile app's burst of 2,000 tool calls all ran.
 */

/** Calls an app instance may make at once after a quiet spell. */
export const APP_CALL_BURST = 20;
/** Calls per second an app instance may sustain. */
export const APP_CALLS_PER_SECOND = 5;
/** Buckets kept at most (the least recently used go first: an instance forgotten starts full again). */
const MAX_BUCKETS = 1_000;

interface Bucket {
  tokens: number;
  at: number;
}

export class AppCallRate {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly clock: () => number = Date.now,
    private readonly burst = APP_CALL_BURST,
    private readonly perSecond = APP_CALLS_PER_SECOND,
  ) {}

  /** Takes one call from `instance`'s bucket; false when it is empty (the call must not run). */
  take(instance: string): boolean {
    const now = this.clock();
    const bucket = this.buckets.get(instance) ?? { tokens: this.burst, at: now };
    this.buckets.delete(instance);
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    // Map order is insertion order: re-inserted last, the first entry is the least recently used.
    this.buckets.set(instance, bucket);
    if (this.buckets.size > MAX_BUCKETS) this.buckets.delete(this.buckets.keys().next().value as string);
    return allowed;
  }

  /** The sentence for a refused call. */
  sentence(): string {
    return `This app is calling tools too fast: an app may make ${this.burst} calls at once and then ${this.perSecond} per second. The call was not run; try again shortly.`;
  }
}
