/**
 * `MCPToolRegistry`: the set of configured servers, their connections, and the tool map.
 *
 * - Discovery connects, initializes and lists every enabled server in parallel. One discovery
 *   runs at a time; concurrent callers share it. Its result replaces the tool map wholesale, so a
 *   tool that went away disappears.
 * - A tool name offered by several servers resolves to the highest priority (ties: server id
 *   order). There is no automatic failover to the next server: the conflict is listed instead.
 * - Each server's status (connecting, ready, error with reason, closed, …) is published as an event.
 * - A server that was ready and lost its connection (it exited, the socket dropped, a result was
 *   too large) reconnects by itself with backoff (`reconnecting` status: attempt, next retry), until
 *   it is back, a person disconnects, disables or removes it, or a failure needs a person (auth,
 *   configuration). `whenReady` lets a retry wait for that instead of sleeping blindly.
 * - With a schema cache, a warm start takes tool lists from the cache (no `tools/list`) while
 *   the connections come up in the background.
 */
import type { ServerConfig } from '../../shared/serverConfig.js';
import { ServerConfigSchema, describeFieldErrors, fieldErrorsOf } from '../../shared/serverConfig.js';
import type { SecretResolver } from '../secrets/resolver.js';
import { MCPClient } from './client.js';
import type { MCPErrorCode } from './errors.js';
import { MCPConfigError, MCPError, MCPRequestCancelled, MCPServerUnavailableError, MCPUnknownToolError } from './errors.js';
import { connectionFingerprint } from './fingerprint.js';
import { LogBuffer } from './logBuffer.js';
import type { ReconnectPolicy } from './reconnectPolicy.js';
import { DEFAULT_RECONNECT_POLICY, keepsReconnecting, reconnectDelay } from './reconnectPolicy.js';
import type { ToolSchemaCache } from './schemaCache.js';
import type { NormalizedToolResult } from '../results/toolResult.js';
import type { ErrorCause } from '../../shared/errors.js';
import type { ClientFactory, NegotiatedInfo, RequestOptions, ToolClient, ToolDescriptor } from './types.js';

export type ServerStatus =
  | { state: 'disabled' }
  | { state: 'idle' }
  | { state: 'connecting' }
  | { state: 'ready' }
  | { state: 'error'; code: MCPErrorCode | 'internal'; reason: string; cause?: ErrorCause }
  /** The connection was lost; attempt `attempt` starts at `nextRetryAt` (epoch ms). `code`/`reason`: why it was lost or why the last attempt failed. */
  | { state: 'reconnecting'; attempt: number; nextRetryAt: number; code: MCPErrorCode | 'internal'; reason: string; cause?: ErrorCause }
  | { state: 'closed' };

export interface RegisteredTool {
  /** The name the server gave the tool (and the name callers use). */
  name: string;
  serverId: string;
  priority: number;
  tool: ToolDescriptor;
}

export interface ToolConflict {
  name: string;
  /** The server whose tool a call by name reaches. */
  winner: string;
  /** Every server offering the name, highest priority first. */
  servers: Array<{ serverId: string; priority: number }>;
}

export interface ServerDiscovery {
  status: ServerStatus;
  /** Where the tool list came from. */
  source: 'live' | 'cache' | 'none';
  toolCount: number;
}

export interface DiscoveryResult {
  servers: Record<string, ServerDiscovery>;
  tools: RegisteredTool[];
  conflicts: ToolConflict[];
  durationMs: number;
}

export interface DiscoverOptions {
  /** Reconnect every server and ask it for its tools, ignoring the schema cache. */
  refresh?: boolean;
  signal?: AbortSignal;
}

export interface RegistryCallOptions extends RequestOptions {
  /** Who asked for the call (the GUI, or an agent), noted in the server's log. */
  agentId?: string;
}

export type RegistryEvent =
  | { type: 'status'; serverId: string; status: ServerStatus; at: number }
  | { type: 'tools'; tools: RegisteredTool[]; conflicts: ToolConflict[] }
  | { type: 'servers'; servers: ServerConfig[] }
  | { type: 'warning'; message: string };

export interface RegistryOptions {
  secrets: SecretResolver;
  /** Builds a client for a server; the SDK-based `MCPClient` by default. */
  clientFactory?: ClientFactory;
  cache?: ToolSchemaCache;
  /** How lost connections are retried; see reconnectPolicy.ts. */
  reconnect?: Partial<ReconnectPolicy>;
  /** The largest message a server may send, for the default client factory (16 MiB by default). */
  maxMessageBytes?: number;
}

export interface WaitOptions {
  signal?: AbortSignal;
  /** How long to wait at most. */
  timeoutMs: number;
}

interface Connection {
  client: ToolClient;
  fingerprint: string;
  /** Settles when initialize has finished (either way). */
  ready: Promise<void>;
  /** Set once the connection failed or was lost; calls are refused with it. */
  failure?: MCPError;
  /** When it became ready (epoch ms). */
  readyAt?: number;
}

/** One run of automatic reconnection; replaced or dropped when a person (or an edit) takes over. */
interface ReconnectState {
  attempt: number;
  timer?: ReturnType<typeof setTimeout>;
}

interface ServerEntry {
  config: ServerConfig;
  /** Bumped on every change, so a discovery that raced an edit drops its stale outcome. */
  generation: number;
  status: ServerStatus;
  log: LogBuffer;
  connection?: Connection;
  reconnect?: ReconnectState;
}

class RegistryClosedError extends MCPError {
  readonly code = 'closed';
  constructor() {
    super('The tool registry has been closed (the app is quitting).');
  }
}

function assertUsable(serverId: string, connection: Connection): void {
  if (connection.failure) throw new MCPServerUnavailableError(serverId, connection.failure.message);
}

function describeError(error: unknown): { code: MCPErrorCode | 'internal'; reason: string; cause?: ErrorCause } {
  if (error instanceof MCPError) return { code: error.code, reason: error.message, ...(error.details.cause ? { cause: error.details.cause } : {}) };
  return { code: 'internal', reason: error instanceof Error ? error.message : String(error) };
}

export class MCPToolRegistry {
  private readonly entries = new Map<string, ServerEntry>();
  private readonly listeners = new Set<(event: RegistryEvent) => void>();
  /** Tools by server, from the last discovery (or a single-server refresh). */
  private toolsByServer = new Map<string, ToolDescriptor[]>();
  private discovering: Promise<DiscoveryResult> | undefined;
  private closing: Promise<void> | undefined;
  private readonly clientFactory: ClientFactory;
  private readonly reconnectPolicy: ReconnectPolicy;

  constructor(private readonly options: RegistryOptions) {
    this.clientFactory =
      options.clientFactory ??
      ((config) =>
        new MCPClient(config, { secrets: options.secrets, log: this.logOf(config.id), ...(options.maxMessageBytes !== undefined ? { maxMessageBytes: options.maxMessageBytes } : {}) }));
    this.reconnectPolicy = { ...DEFAULT_RECONNECT_POLICY, ...options.reconnect };
  }

  // ── events ───────────────────────────────────────────────────────────────────────────────

  subscribe(listener: (event: RegistryEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: RegistryEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A failing listener (a closed window) must not break the registry.
      }
    }
  }

  // ── servers ──────────────────────────────────────────────────────────────────────────────

  /** Adds a server (validated). It connects at the next discovery or `connect(id)`. */
  addServer(input: unknown): ServerConfig {
    this.assertOpen();
    const config = this.validate(input);
    if (this.entries.has(config.id)) throw new MCPConfigError(config.id, 'a server with this id already exists');
    this.entries.set(config.id, {
      config,
      generation: 0,
      status: config.enabled ? { state: 'idle' } : { state: 'disabled' },
      log: new LogBuffer(),
    });
    this.emitServers();
    this.emitStatus(config.id);
    return config;
  }

  /**
   * Replaces a server's configuration. A change to how it is reached (or disabling it) closes its
   * connection and drops its tools until it is discovered again; other edits (name, priority)
   * apply at once.
   */
  async updateServer(input: unknown): Promise<ServerConfig> {
    this.assertOpen();
    const config = this.validate(input);
    const entry = this.entries.get(config.id);
    if (!entry) throw new MCPConfigError(config.id, 'no server with this id exists');
    const reconnect = connectionFingerprint(config) !== connectionFingerprint(entry.config) || !config.enabled || config.timeoutMs !== entry.config.timeoutMs;
    entry.config = config;
    entry.generation++;
    if (reconnect) {
      this.stopReconnecting(entry);
      await this.dropConnection(entry);
      this.setStatus(entry, config.enabled ? { state: 'idle' } : { state: 'disabled' });
      this.setServerTools(config.id, undefined);
    } else {
      this.emitTools();
    }
    this.emitServers();
    return config;
  }

  async removeServer(id: string): Promise<void> {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    entry.generation++;
    this.stopReconnecting(entry);
    await this.dropConnection(entry);
    await this.options.cache?.delete(id);
    this.setServerTools(id, undefined);
    this.emit({ type: 'status', serverId: id, status: { state: 'closed' }, at: Date.now() });
    this.emitServers();
  }

  servers(): ServerConfig[] {
    return [...this.entries.values()].map((e) => e.config);
  }

  server(id: string): ServerConfig | undefined {
    return this.entries.get(id)?.config;
  }

  status(id: string): ServerStatus | undefined {
    return this.entries.get(id)?.status;
  }

  /** What the server negotiated, once connected. */
  negotiated(id: string): NegotiatedInfo | undefined {
    return this.entries.get(id)?.connection?.client.negotiated;
  }

  /** The server's log (stderr and connection notes), bounded and redacted. */
  logOf(id: string): LogBuffer {
    const entry = this.entries.get(id);
    if (!entry) throw new MCPConfigError(id, 'no server with this id exists');
    return entry.log;
  }

  // ── discovery ────────────────────────────────────────────────────────────────────────────

  /** Discovers every enabled server in parallel; concurrent callers share one run. */
  discover(options: DiscoverOptions = {}): Promise<DiscoveryResult> {
    this.assertOpen();
    this.discovering ??= this.runDiscovery(options).finally(() => {
      this.discovering = undefined;
    });
    return this.discovering;
  }

  /** Connects (or reconnects) one server and refreshes its tools, leaving the others alone. */
  async connect(id: string, options: DiscoverOptions = {}): Promise<ServerDiscovery> {
    this.assertOpen();
    const entry = this.entries.get(id);
    if (!entry) throw new MCPConfigError(id, 'no server with this id exists');
    if (!entry.config.enabled) throw new MCPServerUnavailableError(id, 'it is disabled; enable it first');
    this.stopReconnecting(entry);
    await this.dropConnection(entry);
    const outcome = await this.discoverServer(entry, options);
    if (outcome) this.setServerTools(id, outcome.tools);
    return outcome?.discovery ?? { status: entry.status, source: 'none', toolCount: 0 };
  }

  /** Closes one server's connection; its tools leave the map. */
  async disconnect(id: string): Promise<void> {
    const entry = this.entries.get(id);
    if (!entry) throw new MCPConfigError(id, 'no server with this id exists');
    entry.generation++;
    this.stopReconnecting(entry);
    await this.dropConnection(entry);
    this.setServerTools(id, undefined);
    this.setStatus(entry, { state: 'closed' });
  }

  private async runDiscovery(options: DiscoverOptions): Promise<DiscoveryResult> {
    const started = performance.now();
    const enabled = [...this.entries.values()].filter((e) => e.config.enabled);
    // Every cache file is read before any server is spawned: spawning is heavy, and a warm start
    // must not make the last cache reads wait behind it.
    const cached = await Promise.all(enabled.map((entry) => this.cachedTools(entry, options)));
    const outcomes = await Promise.all(enabled.map(async (entry, i) => ({ entry, outcome: await this.discoverServer(entry, options, { tools: cached[i] }) })));

    const next = new Map<string, ToolDescriptor[]>();
    const servers: Record<string, ServerDiscovery> = {};
    for (const { entry, outcome } of outcomes) {
      if (outcome) {
        next.set(entry.config.id, outcome.tools);
        servers[entry.config.id] = outcome.discovery;
      } else if (this.entries.get(entry.config.id) === entry) {
        // The server was edited while we discovered it: keep whatever the edit left in place.
        const kept = this.toolsByServer.get(entry.config.id);
        if (kept) next.set(entry.config.id, kept);
        servers[entry.config.id] = { status: entry.status, source: 'none', toolCount: kept?.length ?? 0 };
      }
    }
    for (const entry of this.entries.values()) {
      if (!entry.config.enabled) servers[entry.config.id] = { status: entry.status, source: 'none', toolCount: 0 };
    }
    this.toolsByServer = next;
    this.emitTools();
    return { servers, tools: this.tools(), conflicts: this.conflicts(), durationMs: performance.now() - started };
  }

  /**
   * Brings one server's tool list up to date. Returns undefined when the server was edited or
   * removed meanwhile (its outcome is stale and must not be applied).
   */
  private async cachedTools(entry: ServerEntry, options: DiscoverOptions): Promise<ToolDescriptor[] | undefined> {
    return options.refresh ? undefined : this.options.cache?.get(entry.config.id, connectionFingerprint(entry.config));
  }

  private async discoverServer(
    entry: ServerEntry,
    options: DiscoverOptions,
    /** The cache lookup, when the caller already made it. */
    prefetched?: { tools: ToolDescriptor[] | undefined },
  ): Promise<{ tools: ToolDescriptor[]; discovery: ServerDiscovery } | undefined> {
    const { config, generation } = entry;
    const fingerprint = connectionFingerprint(config);
    const stale = (): boolean => this.closing !== undefined || this.entries.get(config.id) !== entry || entry.generation !== generation;
    const fail = (error: unknown): { tools: ToolDescriptor[]; discovery: ServerDiscovery } => {
      const status: ServerStatus = { state: 'error', ...describeError(error) };
      this.setStatus(entry, status);
      return { tools: [], discovery: { status, source: 'none', toolCount: 0 } };
    };

    const cached = prefetched ? prefetched.tools : await this.cachedTools(entry, options);
    if (stale()) return undefined;

    let connection = entry.connection;
    // A refresh starts a new session (a restarted HTTP server forgets the old one); otherwise a
    // healthy connection to the same settings is kept.
    const reusable = !options.refresh && connection && !connection.failure && connection.fingerprint === fingerprint && connection.client.state !== 'closed';
    if (!reusable) {
      this.stopReconnecting(entry);
      await this.dropConnection(entry);
      connection = this.openConnection(entry, fingerprint, options.signal);
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
      await this.options.cache?.set(config.id, fingerprint, tools).catch((error: unknown) => {
        this.emit({ type: 'warning', message: `Could not write the tool cache for "${config.id}": ${describeError(error).reason}` });
      });
      return { tools, discovery: { status: entry.status, source: 'live', toolCount: tools.length } };
    } catch (error) {
      return fail(error);
    }
  }

  /**
   * Opens a connection and starts initialize. `reconnect` mode leaves the status to the caller
   * (the reconnection decides what a failure means and marks the server ready once its tools are in).
   */
  private openConnection(entry: ServerEntry, fingerprint: string, signal?: AbortSignal, mode: 'connect' | 'reconnect' = 'connect'): Connection {
    const client = this.clientFactory(entry.config);
    const generation = entry.generation;
    const connection: Connection = { client, fingerprint, ready: Promise.resolve() };
    entry.connection = connection;
    this.setStatus(entry, { state: 'connecting' });
    const current = (): boolean => entry.connection === connection && entry.generation === generation && this.closing === undefined;

    client.onDisconnect(({ error }) => {
      const mapped = error instanceof MCPError ? error : new MCPServerUnavailableError(entry.config.id, error.message);
      connection.failure = mapped;
      // Still this server's live connection (an edit of its name or priority keeps it): reconnect.
      if (entry.connection === connection && this.entries.get(entry.config.id) === entry && this.closing === undefined) this.connectionLost(entry, connection, mapped);
    });
    // Start on the next turn of the event loop: spawning many servers takes a while, and a warm
    // start must hand out its cached tool list before that work begins.
    connection.ready = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => client.initialize(signal ? { signal } : {}))
      .then(
      () => {
        if (mode === 'reconnect') return;
        connection.readyAt = Date.now();
        if (current()) this.setStatus(entry, { state: 'ready' });
      },
      (error: unknown) => {
        connection.failure = error instanceof MCPError ? error : new MCPServerUnavailableError(entry.config.id, describeError(error).reason);
        if (mode === 'reconnect') return;
        if (current()) {
          this.setStatus(entry, { state: 'error', ...describeError(error) });
          // A warm start listed this server's tools from the cache; they cannot be called now.
          if (this.toolsByServer.has(entry.config.id)) this.setServerTools(entry.config.id, undefined);
        }
      },
    );
    return connection;
  }

  // ── reconnection ─────────────────────────────────────────────────────────────────────────

  /**
   * A ready connection was lost. Its tools stay listed (a call meanwhile is refused as "not
   * connected", which the harness retries once the server is back), and reconnection starts.
   */
  private connectionLost(entry: ServerEntry, connection: Connection, cause: MCPError): void {
    const stable = connection.readyAt !== undefined && Date.now() - connection.readyAt >= this.reconnectPolicy.stableAfterMs;
    if (stable || !entry.reconnect) {
      this.stopReconnecting(entry);
      entry.reconnect = { attempt: 0 };
    }
    entry.log.note(`connection lost (${cause.code}); reconnecting automatically`);
    this.scheduleReconnect(entry, entry.reconnect, cause);
  }

  private scheduleReconnect(entry: ServerEntry, state: ReconnectState, cause: unknown): void {
    clearTimeout(state.timer);
    state.attempt++;
    const delayMs = reconnectDelay(state.attempt, this.reconnectPolicy);
    const attempt = state.attempt;
    state.timer = setTimeout(() => {
      state.timer = undefined;
      void this.reconnectOnce(entry, state, attempt);
    }, delayMs);
    this.setStatus(entry, { state: 'reconnecting', attempt, nextRetryAt: Date.now() + delayMs, ...describeError(cause) });
  }

  private async reconnectOnce(entry: ServerEntry, state: ReconnectState, attempt: number): Promise<void> {
    const stale = (): boolean => this.closing !== undefined || this.entries.get(entry.config.id) !== entry || entry.reconnect !== state || !entry.config.enabled;
    if (stale()) return;
    entry.log.note(`reconnecting (attempt ${attempt})`);
    await this.dropConnection(entry);
    if (stale() || entry.connection) return;
    const fingerprint = connectionFingerprint(entry.config);
    const connection = this.openConnection(entry, fingerprint, undefined, 'reconnect');
    const mine = (): boolean => !stale() && entry.connection === connection;
    await connection.ready;
    if (!mine()) return;
    if (connection.failure) return this.reconnectFailed(entry, state, connection.failure);
    try {
      const tools = await connection.client.listTools();
      if (!mine() || connection.failure) return; // lost again meanwhile: its own loss handler took over
      await this.options.cache?.set(entry.config.id, fingerprint, tools).catch((error: unknown) => {
        this.emit({ type: 'warning', message: `Could not write the tool cache for "${entry.config.id}": ${describeError(error).reason}` });
      });
      if (!mine() || connection.failure) return;
      connection.readyAt = Date.now();
      this.setServerTools(entry.config.id, tools);
      entry.log.note(`reconnected after ${attempt} ${attempt === 1 ? 'attempt' : 'attempts'}`);
      this.setStatus(entry, { state: 'ready' });
    } catch (error) {
      if (!mine() || connection.failure) return;
      await this.dropConnection(entry);
      if (!stale()) this.reconnectFailed(entry, state, error);
    }
  }

  private reconnectFailed(entry: ServerEntry, state: ReconnectState, error: unknown): void {
    const described = describeError(error);
    if (keepsReconnecting(described.code)) return this.scheduleReconnect(entry, state, error);
    // Another attempt cannot help (a refused token, a missing command): a person must act.
    this.stopReconnecting(entry);
    this.setServerTools(entry.config.id, undefined);
    this.setStatus(entry, { state: 'error', ...described });
  }

  /** Ends automatic reconnection (a person connected, disconnected, edited, disabled or removed the server). */
  private stopReconnecting(entry: ServerEntry): void {
    clearTimeout(entry.reconnect?.timer);
    entry.reconnect = undefined;
  }

  /**
   * Resolves once the server is ready (at once when it is), e.g. after an automatic reconnect.
   * Rejects with MCPServerUnavailableError when it will not come back by itself (disabled,
   * disconnected, removed, failed for a reason a person must fix) or not within `timeoutMs`,
   * and with the signal's reason (or MCPRequestCancelled) when the signal aborts.
   */
  whenReady(id: string, options: WaitOptions): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const entry = this.entries.get(id);
      if (!entry) return reject(new MCPConfigError(id, 'no server with this id exists'));
      const cancelled = (): Error => {
        const reason: unknown = options.signal?.reason;
        return reason instanceof Error ? reason : new MCPRequestCancelled(id, 'waiting for the server to reconnect');
      };
      if (options.signal?.aborted) return reject(cancelled());
      const settle = (finish: () => void): void => {
        unsubscribe();
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        finish();
      };
      const onAbort = (): void => settle(() => reject(cancelled()));
      const check = (): void => {
        if (this.closing !== undefined || this.entries.get(id) !== entry) return settle(() => reject(new MCPServerUnavailableError(id, 'it was removed')));
        const status = entry.status;
        if (status.state === 'ready' && entry.connection && !entry.connection.failure) return settle(resolve);
        if (status.state === 'error') return settle(() => reject(new MCPServerUnavailableError(id, status.reason)));
        if (status.state === 'disabled' || status.state === 'closed' || status.state === 'idle') {
          settle(() => reject(new MCPServerUnavailableError(id, status.state === 'disabled' ? 'it is disabled' : 'it is not connected')));
        }
      };
      const unsubscribe = this.subscribe((event) => {
        if (event.type === 'status' && event.serverId === id) check();
      });
      const timer = setTimeout(() => settle(() => reject(new MCPServerUnavailableError(id, `it did not come back within ${options.timeoutMs} ms`))), options.timeoutMs);
      options.signal?.addEventListener('abort', onAbort, { once: true });
      check();
    });
  }

  private async dropConnection(entry: ServerEntry): Promise<void> {
    const connection = entry.connection;
    entry.connection = undefined;
    await connection?.client.close();
  }

  // ── tools ────────────────────────────────────────────────────────────────────────────────

  /** Every tool offered by every server, highest priority first within a name. */
  allTools(): RegisteredTool[] {
    const out: RegisteredTool[] = [];
    for (const [serverId, tools] of this.toolsByServer) {
      const priority = this.entries.get(serverId)?.config.priority ?? 0;
      for (const tool of tools) out.push({ name: tool.name, serverId, priority, tool });
    }
    return out.sort((a, b) => a.name.localeCompare(b.name) || b.priority - a.priority || a.serverId.localeCompare(b.serverId));
  }

  /** One tool per name: the one a call by name reaches. */
  tools(): RegisteredTool[] {
    const winners = new Map<string, RegisteredTool>();
    for (const tool of this.allTools()) if (!winners.has(tool.name)) winners.set(tool.name, tool);
    return [...winners.values()];
  }

  conflicts(): ToolConflict[] {
    const byName = new Map<string, RegisteredTool[]>();
    for (const tool of this.allTools()) byName.set(tool.name, [...(byName.get(tool.name) ?? []), tool]);
    const out: ToolConflict[] = [];
    for (const [name, offers] of byName) {
      if (offers.length < 2 || !offers[0]) continue;
      out.push({ name, winner: offers[0].serverId, servers: offers.map((o) => ({ serverId: o.serverId, priority: o.priority })) });
    }
    return out;
  }

  /** The tool a call by name reaches, or undefined. */
  resolve(name: string): RegisteredTool | undefined {
    return this.allTools().find((t) => t.name === name);
  }

  /** Calls a tool by name on the highest-priority server that offers it. */
  callTool(name: string, args: Record<string, unknown>, options: RegistryCallOptions = {}): Promise<NormalizedToolResult> {
    this.assertOpen();
    const target = this.resolve(name);
    if (!target) throw new MCPUnknownToolError(name);
    return this.callServerTool(target.serverId, name, args, options);
  }

  /** Calls a tool on one given server (a shadowed tool, chosen explicitly in the GUI). */
  async callServerTool(serverId: string, name: string, args: Record<string, unknown>, options: RegistryCallOptions = {}): Promise<NormalizedToolResult> {
    this.assertOpen();
    const entry = this.entries.get(serverId);
    if (!entry) throw new MCPConfigError(serverId, 'no server with this id exists');
    const connection = entry.connection;
    if (!connection) throw new MCPServerUnavailableError(serverId, 'it is not connected; connect it first');
    // A lost server says why (it exited, it was killed) rather than "no such tool".
    assertUsable(serverId, connection);
    if (!this.toolsByServer.get(serverId)?.some((t) => t.name === name)) throw new MCPUnknownToolError(name, serverId);
    await connection.ready;
    assertUsable(serverId, connection);
    if (options.agentId) entry.log.note(`tools/call ${name} (by ${options.agentId})`);
    const { agentId: _agentId, ...requestOptions } = options;
    return connection.client.callTool(name, args, requestOptions);
  }

  // ── lifecycle ────────────────────────────────────────────────────────────────────────────

  /** Closes every connection. Idempotent; the registry refuses work afterwards. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const entries = [...this.entries.values()];
      for (const entry of entries) this.stopReconnecting(entry);
      await Promise.all(entries.map((entry) => this.dropConnection(entry)));
      for (const entry of entries) this.setStatus(entry, { state: 'closed' });
    })();
    return this.closing;
  }

  private assertOpen(): void {
    if (this.closing) throw new RegistryClosedError();
  }

  private validate(input: unknown): ServerConfig {
    const parsed = ServerConfigSchema.safeParse(input);
    if (parsed.success) return parsed.data;
    const id = (input as { id?: unknown } | null)?.id;
    throw new MCPConfigError(typeof id === 'string' ? id : undefined, describeFieldErrors(fieldErrorsOf(parsed.error)));
  }

  private setStatus(entry: ServerEntry, status: ServerStatus): void {
    entry.status = status;
    this.emit({ type: 'status', serverId: entry.config.id, status, at: Date.now() });
  }

  private emitStatus(id: string): void {
    const entry = this.entries.get(id);
    if (entry) this.emit({ type: 'status', serverId: id, status: entry.status, at: Date.now() });
  }

  private setServerTools(id: string, tools: ToolDescriptor[] | undefined): void {
    const had = this.toolsByServer.has(id);
    if (tools) this.toolsByServer.set(id, tools);
    else this.toolsByServer.delete(id);
    if (tools || had) this.emitTools();
  }

  private emitTools(): void {
    this.emit({ type: 'tools', tools: this.tools(), conflicts: this.conflicts() });
  }

  private emitServers(): void {
    this.emit({ type: 'servers', servers: this.servers() });
  }
}
