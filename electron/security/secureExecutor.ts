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
import type { ApprovalAnswer, ApprovalCallback, ApprovalRequest, CallerWait, SessionGrant } from './approvals.js';
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
    const emit = (event: SecurityEvent) => {
      try {
        options.onEvent?.(event);
      } catch {
        // A broken trace listener must not turn a decision into something else.
      }
    };
    const fingerprint = call.schemaFingerprint ?? call.subject.schemaFingerprint;
    const subject: ToolCallSubject = {
      ...call.subject,
      ...(fingerprint !== undefined ? { schemaFingerprint: fingerprint } : {}),
      ...(call.definition?.flags.length ? { flagged: true } : {}),
    };
    const { toolName, serverId } = subject;
    const deny = (
      level: PermissionLevel,
      answer: PermissionDeniedError['answer'],
      reason: string,
      decidedBy?: PermissionDeniedError['decidedBy'],
      timeoutMs?: number,
    ) => new PermissionDeniedError(toolName, serverId, level, answer, reason, decidedBy, timeoutMs);

    if (options.signal?.aborted)
      throw new ApprovalCancelledError(toolName, serverId, 'ASK', ...cancelledWhy(options.signal));

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
      emit(result.ok ? { type: 'guardrail', ok: true } : { type: 'guardrail', ok: false, reason: result.reason });
      if (!result.ok) throw deny('DENY', undefined, result.reason, { by: 'guardrail' });
      mustAsk = result.mustAsk;
      if (options.signal?.aborted)
        throw new ApprovalCancelledError(toolName, serverId, 'ASK', ...cancelledWhy(options.signal));
    }

    const decided = this.engine.decide(subject);
    const pinState = this.pinState(call);
    const decision =
      pinState?.state === 'changed'
        ? changedAsk(decided, pinState.pin.pinnedAt, toolName)
        : mustAsk
          ? requireAsk(decided, mustAsk)
          : decided;
    emit({ type: 'decision', level: decision.level, reason: decision.reason });
    if (decision.level === 'DENY') {
      const { kind, ruleId } = decision.reason;
      throw deny(
        'DENY',
        undefined,
        decision.reason.detail,
        kind === 'rule' ? { by: 'rule', ...(ruleId ? { ruleId } : {}) } : { by: 'default' },
      );
    }
    if (decision.level === 'ALLOW') {
      // A rule's (or default's) allow binds the tool to what it is now, as an approval would.
      if (pinState?.state === 'unpinned')
        this.pin(call, 'rule', decision.reason.ruleId ? `rule:${decision.reason.ruleId}` : 'default');
      return { level: 'ALLOW', decision };
    }

    // A call that must be approved is approved each time: no session grant covers it (nor a changed tool).
    if (!mustAsk && pinState?.state !== 'changed' && this.grants.has(call.sessionId, serverId, toolName, fingerprint)) {
      emit({ type: 'session_grant', sessionId: call.sessionId, serverId, toolName });
      if (pinState?.state === 'unpinned') this.pin(call, 'allow-session', call.userId);
      return { level: 'ALLOW', decision, approvedBy: 'allow-session' };
    }

    // Nothing would run whatever the person answered: they are not asked (the caller replays).
    if (await options.runsNothing?.()) return { level: 'ALLOW', decision };

    // The person (or a rule) already decided what this use belongs to: they are not asked again.
    if (options.impliedBy) {
      const implied = await options.impliedBy(options.signal);
      if (options.signal?.aborted)
        throw new ApprovalCancelledError(toolName, serverId, 'ASK', ...cancelledWhy(options.signal));
      if (implied?.allowed) return { level: 'ALLOW', decision };
      if (implied) throw deny('ASK', 'deny', implied.reason);
    }

    const approvalTimeoutMs = this.approvalTimeout();
    const request: ApprovalRequest = {
      requestId: newRequestId(),
      sessionId: call.sessionId,
      userId: call.userId,
      toolName,
      serverId,
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
    emit({
      type: 'approval_requested',
      requestId: request.requestId,
      reason: request.reason,
      expiresAt: request.expiresAt,
    });
    const outcome = await waitForApproval(this.requestApproval, request, {
      timeoutMs: approvalTimeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    emit({
      type: 'approval_answered',
      requestId: request.requestId,
      answer: outcome.answer,
      timedOut: outcome.timedOut,
      cancelled: outcome.cancelled,
      waitedMs: outcome.waitedMs,
    });

    if (outcome.cancelled) throw new ApprovalCancelledError(toolName, serverId, 'ASK', ...cancelledWhy(options.signal));
    if (outcome.timedOut)
      throw deny(
        'ASK',
        'timeout',
        `nobody answered the approval request within ${Math.round(approvalTimeoutMs / 1000)} s`,
        undefined,
        approvalTimeoutMs,
      );
    if (outcome.failed) throw deny('ASK', 'error', 'the approval request could not be shown or answered');
    if (outcome.answer === 'deny') throw deny('ASK', 'deny', 'the user denied it');
    // Any allow (re-)pins: the person saw this definition (and its diff, when it changed).
    if (call.definition) this.pin(call, outcome.answer, call.userId);

    if (outcome.answer === 'allow-session') {
      this.grants.grant(call.sessionId, serverId, toolName, fingerprint);
      this.permissionsChanged();
    }
    if (outcome.answer === 'allow-always') {
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
        emit({ type: 'rule_save_failed', message });
        return { level: 'ALLOW', decision, approvedBy: outcome.answer, warning: message };
      }
    }
    return { level: 'ALLOW', decision, approvedBy: outcome.answer };
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
