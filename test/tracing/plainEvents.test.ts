/**
 * The tracer's hand check of the pipeline's own events (plainEvent, tracer.ts) never lets through
 * what the schema (shared/traces.ts) would refuse, and stores what the schema would: over edge values
 * of every key (-0, 2^53, NaN, Infinity, fractions, words outside the enum, extra keys, missing ones).
 * A schema tightened later without the hand check fails here.
 */
import { describe, expect, it } from 'vitest';
import { SecretRedactor } from '../../electron/secrets/secretRedactor.js';
import { plainEvent } from '../../electron/tracing/tracer.js';
import type { TraceEventType } from '../../shared/traces.js';
import { TraceEventDataSchemas } from '../../shared/traces.js';

const NUMBERS: unknown[] = [0, -0, 1, 2, 1.5, -1, 2 ** 53, 2 ** 53 - 1, Number.NaN, Infinity, '1', null, undefined];
const VALUES: Record<string, unknown[]> = {
  outcome: [
    'allow',
    'deny',
    'ask',
    'claimed',
    'replayed',
    'in_progress',
    'ok',
    'error',
    'timeout',
    'rejected',
    'other',
    '',
    1,
    undefined,
  ],
  attempt: NUMBERS,
  durationMs: NUMBERS,
  contentBlocks: NUMBERS,
  recoverable: [true, false, 'true', 0, undefined],
  isError: [true, false, 'false', 1, undefined],
  reason: ['matched rule r1', '', 1, null, undefined],
  ruleId: ['r1', '', 0, undefined],
};

/** Every combination of two keys' edge values, with the other keys at a valid value, plus an extra key. */
function cases(type: TraceEventType): Array<Record<string, unknown>> {
  const keys = Object.keys(TraceEventDataSchemas[type].shape);
  const base = Object.fromEntries(keys.map((k) => [k, (VALUES[k] ?? [undefined])[0]]));
  const out: Array<Record<string, unknown>> = [{ ...base }, { ...base, extra: 1 }, { ...base, token: 'x' }];
  for (const a of keys)
    for (const va of VALUES[a] ?? [])
      for (const b of keys) for (const vb of VALUES[b] ?? []) out.push({ ...base, [a]: va, [b]: vb });
  return out;
}

describe('the hand-checked trace events agree with the schema', () => {
  for (const type of ['decision', 'claim', 'attempt_started', 'attempt_finished', 'completed'] as const) {
    it(`${type}: what the hand check takes, the schema takes, and as the same data`, () => {
      let taken = 0;
      for (const data of cases(type)) {
        const plain = plainEvent(type, data, (text) => text);
        if (plain === undefined) continue;
        taken++;
        const parsed = TraceEventDataSchemas[type].safeParse(data);
        expect(parsed.success, `${type} ${JSON.stringify(data)}`).toBe(true);
        expect(plain).toEqual(parsed.data);
      }
      // The check is exercised: valid data is taken by hand.
      expect(taken).toBeGreaterThan(0);
    });
  }
});

describe('the decision’s texts', () => {
  it('are stored with known secrets replaced, as the redaction walk stores any string', () => {
    const secret = 'sk-live-0123456789';
    const data = {
      outcome: 'deny',
      reason: `refused: the command names ${secret}`,
      kind: 'rule',
      ruleId: `rule ${secret}`,
    };
    const redactor = new SecretRedactor([secret]);
    const redactText = (text: string) => redactor.redactText(text);
    const stored = plainEvent('decision', data, redactText);
    expect(stored).toEqual({
      outcome: 'deny',
      reason: 'refused: the command names [redacted]',
      kind: 'rule',
      ruleId: 'rule [redacted]',
    });
    // The same as the full path's walk would have stored.
    expect(stored).toEqual(redactor.redact(data));
    // Not a text: a number where the schema wants a string is the full path's to refuse.
    expect(plainEvent('decision', { ...data, reason: 1 }, redactText)).toBeUndefined();
  });
});
