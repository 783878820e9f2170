/**
 * History after the host restarts: when the bridge opens again, the store refetches the sessions
 * and, if the person was watching the old current session, switches to the new one and loads
 * its records. The client is a test double answering only History's channels.
 */
import { describe, expect, it } from 'vitest';
import type { ChannelName, HistoryRecordView, RequestOf, ResponseOf } from '../../shared/contract.js';
import type { BridgeClient, ConnectionState } from '../../renderer/src/bridge/index.js';
import { observable } from '../../renderer/src/bridge/observable.js';
import { bindBridge } from '../../renderer/src/state/bindBridge.js';
import { createAppStore } from '../../renderer/src/state/store.js';

function record(sessionId: string, callId: string): HistoryRecordView {
  return {
    sessionId,
    callId,
    userId: 'u',
    toolName: 'echo',
    serverId: 'fx',
    status: 'completed',
    args: {},
    attempts: 1,
    traceId: `t-${callId}`,
    createdAt: 1,
    updatedAt: 1,
  };
}

/** A host whose "current" GUI session and records the test changes between connections. */
function fakeHost() {
  const connection = observable<ConnectionState>({ status: 'connecting' });
  const host = {
    current: 'gui-old',
    records: new Map<string, HistoryRecordView[]>(),
    pageRequests: [] as string[],
  };
  const client: BridgeClient = {
    connection,
    retryNow: () => {},
    on: () => () => {},
    call<C extends ChannelName>(channel: C, request: RequestOf<C>): Promise<ResponseOf<C>> {
      if (channel === 'history.sessions') {
        const sessions = [...host.records].map(([sessionId, list]) => ({
          sessionId,
          count: list.length,
          started: 0,
          lastActivity: 1,
        }));
        return Promise.resolve({ current: host.current, sessions } as ResponseOf<C>);
      }
      if (channel === 'history.page') {
        const { sessionId } = request as RequestOf<'history.page'>;
        host.pageRequests.push(sessionId ?? '');
        return Promise.resolve({ records: host.records.get(sessionId ?? '') ?? [] } as ResponseOf<C>);
      }
      return new Promise<never>(() => {}); // the rest of the app is not part of this test
    },
  };
  return { client, connection, host };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1_000 && !check(); i++) await new Promise((r) => setTimeout(r, 0));
  expect(check()).toBe(true);
}

describe('History across a host restart', () => {
  it('follows the new current session when the person was on the old current one', async () => {
    const { client, connection, host } = fakeHost();
    host.records.set('gui-old', [record('gui-old', 'a')]);
    const store = createAppStore(client);
    const unbind = bindBridge(client, store);
    connection.set({ status: 'open' });
    await store.getState().openHistory();
    expect(store.getState().historySessionId).toBe('gui-old');
    expect(store.getState().historyRecords.map((r) => r.callId)).toEqual(['a']);

    // The host restarts with another session; the link drops and opens again.
    connection.set({ status: 'reconnecting', attempt: 1, retryAt: 0, reason: 'closed' });
    host.current = 'gui-new';
    host.records.set('gui-new', [record('gui-new', 'b')]);
    connection.set({ status: 'open' });

    await until(
      () =>
        store.getState().historySessionId === 'gui-new' &&
        store.getState().historyLoad === 'ready' &&
        store.getState().historyRecords[0]?.callId === 'b',
    );
    expect(store.getState().currentSessionId).toBe('gui-new');
    expect(store.getState().historySessions.map((s) => [s.sessionId, s.current])).toEqual([
      ['gui-new', true],
      ['gui-old', false],
    ]);
    expect(store.getState().historyRecords.map((r) => r.sessionId)).toEqual(['gui-new']);
    unbind();
  });

  it('stays on an older session the person chose, and refreshes the session list', async () => {
    const { client, connection, host } = fakeHost();
    host.current = 'gui-2';
    host.records.set('gui-1', [record('gui-1', 'x')]);
    host.records.set('gui-2', [record('gui-2', 'y')]);
    const store = createAppStore(client);
    const unbind = bindBridge(client, store);
    connection.set({ status: 'open' });
    await store.getState().openHistory();
    store.getState().selectHistorySession('gui-1');
    await until(() => store.getState().historyRecords[0]?.callId === 'x');

    connection.set({ status: 'reconnecting', attempt: 1, retryAt: 0, reason: 'closed' });
    host.current = 'gui-3';
    host.records.set('gui-1', [record('gui-1', 'x'), record('gui-1', 'x2')]);
    const requestsBefore = host.pageRequests.length;
    connection.set({ status: 'open' });

    await until(
      () =>
        store.getState().currentSessionId === 'gui-3' &&
        host.pageRequests.length > requestsBefore &&
        store.getState().historyRecords.length === 2,
    );
    expect(store.getState().historySessionId).toBe('gui-1');
    expect(host.pageRequests.slice(requestsBefore)).toEqual(['gui-1']);
    expect(store.getState().historySessions.find((s) => s.current)?.sessionId).toBe('gui-3');
    unbind();
  });
});
