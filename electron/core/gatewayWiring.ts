/**
 * The agent gateway's part of the composition: MiniHarness as one MCP server for agents. Its
 * registered agents, the tool names they see (the catalog over the pipeline's tools), the
 * endpoint with its OAuth sign-in and the servers' resources and prompts (read through the same
 * decision as a read-only tool), the Agents view's updates (one per turn), and starting it on the
 * port of the settings — after which a saved server with a URL on that port is refused as a loop.
 * Its calls go through the same CallService as the GUI's.
 */
import type { RequestSpans } from '../telemetry/requestSpans.js';
import type { GatewayFeatures } from '../gateway/agentFeatures.js';
import type { GatewayFollowing } from '../gateway/agentSubscriptions.js';
import { RUN_SERVER_WAIT_MS, settle, startingServers } from '../runs/runServers.js';
import { join } from 'node:path';
import type { CallerStats } from '../tracing/callerStats.js';
import type { AgentStorage } from '../gateway/agentStore.js';
import { AgentStore } from '../gateway/agentStore.js';
import type { PostgresAgentStore } from '../gateway/postgresAgentStore.js';
import { GatewayCatalog } from '../gateway/catalog.js';
import { Gateway } from '../gateway/gateway.js';
import { GATEWAY_BIN, gatewayLoopField } from '../gateway/loop.js';
import type { OAuthStorage } from '../gateway/oauth/oauthStore.js';
import { OAuthStore } from '../gateway/oauth/oauthStore.js';
import { GatewaySignIn } from '../gateway/oauth/signIn.js';
import type { HarnessApplication } from '../harness/application.js';
import { MCPGatewayLoopError } from '../mcp/errors.js';
import type { MCPToolRegistry } from '../mcp/registry.js';
import type { SecretRedactor } from '../secrets/secretRedactor.js';
import { coalesce } from '../util/coalesce.js';
import { Late } from '../util/late.js';
import { AgentService } from './agentService.js';
import type { CallService } from './callService.js';
import { toErrorShape } from './errors.js';
import type { EventHub } from './eventHub.js';
import type { ServerFeatureService } from './serverFeatureService.js';
import type { SettingsService } from './settingsService.js';
import type { CoreOptions } from './types.js';
import type { AppWarnings } from './warnings.js';

export interface GatewayWiringDeps {
  options: CoreOptions;
  hub: EventHub;
  warnings: AppWarnings;
  settings: SettingsService;
  harness: HarnessApplication;
  registry: MCPToolRegistry;
  calls: CallService;
  features: ServerFeatureService;
  /** The known secrets: what an agent reads of an error is redacted with them. */
  redactor: SecretRedactor;
  /** Each agent's calls and last call, from the traces (the Agents view). */
  callerStats: (userIds: readonly string[]) => Promise<Map<string, CallerStats>>;
  /** This run's gateway mark (mcp/ownGateway.ts): the gateway names itself with it. */
  mark: string;
  /** The marks of the MiniHarness gateways this app is connected to, named beside its own (a ring of runs is refused). */
  marksThrough: () => readonly string[];
  /** The core is closing: no view is built any more. */
  closing: () => boolean;
  /** OpenTelemetry: each agent request as a server span (telemetry/requestSpans.ts). */
  requestSpans?: RequestSpans;
  /** The agents in PostgreSQL, shared by the instances on it; absent: in the configuration file. */
  agentStore?: PostgresAgentStore;
  /** The agents' OAuth clients, grants and tokens elsewhere (PostgreSQL); absent: gateway-oauth.json in the data folder. */
  oauthStore?: OAuthStorage;
}

export interface GatewayWiring {
  gateway: Gateway;
  agents: AgentService;
  /** Sessions, calls and states change in bursts: the Agents view gets one update per turn. */
  agentsChanged: () => void;
  /** The tools agents may see changed: new names now, and list_changed (once per turn) to the sessions that see a difference. */
  toolsChanged: () => void;
  /** Starts (or stops) the gateway as the settings say; `port` overrides the saved one for this run. */
  start: (port: number | undefined) => Promise<void>;
}

export function wireGateway(deps: GatewayWiringDeps): GatewayWiring {
  const { options, hub, warnings, settings, registry, features } = deps;
  const agentStore: AgentStorage = deps.agentStore ?? new AgentStore(options.config, warnings.notice);
  const priorityOf = (serverId: string): number =>
    registry.servers().find((config) => config.id === serverId)?.priority ?? 0;
  const catalog = new GatewayCatalog(() => deps.harness.listTools(), priorityOf);
  // The gateway reports its changes to the Agents view, which shows the gateway: a cycle.
  const agentsView = new Late<AgentService>('The Agents view');
  // The view reads counts from the traces: built only when someone will see it.
  const agentsChanged = coalesce(() => {
    if (deps.closing() || !hub.listening) return;
    void agentsView
      .get()
      .view()
      .then((view) => {
        if (!deps.closing() && hub.listening) hub.emit('agents.changed', view);
      }, warnings.notice);
  });
  const gateway = new Gateway({
    agents: agentStore,
    catalog,
    calls: deps.calls,
    ...(deps.requestSpans ? { requestSpans: deps.requestSpans } : {}),
    describe: (error) => toErrorShape(error, (text) => deps.redactor.redactText(text)),
    version: options.version,
    mark: deps.mark,
    marksThrough: deps.marksThrough,
    stdio: options.gateway?.stdio ?? { command: GATEWAY_BIN, args: [] },
    onChange: agentsChanged,
    // The saved idle window (Settings → Agent gateway); a test's `idleMs` overrides it for this run, until the setting changes.
    idleMs: options.gateway?.idleMs ?? settings.agentIdleMs(),
    ...(options.gateway?.clock ? { clock: options.gateway.clock } : {}),
    // Agents sign in with OAuth (gateway/oauth/): clients, grants and tokens kept in the data folder; the consent page offers the servers.
    signIn: new GatewaySignIn({
      agents: agentStore,
      store: deps.oauthStore ?? new OAuthStore(join(options.dataDir, 'gateway-oauth.json'), warnings.notice),
      servers: () => registry.servers().map((config) => ({ id: config.id, name: config.name })),
      onAgentCreated: () => agentsChanged(),
      onSignInChanged: () => agentsChanged(),
      // Said at once (pushed to the pages), not only listed: the agent's refresh tokens may still work.
      warn: (message) => {
        warnings.notice(message);
        warnings.publish();
      },
      ...(options.gateway?.fetchClientMetadata ? { fetchClientMetadata: options.gateway.fetchClientMetadata } : {}),
      ...(options.gateway?.publicUrl ? { publicUrl: options.gateway.publicUrl } : {}),
    }),
    ...(options.gateway?.maxSessionsPerAgent !== undefined
      ? { maxSessionsPerAgent: options.gateway.maxSessionsPerAgent }
      : {}),
    ...(options.gateway?.waitingProgressMs !== undefined
      ? { waitingProgressMs: options.gateway.waitingProgressMs }
      : {}),
    // An agent calling while the app starts (its servers still connecting) waits for them before "Unknown tool".
    serversStarting: async (visibility, signal) => {
      const starting = startingServers(registry, visibility);
      if (starting.length) await settle(registry, RUN_SERVER_WAIT_MS, starting, signal);
    },
    // Resource subscriptions and the servers' log messages for agents (gateway/agentSubscriptions.ts).
    following: followingOf(registry),
    // Resources and prompts of the servers behind, read-only (gateway/agentFeatures.ts); reads and gets are decided by `features`.
    features: featuresOf(registry, features, priorityOf),
  });
  const agents = agentsView.set(new AgentService(agentStore, gateway, catalog, deps.callerStats, agentsChanged));
  // Another instance on the database changed the agents: one it revoked or removed is ended here too.
  deps.agentStore?.onChange(({ closed }) => {
    for (const id of closed) void gateway.closeAgent(id).catch(() => undefined);
    agentsChanged();
  });

  const listChanged = coalesce(() => {
    void gateway.toolsChanged();
    agentsChanged();
  });
  const toolsChanged = (): void => {
    catalog.invalidate();
    listChanged();
  };

  const start = gatewayStarter(gateway, registry, settings, warnings);
  settings.onGatewayChanged = () => void start(undefined);
  settings.onAgentIdleChanged = (idleMs) => void gateway.setIdleMs(idleMs).catch(() => undefined);

  return { gateway, agents, agentsChanged, toolsChanged, start };
}

/** Resource subscriptions and the servers' log messages, as the gateway follows them for agents (gateway/agentSubscriptions.ts). */
function followingOf(registry: MCPToolRegistry): GatewayFollowing {
  return {
    subscribe: async (serverId, uri) => {
      const already = (await registry.features.resources(serverId)).subscribed.includes(uri);
      if (!already) await registry.features.subscribeResource(serverId, uri);
      return { already };
    },
    unsubscribe: async (serverId, uri) => {
      await registry.features.unsubscribeResource(serverId, uri);
    },
    onResourceUpdated: (listener) =>
      registry.features.subscribe((event) => {
        if (event.type === 'resource_updated') listener(event.serverId, event.uri);
      }),
    onServerLog: (serverId, listener) => {
      let log;
      try {
        log = registry.logOf(serverId);
      } catch {
        return () => undefined;
      }
      return log.subscribe((line) => {
        if (line.stream === 'message' && line.level)
          listener({ level: line.level, text: line.text, ...(line.logger ? { logger: line.logger } : {}) });
      });
    },
  };
}

/** Resources and prompts of the servers behind, read-only (gateway/agentFeatures.ts); reads and gets are decided by `features`. */
function featuresOf(
  registry: MCPToolRegistry,
  features: ServerFeatureService,
  priorityOf: (serverId: string) => number,
): GatewayFeatures {
  return {
    offering: (kind) =>
      registry
        .servers()
        .flatMap((config) => (registry.negotiated(config.id)?.capabilities[kind] !== undefined ? [config.id] : [])),
    resources: async (serverId) => {
      const catalog = await registry.features.resources(serverId);
      return { resources: catalog.resources.items, templates: catalog.templates.items };
    },
    prompts: async (serverId) => (await registry.features.prompts(serverId)).items,
    priorityOf,
    read: (caller, serverId, uri, signal) => features.readAs(caller, serverId, uri, signal),
    complete: (serverId, request, signal) => registry.features.complete(serverId, request, { signal }),
    getPrompt: (caller, serverId, name, args, signal, asks) =>
      features.getPromptAs(caller, serverId, name, args, signal, asks),
  };
}

/** Starts (or stops) the gateway as the settings say; `port` overrides the saved one for this run. */
function gatewayStarter(
  gateway: Gateway,
  registry: MCPToolRegistry,
  settings: SettingsService,
  warnings: AppWarnings,
): (port: number | undefined) => Promise<void> {
  /**
   * The gateway now listens on `port` (moved there in Settings, or started): a server saved with a
   * URL on that port reaches it now. It is refused at once (gateway_loop, its tools dropped, no
   * reconnecting) — not merely left to meet the gateway's mark, which a kept verdict and a cached
   * tool list could skip.
   */
  const refuseLoopsTo = (port: number): void => {
    for (const config of registry.servers()) {
      if (gatewayLoopField(config, port) === 'url')
        void registry.refuse(config.id, new MCPGatewayLoopError(config.id)).catch(() => undefined);
    }
  };

  return async (port: number | undefined): Promise<void> => {
    const wanted = settings.gateway();
    if (!wanted.enabled) return gateway.stop();
    const status = await gateway.start(port ?? wanted.port);
    if (status.state === 'listening') refuseLoopsTo(status.port);
    if (status.state === 'port_in_use')
      warnings.notice(
        `The agent gateway could not start: port ${status.port} is in use by another program. Choose another port in Settings → Agent gateway.`,
      );
    if (status.state === 'failed')
      warnings.notice(`The agent gateway could not start on port ${status.port} (${status.errno ?? 'error'}).`);
    if (status.state !== 'listening') warnings.publish();
  };
}
