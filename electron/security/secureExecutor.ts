/**
 * The authorization gate every tool call passes before it can have an effect. Checkpointing
 * and execution happen elsewhere, after `authorize` resolves; when it throws, nothing ran.
 *
 * Order: the tool's guardrails (a refusal is final), then the permission decision, then — for
 * ASK — a session grant or a person's answer. Every step is reported as a SecurityEvent so the
 * trace shows why a call ran or did not.
 */
import { ApprovalCancelledError, PermissionDeniedError } from './errors.js';
import { waitEndedOf } from './waitEnded.js';
import type {
  ApprovalAnswer,
  ApprovalCallback,
  ApprovalOutcome,
  ApprovalRequest,
  CallerWait,
  SessionGrant,
} from './approvals.js';
import { DEFAULT_APPROVAL_TIMEOUT_MS, SessionGrants, newRequestId, waitForApproval } from './approvals.js';
import type { GuardrailResult } from './guardrails.js';
import type { PoisonFlag } from './poisoning.js';
import type { PinDecision, PinState, ToolPins } from './pins.js';
import type { HashedDefinition } from './toolDefinition.js';
import { toolChange } from './toolDiff.js';
import type { PermissionDecision, PermissionDecisionEngine, PermissionLevel, ToolCallSubject } from './permissions.js';
import { requireAsk } from './permissions.js';

export type SecurityEvent =
  | { type: 'guardrail'; ok: boolean; reason?: string }
  | { type: 'decision'; level: PermissionLevel; reason: PermissionDecision['reason'] }
  | { type: 'session_grant'; sessionId: string; serverId: string; toolName: string }
  | { type: 'approval_requested'; requestId: string; reason: string; expiresAt: number }
  | {
      type: 'approval_answered';
      requestId: string;
      answer: ApprovalAnswer;
      timedOut: boolean;
      cancelled: boolean;
      waitedMs: number;
    }
  | { type: 'rule_save_failed'; message: string };

export interface ToolCallAuthorizationRequest {
  subject: ToolCallSubject;
  sessionId: string;
  userId: string;
  /** The local tool's own checks (paths in roots, command guard); MCP tools have none. */
  guardrails?: () => Promise<GuardrailResult>;
  /** The tool's current schema fingerprint; "allow always" is bound to it. */
  schemaFingerprint?: string;
  /** How long the caller itself will wait, when known: shown in the dialog. */
  callerWait?: CallerWait;
  /**
   * The MCP tool's definition as listed now and its poisoning flags (issue 31): the decision that
   * lets the call run is pinned to it, and a definition that changed since asks again.
   */
  definition?: { serverUid: string; hashed: HashedDefinition; flags: readonly PoisonFlag[] };
}

export interface AuthorizeOptions {
  /** Cancels a pending approval; authorize then throws ApprovalCancelledError. */
  signal?: AbortSignal;
  onEvent?: (event: SecurityEvent) => void;
  /**
   * Asked only when a person would be asked (after the rules and session grants): true when the
   * call will run nothing — a recorded key whose stored result the caller replays — so nobody is
   * asked and authorize allows it. It may throw to refuse the call without asking
   * (a key reused with other arguments, still running, failed). A DENY rule refuses before it is
   * asked; an ALLOW needs no person, so it is not asked then either.
   */
  runsNothing?: () => boolean | Promise<boolean>;
  /**
   * Asked only when a person would be asked (after the rules and session grants): an earlier
   * decision that covers this use — an MCP App's own page, read for the call it shows, is allowed
   * when that call was and refused when it was not (waiting while that call is still being
   * decided). Undefined: nothing covers it, and the person is asked. A DENY rule refuses first.
   */
  impliedBy?: (signal: AbortSignal | undefined) => Promise<ImpliedDecision | undefined>;
}

/** What an earlier decision says of this use, with the reason the trace keeps. */
export interface ImpliedDecision {
  allowed: boolean;
  reason: string;
}

export interface Authorization {
  level: 'ALLOW';
  /** The permission decision before any approval (ALLOW, or ASK that was then approved). */
  decision: PermissionDecision;
  /** How an ASK became an allow; absent when the decision itself allowed. */
  approvedBy?: ApprovalAnswer;
  /** Something went wrong that did not block the call (e.g. "allow always" could not be saved). */
  warning?: string;
}

export interface SecureToolExecutorOptions {
  engine: PermissionDecisionEngine;
  requestApproval: ApprovalCallback;
  /** How long to wait for an answer before denying (read per request: a setting may change it). Default 120 000 ms. */
  approvalTimeoutMs?: number | (() => number);
  now?: () => number;
  /** Told after an answer changed what is allowed (a session grant, or a saved "always allow"). */
  onPermissionsChanged?: () => void;
  /** The tools' pinned definitions; without it nothing is pinned (the local tools' tests). */
  pins?: ToolPins;
}

export class SecureToolExecutor {
  private readonly engine: PermissionDecisionEngine;
  private readonly requestApproval: ApprovalCallback;
  private readonly approvalTimeout: () => number;
  private readonly now: () => number;
  private readonly grants = new SessionGrants();
  private readonly onPermissionsChanged: (() => void) | undefined;
  /** The tools' pinned definitions (shown in Permissions and the tool list). */
  readonly pins: ToolPins | undefined;

  constructor(options: SecureToolExecutorOptions) {
    this.pins = options.pins;
    this.engine = options.engine;
    this.requestApproval = options.requestApproval;
    const timeout = options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    this.approvalTimeout = typeof timeout === 'function' ? timeout : () => timeout;
    this.now = options.now ?? Date.now;
    this.onPermissionsChanged = options.onPermissionsChanged;
  }

  private permissionsChanged(): void {
    try {
      this.onPermissionsChanged?.();
    } catch {
      // a listener's failure must not change the outcome of the call
    }
  }

  /** Resolves when the call may run; throws PermissionDeniedError (or ApprovalCancelledError) when not. */
  async authorize(call: ToolCallAuthorizationRequest, options: AuthorizeOptions = {}): Promise<Authorization> {
    const fingerprint = call.schemaFingerprint ?? call.subject.schemaFingerprint;
    const subject: ToolCallSubject = {
      ...call.subject,
      ...(fingerprint !== undefined ? { schemaFingerprint: fingerprint } : {}),
      ...(call.definition?.flags.length ? { flagged: true } : {}),
    };
    const { toolName, serverId } = subject;
    if (options.signal?.aborted) throw cancelledError(subject, options.signal);

    let mustAsk: string | undefined;
    if (call.guardrails) {
      let result: GuardrailResult;
      try {
        result = await call.guardrails();
      } catch (error) {
        result = {
          ok: false,
          reason: `its safety check failed (${error instanceof Error ? error.message : 'unknown error'})`,
        };
      }
      mustAsk = guardrailVerdict(result, subject, options);
    }

    const decided = this.engine.decide(subject);
    const pinState = this.pinState(call);
    const decision = this.ruleDecision(decided, pinState, mustAsk, subject, options);
    if (decision.level === 'ALLOW') {
      // A rule's (or default's) allow binds the tool to what it is now, as an approval would.
      if (pinState?.state === 'unpinned')
        this.pin(call, 'rule', decision.reason.ruleId ? `rule:${decision.reason.ruleId}` : 'default');
      return { level: 'ALLOW', decision };
    }

    // A call that must be approved is approved each time: no session grant covers it (nor a changed tool).
    if (!mustAsk && pinState?.state !== 'changed' && this.grants.has(call.sessionId, serverId, toolName, fingerprint)) {
      emitTo(options, { type: 'session_grant', sessionId: call.sessionId, serverId, toolName });
      if (pinState?.state === 'unpinned') this.pin(call, 'allow-session', call.userId);
      return { level: 'ALLOW', decision, approvedBy: 'allow-session' };
    }

    // Nothing would run whatever the person answered: they are not asked (the caller replays).
    if (await options.runsNothing?.()) return { level: 'ALLOW', decision };

    // The person (or a rule) already decided what this use belongs to: they are not asked again.
    if (options.impliedBy && impliedAllows(await options.impliedBy(options.signal), subject, options))
      return { level: 'ALLOW', decision };

    const approvalTimeoutMs = this.approvalTimeout();
    const request = this.approvalRequest(call, subject, decision, pinState, approvalTimeoutMs);
    emitTo(options, {
      type: 'approval_requested',
      requestId: request.requestId,
      reason: request.reason,
      expiresAt: request.expiresAt,
    });
    const outcome = await waitForApproval(this.requestApproval, request, {
      timeoutMs: approvalTimeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const answer = answerAllows(outcome, request.requestId, subject, approvalTimeoutMs, options);
    // Any allow (re-)pins: the person saw this definition (and its diff, when it changed).
    if (call.definition) this.pin(call, answer, call.userId);

    if (answer === 'allow-session') {
      this.grants.grant(call.sessionId, serverId, toolName, fingerprint);
      this.permissionsChanged();
    }
    if (answer === 'allow-always') return this.allowAlways(subject, fingerprint, decision, options);
    return { level: 'ALLOW', decision, approvedBy: answer };
  }

  /** The rules' decision, made to ask for a changed tool or a guardrail's demand; a DENY throws here. */
  private ruleDecision(
    decided: PermissionDecision,
    pinState: PinState | undefined,
    mustAsk: string | undefined,
    subject: ToolCallSubject,
    options: AuthorizeOptions,
  ): PermissionDecision {
    const decision =
      pinState?.state === 'changed'
        ? changedAsk(decided, pinState.pin.pinnedAt, subject.toolName)
        : mustAsk
          ? requireAsk(decided, mustAsk)
          : decided;
    emitTo(options, { type: 'decision', level: decision.level, reason: decision.reason });
    if (decision.level === 'DENY') {
      const { kind, ruleId } = decision.reason;
      throw denied(
        subject,
        'DENY',
        undefined,
        decision.reason.detail,
        kind === 'rule' ? { by: 'rule', ...(ruleId ? { ruleId } : {}) } : { by: 'default' },
      );
    }
    return decision;
  }

  /** What the person is shown: the call, why it asks, until when, and what changed in the tool or looks wrong. */
  private approvalRequest(
    call: ToolCallAuthorizationRequest,
    subject: ToolCallSubject,
    decision: PermissionDecision,
    pinState: PinState | undefined,
    approvalTimeoutMs: number,
  ): ApprovalRequest {
    return {
      requestId: newRequestId(),
      sessionId: call.sessionId,
      userId: call.userId,
      toolName: subject.toolName,
      serverId: subject.serverId,
      args: structuredClone(subject.args),
      ...(subject.annotations ? { annotations: { ...subject.annotations } } : {}),
      reason: decision.reason.detail,
      expiresAt: this.now() + approvalTimeoutMs,
      ...(call.callerWait ? { callerWait: call.callerWait } : {}),
      ...(pinState?.state === 'changed' && call.definition
        ? { change: toolChange(pinState.pin, call.definition.hashed) }
        : {}),
      ...(call.definition?.flags.length ? { flags: call.definition.flags.map((f) => ({ ...f })) } : {}),
    };
  }

  /** The person's "always allow" becomes a rule; the call is allowed even when the rule cannot be saved. */
  private async allowAlways(
    subject: ToolCallSubject,
    fingerprint: string | undefined,
    decision: PermissionDecision,
    options: AuthorizeOptions,
  ): Promise<Authorization> {
    const { toolName, serverId } = subject;
    try {
      await this.engine.addRule({
        id: `approved:${JSON.stringify([serverId, toolName])}`,
        level: 'ALLOW',
        match: {
          serverId,
          toolName,
          ...(fingerprint !== undefined ? { schemaFingerprint: fingerprint } : {}),
          ...(subject.serverUid !== undefined ? { serverUid: subject.serverUid } : {}),
        },
        note: `Always allow ${toolName} on ${serverId}`,
      });
      this.permissionsChanged();
    } catch (error) {
      // The person did allow this call; only the "always" part is lost, and they are told.
      const message = `The call was allowed, but "always allow" could not be saved (${error instanceof Error ? error.message : 'unknown error'}); it will ask again next time.`;
      emitTo(options, { type: 'rule_save_failed', message });
      return { level: 'ALLOW', decision, approvedBy: 'allow-always', warning: message };
    }
    return { level: 'ALLOW', decision, approvedBy: 'allow-always' };
  }

  private pinState(call: ToolCallAuthorizationRequest): PinState | undefined {
    const d = call.definition;
    return d && this.pins ? this.pins.check(d.serverUid, call.subject.toolName, d.hashed.hash) : undefined;
  }

  private pin(call: ToolCallAuthorizationRequest, decision: PinDecision, pinnedBy: string): void {
    const d = call.definition;
    if (!d || !this.pins) return;
    try {
      this.pins.pin({
        serverUid: d.serverUid,
        serverId: call.subject.serverId,
        toolName: call.subject.toolName,
        hash: d.hashed.hash,
        definition: d.hashed.definition,
        pinnedAt: this.now(),
        pinnedBy,
        decision,
      });
      this.permissionsChanged();
    } catch {
      // Not saved: the call was decided all the same; the tool stays unpinned (or at its old pin) and asks as such.
    }
  }

  /** The "allow for this session" grants of a session (shown, and revocable, in the GUI). */
  sessionGrants(sessionId: string): SessionGrant[] {
    return this.grants.list(sessionId);
  }

  /** Revokes one "allow for this session" grant: the tool asks again. Returns whether it existed. */
  revokeSessionGrant(sessionId: string, serverId: string, toolName: string): boolean {
    const revoked = this.grants.revoke(sessionId, serverId, toolName);
    if (revoked) this.permissionsChanged();
    return revoked;
  }
}

/** A changed tool asks whatever the rules said; a DENY still denies (issue 31). */
function changedAsk(decided: PermissionDecision, pinnedAt: number, toolName: string): PermissionDecision {
  if (decided.level === 'DENY') return decided;
  return {
    level: 'ASK',
    reason: {
      kind: 'tool-changed',
      detail: `${toolName} changed since it was approved on ${new Date(pinnedAt).toISOString()}: its definition differs, so it asks again whatever the rules say`,
    },
  };
}

/** The app's reason, when the app (not the caller) ended the wait: the denial then says what happened. */
function cancelledWhy(signal: AbortSignal | undefined): [] | [string] {
  const ended = waitEndedOf(signal);
  return ended ? [ended.why] : [];
}

/** Reports one step to the caller's listener: a broken trace listener must not turn a decision into something else. */
function emitTo(options: AuthorizeOptions, event: SecurityEvent): void {
  try {
    options.onEvent?.(event);
  } catch {
    // ignored: see above
  }
}

function denied(
  subject: ToolCallSubject,
  level: PermissionLevel,
  answer: PermissionDeniedError['answer'],
  reason: string,
  decidedBy?: PermissionDeniedError['decidedBy'],
  timeoutMs?: number,
): PermissionDeniedError {
  return new PermissionDeniedError(subject.toolName, subject.serverId, level, answer, reason, decidedBy, timeoutMs);
}

function cancelledError(subject: ToolCallSubject, signal: AbortSignal | undefined): ApprovalCancelledError {
  return new ApprovalCancelledError(subject.toolName, subject.serverId, 'ASK', ...cancelledWhy(signal));
}

/** The tool's own checks, reported; a refusal is final. Returns why the call must be asked, if it must. */
function guardrailVerdict(
  result: GuardrailResult,
  subject: ToolCallSubject,
  options: AuthorizeOptions,
): string | undefined {
  emitTo(
    options,
    result.ok ? { type: 'guardrail', ok: true } : { type: 'guardrail', ok: false, reason: result.reason },
  );
  if (!result.ok) throw denied(subject, 'DENY', undefined, result.reason, { by: 'guardrail' });
  if (options.signal?.aborted) throw cancelledError(subject, options.signal);
  return result.mustAsk;
}

/** An earlier decision covering this use: true when it allows, a denial when it refuses, false when none covers it. */
function impliedAllows(
  implied: ImpliedDecision | undefined,
  subject: ToolCallSubject,
  options: AuthorizeOptions,
): boolean {
  if (options.signal?.aborted) throw cancelledError(subject, options.signal);
  if (implied?.allowed) return true;
  if (implied) throw denied(subject, 'ASK', 'deny', implied.reason);
  return false;
}

/** The person's answer, reported: an allow is returned, anything else (cancelled, timed out, failed, denied) throws. */
function answerAllows(
  outcome: ApprovalOutcome,
  requestId: string,
  subject: ToolCallSubject,
  approvalTimeoutMs: number,
  options: AuthorizeOptions,
): Exclude<ApprovalAnswer, 'deny'> {
  emitTo(options, {
    type: 'approval_answered',
    requestId,
    answer: outcome.answer,
    timedOut: outcome.timedOut,
    cancelled: outcome.cancelled,
    waitedMs: outcome.waitedMs,
  });
  if (outcome.cancelled) throw cancelledError(subject, options.signal);
  if (outcome.timedOut)
    throw denied(
      subject,
      'ASK',
      'timeout',
      `nobody answered the approval request within ${Math.round(approvalTimeoutMs / 1000)} s`,
      undefined,
      approvalTimeoutMs,
    );
  if (outcome.failed) throw denied(subject, 'ASK', 'error', 'the approval request could not be shown or answered');
  if (outcome.answer === 'deny') throw denied(subject, 'ASK', 'deny', 'the user denied it');
  return outcome.answer;
}
