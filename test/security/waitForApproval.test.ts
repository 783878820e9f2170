/**
 * `waitForApproval` with a callback that closes its request on abort (shared approvals): the
 * timeout is a deny unless a decision won the close, and a close that never reports is a deny.
 */
import { describe, expect, it } from 'vitest';
import type { ApprovalAnswer, ApprovalRequest } from '../../electron/security/approvals.js';
import { waitForApproval } from '../../electron/security/approvals.js';

const request: ApprovalRequest = {
  requestId: 'r',
  sessionId: 's',
  userId: 'u',
  toolName: 't',
  serverId: 'x',
  args: {},
  reason: 'asks',
  expiresAt: Date.now() + 1_000,
};

/** A callback that, once aborted, reports `winner` as what won its close (or never reports). */
const closing = (winner: ApprovalAnswer | undefined, closeWaitMs = 60_000) =>
  Object.assign(
    (_request: ApprovalRequest, signal: AbortSignal) =>
      new Promise<ApprovalAnswer>((resolve) => {
        if (winner) signal.addEventListener('abort', () => resolve(winner), { once: true });
      }),
    { closeWaitMs: () => closeWaitMs },
  );

describe('waitForApproval with a closing callback', () => {
  it('times out, but a decision that won the close is what the call does', async () => {
    const outcome = await waitForApproval(closing('allow-once'), request, { timeoutMs: 10 });
    expect(outcome).toMatchObject({ answer: 'allow-once', timedOut: false, cancelled: false });
  });

  it('times out and the close won: a deny for lack of an answer', async () => {
    const outcome = await waitForApproval(closing('deny'), request, { timeoutMs: 10 });
    expect(outcome).toMatchObject({ answer: 'deny', timedOut: true });
  });

  it('a close that never reports is a deny after closeWaitMs', async () => {
    const outcome = await waitForApproval(closing(undefined, 10), request, { timeoutMs: 10 });
    expect(outcome).toMatchObject({ answer: 'deny', timedOut: true });
  });

  it('a callback that does not close waits for nothing: the timeout is a deny at once', async () => {
    const outcome = await waitForApproval(closing('allow-once', 0), request, { timeoutMs: 10 });
    expect(outcome).toMatchObject({ answer: 'deny', timedOut: true });
  });
});
