/**
 * Asking a person: the approval request, the answers it can get, and the rules around waiting
 * for one. Anything but an explicit allow is a deny — no answer in time, an answer that is not
 * one of the four, a dialog that failed, a caller that gave up.
 */
import { randomUUID } from 'node:crypto';
import type { ToolChangeView } from '../../shared/contract/toolPins.js';
import type { ToolAnnotationHints } from './permissions.js';
import type { PoisonFlag } from './poisoning.js';

export type ApprovalAnswer = 'allow-once' | 'allow-session' | 'allow-always' | 'deny';

const ANSWERS: ReadonlySet<string> = new Set<ApprovalAnswer>(['allow-once', 'allow-session', 'allow-always', 'deny']);

export interface ApprovalRequest {
  /** Random and used for this request only; the GUI answers (and dismisses) by it. */
  requestId: string;
  sessionId: string;
  userId: string;
  toolName: string;
  serverId: string;
  args: Record<string, unknown>;
  annotations?: ToolAnnotationHints;
  /** Why it asks, for the dialog. */
  reason: string;
  /** Epoch ms after which the request counts as denied. */
  expiresAt: number;
  /** How long the caller itself waits for the answer, when known (an agent's client: callerWait.ts), for the dialog. */
  callerWait?: CallerWait;
  /** The tool changed since it was pinned: what changed (issue 31). */
  change?: ToolChangeView;
  /** The tool's poisoning flags, each naming its passage. */
  flags?: PoisonFlag[];
}

/** When the caller stops waiting (epoch ms) and how that is known, in words for the dialog. */
export interface CallerWait {
  until: number;
  basis: string;
}

/** Shows the request and resolves with the answer; `signal` aborts when the answer is no longer wanted. */
export type ApprovalCallback = ((request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalAnswer>) &
  ClosesOnAbort;

/**
 * A callback whose request is closed by a step that can lose to a decision made at that instant
 * (shared approvals: one conditional UPDATE each). After `signal` aborts, its promise still settles
 * with the winner — `deny` when the request closed, else the decision — and `waitForApproval` waits
 * for it at most `closeWaitMs()` (0 or absent: the abort is a deny at once).
 */
export interface ClosesOnAbort {
  closeWaitMs?: () => number;
}

/** The executor's default when no setting is given: the app's default (settingsService.ts says why 55 s). */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 55_000;

export interface ApprovalOutcome {
  /** `deny` unless the callback gave an allow in time. */
  answer: ApprovalAnswer;
  timedOut: boolean;
  /** The caller's signal aborted while waiting. */
  cancelled: boolean;
  /** The callback threw or answered something that is not an ApprovalAnswer. */
  failed: boolean;
  waitedMs: number;
}

export function newRequestId(): string {
  return randomUUID();
}

/**
 * Calls the approval callback and waits for it, at most `timeoutMs`. On timeout or caller abort
 * the callback's signal is aborted (so the GUI drops the dialog) and the outcome is a deny;
 * a late answer is ignored — unless the callback closes its request on abort (`ClosesOnAbort`):
 * then the outcome is what won the close, a deny or a decision made at that instant.
 */
export function waitForApproval<R = ApprovalRequest>(
  callback: ((request: R, signal: AbortSignal) => Promise<ApprovalAnswer>) & ClosesOnAbort,
  request: R,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<ApprovalOutcome> {
  const started = performance.now();
  const dialog = new AbortController();
  return new Promise<ApprovalOutcome>((resolvePromise) => {
    let settled = false;
    const finish = (
      answer: ApprovalAnswer,
      flags: Partial<Pick<ApprovalOutcome, 'timedOut' | 'cancelled' | 'failed'>> = {},
    ) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onCallerAbort);
      if (answer === 'deny' && !dialog.signal.aborted)
        dialog.abort(new Error(flags.timedOut ? 'approval timed out' : 'approval no longer needed'));
      resolvePromise({
        answer,
        timedOut: flags.timedOut ?? false,
        cancelled: flags.cancelled ?? false,
        failed: flags.failed ?? false,
        waitedMs: Math.round(performance.now() - started),
      });
    };
    const closeWaitMs = callback.closeWaitMs?.() ?? 0;
    /** Set once the wait stopped (timeout or caller abort) and the callback closes its request. */
    let closing: { timedOut?: boolean; cancelled?: boolean } | undefined;
    const stop = (flags: { timedOut?: boolean; cancelled?: boolean }) => {
      if (settled || closing) return;
      if (closeWaitMs <= 0) return finish('deny', flags);
      closing = flags;
      clearTimeout(timer);
      dialog.abort(new Error(flags.timedOut ? 'approval timed out' : 'approval no longer needed'));
      // Bounded: a close that never reports is a deny.
      setTimeout(() => finish('deny', flags), closeWaitMs).unref();
    };
    const onCallerAbort = () => stop({ cancelled: true });
    const timer = setTimeout(() => stop({ timedOut: true }), options.timeoutMs);

    if (options.signal?.aborted) {
      finish('deny', { cancelled: true });
      return;
    }
    options.signal?.addEventListener('abort', onCallerAbort, { once: true });

    let pending: Promise<ApprovalAnswer>;
    try {
      pending = Promise.resolve(callback(request, dialog.signal));
    } catch {
      finish('deny', { failed: true });
      return;
    }
    pending.then(
      (answer) => {
        // Closing: a decision that won the close is what the call does; anything else is the stop's deny.
        if (closing)
          return ANSWERS.has(answer as string) && answer !== 'deny' ? finish(answer) : finish('deny', closing);
        return ANSWERS.has(answer as string) ? finish(answer) : finish('deny', { failed: true });
      },
      () => finish('deny', closing ?? { failed: true }),
    );
  });
}

/**
 * "Allow for this session" grants, in memory only. A grant is keyed by session, server and
 * tool, and remembers the tool's fingerprint: if the tool changes mid-session, it asks again.
 */
/** One "allow for this session" answer: the tool, as it was when allowed. */
export interface SessionGrant {
  serverId: string;
  toolName: string;
  schemaFingerprint?: string;
}

export class SessionGrants {
  private readonly grants = new Map<string, string | undefined>();

  private static key(sessionId: string, serverId: string, toolName: string): string {
    // JSON keeps ids containing separators from colliding.
    return JSON.stringify([sessionId, serverId, toolName]);
  }

  grant(sessionId: string, serverId: string, toolName: string, schemaFingerprint?: string): void {
    this.grants.set(SessionGrants.key(sessionId, serverId, toolName), schemaFingerprint);
  }

  has(sessionId: string, serverId: string, toolName: string, schemaFingerprint?: string): boolean {
    const key = SessionGrants.key(sessionId, serverId, toolName);
    return this.grants.has(key) && this.grants.get(key) === schemaFingerprint;
  }

  /** Every grant of a session, for the GUI (which tools run without asking until it ends). */
  list(sessionId: string): SessionGrant[] {
    const out: SessionGrant[] = [];
    for (const [key, schemaFingerprint] of this.grants) {
      const [session, serverId, toolName] = JSON.parse(key) as [string, string, string];
      if (session === sessionId)
        out.push({ serverId, toolName, ...(schemaFingerprint !== undefined ? { schemaFingerprint } : {}) });
    }
    return out;
  }

  /** Forgets one grant; returns whether it existed. */
  revoke(sessionId: string, serverId: string, toolName: string): boolean {
    return this.grants.delete(SessionGrants.key(sessionId, serverId, toolName));
  }

  /** Forgets every grant of a session (it ended). */
  revokeSession(sessionId: string): void {
    for (const key of [...this.grants.keys()]) {
      if ((JSON.parse(key) as string[])[0] === sessionId) this.grants.delete(key);
    }
  }

  clear(): void {
    this.grants.clear();
  }
}
