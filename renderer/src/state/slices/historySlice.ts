/**
 * History: the checkpoint sessions, the records of the chosen session — or of all sessions —
 * (filtered by status, tool and caller, keyset-paged 200 at a time as the person scrolls — the list is virtualized, so 100,000
 * loaded records are fine), the selected record, and the actions on a record: replay (nothing
 * runs), run again as a new call, and resolve by hand.
 *
 * There is no history event: a 'trace.changed' of the shown session refreshes the head of the
 * list (records are ordered by last activity, so an updated record comes back on the first page)
 * and the session counts, coalesced.
 *
 * A record is known by its session and call id together (`recordKey`): across sessions, call ids
 * repeat (an agent's `request-1` in each of its MCP sessions).
 */
import type { CallOutcome, HistoryRecordView, RequestOf } from '../../../../shared/contract.js';
import type { TraceSummary } from '../../../../shared/traces.js';
import { messageOf } from '../../bridge/index.js';
import type { BridgeClient } from '../../bridge/index.js';
import { loadable } from '../loadable.js';
import type { Loadable } from '../loadable.js';
import type { ClientSliceCreator, SliceCreator, StateOf } from '../types.js';
import { rememberedHistoryScope } from '../historyScope.js';

/** What the status filter can ask for; `started` covers both `started` (running now) and `unknown`. */
export type CheckpointStatusView = NonNullable<RequestOf<'history.page'>['status']>;

export interface SessionView {
  sessionId: string;
  count: number;
  /** Records still `started`: running now, or their result is unknown (those need a person). */
  started: number;
  lastActivity: number | undefined;
  current: boolean;
}

interface HistoryFilters {
  status: CheckpointStatusView | '';
  /** Exact tool name; '' for any. */
  toolName: string;
  /** Only this caller's calls: `gui`, or an agent's name; '' for any. */
  userId: string;
}

/** One record's identity in the list (session and call id; neither alone is unique across sessions). */
export function recordKey(record: Pick<HistoryRecordView, 'sessionId' | 'callId'>): string {
  return JSON.stringify([record.sessionId, record.callId]);
}

export type Resolution = RequestOf<'history.resolve'>['resolution'];

export interface HistorySlice extends Loadable<'sessions'>, Loadable<'history'> {
  historySessions: SessionView[];
  /** The GUI's own session: one per data folder, the same at every start. */
  currentSessionId: string | undefined;
  historySessionId: string | undefined;
  /** The records of every session are shown (the caller filter spans sessions); `historySessionId` is kept for when a session is chosen again. */
  historyAllSessions: boolean;
  historyFilters: HistoryFilters;
  historyRecords: HistoryRecordView[];
  historyCursor: string | undefined;
  historyLoadingMore: boolean;
  /** `recordKey` of the selected record. */
  selectedRecordKey: string | undefined;

  loadSessions(): Promise<void>;
  /** Called when the History view opens: sessions, a default session, its first page. */
  openHistory(): Promise<void>;
  selectHistorySession(sessionId: string): void;
  /** Shows the records of every session (newest activity first). */
  showAllHistorySessions(): void;
  setHistoryFilters(patch: Partial<HistoryFilters>): void;
  loadHistory(): Promise<void>;
  loadMoreHistory(): Promise<void>;
  selectHistoryRecord(key: string | undefined): void;
  /** Opens the History view on one record (from a trace). */
  openHistoryRecord(sessionId: string, callId: string): void;
  /** One whole record (a list row may carry only a preview of large values). Throws the BridgeError. */
  getHistoryRecord(record: HistoryRecordView): Promise<HistoryRecordView>;
  /** The stored result; nothing runs. Throws the BridgeError. */
  replayCall(record: HistoryRecordView): Promise<CallOutcome>;
  /** The same tool and arguments as a NEW call (permissions and approval again). Throws the BridgeError. */
  rerunCall(record: HistoryRecordView): Promise<CallOutcome>;
  /** A person decides how a `started` call ended. Throws the BridgeError. */
  resolveCall(record: HistoryRecordView, resolution: Resolution): Promise<HistoryRecordView>;
  /** Asks the server now how a call it ran as a task ended (History's "Ask the server now"); the record as it stands after. */
  askTaskNow(record: HistoryRecordView): Promise<HistoryRecordView>;
  /** A trace started or finished somewhere: refresh what History shows of it (coalesced). */
  noteTraceActivity(trace: TraceSummary): void;
  clearHistory(): void;
}

export const HISTORY_PAGE_SIZE = 200;
const ACTIVITY_COALESCE_MS = 250;
/** Counting the sessions scans the whole store (tens of ms at 100,000 records): at most this often. */
const SESSIONS_REFRESH_MS = 2_000;

function filterQuery(filters: HistoryFilters) {
  return {
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.toolName ? { toolName: filters.toolName } : {}),
    ...(filters.userId ? { userId: filters.userId } : {}),
  };
}

const NO_FILTERS: HistoryFilters = { status: '', toolName: '', userId: '' };

/** The filter a record falls under: `unknown` is a `started` record no live call owns; a completed result with `isError` is a tool error. */
function storedStatus(record: HistoryRecordView): CheckpointStatusView {
  if (record.status === 'completed' && (record.result?.isError ?? record.preview?.resultIsError ?? false))
    return 'tool_error';
  return record.status === 'unknown' ? 'started' : record.status;
}

function matches(record: HistoryRecordView, filters: HistoryFilters): boolean {
  return (
    (!filters.status || storedStatus(record) === filters.status) &&
    (!filters.toolName || record.toolName === filters.toolName) &&
    (!filters.userId || record.userId === filters.userId)
  );
}

/** The session shown first: this app's own if it has calls, else the one with the latest activity. */
function defaultSession(sessions: SessionView[], current: string | undefined): string | undefined {
  const mine = sessions.find((s) => s.current);
  if (mine && mine.count > 0) return mine.sessionId;
  return sessions.find((s) => s.count > 0)?.sessionId ?? current;
}

const SESSIONS = loadable('sessions');
const HISTORY = loadable('history');
const INITIAL: StateOf<HistorySlice> = {
  historySessions: [],
  currentSessionId: undefined,
  ...SESSIONS.idle,
  historySessionId: undefined,
  historyAllSessions: false,
  historyFilters: NO_FILTERS,
  historyRecords: [],
  historyCursor: undefined,
  ...HISTORY.idle,
  historyLoadingMore: false,
  selectedRecordKey: undefined,
};
/** What `clearHistory` resets: all but the person's filters. */
const { historyFilters: _keptFilters, ...CLEARED } = INITIAL;

/** What the slice's parts share: the load generation, the coalescing timers, and the list's own steps. */
interface HistoryOwn {
  generation: number;
  activityTimer: ReturnType<typeof setTimeout> | undefined;
  sessionsTimer: ReturnType<typeof setTimeout> | undefined;
  /** Records (by `recordKey`) of what is shown whose traces changed since the last head refresh. */
  changed: Map<string, TraceSummary>;
  scope(): { sessionId?: string } | undefined;
  refreshHead(): Promise<void>;
  showSession(sessionId: string): Promise<void>;
}

const historyOwn: ClientSliceCreator<HistoryOwn> = (client) => (set, get) => {
  const changed = new Map<string, TraceSummary>();

  /** What the pages are asked for: the shown session, or every session; undefined before one is chosen. */
  function scope(): { sessionId?: string } | undefined {
    if (get().historyAllSessions) return {};
    const sessionId = get().historySessionId;
    return sessionId === undefined ? undefined : { sessionId };
  }

  /** Fetches the first page again and puts it on top; changed records that left the filter go. */
  async function refreshHead(): Promise<void> {
    const shown = scope();
    if (!shown || get().historyLoad !== 'ready') return;
    const mine = own.generation;
    const touched = new Map(changed);
    changed.clear();
    try {
      const page = await client.call('history.page', {
        ...shown,
        ...filterQuery(get().historyFilters),
        limit: HISTORY_PAGE_SIZE,
      });
      if (mine !== own.generation) return;
      const head = new Set(page.records.map(recordKey));
      const filtered = get().historyFilters.status !== '';
      const rest = get().historyRecords.filter((r) => {
        if (head.has(recordKey(r))) return false;
        const trace = touched.get(recordKey(r));
        // Finished (not a replay, which changes nothing) and no longer on the first page: its status moved on.
        return !(filtered && trace && trace.status !== 'running' && trace.status !== 'replayed');
      });
      // Only when nothing was loaded beyond the first page is the first page's cursor right.
      const onlyHead = rest.length === 0;
      set(
        { historyRecords: [...page.records, ...rest], ...(onlyHead ? { historyCursor: page.nextCursor } : {}) },
        false,
        'history/head',
      );
    } catch {
      // The next activity tries again; the list stays as it was.
    }
  }

  /** Shows a session: its first page replaces the list (selection and cursor start over). */
  function showSession(sessionId: string): Promise<void> {
    changed.clear();
    set(
      {
        historySessionId: sessionId,
        historyAllSessions: false,
        historyRecords: [],
        historyCursor: undefined,
        selectedRecordKey: undefined,
      },
      false,
      'history/session',
    );
    return get().loadHistory();
  }

  const own: HistoryOwn = {
    generation: 0,
    activityTimer: undefined,
    sessionsTimer: undefined,
    changed,
    scope,
    refreshHead,
    showSession,
  };
  return own;
};

type Actions<K extends keyof HistorySlice> = (
  client: BridgeClient,
  own: HistoryOwn,
) => SliceCreator<Pick<HistorySlice, K>>;

/** The sessions, which one is shown, and opening a record. */
const sessionActions: Actions<
  | 'loadSessions'
  | 'openHistory'
  | 'selectHistorySession'
  | 'showAllHistorySessions'
  | 'selectHistoryRecord'
  | 'openHistoryRecord'
> =
  (client, { changed, scope, refreshHead, showSession }) =>
  (set, get) => ({
    async loadSessions() {
      if (get().sessionsLoad !== 'ready') set(SESSIONS.loading, false, 'history/sessions');
      try {
        const { current, sessions } = await client.call('history.sessions', {});
        const own = sessions.find((s) => s.sessionId === current);
        const list: SessionView[] = [
          {
            sessionId: current,
            count: own?.count ?? 0,
            started: own?.started ?? 0,
            lastActivity: own?.lastActivity,
            current: true,
          },
          ...sessions.filter((s) => s.sessionId !== current).map((s) => ({ ...s, current: false })),
        ];
        const previous = get().currentSessionId;
        set({ historySessions: list, currentSessionId: current, ...SESSIONS.ready }, false, 'history/sessionsLoaded');
        // The app restarted with another session for the GUI: a person watching the old current
        // one follows it to the new one (a person who chose an older session stays there).
        if (
          previous !== undefined &&
          previous !== current &&
          get().historySessionId === previous &&
          !get().historyAllSessions
        )
          void showSession(current);
      } catch (error) {
        set(SESSIONS.failed(error), false, 'history/sessionsError');
      }
    },

    async openHistory() {
      if (scope() !== undefined) {
        // Show what is there at once; refresh the head, then the counts.
        await (get().historyLoad === 'idle' || get().historyLoad === 'error' ? get().loadHistory() : refreshHead());
        void get().loadSessions();
        return;
      }
      // The sessions are loaded at connection time (the sidebar shows their attention count):
      // choose from those at once. Their refresh waits for the first page — counting a large
      // store takes longer than a page, and the host would answer the page after it.
      const loaded = get().sessionsLoad === 'ready';
      if (!loaded) await get().loadSessions();
      if (get().historySessionId === undefined) {
        const chosen = defaultSession(get().historySessions, get().currentSessionId);
        // The person last chose "All sessions": History opens that way (the session is kept for the picker).
        if (rememberedHistoryScope() === 'all') {
          set({ historySessionId: chosen, historyAllSessions: true }, false, 'history/rememberedAll');
          await get().loadHistory();
        } else if (chosen) await showSession(chosen);
      }
      if (loaded) void get().loadSessions();
    },

    selectHistorySession(sessionId) {
      if (sessionId === get().historySessionId && !get().historyAllSessions && get().historyLoad !== 'idle') return;
      void showSession(sessionId);
    },

    showAllHistorySessions() {
      if (get().historyAllSessions && get().historyLoad !== 'idle') return;
      changed.clear();
      set(
        { historyAllSessions: true, historyRecords: [], historyCursor: undefined, selectedRecordKey: undefined },
        false,
        'history/allSessions',
      );
      void get().loadHistory();
    },

    selectHistoryRecord(selectedRecordKey) {
      set({ selectedRecordKey }, false, 'history/select');
    },

    openHistoryRecord(sessionId, callId) {
      if (sessionId !== get().historySessionId || get().historyAllSessions) {
        set({ historyFilters: NO_FILTERS }, false, 'history/clearFilters');
        get().selectHistorySession(sessionId);
      }
      set({ selectedRecordKey: recordKey({ sessionId, callId }) }, false, 'history/openRecord');
      get().navigate('history');
    },
  });

/** The filters and the pages of the list. */
const pageActions: Actions<'setHistoryFilters' | 'loadHistory' | 'loadMoreHistory'> = (client, own) => (set, get) => ({
  setHistoryFilters(patch) {
    const current = get().historyFilters;
    const next = { ...current, ...patch };
    if (next.status === current.status && next.toolName === current.toolName && next.userId === current.userId) return;
    // A caller's calls are spread over its sessions (an agent opens one per connection): choosing
    // a caller shows every session's; a session can be chosen again from the picker.
    const spanSessions = next.userId !== '' && next.userId !== current.userId;
    set(
      {
        historyFilters: next,
        historyRecords: [],
        historyCursor: undefined,
        ...(spanSessions ? { historyAllSessions: true, selectedRecordKey: undefined } : {}),
      },
      false,
      'history/filters',
    );
    void get().loadHistory();
  },

  async loadHistory() {
    const shown = own.scope();
    if (!shown) return;
    const mine = ++own.generation;
    own.changed.clear();
    set({ ...HISTORY.restart, historyLoadingMore: false }, false, 'history/load');
    try {
      const page = await client.call('history.page', {
        ...shown,
        ...filterQuery(get().historyFilters),
        limit: HISTORY_PAGE_SIZE,
      });
      if (mine !== own.generation) return;
      set(
        { historyRecords: page.records, historyCursor: page.nextCursor, historyLoad: 'ready' },
        false,
        'history/loaded',
      );
    } catch (error) {
      if (mine !== own.generation) return;
      set(HISTORY.failed(error), false, 'history/loadError');
    }
  },

  async loadMoreHistory() {
    const shown = own.scope();
    const cursor = get().historyCursor;
    if (!shown || !cursor || get().historyLoadingMore || get().historyLoad !== 'ready') return;
    const mine = own.generation;
    set({ historyLoadingMore: true }, false, 'history/more');
    try {
      const page = await client.call('history.page', {
        ...shown,
        ...filterQuery(get().historyFilters),
        limit: HISTORY_PAGE_SIZE,
        cursor,
      });
      if (mine !== own.generation) return;
      const known = new Set(get().historyRecords.map(recordKey));
      const fresh = page.records.filter((r) => !known.has(recordKey(r)));
      set(
        {
          historyRecords: get().historyRecords.concat(fresh),
          historyCursor: page.nextCursor,
          historyLoadingMore: false,
        },
        false,
        'history/moreLoaded',
      );
    } catch (error) {
      if (mine !== own.generation) return;
      set({ historyLoadingMore: false }, false, 'history/moreError');
      get().notify('error', `Could not load more history: ${messageOf(error)}`);
    }
  },
});

/** What is done to one record: fetched whole, replayed, run again, resolved, asked of its server. */
const recordActions: Actions<'getHistoryRecord' | 'replayCall' | 'rerunCall' | 'askTaskNow' | 'resolveCall'> =
  (client) => (set, get) => ({
    getHistoryRecord(record) {
      return client.call('history.get', { sessionId: record.sessionId, callId: record.callId });
    },

    replayCall(record) {
      return client.call('history.replay', { sessionId: record.sessionId, callId: record.callId });
    },

    rerunCall(record) {
      return client.call('history.rerun', {
        sessionId: record.sessionId,
        callId: record.callId,
        newCallId: `gui-${crypto.randomUUID()}`,
      });
    },

    async askTaskNow(record) {
      let updated: HistoryRecordView;
      try {
        updated = await client.call('history.askTask', { sessionId: record.sessionId, callId: record.callId });
      } catch (error) {
        // An ask that did not settle the call changed its record (why, as its last error): shown in place of the old text.
        const after = await client
          .call('history.get', { sessionId: record.sessionId, callId: record.callId })
          .catch(() => undefined);
        if (after && (after.sessionId === get().historySessionId || get().historyAllSessions)) {
          const rest = get().historyRecords.filter((r) => recordKey(r) !== recordKey(after));
          set(
            { historyRecords: matches(after, get().historyFilters) ? [after, ...rest] : rest },
            false,
            'history/taskAskFailed',
          );
        }
        throw error;
      }
      if (updated.sessionId === get().historySessionId || get().historyAllSessions) {
        const rest = get().historyRecords.filter((r) => recordKey(r) !== recordKey(updated));
        set(
          { historyRecords: matches(updated, get().historyFilters) ? [updated, ...rest] : rest },
          false,
          'history/taskAsked',
        );
      }
      return updated;
    },

    async resolveCall(record, resolution) {
      const updated = await client.call('history.resolve', {
        sessionId: record.sessionId,
        callId: record.callId,
        resolution,
      });
      if (updated.sessionId === get().historySessionId || get().historyAllSessions) {
        const rest = get().historyRecords.filter((r) => recordKey(r) !== recordKey(updated));
        // Its last activity is now: it moves to the top (or leaves a "started" filter).
        set(
          { historyRecords: matches(updated, get().historyFilters) ? [updated, ...rest] : rest },
          false,
          'history/resolved',
        );
      }
      void get().loadSessions();
      return updated;
    },
  });

/** Trace activity refreshes what is shown (coalesced); clearing forgets it all. */
const activityActions: Actions<'noteTraceActivity' | 'clearHistory'> = (_client, own) => (set, get) => ({
  noteTraceActivity(trace) {
    const watchingRecords =
      (get().historyAllSessions || trace.sessionId === get().historySessionId) && get().historyLoad === 'ready';
    const watchingSessions = get().sessionsLoad === 'ready';
    if (watchingRecords) {
      own.changed.set(recordKey(trace), trace);
      own.activityTimer ??= setTimeout(() => {
        own.activityTimer = undefined;
        if (own.changed.size > 0) void own.refreshHead();
      }, ACTIVITY_COALESCE_MS);
    }
    if (watchingSessions) {
      own.sessionsTimer ??= setTimeout(() => {
        own.sessionsTimer = undefined;
        if (get().sessionsLoad === 'ready') void get().loadSessions();
      }, SESSIONS_REFRESH_MS);
    }
  },

  clearHistory() {
    own.generation++;
    own.changed.clear();
    clearTimeout(own.activityTimer);
    own.activityTimer = undefined;
    clearTimeout(own.sessionsTimer);
    own.sessionsTimer = undefined;
    set(CLEARED, false, 'history/clear');
  },
});

export const createHistorySlice: ClientSliceCreator<HistorySlice> =
  (client) =>
  (...args) => {
    const own = historyOwn(client)(...args);
    return {
      ...INITIAL,
      ...sessionActions(client, own)(...args),
      ...pageActions(client, own)(...args),
      ...recordActions(client, own)(...args),
      ...activityActions(client, own)(...args),
    };
  };
