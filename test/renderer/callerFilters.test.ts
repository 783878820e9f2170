/**
 * The caller filter in the renderer: History asks for one caller's calls across every session (an
 * agent's calls are spread over its sessions) and tells records apart by session and call id
 * together; Traces passes the caller and keeps live traces of other callers out of the list.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { HistoryRecordView } from '../../shared/contract.js';
import type { TraceSummary } from '../../shared/traces.js';
import { HISTORY_PAGE_SIZE, recordKey } from '../../renderer/src/state/slices/historySlice.js';
import { TRACE_PAGE_SIZE } from '../../renderer/src/state/slices/tracesSlice.js';
import { createAppStore } from '../../renderer/src/state/store.js';
import { FakeClient } from '../doubles/renderer/fakeClient.js';

function record(sessionId: string, callId: string, userId: string): HistoryRecordView {
  return {
    sessionId,
    callId,
    userId,
    toolName: 'echo',
    serverId: 'fs',
    status: 'completed',
    args: {},
    attempts: 1,
    traceId: `t-${sessionId}-${callId}`,
    createdAt: 1,
    updatedAt: 1,
  };
}

function trace(traceId: string, userId: string): TraceSummary {
  return {
    traceId,
    sessionId: 's',
    callId: traceId,
    userId,
    toolName: 'echo',
    serverId: 'fs',
    status: 'ok',
    startedAt: 1,
  };
}

describe('the caller filter', () => {
  let client: FakeClient;
  let store: ReturnType<typeof createAppStore>;
  const state = () => store.getState();

  beforeEach(() => {
    client = new FakeClient();
    store = createAppStore(client);
  });

  it('History: choosing an agent shows its calls of every session; records with the same call id in two sessions stay apart', async () => {
    const open = state().openHistory();
    client
      .next('history.sessions')
      .resolve({ current: 'gui', sessions: [{ sessionId: 'gui', count: 1, started: 0, lastActivity: 20 }] });
    await vi.waitFor(() => client.next('history.page'));
    client.next('history.page').resolve({ records: [record('gui', 'c1', 'gui')] });
    await open;

    state().setHistoryFilters({ userId: 'Claude Code' });
    expect(state().historyAllSessions).toBe(true);
    // No session in the request: the agent's records of every session.
    expect(client.next('history.page').request).toEqual({ userId: 'Claude Code', limit: HISTORY_PAGE_SIZE });
    client.next('history.page').resolve({
      records: [
        record('agent:a:mcp-1', 'request-2', 'Claude Code'),
        record('agent:a:mcp-2', 'request-2', 'Claude Code'),
      ],
    });
    await vi.waitFor(() => expect(state().historyRecords).toHaveLength(2));

    // Paging on keeps both (deduplicated by session and call id, not call id alone).
    store.setState({ historyCursor: 'next' });
    const more = state().loadMoreHistory();
    expect(client.next('history.page').request).toEqual({
      userId: 'Claude Code',
      limit: HISTORY_PAGE_SIZE,
      cursor: 'next',
    });
    client.next('history.page').resolve({
      records: [
        record('agent:a:mcp-2', 'request-2', 'Claude Code'),
        record('agent:a:mcp-3', 'request-2', 'Claude Code'),
      ],
    });
    await more;
    expect(state().historyRecords.map((r) => r.sessionId)).toEqual(['agent:a:mcp-1', 'agent:a:mcp-2', 'agent:a:mcp-3']);

    state().selectHistoryRecord(recordKey({ sessionId: 'agent:a:mcp-2', callId: 'request-2' }));
    expect(
      state()
        .historyRecords.filter((r) => recordKey(r) === state().selectedRecordKey)
        .map((r) => r.sessionId),
    ).toEqual(['agent:a:mcp-2']);

    // Choosing a session again narrows to it, the caller filter kept.
    state().selectHistorySession('gui');
    expect(state().historyAllSessions).toBe(false);
    expect(client.next('history.page').request).toEqual({
      sessionId: 'gui',
      userId: 'Claude Code',
      limit: HISTORY_PAGE_SIZE,
    });
  });

  it('Traces: the caller goes in the request, and a live trace of another caller does not enter the list', async () => {
    const load = state().loadTraces();
    client.next('traces.list').resolve({ traces: [] });
    await load;
    state().setTraceFilters({ userId: 'gui' });
    expect(client.next('traces.list').request).toEqual({ userId: 'gui', limit: TRACE_PAGE_SIZE });
    client.next('traces.list').resolve({ traces: [trace('t1', 'gui')] });
    await vi.waitFor(() => expect(state().traces).toHaveLength(1));

    state().applyTraceChanged(trace('t2', 'Claude Code'));
    state().applyTraceChanged(trace('t3', 'gui'));
    expect(
      state()
        .traces.map((t) => t.traceId)
        .sort(),
    ).toEqual(['t1', 't3']);
  });
});
