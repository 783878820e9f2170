/**
 * Live lists: when a server says its tools changed (`notifications/tools/list_changed`, or a new
 * session replaced one it forgot), that server is listed again and its tool list replaced
 * wholesale — a tool it added becomes callable, one it removed disappears — and the tool map's
 * event updates the GUI. A re-list waits for a discovery in flight (whose outcome replaces the
 * whole map) and runs one at a time per server; notifications that arrive meanwhile cause one
 * more re-list, not one each.
 *
 * Resources and prompts plug in with `register(kind, refresher)` — called in the registry's
 * constructor, before any client is built (a client is watched for the kinds known then). The
 * client already turns `notifications/{resources,prompts}/list_changed` into `onListChanged`.
 */
import type { ListKind, ToolClient } from '../types.js';
import type { CacheAccess } from './cacheAccess.js';
import type { RegistryState } from './state.js';
import { failureOfServer } from './state.js';
import type { Connection, ServerEntry } from './types.js';

/** Re-lists one kind of list for one server's live connection. */
export type ListRefresher = (entry: ServerEntry, connection: Connection) => Promise<void>;

export class LiveLists {
  /** Per server and kind: the re-list running now, and whether another is due after it. */
  private readonly running = new Map<string, { dirty: boolean }>();
  private readonly refreshers = new Map<ListKind, ListRefresher>();

  constructor(
    private readonly state: RegistryState,
    private readonly cache: CacheAccess,
    /** The discovery in flight, if any: a re-list waits for it. */
    private readonly discoveryInFlight: () => Promise<unknown> | undefined,
  ) {
    this.refreshers.set('tools', (entry, connection) => this.refreshTools(entry, connection));
  }

  /** Lets another kind of list (resources, prompts) be re-listed the same way. */
  register(kind: ListKind, refresher: ListRefresher): void {
    this.refreshers.set(kind, refresher);
  }

  /** Follows a new client's list changes (called for every client the registry builds). */
  watch(client: ToolClient): void {
    for (const kind of this.refreshers.keys()) client.onListChanged?.(kind, () => this.changed(client, kind));
  }

  private changed(client: ToolClient, kind: ListKind): void {
    const key = `${kind}\u0000${client.serverId}`;
    const run = this.running.get(key);
    if (run) {
      run.dirty = true;
      return;
    }
    const mark = { dirty: true };
    this.running.set(key, mark);
    void (async () => {
      while (mark.dirty) {
        mark.dirty = false;
        await this.discoveryInFlight()?.catch(() => undefined);
        const entry = this.state.entries.get(client.serverId);
        const connection = entry?.connection;
        // Only the server's live connection speaks for it (a reconnect or an edit replaced this one).
        if (this.state.closed || !entry || !connection || connection.client !== client || connection.failure) return;
        await this.refreshers.get(kind)?.(entry, connection);
      }
    })()
      .catch((error: unknown) =>
        this.state.entries
          .get(client.serverId)
          ?.log.note(`re-listing ${kind} failed: ${failureOfServer(error).reason}`),
      )
      .finally(() => this.running.delete(key));
  }

  private async refreshTools(entry: ServerEntry, connection: Connection): Promise<void> {
    const generation = entry.generation;
    const tools = await connection.client.listTools();
    const stale = (): boolean =>
      this.state.closed ||
      this.state.entries.get(entry.config.id) !== entry ||
      entry.generation !== generation ||
      entry.connection !== connection ||
      connection.failure !== undefined;
    if (stale()) return;
    await this.cache.write(entry.config, connection.fingerprint, tools, connection.client.toolListHints?.());
    if (stale()) return;
    entry.log.note(`the server's tools changed: ${tools.length} ${tools.length === 1 ? 'tool' : 'tools'} now`);
    this.state.setServerTools(entry.config.id, tools);
  }
}
