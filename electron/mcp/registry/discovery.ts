/**
 * Discovery: connects, initializes and lists every enabled server in parallel. One discovery runs
 * at a time; concurrent callers share it. Its result replaces the tool map wholesale, so a tool
 * that went away disappears. With a schema cache, a warm start takes tool lists from the cache
 * (no `tools/list`) while the connections come up in the background.
 */
import { connectionFingerprint } from '../fingerprint.js';
import type { ToolDescriptor } from '../types.js';
import type { CacheAccess } from './cacheAccess.js';
import type { ConnectionLifecycle } from './connections.js';
import type { RegistryState } from './state.js';
import { failureOfServer } from './state.js';
import type { ToolMap, ServerTools } from './toolMap.js';
import type { DiscoverOptions, DiscoveryResult, ServerDiscovery, ServerEntry, ServerStatus } from './types.js';

export interface ServerOutcome {
  tools: ToolDescriptor[];
  discovery: ServerDiscovery;
}

export class Discovery {
  private running: Promise<DiscoveryResult> | undefined;

  constructor(
    private readonly state: RegistryState,
    private readonly connections: ConnectionLifecycle,
    private readonly cache: CacheAccess,
  ) {}

  /** The discovery running now, if any (a re-list after list_changed waits for it). */
  get inFlight(): Promise<DiscoveryResult> | undefined {
    return this.running;
  }

  private get toolMap(): ToolMap {
    return this.state.toolMap;
  }

  /** Discovers every enabled server in parallel; concurrent callers share one run. */
  discoverAll(options: DiscoverOptions): Promise<DiscoveryResult> {
    this.running ??= this.run(options).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async run(options: DiscoverOptions): Promise<DiscoveryResult> {
    const started = performance.now();
    const enabled = [...this.state.entries.values()].filter((e) => e.config.enabled);
    // Every cache file is read before any server is spawned: spawning is heavy, and a warm start
    // must not make the last cache reads wait behind it.
    const cached = await Promise.all(enabled.map((entry) => this.cachedTools(entry, options)));
    const outcomes = await Promise.all(
      enabled.map(async (entry, i) => ({
        entry,
        outcome: await this.discoverServer(entry, options, { tools: cached[i] }),
      })),
    );

    const next = new Map<string, ServerTools>();
    const servers: Record<string, ServerDiscovery> = {};
    for (const { entry, outcome } of outcomes) {
      if (outcome) {
        next.set(entry.config.id, { tools: outcome.tools, fromCache: outcome.discovery.source === 'cache' });
        servers[entry.config.id] = outcome.discovery;
      } else if (this.state.entries.get(entry.config.id) === entry) {
        // The server was edited while we discovered it: keep whatever the edit left in place.
        const kept = this.toolMap.get(entry.config.id);
        if (kept) next.set(entry.config.id, kept);
        servers[entry.config.id] = { status: entry.status, source: 'none', toolCount: kept?.tools.length ?? 0 };
      }
    }
    for (const entry of this.state.entries.values()) {
      if (!entry.config.enabled) servers[entry.config.id] = { status: entry.status, source: 'none', toolCount: 0 };
    }
    this.toolMap.replaceAll(next);
    this.state.emitTools();
    return {
      servers,
      tools: this.toolMap.tools(),
      conflicts: this.toolMap.conflicts(),
      durationMs: performance.now() - started,
    };
  }

  private async cachedTools(entry: ServerEntry, options: DiscoverOptions): Promise<ToolDescriptor[] | undefined> {
    return options.refresh ? undefined : this.cache.read(entry);
  }

  /**
   * Brings one server's tool list up to date. Returns undefined when the server was edited or
   * removed meanwhile (its outcome is stale and must not be applied).
   */
  async discoverServer(
    entry: ServerEntry,
    options: DiscoverOptions,
    /** The cache lookup, when the caller already made it. */
    prefetched?: { tools: ToolDescriptor[] | undefined },
  ): Promise<ServerOutcome | undefined> {
    const { state, connections } = this;
    const { config, generation } = entry;
    const fingerprint = connectionFingerprint(config);
    const stale = (): boolean =>
      state.closed || state.entries.get(config.id) !== entry || entry.generation !== generation;
    const fail = (error: unknown): ServerOutcome => {
      const status: ServerStatus = { state: 'error', ...failureOfServer(error) };
      state.setStatus(entry, status);
      return { tools: [], discovery: { status, source: 'none', toolCount: 0 } };
    };

    const cached = prefetched ? prefetched.tools : await this.cachedTools(entry, options);
    if (stale()) return undefined;

    let connection = entry.connection;
    // A refresh starts a new session (a restarted HTTP server forgets the old one); otherwise a
    // healthy connection to the same settings is kept.
    const reusable =
      !options.refresh &&
      connection &&
      !connection.failure &&
      connection.fingerprint === fingerprint &&
      connection.client.state !== 'closed';
    if (!reusable) {
      connections.stopReconnecting(entry);
      await connections.drop(entry);
      connection = connections.open(entry, fingerprint, options.signal);
    }
    if (!connection) return undefined;

    if (cached) {
      // Warm start: tools now, the connection in the background (its status events report it).
      return { tools: cached, discovery: { status: entry.status, source: 'cache', toolCount: cached.length } };
    }

    await connection.ready;
    // A later connect or discovery replaced this connection: its outcome is not this server's now.
    if (stale() || entry.connection !== connection) return undefined;
    if (connection.failure) return fail(connection.failure);
    try {
      const tools = await connection.client.listTools(options.signal ? { signal: options.signal } : {});
      if (stale()) return undefined;
      await this.cache.write(config, fingerprint, tools, connection.client.toolListHints?.());
      return { tools, discovery: { status: entry.status, source: 'live', toolCount: tools.length } };
    } catch (error) {
      return fail(error);
    }
  }
}
