/**
 * Where the stores get "now" from. Injected so tests control time (ordering, durations,
 * pagination ties) instead of sleeping.
 */
export type Clock = () => number;

/** Epoch milliseconds from the system clock. */
export const systemClock: Clock = () => Date.now();

/**
 * Reads a clock as whole epoch milliseconds. Time columns are STRICT INTEGER, and an
 * injected clock may return fractions (performance-based clocks do).
 */
export function nowMs(clock: Clock): number {
  return Math.round(clock());
}
