/** History: the default session, keyset paging by cursor, and switching sessions with stale answers ignored. */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { HistoryRecordView } from '../../shared/contract.js';
import { HISTORY_PAGE_SIZE } from '../../renderer/src/state/slices/historySlice.js';
import { createAppStore } from '../../renderer/src/state/store.js';
import { FakeClient, bridgeError } from '../doubles/renderer/fakeClient.js';

function record(
  sessionId: string,
  callId: string,
  status: HistoryRecordView['status'] = 'completed',
): HistoryRecordView {
  return {
    sessionId,
    callId,
    userId: 'u',
    toolName: 'echo',
    serverId: 'fs',
    status,
    args: {},
    attempts: 1,
    traceId: `t-${callId}`,
    createdAt: 1,
    updatedAt: 1,
  };
}

const callIds = (records: HistoryRecordView[]) => records.map((r) => r.callId);

describe('history slice', () => {
  let client: FakeClient;
  let store: ReturnType<typeof createAppStore>;
  const state = () => store.getState();

  beforeEach(() => {
    client = new FakeClient();
    store = createAppStore(client);
  });

  /** Opens History with sessions `gui` (current) and `old`, and answers the first page. */
  async function openOn(records: HistoryRecordView[], nextCursor?: string) {
    const open = state().openHistory();
    client.next('history.sessions').resolve({
      current: 'gui',
      sessions: [
        { sessionId: 'gui', count: 3, started: 0, lastActivity: 20 },
        { sessionId: 'old', count: 5, started: 1, lastActivity: 10 },
      ],
    });
    await vi.waitFor(() => client.next('history.page'));
    client.next('history.page').resolve({ records, ...(nextCursor ? { nextCursor } : {}) });
    await open;
  }

  it('opens on the app’s own session and pages on by cursor, without duplicates', async () => {
    await openOn([record('gui', 'c3'), record('gui', 'c2')], 'cursor-1');
    expect(client.callsTo('history.page')[0]?.request).toEqual({ sessionId: 'gui', limit: HISTORY_PAGE_SIZE });
    expect(state().historySessions.map((s) => [s.sessionId, s.current])).toEqual([
      ['gui', true],
      ['old', false],
    ]);
    expect(callIds(state().historyRecords)).toEqual(['c3', 'c2']);
    expect(state().historyCursor).toBe('cursor-1');

    const more = state().loadMoreHistory();
    void state().loadMoreHistory(); // a second scroll while the page is loading asks nothing more
    expect(client.callsTo('history.page')).toHaveLength(2);
    expect(client.next('history.page').request).toEqual({
      sessionId: 'gui',
      limit: HISTORY_PAGE_SIZE,
      cursor: 'cursor-1',
    });
    client.next('history.page').resolve({ records: [record('gui', 'c2'), record('gui', 'c1')] });
    await more;
    expect(callIds(state().historyRecords)).toEqual(['c3', 'c2', 'c1']);
    expect(state().historyCursor).toBeUndefined();

    // The last page was reached: nothing more is asked.
    await state().loadMoreHistory();
    expect(client.callsTo('history.page')).toHaveLength(2);
  });

  it('switching sessions: the first page of the new session wins, a late page of the old one is ignored', async () => {
    await openOn([record('gui', 'g1')], 'gui-cursor');
    state().selectHistorySession('old');
    expect(state().historySessionId).toBe('old');
    expect(state().historyRecords).toEqual([]);
    expect(state().historyCursor).toBeUndefined();
    const oldPage = client.next('history.page');
    expect(oldPage.request).toEqual({ sessionId: 'old', limit: HISTORY_PAGE_SIZE });

    // Back to gui before old answered, then old's page arrives late.
    state().selectHistorySession('gui');
    const guiPage = client.latest('history.page');
    expect(guiPage).not.toBe(oldPage);
    expect(guiPage.request).toEqual({ sessionId: 'gui', limit: HISTORY_PAGE_SIZE });
    guiPage.resolve({ records: [record('gui', 'g2'), record('gui', 'g1')], nextCursor: 'gui-2' });
    await vi.waitFor(() => expect(state().historyLoad).toBe('ready'));
    oldPage.resolve({ records: [record('old', 'o1')], nextCursor: 'old-cursor' });
    // A page asked and answered after the late one: by then the late one's continuation has run.
    const more = state().loadMoreHistory();
    expect(client.latest('history.page').request).toEqual({
      sessionId: 'gui',
      limit: HISTORY_PAGE_SIZE,
      cursor: 'gui-2',
    });
    client.latest('history.page').resolve({ records: [record('gui', 'g0')] });
    await more;
    expect(state().historySessionId).toBe('gui');
    expect(callIds(state().historyRecords)).toEqual(['g2', 'g1', 'g0']);
  });

  it('a "more" page that arrives after a session switch is dropped; an error of the old session is not shown', async () => {
    await openOn([record('gui', 'g1')], 'gui-cursor');
    const more = state().loadMoreHistory();
    const morePage = client.next('history.page');
    state().selectHistorySession('old');
    const oldPage = client.latest('history.page');
    oldPage.resolve({ records: [record('old', 'o1')] });
    await vi.waitFor(() => expect(callIds(state().historyRecords)).toEqual(['o1']));

    morePage.resolve({ records: [record('gui', 'g0')], nextCursor: 'gui-next' });
    await more;
    expect(callIds(state().historyRecords)).toEqual(['o1']);
    expect(state().historyCursor).toBeUndefined();
    expect(state().historyLoadingMore).toBe(false);

    // And an error answer for a superseded load does not replace what is shown.
    const reload = state().loadHistory();
    const superseded = client.latest('history.page');
    state().selectHistorySession('gui');
    const current = client.latest('history.page');
    superseded.reject(bridgeError('internal'));
    await reload;
    expect(state().historyLoad).toBe('loading');
    current.resolve({ records: [record('gui', 'g1')] });
    await vi.waitFor(() => expect(state().historyLoad).toBe('ready'));
    expect(state().historyError).toBeUndefined();
    expect(callIds(state().historyRecords)).toEqual(['g1']);
  });

  it('a filter starts the list over with the filter in the query', async () => {
    await openOn([record('gui', 'c2'), record('gui', 'c1')], 'cursor-1');
    state().setHistoryFilters({ status: 'failed' });
    expect(state().historyRecords).toEqual([]);
    expect(state().historyCursor).toBeUndefined();
    const page = client.next('history.page');
    expect(page.request).toEqual({ sessionId: 'gui', status: 'failed', limit: HISTORY_PAGE_SIZE });
    page.resolve({ records: [record('gui', 'c1', 'failed')] });
    await vi.waitFor(() => expect(callIds(state().historyRecords)).toEqual(['c1']));
    // The same filter again asks nothing.
    state().setHistoryFilters({ status: 'failed' });
    expect(client.callsTo('history.page')).toHaveLength(2);
  });
});
