/**
 * The app's one backoff formula (util/backoff.ts) and its two users: the tool-call retries
 * (attempt 2 = the first retry) and the registry's reconnects (attempt 1 = the first reconnect)
 * wait the same way for the same step — between half and all of the capped exponential.
 */
import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_RETRY_POLICY } from '../../electron/harness/retryPolicy.js';
import { reconnectDelay } from '../../electron/mcp/reconnectPolicy.js';
import { backoffDelayMs } from '../../electron/util/backoff.js';

const steps = { baseDelayMs: 100, maxDelayMs: 1_000 };

describe('backoff', () => {
  it('doubles per step up to the cap, jittered between half and all of it', () => {
    expect([0, 1, 2, 3, 4, 10].map((step) => backoffDelayMs(step, steps, () => 1))).toEqual([
      100, 200, 400, 800, 1_000, 1_000,
    ]);
    expect([0, 1, 2, 3, 4, 10].map((step) => backoffDelayMs(step, steps, () => 0))).toEqual([
      50, 100, 200, 400, 500, 500,
    ]);
    expect(backoffDelayMs(-3, steps, () => 1)).toBe(100);
  });

  it('is the one formula behind tool-call retries and reconnects', () => {
    for (const random of [0, 0.25, 0.5, 0.99]) {
      for (let step = 0; step < 8; step++) {
        const expected = backoffDelayMs(step, steps, () => random);
        expect(backoffDelay(step + 2, { ...DEFAULT_RETRY_POLICY, ...steps }, () => random)).toBe(expected);
        expect(reconnectDelay(step + 1, { ...steps, stableAfterMs: 30_000, random: () => random })).toBe(expected);
      }
    }
  });
});
