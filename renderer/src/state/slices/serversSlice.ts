/**
 * Servers: the list with live statuses (kept current by 'servers.changed' and 'server.status'),
 * the detail of servers the person opened, their logs (loaded on demand, then appended from
 * 'server.log'), and which action is running on which server.
 */
import type {
  EventOf,
  LogLevel,
  LogLineView,
  RequestOf,
  ServerDetail,
  ServerView,
} from '../../../../shared/contract.js';
import { messageOf } from '../../bridge/index.js';
import type { BridgeClient } from '../../bridge/index.js';
import { serverIdOf, serverNameOf } from '../../lib/serverView.js';
import { loadable } from '../loadable.js';
import type { Loadable } from '../loadable.js';
import type { ClientSliceCreator, SliceCreator, StateOf } from '../types.js';

type ServerAction = 'connect' | 'disconnect' | 'enable' | 'disable' | 'remove' | 'signIn' | 'signOut';

export interface DetailEntry {
  data: ServerDetail | undefined;
  loading: boolean;
  error: string | undefined;
}

/** A log line, or (with `dropped`) the mark where the host dropped lines this page did not keep up with. */
export type LogItem = LogLineView & { dropped?: number };

/** @public — selectors.ts's declaration names it (tsc's declaration emit), though no file imports it. */
export interface LogEntry {
  lines: LogItem[];
  loading: boolean;
  error: string | undefined;
}

export interface ServersSlice extends Loadable<'servers'> {
  servers: ServerView[];
  details: Record<string, DetailEntry>;
  logs: Record<string, LogEntry>;
  busy: Record<string, ServerAction>;
  discovering: boolean;

  loadServers(): Promise<void>;
  applyServerList(servers: ServerView[]): void;
  applyStatus(event: EventOf<'server.status'>): void;
  appendLog(event: EventOf<'server.log'>): void;
  /** Marks `count` lines the host dropped for this page (it was not reading fast enough). */
  appendDroppedLines(serverId: string, count: number): void;
  loadDetail(id: string): Promise<void>;
  loadLog(id: string): Promise<void>;
  /** Asks the server for MCP log messages of `level` and above (kept for its next connections); a refusal becomes a notice. */
  setLogLevel(id: string, level: LogLevel): Promise<void>;
  /** Throws the BridgeError (with fieldErrors) so the form can show it. */
  saveServer(request: RequestOf<'servers.save'>): Promise<ServerView>;
  /** `removeRules`: also remove the permission rules made for the server. */
  removeServer(id: string, removeRules?: boolean): Promise<boolean>;
  setServerEnabled(id: string, enabled: boolean): Promise<void>;
  connectServer(id: string): Promise<void>;
  disconnectServer(id: string): Promise<void>;
  /** OAuth: starts a browser sign-in; the status streams in. */
  signInServer(id: string): Promise<void>;
  signOutServer(id: string): Promise<void>;
  discoverAll(): Promise<void>;
  /** Forgets everything main said (used when the session is no longer authorized). */
  clearServers(): void;
}

/** Kept per server in the renderer; main keeps its own bounded buffer. */
const LOG_LIMIT = 1_000;

function replaceServer(list: ServerView[], view: ServerView): ServerView[] {
  const id = serverIdOf(view);
  const index = list.findIndex((s) => serverIdOf(s) === id);
  if (index < 0) return [...list, view];
  const next = list.slice();
  next[index] = view;
  return next;
}

const SERVERS = loadable('servers');
const INITIAL: StateOf<ServersSlice> = {
  servers: [],
  ...SERVERS.idle,
  details: {},
  logs: {},
  busy: {},
  discovering: false,
};
/** What `clearServers` resets: all but `discovering`, which its own call ends. */
const { discovering: _discovering, ...CLEARED } = INITIAL;

interface ServersHelpers {
  /** Runs one server action with its busy flag; errors become a notice. */
  runAction(
    id: string,
    action: ServerAction,
    run: () => Promise<void>,
    quietWhenStatusShowsIt?: boolean,
  ): Promise<boolean>;
  refreshDetailIfOpen(id: string): void;
}

const serversHelpers: ClientSliceCreator<ServersHelpers> = () => (set, get) => {
  async function runAction(
    id: string,
    action: ServerAction,
    run: () => Promise<void>,
    quietWhenStatusShowsIt = false,
  ): Promise<boolean> {
    set({ busy: { ...get().busy, [id]: action } }, false, `servers/${action}`);
    try {
      await run();
      return true;
    } catch (error) {
      const view = get().servers.find((s) => serverIdOf(s) === id);
      // A failed connect already shows as the server's error status; a notice would repeat it.
      if (!(quietWhenStatusShowsIt && view?.status.state === 'error')) {
        get().notify('error', `${view ? serverNameOf(view) : id}: ${messageOf(error)}`);
      }
      return false;
    } finally {
      const { [id]: _done, ...rest } = get().busy;
      set({ busy: rest }, false, `servers/${action}Done`);
    }
  }

  function refreshDetailIfOpen(id: string): void {
    if (get().details[id]) void get().loadDetail(id);
  }

  return { runAction, refreshDetailIfOpen };
};

type Actions<K extends keyof ServersSlice> = (
  client: BridgeClient,
  helpers: ServersHelpers,
) => SliceCreator<Pick<ServersSlice, K>>;

/** The list and the live statuses. */
const listActions: Actions<'loadServers' | 'applyServerList' | 'applyStatus' | 'discoverAll' | 'clearServers'> =
  (client, { refreshDetailIfOpen }) =>
  (set, get) => {
    /** Lists applied so far: a `servers.list` answer is dropped when a newer list came meanwhile. */
    let listsApplied = 0;
    return {
      async loadServers() {
        if (get().serversLoad !== 'ready') set(SERVERS.loading, false, 'servers/load');
        // A list that arrived meanwhile ('servers.changed') is newer than this answer may be: an
        // answer to a request sent before a server was added must not take the new row away.
        const before = listsApplied;
        try {
          const servers = await client.call('servers.list', {});
          if (listsApplied !== before) return;
          get().applyServerList(servers);
        } catch (error) {
          set(SERVERS.failed(error), false, 'servers/loadError');
        }
      },

      applyServerList(servers) {
        listsApplied++;
        const ids = new Set(servers.map(serverIdOf));
        const selected = get().selectedServerId;
        set(
          {
            servers,
            ...SERVERS.ready,
            // A removed server takes its selection along.
            ...(selected && !ids.has(selected) ? { selectedServerId: undefined } : {}),
          },
          false,
          'servers/list',
        );
      },

      applyStatus({ serverId, status }) {
        const list = get().servers;
        const index = list.findIndex((s) => serverIdOf(s) === serverId);
        if (index < 0) return;
        const current = list[index]!;
        if (current.status.state === status.state && JSON.stringify(current.status) === JSON.stringify(status)) return;
        const next = list.slice();
        next[index] = { ...current, status };
        set({ servers: next }, false, 'servers/status');
        // What was negotiated and which tools exist change with the status.
        if (status.state !== 'connecting') refreshDetailIfOpen(serverId);
      },

      async discoverAll() {
        set({ discovering: true }, false, 'servers/discover');
        try {
          // Answers at once with the list as it was before discovery; the statuses that follow stream
          // in as events (applying this older snapshot now could overwrite a newer status).
          await client.call('servers.discover', { refresh: true });
          const selected = get().selectedServerId;
          if (selected) refreshDetailIfOpen(selected);
        } catch (error) {
          get().notify('error', `Discovery failed: ${messageOf(error)}`);
        } finally {
          set({ discovering: false }, false, 'servers/discoverDone');
        }
      },

      clearServers() {
        set({ ...CLEARED, selectedServerId: undefined }, false, 'servers/clear');
      },
    };
  };

/** The open servers' detail and their logs. */
const detailActions: Actions<'appendLog' | 'appendDroppedLines' | 'loadDetail' | 'loadLog' | 'setLogLevel'> =
  (client) => (set, get) => ({
    appendLog({ serverId, line }) {
      const entry = get().logs[serverId];
      if (!entry || entry.loading) return; // loaded in full when the log is opened
      const lines = [...entry.lines, line].slice(-LOG_LIMIT);
      set({ logs: { ...get().logs, [serverId]: { ...entry, lines } } }, false, 'servers/log');
    },

    appendDroppedLines(serverId, count) {
      const entry = get().logs[serverId];
      if (!entry || entry.loading) return;
      const mark: LogItem = {
        at: Date.now(),
        stream: 'client',
        text: `${count} ${count === 1 ? 'line' : 'lines'} dropped: this page did not keep up. Reload shows the server's latest lines.`,
        dropped: count,
      };
      const lines = [...entry.lines, mark].slice(-LOG_LIMIT);
      set({ logs: { ...get().logs, [serverId]: { ...entry, lines } } }, false, 'servers/logDropped');
    },

    async loadDetail(id) {
      const previous = get().details[id];
      const loading: DetailEntry = { data: previous?.data, loading: true, error: undefined };
      set({ details: { ...get().details, [id]: loading } }, false, 'servers/detail');
      // Applied only if nothing replaced this load meanwhile: a newer load wins, and a server
      // removed meanwhile (perhaps added again under the same id) never gets the old one's tools.
      const current = (): boolean => get().details[id] === loading;
      try {
        const data = await client.call('servers.get', { id });
        if (current())
          set(
            { details: { ...get().details, [id]: { data, loading: false, error: undefined } } },
            false,
            'servers/detailLoaded',
          );
      } catch (error) {
        if (current())
          set(
            { details: { ...get().details, [id]: { data: previous?.data, loading: false, error: messageOf(error) } } },
            false,
            'servers/detailError',
          );
      }
    },

    async loadLog(id) {
      const previous = get().logs[id];
      set(
        { logs: { ...get().logs, [id]: { lines: previous?.lines ?? [], loading: true, error: undefined } } },
        false,
        'servers/logLoad',
      );
      try {
        const lines = await client.call('servers.log', { id });
        set(
          { logs: { ...get().logs, [id]: { lines: lines.slice(-LOG_LIMIT), loading: false, error: undefined } } },
          false,
          'servers/logLoaded',
        );
      } catch (error) {
        set(
          { logs: { ...get().logs, [id]: { lines: previous?.lines ?? [], loading: false, error: messageOf(error) } } },
          false,
          'servers/logError',
        );
      }
    },

    async setLogLevel(id, level) {
      try {
        const answer = await client.call('servers.setLogLevel', { id, level });
        const entry = get().details[id];
        if (entry?.data)
          set(
            { details: { ...get().details, [id]: { ...entry, data: { ...entry.data, logLevel: answer.level } } } },
            false,
            'servers/logLevel',
          );
      } catch (error) {
        get().notify('error', `${id}: ${messageOf(error)}`);
      }
    },
  });

/** What the person does to a server: save, remove, enable, connect, sign in and out. */
const commandActions: Actions<
  | 'saveServer'
  | 'removeServer'
  | 'setServerEnabled'
  | 'connectServer'
  | 'disconnectServer'
  | 'signInServer'
  | 'signOutServer'
> =
  (client, { runAction, refreshDetailIfOpen }) =>
  (set, get) => ({
    async saveServer(request) {
      const view = await client.call('servers.save', request);
      set({ servers: replaceServer(get().servers, view) }, false, 'servers/saved');
      refreshDetailIfOpen(serverIdOf(view));
      return view;
    },

    async removeServer(id, removeRules = false) {
      return runAction(id, 'remove', async () => {
        const removing = get().servers.find((s) => serverIdOf(s) === id);
        await client.call('servers.remove', { id, removeRules });
        // A server saved again under this id as the removal finished (its event came first) stays.
        const now = get().servers.find((s) => serverIdOf(s) === id);
        if (now && now !== removing) return;
        const { [id]: _detail, ...details } = get().details;
        const { [id]: _log, ...logs } = get().logs;
        set(
          {
            servers: get().servers.filter((s) => serverIdOf(s) !== id),
            details,
            logs,
            ...(get().selectedServerId === id ? { selectedServerId: undefined } : {}),
          },
          false,
          'servers/removed',
        );
      });
    },

    async setServerEnabled(id, enabled) {
      await runAction(id, enabled ? 'enable' : 'disable', async () => {
        const view = await client.call('servers.setEnabled', { id, enabled });
        set({ servers: replaceServer(get().servers, view) }, false, 'servers/enabled');
      });
    },

    async connectServer(id) {
      await runAction(
        id,
        'connect',
        async () => {
          try {
            const view = await client.call('servers.connect', { id });
            set({ servers: replaceServer(get().servers, view) }, false, 'servers/connected');
          } finally {
            refreshDetailIfOpen(id);
          }
        },
        true,
      );
    },

    async disconnectServer(id) {
      await runAction(id, 'disconnect', async () => {
        const view = await client.call('servers.disconnect', { id });
        set({ servers: replaceServer(get().servers, view) }, false, 'servers/disconnected');
        refreshDetailIfOpen(id);
      });
    },

    async signInServer(id) {
      await runAction(id, 'signIn', async () => {
        const view = await client.call('servers.signIn', { id });
        set({ servers: replaceServer(get().servers, view) }, false, 'servers/signingIn');
      });
    },

    async signOutServer(id) {
      await runAction(id, 'signOut', async () => {
        const view = await client.call('servers.signOut', { id });
        set({ servers: replaceServer(get().servers, view) }, false, 'servers/signedOut');
        refreshDetailIfOpen(id);
      });
    },
  });

export const createServersSlice: ClientSliceCreator<ServersSlice> =
  (client) =>
  (...args) => {
    const helpers = serversHelpers(client)(...args);
    return {
      ...INITIAL,
      ...listActions(client, helpers)(...args),
      ...detailActions(client, helpers)(...args),
      ...commandActions(client, helpers)(...args),
    };
  };
