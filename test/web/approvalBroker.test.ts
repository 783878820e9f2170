import { describe, expect, it } from 'vitest';
import { ApprovalBroker } from '../../electron/core/approvalBroker.js';
import type { EventName } from '../../shared/contract.js';
import { PermissionDecisionEngine } from '../../electron/security/permissions.js';
import { SecureToolExecutor } from '../../electron/security/secureExecutor.js';
import { MemoryRuleStore } from '../doubles/security/memoryRuleStore.js';

function setup(timeoutMs: number) {
  const events: Array<{ event: EventName; payload: unknown }> = [];
  const broker = new ApprovalBroker(
    (event, payload) => events.push({ event, payload }),
    (v) => JSON.parse(JSON.stringify(v).replace(/hunter2/g, '[redacted]')) as unknown,
  );
  const executor = new SecureToolExecutor({
    engine: new PermissionDecisionEngine(new MemoryRuleStore()),
    requestApproval: broker.request,
    approvalTimeoutMs: timeoutMs,
  });
  const authorize = () =>
    executor.authorize({
      subject: { toolName: 'append', serverId: 'fx', args: { line: 'x', password: 'hunter2' }, serverTrusted: false },
      sessionId: 's',
      userId: 'u',
    });
  return { events, broker, authorize };
}

describe('ApprovalBroker', () => {
  it('a pending approval times out to deny, and the dialog is told it expired', async () => {
    const { events, broker, authorize } = setup(150);
    await expect(authorize()).rejects.toMatchObject({ answer: 'timeout', timeoutMs: 150 });
    const requested = events.find((e) => e.event === 'approval.requested')?.payload as {
      requestId: string;
      args: Record<string, unknown>;
    };
    expect(requested.args).toEqual({ line: 'x', password: '[redacted]' });
    expect(events.at(-1)).toEqual({
      event: 'approval.closed',
      payload: { requestId: requested.requestId, outcome: 'expired' },
    });
    // A late answer is stale.
    expect(() => broker.answer(requested.requestId, 'allow-once')).toThrow(/not pending/);
    expect(broker.list()).toEqual([]);
  });

  it('accepts one answer per request id', async () => {
    const { events, broker, authorize } = setup(5_000);
    const pending = authorize();
    await new Promise((r) => setImmediate(r));
    const [request] = broker.list();
    expect(request).toBeDefined();
    broker.answer(request?.requestId ?? '', 'allow-once');
    await expect(pending).resolves.toMatchObject({ level: 'ALLOW', approvedBy: 'allow-once' });
    expect(() => broker.answer(request?.requestId ?? '', 'allow-once')).toThrow(/not pending/);
    expect(events.map((e) => e.event)).toEqual(['approval.requested', 'approval.closed']);
  });
});
