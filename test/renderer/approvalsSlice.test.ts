/** The approvals queue: oldest first, one answer per request id, and how a request closes. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApprovalView } from '../../shared/contract.js';
import { bindBridge } from '../../renderer/src/state/bindBridge.js';
import { ENDED_LINGER_MS } from '../../renderer/src/state/slices/approvalsSlice.js';
import { createAppStore } from '../../renderer/src/state/store.js';
import { FakeClient, bridgeError } from '../doubles/renderer/fakeClient.js';

function approval(requestId: string, expiresAt: number, toolName = `tool-${requestId}`): ApprovalView {
  return {
    requestId,
    sessionId: 'gui',
    userId: 'gui',
    toolName,
    serverId: 'fs',
    args: { path: '/tmp/x' },
    reason: 'asks by default',
    expiresAt,
  };
}

describe('approvals slice', () => {
  let client: FakeClient;
  let store: ReturnType<typeof createAppStore>;
  let unbind: () => void;
  const ids = () => store.getState().approvals.map((p) => p.view.requestId);

  beforeEach(() => {
    client = new FakeClient();
    store = createAppStore(client);
    unbind = bindBridge(client, store);
  });
  afterEach(() => {
    unbind();
    vi.useRealTimers();
  });

  it('keeps the queue oldest first, whatever order requests arrive in, and ignores a repeated request', () => {
    client.emit('approval.requested', approval('b', 2_000));
    client.emit('approval.requested', approval('c', 3_000));
    client.emit('approval.requested', approval('a', 1_000));
    client.emit('approval.requested', approval('b', 2_000, 'renamed'));
    expect(ids()).toEqual(['a', 'b', 'c']);
    expect(store.getState().approvals[1]?.view.toolName).toBe('tool-b');
  });

  it('merges approvals.list with what arrived as events, keeping an answer in flight', async () => {
    client.emit('approval.requested', approval('b', 2_000));
    void store.getState().answerApproval('b', 'allow-once');
    const load = store.getState().loadApprovals();
    client.next('approvals.list').resolve([approval('c', 3_000), approval('b', 2_000), approval('a', 1_000)]);
    await load;
    expect(ids()).toEqual(['a', 'b', 'c']);
    expect(store.getState().approvals.find((p) => p.view.requestId === 'b')?.answering).toBe('allow-once');
    expect(store.getState().approvalsLoad).toBe('ready');
  });

  it('sends one answer per request id: repeated clicks while it is in flight send nothing', async () => {
    client.emit('approval.requested', approval('a', 1_000));
    client.emit('approval.requested', approval('b', 2_000));
    const first = store.getState().answerApproval('a', 'allow-once');
    await store.getState().answerApproval('a', 'deny');
    await store.getState().answerApproval('a', 'allow-always');
    expect(client.callsTo('approvals.answer').map((c) => c.request)).toEqual([
      { requestId: 'a', answer: 'allow-once' },
    ]);
    expect(store.getState().approvals[0]?.answering).toBe('allow-once');

    // Another request is answered independently.
    const second = store.getState().answerApproval('b', 'deny');
    expect(client.callsTo('approvals.answer').map((c) => c.request)).toEqual([
      { requestId: 'a', answer: 'allow-once' },
      { requestId: 'b', answer: 'deny' },
    ]);
    client.next('approvals.answer').resolve({ accepted: true });
    await first;
    expect(ids()).toEqual(['b']);
    client.next('approvals.answer').resolve({ accepted: true });
    await second;
    expect(ids()).toEqual([]);
    // Answered and gone: a late click sends nothing.
    await store.getState().answerApproval('a', 'deny');
    expect(client.callsTo('approvals.answer')).toHaveLength(2);
  });

  it('a failed send can be answered again; a stale one is shown as refused, then goes', async () => {
    vi.useFakeTimers();
    client.emit('approval.requested', approval('a', 1_000));
    const failed = store.getState().answerApproval('a', 'allow-once');
    client.next('approvals.answer').reject(bridgeError('disconnected'));
    await failed;
    expect(store.getState().approvals[0]).toMatchObject({ answering: undefined, ended: undefined });

    const stale = store.getState().answerApproval('a', 'deny');
    client.next('approvals.answer').reject(bridgeError('stale_approval'));
    await stale;
    expect(store.getState().approvals[0]).toMatchObject({ ended: 'refused', answering: undefined });
    expect(store.getState().notices.at(-1)?.text).toMatch(/no longer pending/);
    await store.getState().answerApproval('a', 'allow-once'); // ended: no further answer
    expect(client.callsTo('approvals.answer')).toHaveLength(2);

    vi.advanceTimersByTime(ENDED_LINGER_MS);
    expect(ids()).toEqual([]);
  });

  it('closing: answered elsewhere removes it; expired and cancelled say so, then go', () => {
    vi.useFakeTimers();
    client.emit('approval.requested', approval('a', 1_000, 'write_file'));
    client.emit('approval.requested', approval('b', 2_000, 'run_command'));
    client.emit('approval.requested', approval('c', 3_000));
    store.getState().deferApproval('a');

    client.emit('approval.closed', { requestId: 'a', outcome: 'answered' });
    expect(ids()).toEqual(['b', 'c']);
    expect(store.getState().deferredApprovals).toEqual([]);

    client.emit('approval.closed', { requestId: 'b', outcome: 'expired' });
    client.emit('approval.closed', { requestId: 'c', outcome: 'cancelled' });
    expect(store.getState().approvals.map((p) => [p.view.requestId, p.ended])).toEqual([
      ['b', 'expired'],
      ['c', 'cancelled'],
    ]);
    expect(store.getState().notices.map((n) => n.text)).toEqual([
      expect.stringMatching(/run_command expired.*nothing ran/),
      expect.stringMatching(/cancelled before it was approved; nothing ran/),
    ]);
    // A second close of an ended request changes nothing; an unknown one is ignored.
    client.emit('approval.closed', { requestId: 'b', outcome: 'cancelled' });
    client.emit('approval.closed', { requestId: 'zzz', outcome: 'expired' });
    expect(store.getState().notices).toHaveLength(2);

    vi.advanceTimersByTime(ENDED_LINGER_MS - 1);
    expect(ids()).toEqual(['b', 'c']);
    vi.advanceTimersByTime(1);
    expect(ids()).toEqual([]);
    expect(client.callsTo('approvals.answer')).toHaveLength(0);
  });

  it('answered by someone else on a shared instance: the page says who decided, and how', () => {
    client.emit('approval.requested', approval('a', 1_000, 'write_file'));
    client.emit('approval.requested', approval('b', 2_000, 'run_command'));
    client.emit('approval.closed', { requestId: 'a', outcome: 'answered', decidedBy: 'Bob Approver', answer: 'deny' });
    client.emit('approval.closed', {
      requestId: 'b',
      outcome: 'answered',
      decidedBy: 'CLI (ops)',
      answer: 'allow-once',
    });
    expect(ids()).toEqual([]);
    expect(store.getState().notices.map((n) => n.text)).toEqual([
      'Bob Approver denied write_file.',
      'CLI (ops) allowed run_command.',
    ]);
  });

  it('a refused session forgets every pending approval', () => {
    client.emit('approval.requested', approval('a', 1_000));
    client.connection.set({ status: 'unauthorized', reason: 'rejected' });
    expect(ids()).toEqual([]);
  });
});
