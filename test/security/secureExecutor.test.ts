import { describe, expect, it } from 'vitest';
import type { ApprovalAnswer, ApprovalCallback, ApprovalRequest } from '../../electron/security/approvals.js';
import { ApprovalCancelledError, PermissionDeniedError } from '../../electron/security/errors.js';
import type { GuardrailResult } from '../../electron/security/guardrails.js';
import type { PermissionRule, ToolCallSubject } from '../../electron/security/permissions.js';
import { PermissionDecisionEngine } from '../../electron/security/permissions.js';
import type { SecurityEvent, ToolCallAuthorizationRequest } from '../../electron/security/secureExecutor.js';
import { SecureToolExecutor } from '../../electron/security/secureExecutor.js';
import { MemoryRuleStore } from '../doubles/security/memoryRuleStore.js';

/** An approval callback that answers from a script and records what it was asked. */
function scriptedApprover(...answers: ApprovalAnswer[]) {
  const requests: ApprovalRequest[] = [];
  const signals: AbortSignal[] = [];
  const callback: ApprovalCallback = async (request, signal) => {
    requests.push(request);
    signals.push(signal);
    const answer = answers.shift();
    if (!answer) throw new Error('unexpected approval request');
    return answer;
  };
  return { callback, requests, signals };
}

/** A callback that never answers on its own. */
function silentApprover() {
  const signals: AbortSignal[] = [];
  const callback: ApprovalCallback = (_request, signal) => {
    signals.push(signal);
    return new Promise<ApprovalAnswer>(() => undefined);
  };
  return { callback, signals };
}

function untrusted(overrides: Partial<ToolCallSubject> = {}): ToolCallSubject {
  return { toolName: 'append', serverId: 'fixture', args: { text: 'x' }, serverTrusted: false, ...overrides };
}

function call(overrides: Partial<ToolCallAuthorizationRequest> = {}): ToolCallAuthorizationRequest {
  return { subject: untrusted(), sessionId: 's1', userId: 'u1', ...overrides };
}

/** What the real pipeline does: run the side effect only if authorize resolved. */
async function authorizeThenRun(
  executor: SecureToolExecutor,
  request: ToolCallAuthorizationRequest,
  effect: () => void,
  options = {},
) {
  const authorization = await executor.authorize(request, options);
  effect();
  return authorization;
}

function setup(answers: ApprovalCallback, rules: PermissionRule[] = [], approvalTimeoutMs?: number) {
  const store = new MemoryRuleStore(rules);
  const engine = new PermissionDecisionEngine(store, rules);
  const executor = new SecureToolExecutor({
    engine,
    requestApproval: answers,
    ...(approvalTimeoutMs ? { approvalTimeoutMs } : {}),
  });
  return { store, engine, executor };
}

describe('SecureToolExecutor', () => {
  it('DENY: the approval callback is never called and the side effect never happens', async () => {
    const approver = scriptedApprover('allow-once');
    const { executor } = setup(approver.callback, [
      { id: 'r', level: 'DENY', match: { serverId: 'fixture', toolName: 'append' }, note: 'deny writes', createdAt: 1 },
    ]);
    let effects = 0;
    const events: SecurityEvent[] = [];
    const error = await authorizeThenRun(executor, call(), () => effects++, {
      onEvent: (e: SecurityEvent) => events.push(e),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error).toMatchObject({
      toolName: 'append',
      serverId: 'fixture',
      level: 'DENY',
      answer: undefined,
      reason: 'Rule "deny writes" denies append on fixture',
    });
    expect(effects).toBe(0);
    expect(approver.requests).toHaveLength(0);
    expect(events).toEqual([
      {
        type: 'decision',
        level: 'DENY',
        reason: { kind: 'rule', ruleId: 'r', detail: 'Rule "deny writes" denies append on fixture' },
      },
    ]);
  });

  it('a guardrail refusal denies before any decision, even when a rule allows', async () => {
    const approver = scriptedApprover('allow-once');
    const { executor } = setup(approver.callback, [
      { id: 'ok', level: 'ALLOW', match: { serverId: 'fixture' }, createdAt: 1 },
    ]);
    let effects = 0;
    const events: SecurityEvent[] = [];
    const guardrails = async (): Promise<GuardrailResult> => ({
      ok: false,
      reason: 'the path is outside the allowed folders',
    });
    await expect(
      authorizeThenRun(executor, call({ guardrails }), () => effects++, {
        onEvent: (e: SecurityEvent) => events.push(e),
      }),
    ).rejects.toMatchObject({
      level: 'DENY',
      reason: 'the path is outside the allowed folders',
    });
    expect(effects).toBe(0);
    expect(events).toEqual([{ type: 'guardrail', ok: false, reason: 'the path is outside the allowed folders' }]);
  });

  it('a guardrail that throws is a refusal', async () => {
    const { executor } = setup(scriptedApprover().callback, [{ id: 'ok', level: 'ALLOW', match: {}, createdAt: 1 }]);
    const guardrails = async (): Promise<GuardrailResult> => {
      throw new Error('stat failed');
    };
    await expect(executor.authorize(call({ guardrails }))).rejects.toThrow(/stat failed/);
  });

  it('ALLOW by default for a trusted read-only tool: nobody is asked', async () => {
    const approver = scriptedApprover();
    const { executor } = setup(approver.callback);
    let effects = 0;
    const result = await authorizeThenRun(
      executor,
      call({ subject: untrusted({ serverTrusted: true, annotations: { readOnlyHint: true } }) }),
      () => effects++,
    );
    expect(result).toMatchObject({
      level: 'ALLOW',
      decision: { level: 'ALLOW', reason: { kind: 'trusted-annotation-default' } },
    });
    expect(result.approvedBy).toBeUndefined();
    expect(effects).toBe(1);
    expect(approver.requests).toHaveLength(0);
  });

  it('ASK + allow-once: runs once, asks again next time; events in order', async () => {
    const approver = scriptedApprover('allow-once', 'deny');
    const { executor } = setup(approver.callback);
    let effects = 0;
    const events: SecurityEvent[] = [];
    const first = await authorizeThenRun(executor, call({ guardrails: async () => ({ ok: true }) }), () => effects++, {
      onEvent: (e: SecurityEvent) => events.push(e),
    });
    expect(first).toMatchObject({ level: 'ALLOW', approvedBy: 'allow-once', decision: { level: 'ASK' } });
    expect(effects).toBe(1);
    expect(events.map((e) => e.type)).toEqual(['guardrail', 'decision', 'approval_requested', 'approval_answered']);

    const request = approver.requests[0]!;
    expect(request).toMatchObject({
      sessionId: 's1',
      userId: 'u1',
      toolName: 'append',
      serverId: 'fixture',
      args: { text: 'x' },
    });
    expect(request.reason).toMatch(/not trusted/);
    expect(request.expiresAt).toBeGreaterThan(Date.now());
    expect(events[2]).toEqual({
      type: 'approval_requested',
      requestId: request.requestId,
      reason: request.reason,
      expiresAt: request.expiresAt,
    });
    expect(events[3]).toMatchObject({
      type: 'approval_answered',
      requestId: request.requestId,
      answer: 'allow-once',
      timedOut: false,
    });

    await expect(authorizeThenRun(executor, call(), () => effects++)).rejects.toMatchObject({
      level: 'ASK',
      answer: 'deny',
    });
    expect(effects).toBe(1);
    expect(approver.requests).toHaveLength(2);
    expect(approver.requests[1]!.requestId).not.toBe(request.requestId);
  });

  it('no answer within approvalTimeoutMs is a deny, and the dialog signal is aborted', async () => {
    const approver = silentApprover();
    const { executor } = setup(approver.callback, [], 200);
    let effects = 0;
    const events: SecurityEvent[] = [];
    const started = performance.now();
    const error = await authorizeThenRun(executor, call(), () => effects++, {
      onEvent: (e: SecurityEvent) => events.push(e),
    }).catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error).toMatchObject({ answer: 'timeout', level: 'ASK' });
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(approver.signals[0]!.aborted).toBe(true);
    expect(effects).toBe(0);
    expect(events.at(-1)).toMatchObject({ type: 'approval_answered', answer: 'deny', timedOut: true });
    expect((events.at(-1) as { waitedMs: number }).waitedMs).toBeGreaterThanOrEqual(190);
  });

  it('a callback that throws, or answers nonsense, denies', async () => {
    const throwing: ApprovalCallback = async () => {
      throw new Error('window closed');
    };
    await expect(setup(throwing).executor.authorize(call())).rejects.toMatchObject({ answer: 'error' });
    const nonsense: ApprovalCallback = async () => 'yes please' as ApprovalAnswer;
    await expect(setup(nonsense).executor.authorize(call())).rejects.toMatchObject({ answer: 'error' });
  });

  it('the caller aborting during approval cancels it: dialog signal aborted, nothing runs', async () => {
    const approver = silentApprover();
    const { executor } = setup(approver.callback, [], 10_000);
    const controller = new AbortController();
    let effects = 0;
    setTimeout(() => controller.abort(), 50);
    const error = await authorizeThenRun(executor, call(), () => effects++, { signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApprovalCancelledError);
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(approver.signals[0]!.aborted).toBe(true);
    expect(effects).toBe(0);
  });

  it('an already-aborted signal never asks', async () => {
    const approver = scriptedApprover('allow-once');
    const controller = new AbortController();
    controller.abort();
    await expect(
      setup(approver.callback).executor.authorize(call(), { signal: controller.signal }),
    ).rejects.toBeInstanceOf(ApprovalCancelledError);
    expect(approver.requests).toHaveLength(0);
  });

  it('allow-session is remembered for that session, server and tool only', async () => {
    const approver = scriptedApprover('allow-session', 'deny', 'deny', 'deny', 'deny');
    const { executor } = setup(approver.callback);
    const events: SecurityEvent[] = [];

    await executor.authorize(call({ schemaFingerprint: 'v1' }));
    const again = await executor.authorize(call({ schemaFingerprint: 'v1' }), { onEvent: (e) => events.push(e) });
    expect(again.approvedBy).toBe('allow-session');
    expect(events.map((e) => e.type)).toEqual(['decision', 'session_grant']);
    expect(approver.requests).toHaveLength(1);

    await expect(executor.authorize(call({ sessionId: 's2', schemaFingerprint: 'v1' }))).rejects.toBeInstanceOf(
      PermissionDeniedError,
    );
    await expect(
      executor.authorize(call({ subject: untrusted({ toolName: 'delete' }), schemaFingerprint: 'v1' })),
    ).rejects.toBeInstanceOf(PermissionDeniedError);
    // The tool changed mid-session: the grant no longer covers it.
    await expect(executor.authorize(call({ schemaFingerprint: 'v2' }))).rejects.toBeInstanceOf(PermissionDeniedError);
    expect(approver.requests).toHaveLength(4);
  });

  it('allow-always persists an ALLOW rule bound to the fingerprint; a changed tool asks again', async () => {
    const approver = scriptedApprover('allow-always');
    const { executor, store } = setup(approver.callback);
    await executor.authorize(call({ schemaFingerprint: 'sha256:v1' }));
    expect(store.saves).toHaveLength(1);
    expect(store.saves[0]).toEqual([
      expect.objectContaining({
        level: 'ALLOW',
        match: { serverId: 'fixture', toolName: 'append', schemaFingerprint: 'sha256:v1' },
      }),
    ]);

    // A fresh app start: the rule comes back from the store.
    const nextApprover = scriptedApprover('deny');
    const engine = await PermissionDecisionEngine.load(store);
    const restarted = new SecureToolExecutor({ engine, requestApproval: nextApprover.callback });
    const allowed = await restarted.authorize(call({ sessionId: 'other', schemaFingerprint: 'sha256:v1' }));
    expect(allowed).toMatchObject({ level: 'ALLOW', decision: { reason: { kind: 'rule' } } });
    expect(allowed.approvedBy).toBeUndefined();
    expect(nextApprover.requests).toHaveLength(0);

    await expect(restarted.authorize(call({ schemaFingerprint: 'sha256:v2' }))).rejects.toMatchObject({
      answer: 'deny',
    });
    expect(nextApprover.requests).toHaveLength(1);
  });

  it('allow-always that cannot be saved still allows this call, with a warning', async () => {
    const approver = scriptedApprover('allow-always', 'deny');
    const { executor, store, engine } = setup(approver.callback);
    store.failSaves = true;
    const events: SecurityEvent[] = [];
    const result = await executor.authorize(call({ schemaFingerprint: 'v1' }), { onEvent: (e) => events.push(e) });
    expect(result.approvedBy).toBe('allow-always');
    expect(result.warning).toMatch(/could not be saved/);
    expect(events.at(-1)).toMatchObject({ type: 'rule_save_failed' });
    expect(engine.listRules()).toEqual([]);
    await expect(executor.authorize(call({ schemaFingerprint: 'v1' }))).rejects.toBeInstanceOf(PermissionDeniedError);
  });

  it('a throwing event listener does not change the outcome', async () => {
    const { executor } = setup(scriptedApprover('allow-once').callback);
    const result = await executor.authorize(call(), {
      onEvent: () => {
        throw new Error('trace broke');
      },
    });
    expect(result.approvedBy).toBe('allow-once');
  });

  describe('impliedBy: an earlier decision that covers this use (an MCP App’s page, for the call it shows)', () => {
    it('allowed: nobody is asked, and it is asked only where a person would be', async () => {
      const approver = scriptedApprover();
      const { executor } = setup(approver.callback);
      let asked = 0;
      const impliedBy = async () => {
        asked += 1;
        return { allowed: true, reason: 'its call was allowed' };
      };
      await expect(executor.authorize(call(), { impliedBy })).resolves.toMatchObject({ level: 'ALLOW' });
      expect(approver.requests).toHaveLength(0);
      expect(asked).toBe(1);
      // An ALLOW needs nobody: the earlier decision is not consulted.
      await executor.authorize(
        call({ subject: untrusted({ annotations: { readOnlyHint: true }, serverTrusted: true }) }),
        {
          impliedBy,
        },
      );
      expect(asked).toBe(1);
    });

    it('refused: denied with its reason, nobody asked; a DENY rule refuses before it is consulted', async () => {
      const approver = scriptedApprover();
      const { executor } = setup(approver.callback);
      const error = await executor
        .authorize(call(), { impliedBy: async () => ({ allowed: false, reason: 'its call was denied' }) })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PermissionDeniedError);
      expect((error as PermissionDeniedError).reason).toBe('its call was denied');
      expect(approver.requests).toHaveLength(0);

      const denying = setup(scriptedApprover().callback, [
        { id: 'r', level: 'DENY', match: { serverId: 'fixture', toolName: 'append' }, note: 'no', createdAt: 1 },
      ]);
      let consulted = false;
      await expect(
        denying.executor.authorize(call(), {
          impliedBy: async () => {
            consulted = true;
            return { allowed: true, reason: 'x' };
          },
        }),
      ).rejects.toBeInstanceOf(PermissionDeniedError);
      expect(consulted).toBe(false);
    });

    it('nothing covers it: the person is asked as usual', async () => {
      const approver = scriptedApprover('allow-once');
      const { executor } = setup(approver.callback);
      await executor.authorize(call(), { impliedBy: async () => undefined });
      expect(approver.requests).toHaveLength(1);
    });
  });
});
