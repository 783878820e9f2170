/**
 * `MCPToolRegistry`: the set of configured servers, their connections, and the tool map. A facade
 * over its parts in registry/:
 *
 * - connections.ts — connection lifecycle: open, close, automatic reconnection with backoff, `whenReady`;
 * - discovery.ts — every enabled server discovered in parallel, warm starts from the schema cache;
 * - toolMap.ts — each server's tools, one winner per name by priority, the conflicts;
 * - calls.ts — a call on one given server;
 * - cacheAccess.ts — the schema cache (a removed server's entry is dropped before its id is reused);
 * - features.ts — what each server offers beside tools: resources, prompts, completion;
 * - liveLists.ts — a server that says its tools changed is listed again;
 * - state.ts — the entries and events they share.
 *
 * Each server's status (connecting, ready, error with reason, reconnecting, closed, …) is
 * published as an event, as are tool-map changes.
 *
 * With `redactor`, what servers describe leaves the registry with those values redacted —
 * tools (the map, the schema cache file), resources, templates, prompts, progress messages
 * (descriptorRedaction.ts) — so no consumer has to redact it again.
 */
import type { ServerConfig } from '../../shared/serverConfig.js';
import { ServerConfigSchema, describeFieldErrors, fieldErrorsOf } from '../../shared/serverConfig.js';
import type { SecretResolver } from '../secrets/resolver.js';
import type { SecretRedactor } from '../secrets/secretRedactor.js';
import type { MCPClientOptions } from './client.js';
import { DescriptorRedaction } from './descriptorRedaction.js';
import { CLIENT_NAME, MCPClient } from './client.js';
import type { MCPError } from './errors.js';
import { MCPConfigError, MCPServerUnavailableError } from './errors.js';
import { connectionFingerprint } from './fingerprint.js';
import { LogBuffer } from './logBuffer.js';
import type { OAuthSessions } from './oauth/manager.js';
import type { OAuthSession } from './oauth/session.js';
import type { ReconnectPolicy } from './reconnectPolicy.js';
import type { ServerRequestHandlers } from './serverRequests.js';
import { DEFAULT_RECONNECT_POLICY } from './reconnectPolicy.js';
import { CacheAccess } from './registry/cacheAccess.js';
import type { RegistryCallOptions } from './registry/calls.js';
import { callServerTool } from './registry/calls.js';
import { ConnectionLifecycle } from './registry/connections.js';
import { Discovery } from './registry/discovery.js';
import { ServerFeatures } from './registry/features.js';
import { LiveLists } from './registry/liveLists.js';
import { RegistryState, failureOfServer } from './registry/state.js';
import type {
  DiscoverOptions,
  DiscoveryResult,
  RegisteredTool,
  RegistryEvent,
  ServerDiscovery,
  ServerStatus,
  ToolConflict,
  WaitOptions,
} from './registry/types.js';
import type { ToolSchemaCache } from './schemaCache.js';
import type { VerdictStore } from './verdictStore.js';
import type { NormalizedToolResult } from '../results/toolResult.js';
import type { ClientFactory, NegotiatedInfo, ToolClient } from './types.js';
import type { LogLevel } from './logBuffer.js';
import type { ServerSandboxes } from '../sandbox/serverSandbox.js';

export type { RegistryCallOptions } from './registry/calls.js';
export type {
  DiscoverOptions,
  DiscoveryResult,
  RegisteredTool,
  RegistryEvent,
  ServerDiscovery,
  ServerStatus,
  ToolConflict,
  WaitOptions,
} from './registry/types.js';
export type { FeatureEvent, ResourceCatalog } from './registry/features.js';

export interface RegistryOptions {
  secrets: SecretResolver;
  /** Builds a client for a server; the SDK-based `MCPClient` by default. */
  clientFactory?: ClientFactory;
  cache?: ToolSchemaCache;
  /** Each server's negotiated protocol era, dated, kept beside the schema cache (a warm start skips the probe). */
  verdicts?: VerdictStore;
  /** How lost connections are retried; see reconnectPolicy.ts. */
  reconnect?: Partial<ReconnectPolicy>;
  /** The largest message a server may send, for the default client factory (16 MiB by default). */
  maxMessageBytes?: number;
  /** This run's gateway mark, for the default client factory: a server answering with it is refused (ownGateway.ts). */
  ownGatewayMark?: string;
  /** A server answered with these gateway marks (ownGateway.ts): the app's gateway names them as the ones behind it. */
  onGatewayMarks?: (serverId: string, marks: string[]) => void;
  /** Who answers servers' elicitation and sampling requests, for the default client factory (none: not declared). */
  serverRequests?: ServerRequestHandlers;
  /** OAuth servers' sessions, for the default client factory (see oauth/manager.ts). */
  oauth?: OAuthSessions;
  /** The app's known secret values (live), redacted out of what servers describe. */
  redactor?: SecretRedactor;
  /** The app's version, reported to servers by the default client factory's clients (`clientInfo`). */
  clientVersion?: string;
  /**
   * Where stdio servers whose sandbox is on (the default) are wrapped, for the default client
   * factory (sandbox/serverSandbox.ts). Required: see `MCPClientOptions.sandboxes`.
   */
  sandboxes: ServerSandboxes;
}

export class MCPToolRegistry {
  private readonly state: RegistryState;
  private readonly cache: CacheAccess;
  private readonly verdicts: VerdictStore | undefined;
  private readonly connections: ConnectionLifecycle;
  private readonly discovery: Discovery;
  /** Resources, prompts and completion of each server (registry/features.ts). */
  readonly features: ServerFeatures;
  private readonly liveLists: LiveLists;

  constructor(options: RegistryOptions) {
    this.state = new RegistryState(new DescriptorRedaction(options.redactor));
    const baseFactory: ClientFactory =
      options.clientFactory ??
      ((config) =>
        new MCPClient(config, {
          secrets: options.secrets,
          log: this.logOf(config.id),
          logLevel: () => this.state.entries.get(config.id)?.logLevel,
          ...(options.serverRequests ? { serverRequests: options.serverRequests } : {}),
          ...(options.clientVersion ? { clientInfo: { name: CLIENT_NAME, version: options.clientVersion } } : {}),
          ...(options.maxMessageBytes !== undefined ? { maxMessageBytes: options.maxMessageBytes } : {}),
          ...(options.ownGatewayMark !== undefined ? { ownGatewayMark: options.ownGatewayMark } : {}),
          ...(options.onGatewayMarks
            ? { onGatewayMarks: (marks: string[]) => options.onGatewayMarks?.(config.id, marks) }
            : {}),
          ...oauthOf(options.oauth, config),
          sandboxes: options.sandboxes,
          ...verdictsOf(options.verdicts, config),
        }));
    // Every client's list changes are followed, whoever built it.
    const clientFactory: ClientFactory = (config) => {
      const client = baseFactory(config);
      this.liveLists.watch(client);
      return client;
    };
    this.cache = new CacheAccess(this.state, options.cache);
    this.verdicts = options.verdicts;
    this.connections = new ConnectionLifecycle(
      this.state,
      clientFactory,
      { ...DEFAULT_RECONNECT_POLICY, ...options.reconnect },
      this.cache,
    );
    this.discovery = new Discovery(this.state, this.connections, this.cache);
    this.liveLists = new LiveLists(this.state, this.cache, () => this.discovery.inFlight);
    this.features = new ServerFeatures(this.state);
  }

  // ── events ───────────────────────────────────────────────────────────────────────────────

  subscribe(listener: (event: RegistryEvent) => void): () => void {
    return this.state.subscribe(listener);
  }

  // ── servers ──────────────────────────────────────────────────────────────────────────────

  /** Adds a server (validated). It connects at the next discovery or `connect(id)`. */
  addServer(input: unknown): ServerConfig {
    this.state.assertOpen();
    const config = validate(input);
    if (this.state.entries.has(config.id)) throw new MCPConfigError(config.id, 'a server with this id already exists');
    this.state.entries.set(config.id, {
      config,
      generation: 0,
      status: config.enabled ? { state: 'idle' } : { state: 'disabled' },
      log: new LogBuffer(),
    });
    this.state.emitServers();
    this.state.emitStatus(config.id);
    return config;
  }

  /**
   * Replaces a server's configuration. A change to how it is reached (or disabling it) closes its
   * connection and drops its tools until it is discovered again; other edits (name, priority)
   * apply at once.
   */
  async updateServer(input: unknown): Promise<ServerConfig> {
    this.state.assertOpen();
    const config = validate(input);
    const entry = this.state.entries.get(config.id);
    if (!entry) throw new MCPConfigError(config.id, 'no server with this id exists');
    const reconnect =
      connectionFingerprint(config) !== connectionFingerprint(entry.config) ||
      !config.enabled ||
      config.timeoutMs !== entry.config.timeoutMs ||
      config.maxTotalTimeoutMs !== entry.config.maxTotalTimeoutMs ||
      config.protocolEra !== entry.config.protocolEra ||
      sandboxOf(config) !== sandboxOf(entry.config);
    entry.config = config;
    entry.generation++;
    if (reconnect) {
      this.connections.stopReconnecting(entry);
      await this.connections.drop(entry);
      this.state.setStatus(entry, config.enabled ? { state: 'idle' } : { state: 'disabled' });
      this.state.setServerTools(config.id, undefined);
    } else {
      this.state.emitTools();
      // Roots change without a reconnect: the live connection tells its server.
      await entry.connection?.client.setRoots?.(config.roots ?? []);
    }
    this.state.emitServers();
    return config;
  }

  /** Removes a server: its connection, its tools, and its schema-cache entry go with it. */
  async removeServer(id: string): Promise<void> {
    const entry = this.state.entries.get(id);
    if (!entry) return;
    this.state.entries.delete(id);
    entry.generation++;
    // Dropped before anything waits: a server added under this id meanwhile must not read it.
    const dropping = this.cache.drop(id);
    const forgetting = this.verdicts?.delete(id).catch(() => undefined);
    this.connections.stopReconnecting(entry);
    this.state.setServerTools(id, undefined);
    await this.connections.drop(entry);
    await dropping;
    await forgetting;
    this.state.emit({ type: 'status', serverId: id, status: { state: 'closed' }, at: Date.now() });
    this.state.emitServers();
  }

  servers(): ServerConfig[] {
    return this.state.servers();
  }

  server(id: string): ServerConfig | undefined {
    return this.state.entries.get(id)?.config;
  }

  status(id: string): ServerStatus | undefined {
    return this.state.entries.get(id)?.status;
  }

  /** What the server negotiated, once connected. */
  negotiated(id: string): NegotiatedInfo | undefined {
    return this.state.entries.get(id)?.connection?.client.negotiated;
  }

  /** The server's log (stderr and connection notes), bounded and redacted. */
  logOf(id: string): LogBuffer {
    const entry = this.state.entries.get(id);
    if (!entry) throw new MCPConfigError(id, 'no server with this id exists');
    return entry.log;
  }

  /** The MCP log level chosen for a server (sent at each connect), if any. */
  logLevel(id: string): LogLevel | undefined {
    return this.state.entries.get(id)?.logLevel;
  }

  /**
   * Chooses the MCP log level of a server: kept for its next connections, and sent now
   * (`logging/setLevel`) when it is connected. Refused when the connected server does not log.
   */
  async setLogLevel(id: string, level: LogLevel): Promise<void> {
    this.state.assertOpen();
    const entry = this.state.entries.get(id);
    if (!entry) throw new MCPConfigError(id, 'no server with this id exists');
    const client = entry.connection?.client;
    if (client?.state === 'ready' && client.setLoggingLevel) await client.setLoggingLevel(level);
    entry.logLevel = level;
  }

  // ── discovery and connections ────────────────────────────────────────────────────────────

  /** Discovers every enabled server in parallel; concurrent callers share one run. */
  discover(options: DiscoverOptions = {}): Promise<DiscoveryResult> {
    this.state.assertOpen();
    return this.discovery.discoverAll(options);
  }

  /** Connects (or reconnects) one server and refreshes its tools, leaving the others alone. */
  async connect(id: string, options: DiscoverOptions = {}): Promise<ServerDiscovery> {
    this.state.assertOpen();
    const entry = this.state.entries.get(id);
    if (!entry) throw new MCPConfigError(id, 'no server with this id exists');
    if (!entry.config.enabled) throw new MCPServerUnavailableError(id, 'it is disabled; enable it first');
    this.connections.stopReconnecting(entry);
    await this.connections.drop(entry);
    const outcome = await this.discovery.discoverServer(entry, options);
    if (outcome) this.state.setServerTools(id, outcome.tools, outcome.discovery.source === 'cache');
    return outcome?.discovery ?? { status: entry.status, source: 'none', toolCount: 0 };
  }

  /** Closes one server's connection; its tools leave the map. */
  async disconnect(id: string): Promise<void> {
    const entry = this.state.entries.get(id);
    if (!entry) throw new MCPConfigError(id, 'no server with this id exists');
    entry.generation++;
    this.connections.stopReconnecting(entry);
    await this.connections.drop(entry);
    this.state.setServerTools(id, undefined);
    this.state.setStatus(entry, { state: 'closed' });
  }

  /**
   * Closes one server's connection and shows `error` until a person acts (no reconnecting): a
   * configuration found unusable while loaded, such as one that now reaches the app's own gateway.
   */
  async refuse(id: string, error: MCPError): Promise<void> {
    const entry = this.state.entries.get(id);
    if (!entry) return;
    entry.generation++;
    this.connections.stopReconnecting(entry);
    await this.connections.drop(entry);
    this.state.setServerTools(id, undefined);
    this.state.setStatus(entry, { state: 'error', ...failureOfServer(error) });
  }

  /** Resolves once the server is ready; see ConnectionLifecycle.whenReady. */
  whenReady(id: string, options: WaitOptions): Promise<void> {
    return this.connections.whenReady(id, options);
  }

  // ── tools ────────────────────────────────────────────────────────────────────────────────

  /** Every tool offered by every server, highest priority first within a name. */
  allTools(): RegisteredTool[] {
    return this.state.toolMap.allTools();
  }

  /** One tool per name: the one a call by name reaches. */
  tools(): RegisteredTool[] {
    return this.state.toolMap.tools();
  }

  conflicts(): ToolConflict[] {
    return this.state.toolMap.conflicts();
  }

  /** The tool a call by name reaches, or undefined. */
  resolve(name: string): RegisteredTool | undefined {
    return this.state.toolMap.resolve(name);
  }

  /** The tool `name` of server `serverId` (whether or not a call by name reaches it), or undefined. */
  find(serverId: string, name: string): RegisteredTool | undefined {
    return this.state.toolMap.find(serverId, name);
  }

  /** Whether the server's tools are in the tool map (listed live or from the cache). */
  hasTools(id: string): boolean {
    return this.state.toolMap.has(id);
  }

  /** Whether the server's listed tools were taken from the schema cache (not yet listed live). */
  hasCachedTools(id: string): boolean {
    return this.state.toolMap.get(id)?.fromCache === true;
  }

  /** True while the server's tools come from the schema cache and the server is not ready yet. */
  toolsFromCache(id: string): boolean {
    return this.hasCachedTools(id) && this.status(id)?.state !== 'ready';
  }

  /** Calls a tool on one given server (the harness resolves names; a shadowed tool is chosen explicitly in the GUI). */
  callServerTool(
    serverId: string,
    name: string,
    args: Record<string, unknown>,
    options: RegistryCallOptions = {},
  ): Promise<NormalizedToolResult> {
    return callServerTool(this.state, serverId, name, args, options);
  }

  /** A connected server's tasks requests (the tasks extension: `tasks/get`, `tasks/cancel`); undefined when its client has none. */
  taskClient(id: string): Required<Pick<ToolClient, 'getTask' | 'cancelTask'>> | undefined {
    const client = this.state.entries.get(id)?.connection?.client;
    if (!client?.getTask || !client.cancelTask) return undefined;
    return { getTask: client.getTask.bind(client), cancelTask: client.cancelTask.bind(client) };
  }

  // ── lifecycle ────────────────────────────────────────────────────────────────────────────

  /** Closes every connection. Idempotent; the registry refuses work afterwards. */
  close(): Promise<void> {
    this.state.closing ??= (async () => {
      const entries = [...this.state.entries.values()];
      for (const entry of entries) this.connections.stopReconnecting(entry);
      await Promise.all(entries.map((entry) => this.connections.drop(entry)));
      for (const entry of entries) this.state.setStatus(entry, { state: 'closed' });
    })();
    return this.state.closing;
  }
}

/** The client option of an OAuth server's session, or nothing. */
/**
 * A client's kept era verdict (verdictStore.ts): read at each connect for the configuration as it
 * is then, written when a connection became ready, dropped when it failed.
 */
function verdictsOf(
  verdicts: VerdictStore | undefined,
  config: ServerConfig,
): Pick<MCPClientOptions, 'prior' | 'onVerdict'> {
  if (!verdicts) return {};
  const fingerprint = connectionFingerprint(config);
  return {
    prior: async () => (await verdicts.get(config.id, fingerprint))?.verdict,
    onVerdict: (verdict) => {
      const write = verdict ? verdicts.set(config.id, fingerprint, verdict) : verdicts.delete(config.id);
      write.catch(() => undefined); // a verdict not kept only costs a probe next time
    },
  };
}

function oauthOf(sessions: OAuthSessions | undefined, config: ServerConfig): { oauth?: OAuthSession } {
  const session = sessions?.sessionFor(config);
  return session ? { oauth: session } : {};
}

/** A stdio server's sandbox as it was configured: a change restarts the process under the new one. */
function sandboxOf(config: ServerConfig): string {
  return config.transport === 'stdio' ? JSON.stringify(config.sandbox ?? null) : '';
}

function validate(input: unknown): ServerConfig {
  const parsed = ServerConfigSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const id = (input as { id?: unknown } | null)?.id;
  throw new MCPConfigError(typeof id === 'string' ? id : undefined, describeFieldErrors(fieldErrorsOf(parsed.error)));
}
