/**
 * The renderer's words and choices behind issue 34 (items 7 and 11): an agent run's session by
 * its task and model (never a raw UUID), a run's caller told apart from an agent's, a cache hint
 * of 0 as "not to be kept", and History opening on "All sessions" when that was the last choice.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isAgentCaller, isRunCaller } from '../../renderer/src/lib/callers.js';
import { runSessionLabel, sessionLabel } from '../../renderer/src/lib/historyFormat.js';
import { rememberHistoryScope, rememberedHistoryScope } from '../../renderer/src/state/historyScope.js';
import { createAppStore } from '../../renderer/src/state/store.js';
import { cacheTtlWords } from '../../renderer/src/ui/servers/ServerOverview.js';
import { FakeClient } from '../doubles/renderer/fakeClient.js';

const RUN_ID = '3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b';

describe('session and caller words', () => {
  it('an agent run’s session is named by its task and model; an unlisted one is shortened', () => {
    const runs = [{ id: RUN_ID, title: 'write the report', modelName: 'Local Llama' }];
    expect(sessionLabel({ sessionId: RUN_ID, current: false }, [], runs)).toBe(
      'Agent run: write the report (Local Llama)',
    );
    expect(sessionLabel({ sessionId: RUN_ID, current: false })).toBe('Session 3f2a1b4c…');
    expect(runSessionLabel({ title: 'x'.repeat(60), modelName: 'M' })).toBe(`Agent run: ${'x'.repeat(47)}… (M)`);
    expect(sessionLabel({ sessionId: 'some-other-id', current: false })).toBe('some-other-id');
  });

  it('a run’s caller is told apart from an agent’s (no "The agent agent run")', () => {
    expect(isRunCaller('agent run 3f2a1b4c (Local Llama)')).toBe(true);
    expect(isRunCaller('Claude Code')).toBe(false);
    expect(isRunCaller('agent run of mine')).toBe(false);
    expect(isAgentCaller('agent run 3f2a1b4c (Local Llama)')).toBe(true);
  });

  it('a cache hint of 0 is "not to be kept", not "fresh for 0 ms"', () => {
    expect(cacheTtlWords(0)).toBe('not to be kept (ask again every time)');
    expect(cacheTtlWords(30_000)).toBe('fresh for 30.0 s');
  });
});

describe('History remembers "All sessions"', () => {
  const stored = new Map<string, string>();
  beforeEach(() => {
    stored.clear();
    vi.stubGlobal('localStorage', {
      getItem: (key: string) => stored.get(key) ?? null,
      setItem: (key: string, value: string) => void stored.set(key, value),
    });
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  async function open(): Promise<{ store: ReturnType<typeof createAppStore>; client: FakeClient }> {
    const client = new FakeClient();
    const store = createAppStore(client);
    const opened = store.getState().openHistory();
    client.next('history.sessions').resolve({
      current: 'gui',
      sessions: [
        { sessionId: 'gui', count: 1, started: 0, lastActivity: 20 },
        { sessionId: RUN_ID, count: 2, started: 0, lastActivity: 10 },
      ],
    });
    await vi.waitFor(() => client.next('history.page'));
    client.next('history.page').resolve({ records: [] });
    await opened;
    return { store, client };
  }

  it('opens on this app session by default, on all sessions once that was chosen', async () => {
    expect(rememberedHistoryScope()).toBeUndefined();
    const first = await open();
    expect(first.store.getState().historyAllSessions).toBe(false);
    expect(first.client.callsTo('history.page')[0]?.request).toMatchObject({ sessionId: 'gui' });

    rememberHistoryScope('all');
    const second = await open();
    expect(second.store.getState().historyAllSessions).toBe(true);
    expect(second.client.callsTo('history.page')[0]?.request).not.toHaveProperty('sessionId');
    // The session stays chosen for the picker.
    expect(second.store.getState().historySessionId).toBe('gui');

    rememberHistoryScope('session');
    expect((await open()).store.getState().historyAllSessions).toBe(false);
  });
});
