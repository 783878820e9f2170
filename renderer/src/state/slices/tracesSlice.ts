/**
 * Traces: the filtered list (newest first, keyset-paged with `nextCursor`, kept current by
 * 'trace.changed'), and the detail (summary + events) of traces the person opened.
 *
 * A load started under other filters is dropped when it answers (a generation counter), so a
 * slow first page can never overwrite the list of the filters chosen since.
 */
import type { TraceDetail, TraceExport, TraceStatus, TraceSummary } from '../../../../shared/traces.js';
import { messageOf } from '../../bridge/index.js';
import type { BridgeClient } from '../../bridge/index.js';
import { loadable } from '../loadable.js';
import type { Loadable } from '../loadable.js';
import type { ClientSliceCreator, SliceCreator, StateOf } from '../types.js';

export interface TraceFilters {
  /** Exact tool name; '' for any. */
  toolName: string;
  /** A server id (or `local`); '' for any. */
  serverId: string;
  status: TraceStatus | '';
  sessionId: string;
  /** Only this caller's calls: `gui`, or an agent's name; '' for any. */
  userId: string;
}

interface TraceDetailEntry {
  data: TraceDetail | undefined;
  loading: boolean;
  error: string | undefined;
}

export interface TracesSlice extends Loadable<'traces'> {
  traces: TraceSummary[];
  /** `nextCursor` of the last page; undefined when everything matching is loaded. */
  tracesCursor: string | undefined;
  tracesLoadingMore: boolean;
  traceFilters: TraceFilters;
  traceDetails: Record<string, TraceDetailEntry>;

  /** Loads the first page for the current filters (keeps the old list visible meanwhile). */
  loadTraces(): Promise<void>;
  loadMoreTraces(): Promise<void>;
  setTraceFilters(patch: Partial<TraceFilters>): void;
  /** A trace started or finished: update its row (or insert it where it belongs) and its open detail. */
  applyTraceChanged(trace: TraceSummary): void;
  loadTraceDetail(traceId: string): Promise<void>;
  /** The self-describing export (`format: "miniharness-trace"`); throws the BridgeError. */
  exportTrace(traceId: string): Promise<TraceExport>;
  clearTraces(): void;
}

export const TRACE_PAGE_SIZE = 50;

export const EMPTY_TRACE_FILTERS: TraceFilters = { toolName: '', serverId: '', status: '', sessionId: '', userId: '' };

function matches(trace: TraceSummary, filters: TraceFilters): boolean {
  return (
    (!filters.toolName || trace.toolName === filters.toolName) &&
    (!filters.serverId || trace.serverId === filters.serverId) &&
    (!filters.status || trace.status === filters.status) &&
    (!filters.sessionId || trace.sessionId === filters.sessionId) &&
    (!filters.userId || trace.userId === filters.userId)
  );
}

/** The request's filter fields: only the ones set. */
function query(filters: TraceFilters) {
  return {
    ...(filters.toolName ? { toolName: filters.toolName } : {}),
    ...(filters.serverId ? { serverId: filters.serverId } : {}),
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.sessionId ? { sessionId: filters.sessionId } : {}),
    ...(filters.userId ? { userId: filters.userId } : {}),
  };
}

/** Appends a page, skipping traces already listed (one may have arrived live meanwhile). */
function appendUnique(list: TraceSummary[], page: TraceSummary[]): TraceSummary[] {
  const known = new Set(list.map((t) => t.traceId));
  return [...list, ...page.filter((t) => !known.has(t.traceId))];
}

const TRACES = loadable('traces');
const INITIAL: StateOf<TracesSlice> = {
  traces: [],
  tracesCursor: undefined,
  ...TRACES.idle,
  tracesLoadingMore: false,
  traceFilters: EMPTY_TRACE_FILTERS,
  traceDetails: {},
};
/** What `clearTraces` resets: all but the person's filters. */
const { traceFilters: _keptFilters, ...CLEARED } = INITIAL;

/** What the slice's parts share: the generation of the list's loads, the pending detail reloads. */
interface TracesOwn {
  generation: number;
  detailReloads: Map<string, ReturnType<typeof setTimeout>>;
}

type Actions<K extends keyof TracesSlice> = (
  client: BridgeClient,
  own: TracesOwn,
) => SliceCreator<Pick<TracesSlice, K>>;

/** The filtered list and its pages. */
const listActions: Actions<'loadTraces' | 'loadMoreTraces' | 'setTraceFilters' | 'clearTraces'> =
  (client, own) => (set, get) => ({
    async loadTraces() {
      const mine = ++own.generation;
      set(TRACES.restart, false, 'traces/load');
      try {
        const page = await client.call('traces.list', { ...query(get().traceFilters), limit: TRACE_PAGE_SIZE });
        if (mine !== own.generation) return;
        set(
          { traces: page.traces, tracesCursor: page.nextCursor, tracesLoad: 'ready', tracesLoadingMore: false },
          false,
          'traces/loaded',
        );
      } catch (error) {
        if (mine !== own.generation) return;
        set(TRACES.failed(error), false, 'traces/loadError');
      }
    },

    async loadMoreTraces() {
      const cursor = get().tracesCursor;
      if (!cursor || get().tracesLoadingMore || get().tracesLoad !== 'ready') return;
      const mine = own.generation;
      set({ tracesLoadingMore: true }, false, 'traces/more');
      try {
        const page = await client.call('traces.list', { ...query(get().traceFilters), limit: TRACE_PAGE_SIZE, cursor });
        if (mine !== own.generation) return;
        set(
          { traces: appendUnique(get().traces, page.traces), tracesCursor: page.nextCursor, tracesLoadingMore: false },
          false,
          'traces/moreLoaded',
        );
      } catch (error) {
        if (mine !== own.generation) return;
        set({ tracesLoadingMore: false }, false, 'traces/moreError');
        get().notify('error', `Could not load more traces: ${messageOf(error)}`);
      }
    },

    setTraceFilters(patch) {
      const next = { ...get().traceFilters, ...patch };
      const current = get().traceFilters;
      if ((Object.keys(next) as (keyof TraceFilters)[]).every((k) => next[k] === current[k])) return;
      set({ traceFilters: next }, false, 'traces/filters');
      void get().loadTraces();
    },

    clearTraces() {
      own.generation++;
      set(CLEARED, false, 'traces/clear');
    },
  });

/** A trace's row and its open detail. */
const detailActions: Actions<'applyTraceChanged' | 'loadTraceDetail' | 'exportTrace'> =
  (client, { detailReloads }) =>
  (set, get) => ({
    applyTraceChanged(trace) {
      const { traces, traceFilters, tracesLoad, tracesCursor } = get();
      if (tracesLoad !== 'idle') {
        const index = traces.findIndex((t) => t.traceId === trace.traceId);
        if (index >= 0) {
          const next = traces.slice();
          if (matches(trace, traceFilters)) next[index] = trace;
          else next.splice(index, 1);
          set({ traces: next }, false, 'traces/changed');
        } else if (matches(trace, traceFilters)) {
          // Newest first by start time; a trace older than the last loaded one belongs to a later page.
          const last = traces.at(-1);
          const belongsHere = !tracesCursor || !last || trace.startedAt >= last.startedAt;
          if (belongsHere) {
            const at = traces.findIndex((t) => t.startedAt < trace.startedAt);
            const next = traces.slice();
            next.splice(at < 0 ? next.length : at, 0, trace);
            set({ traces: next }, false, 'traces/added');
          }
        }
      }
      // An open timeline follows its trace (coalesced: start and finish can come close together).
      if (get().traceDetails[trace.traceId] && !detailReloads.has(trace.traceId)) {
        detailReloads.set(
          trace.traceId,
          setTimeout(() => {
            detailReloads.delete(trace.traceId);
            void get().loadTraceDetail(trace.traceId);
          }, 100),
        );
      }
    },

    async loadTraceDetail(traceId) {
      const previous = get().traceDetails[traceId];
      set(
        {
          traceDetails: { ...get().traceDetails, [traceId]: { data: previous?.data, loading: true, error: undefined } },
        },
        false,
        'traces/detail',
      );
      try {
        const data = await client.call('traces.get', { traceId });
        set(
          { traceDetails: { ...get().traceDetails, [traceId]: { data, loading: false, error: undefined } } },
          false,
          'traces/detailLoaded',
        );
      } catch (error) {
        set(
          {
            traceDetails: {
              ...get().traceDetails,
              [traceId]: { data: previous?.data, loading: false, error: messageOf(error) },
            },
          },
          false,
          'traces/detailError',
        );
      }
    },

    exportTrace(traceId) {
      return client.call('traces.export', { traceId });
    },
  });

export const createTracesSlice: ClientSliceCreator<TracesSlice> =
  (client) =>
  (...args) => {
    const own: TracesOwn = { generation: 0, detailReloads: new Map() };
    return { ...INITIAL, ...listActions(client, own)(...args), ...detailActions(client, own)(...args) };
  };
