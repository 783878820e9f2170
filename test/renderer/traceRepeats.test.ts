/** The timeline's "Same as above." rule: an approval request repeating the decision's reason just above. */
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../shared/traces.js';
import { repeatsReasonAbove } from '../../renderer/src/lib/traceFormat.js';

const reason = 'Server "fx" is not trusted, so echo asks first (its annotations are unverified hints)';
const decision = {
  seq: 1,
  at: 1,
  type: 'decision',
  data: { outcome: 'ask', reason, kind: 'default' },
} as unknown as TraceEvent;
const asked = (why: string) =>
  ({ seq: 2, at: 2, type: 'approval_requested', data: { approvalId: 'a1', reason: why } }) as unknown as TraceEvent;

describe('repeatsReasonAbove', () => {
  it('is true when the approval request gives the reason the decision above gave', () => {
    expect(repeatsReasonAbove(asked(reason), decision)).toBe(true);
  });
  it('is false for another reason, no event above, or a different pair of events', () => {
    expect(repeatsReasonAbove(asked('another reason'), decision)).toBe(false);
    expect(repeatsReasonAbove(asked(reason), undefined)).toBe(false);
    expect(repeatsReasonAbove(decision, asked(reason))).toBe(false);
  });
});
