/**
 * The composition root of the main process, shared by the Electron shell and the browser-mode
 * host. `buildAppCore` builds every part once, complete, before anything runs:
 *
 *   data folder + database → pipeline (registry, permission engine with the saved rules,
 *   SecureToolExecutor, checkpoints, tracer, HarnessApplication: harness/createPipeline.ts)
 *   → services (servers, calls, permissions, approvals) → the agent gateway (gateway/: agents,
 *   their tool names, the MCP endpoint; its calls go through the same CallService)
 *   → handlers by domain (handlers/*.ts)
 *   → dispatcher; and registry / tracer events → contract events.
 *
 * `start()` then loads the saved servers and starts discovery. Every domain → contract mapping
 * lives in views.ts. It never imports `electron`.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { AppWarning, EventName, EventOf, FileDamagedWarning } from '../../shared/contract.js';
import { events as eventSchemas } from '../../shared/contract.js';
import { traceIdOf } from '../harness/application.js';
import { createPipeline } from '../harness/createPipeline.js';
import { OAuthCredentials } from '../mcp/oauth/credentials.js';
import { OAuthManager } from '../mcp/oauth/manager.js';
import { ToolSchemaCache } from '../mcp/schemaCache.js';
import { VerdictStore } from '../mcp/verdictStore.js';
import { DefaultSecretResolver } from '../secrets/resolver.js';
import { JsonFilePermissionRuleStore } from '../security/permissionStore.js';
import { ensurePrivateDir } from '../storage/privateFiles.js';
import { SecretRedactor } from '../secrets/secretRedactor.js';
import { Tracer } from '../tracing/tracer.js';
import { detectSandbox } from '../sandbox/detect.js';
import { ApprovalBroker } from './approvalBroker.js';
import { ServerAskBroker } from './asks/broker.js';
import { openAppDatabaseWithReport } from './database.js';
import { CallService, GUI_USER, persistentGuiCaller } from './callService.js';
import type { Handlers } from './dispatcher.js';
import { createDispatcher } from './dispatcher.js';
import { appHandlers } from './handlers/app.js';
import { approvalHandlers } from './handlers/approvals.js';
import { askHandlers } from './handlers/asks.js';
import { historyHandlers } from './handlers/history.js';
import { importHandlers } from './handlers/import.js';
import { oauthHandlers } from './handlers/oauth.js';
import { runHandlers } from './handlers/runs.js';
import { RunService } from './runService.js';
import { RunStore } from '../runs/runStore.js';
import { permissionHandlers } from './handlers/permissions.js';
import { forwardFeatureEvents, resourceHandlers } from './handlers/resources.js';
import { serverHandlers } from './handlers/servers.js';
import { settingsHandlers } from './handlers/settings.js';
import { toolHandlers, toolsPayload } from './handlers/tools.js';
import { traceHandlers } from './handlers/traces.js';
import { PermissionService } from './permissionService.js';
import { ServerFeatureService } from './serverFeatureService.js';
import { storageKey } from './secretSlots.js';
import { ServerService } from './serverService.js';
import { SettingsService } from './settingsService.js';
import type { AppCore, AppCoreOptions } from './types.js';
import { statusView } from './views.js';
import { prepareWorkspace } from './workspace.js';
import { AgentService } from './agentService.js';
import { toErrorShape } from './errors.js';
import { agentHandlers } from './handlers/agents.js';
import { AgentStore } from '../gateway/agentStore.js';
import { GatewayCatalog } from '../gateway/catalog.js';
import { Gateway } from '../gateway/gateway.js';
import { GATEWAY_BIN, gatewayLoopField, refuseGatewayLoop } from '../gateway/loop.js';
import { OAuthStore } from '../gateway/oauth/oauthStore.js';
import { GatewaySignIn } from '../gateway/oauth/signIn.js';
import { MCPGatewayLoopError } from '../mcp/ownGateway.js';
import { serverGoneWhy } from './serverGone.js';

/** Warnings shown in the GUI: damaged files moved aside, and notices. */
class WarningList {
  private readonly damaged: FileDamagedWarning[];
  private readonly notices: string[];

  constructor(damaged: readonly FileDamagedWarning[], notices: readonly string[]) {
    this.damaged = [...damaged];
    this.notices = [...notices];
  }

  notice(message: string): void {
    this.notices.push(message);
  }

  damagedFile(warning: FileDamagedWarning): void {
    this.damaged.push(warning);
  }

  list(): AppWarning[] {
    return [...this.damaged, ...this.notices.map((message): AppWarning => ({ code: 'notice', message }))];
  }
}

/** Builds the whole core (the saved permission rules are loaded first); nothing runs until `start()`. */
export async function buildAppCore(options: AppCoreOptions): Promise<AppCore> {
  ensurePrivateDir(options.dataDir);
  // Checked before anything opens: a workspace overlapping the data folder would expose it.
  const workspace = prepareWorkspace(options.workspaceDir, options.dataDir);
  const warnings = new WarningList(options.config.damaged ?? [], options.warnings ?? []);
  const listeners = new Set<(event: EventName, payload: unknown) => void>();
  /** Damaged files met while building (database, secrets, rules) are pushed once `start()` runs. */
  let started = false;
  let closing: Promise<void> | undefined;
  let damagedWhileBuilding = false;
  const reportDamaged = (warning: FileDamagedWarning): void => {
    warnings.damagedFile(warning);
    if (started) emit('app.warnings', { warnings: warnings.list() });
    else damagedWhileBuilding = true;
  };

  // ── storage ───────────────────────────────────────────────────────────────────────────────
  const opened = openAppDatabaseWithReport(join(options.dataDir, 'miniharness.db'));
  if (opened.damaged) warnings.damagedFile(opened.damaged);
  const db = opened.db;
  // Made before the pipeline: the events and the approval broker redact with it.
  const redactor = new SecretRedactor();
  const tracer = new Tracer(db, { redactor });
  for (const warning of (await options.secrets.damagedFiles?.()) ?? []) reportDamaged(warning);
  // Traces left running by a process that died (kill -9, crash) are closed as interrupted.
  tracer.closeInterrupted();

  // ── events ────────────────────────────────────────────────────────────────────────────────
  function emit<E extends EventName>(event: E, payload: EventOf<E>): void {
    // No window or page is listening (agents calling through the gateway with the GUI closed):
    // nothing to validate, redact or send — a third of the app's zod time per agent call.
    if (listeners.size === 0) return;
    const checked = eventSchemas[event].safeParse(payload);
    if (!checked.success) return; // an event that breaks the contract is dropped, never sent half-valid
    // A server that echoes a credential (in a progress message, say) must not reach the GUI with it.
    const data = redactor.redactSecretValues(checked.data);
    for (const listener of listeners) {
      try {
        listener(event, data);
      } catch {
        // a closed window must not break the core
      }
    }
  }

  // ── OAuth sessions (issue 11): tokens in the secret store, redacted everywhere ─────────────────
  const oauth = new OAuthManager({
    credentials: new OAuthCredentials(options.secrets, (serverId, kind) => storageKey(serverId, `oauth.${kind}`)),
    secrets: new DefaultSecretResolver(options.secrets),
    // Electron opens the system browser; browser mode asks its page to open a tab.
    open: (url, serverId) => (options.openExternal ? options.openExternal(url) : emit('oauth.authorize', { serverId, url })),
    onSecret: (value) => redactor.add(value),
    onChange: () => scheduleServersChanged(),
    // Called only once the registry exists (its clients use the sessions).
    note: (serverId, text) => {
      if (registry.server(serverId)) registry.logOf(serverId).note(text);
    },
    clientVersion: options.version,
  });

  // ── pipeline ──────────────────────────────────────────────────────────────────────────────
  /** Drawn fresh each run: the gateway names itself with it, and the app's client refuses a server that does. */
  const gatewayMark = randomUUID();
  const broker = new ApprovalBroker(emit, (value) => redactor.redact(value));
  // Servers' elicitation and sampling requests, shown to the person as dialogs naming the server.
  const asks = new ServerAskBroker(emit, { serverName: (id: string): string => registry.server(id)?.name ?? id });
  // The local tools' folders (Settings → Folders): the workspace first; a change swaps the tools in.
  const settings = new SettingsService(
    options.config,
    workspace,
    options.dataDir,
    (tools) => {
      app.replaceLocalTools(tools);
      gatewayToolsChanged();
    },
    (m) => warnings.notice(m),
  );
  const { app, registry, engine, checkpoints } = await createPipeline({
    db,
    tracer,
    redactor,
    secrets: new DefaultSecretResolver(options.secrets),
    registry: {
      cache: new ToolSchemaCache({ dir: join(options.dataDir, 'tool-cache'), onWarning: (m) => warnings.notice(m), onDamaged: reportDamaged }),
      // Each server's negotiated protocol era, dated, beside its tool list.
      verdicts: new VerdictStore({ dir: join(options.dataDir, 'tool-cache') }),
      asks,
      oauth,
      // A server answering with this run's gateway mark is the app's own gateway (mcp/ownGateway.ts).
      ownGatewayMark: gatewayMark,
      // Servers see this app's version in clientInfo.
      clientVersion: options.version,
    },
    rules: new JsonFilePermissionRuleStore(join(options.dataDir, 'permissions.json'), { onDamaged: reportDamaged }),
    pathBase: workspace,
    requestApproval: broker.request,
    approvalTimeoutMs: () => settings.approvalTimeoutMs(),
    localTools: settings.localTools(),
    onPermissionsChanged: () => emit('permissions.changed', {}),
  });

  // ── services ──────────────────────────────────────────────────────────────────────────────
  const calls = new CallService(app, checkpoints, emit, persistentGuiCaller(db));
  // Agent runs of the person's own models (issue 21): one more caller of the same pipeline.
  const runs = new RunService({ store: new RunStore(db), secrets: options.secrets, harness: app, emit, knownSecret: (value) => redactor.add(value) });

  // ── the agent gateway: MiniHarness as one MCP server for agents ───────────────────────────
  const agentStore = new AgentStore(options.config, (m) => warnings.notice(m));
  const catalog = new GatewayCatalog(() => app.listTools());
  let agentsChangedScheduled = false;
  /** Sessions, calls and states change in bursts: the Agents view gets one update per turn. */
  function scheduleAgentsChanged(): void {
    if (agentsChangedScheduled) return;
    agentsChangedScheduled = true;
    setImmediate(() => {
      agentsChangedScheduled = false;
      // The view reads counts from the traces: built only when someone will see it.
      if (!closing && listeners.size > 0) emit('agents.changed', agents.view());
    });
  }
  const gateway = new Gateway({
    agents: agentStore,
    catalog,
    calls,
    describe: (error) => toErrorShape(error, (text) => redactor.redactText(text)),
    version: options.version,
    mark: gatewayMark,
    stdio: options.gateway?.stdio ?? { command: GATEWAY_BIN, args: [] },
    onChange: scheduleAgentsChanged,
    ...(options.gateway?.idleMs !== undefined ? { idleMs: options.gateway.idleMs } : {}),
    ...(options.gateway?.clock ? { clock: options.gateway.clock } : {}),
    // Agents sign in with OAuth (gateway/oauth/): clients, grants and tokens kept in the data folder; the consent page offers the servers.
    signIn: new GatewaySignIn({
      agents: agentStore,
      store: new OAuthStore(join(options.dataDir, 'gateway-oauth.json'), (m) => warnings.notice(m)),
      servers: () => registry.servers().map((config) => ({ id: config.id, name: config.name })),
      onAgentCreated: () => scheduleAgentsChanged(),
    }),
    ...(options.gateway?.maxSessionsPerAgent !== undefined ? { maxSessionsPerAgent: options.gateway.maxSessionsPerAgent } : {}),
    ...(options.gateway?.waitingProgressMs !== undefined ? { waitingProgressMs: options.gateway.waitingProgressMs } : {}),
    // Resources and prompts of the servers behind, read-only (gateway/agentFeatures.ts); reads and gets go through `features` below.
    features: {
      offering: (kind) => registry.servers().flatMap((config) => (registry.negotiated(config.id)?.capabilities[kind] !== undefined ? [config.id] : [])),
      resources: async (serverId) => {
        const catalog = await registry.features.resources(serverId);
        return { resources: catalog.resources.items, templates: catalog.templates.items };
      },
      prompts: async (serverId) => (await registry.features.prompts(serverId)).items,
      read: (caller, serverId, uri, signal) => features.readAs(caller, serverId, uri, signal),
      getPrompt: (caller, serverId, name, args, signal) => features.getPromptAs(caller, serverId, name, args, signal),
    },
  });
  const agents = new AgentService(agentStore, gateway, catalog, db, scheduleAgentsChanged);
  let toolsChangedScheduled = false;
  /** The tools agents may see changed: new names, and list_changed to the sessions that see a difference. */
  function gatewayToolsChanged(): void {
    catalog.invalidate();
    if (toolsChangedScheduled) return;
    toolsChangedScheduled = true;
    setImmediate(() => {
      toolsChangedScheduled = false;
      void gateway.toolsChanged();
      scheduleAgentsChanged();
    });
  }
  async function startGateway(port: number | undefined): Promise<void> {
    const wanted = settings.gateway();
    if (!wanted.enabled) return gateway.stop();
    const status = await gateway.start(port ?? wanted.port);
    if (status.state === 'listening') refuseLoopsTo(status.port);
    if (status.state === 'port_in_use') warnings.notice(`The agent gateway could not start: port ${status.port} is in use by another program. Choose another port in Settings → Agent gateway.`);
    if (status.state === 'failed') warnings.notice(`The agent gateway could not start on port ${status.port} (${status.errno ?? 'error'}).`);
    if (status.state !== 'listening') emit('app.warnings', { warnings: warnings.list() });
  }
  settings.onGatewayChanged = () => void startGateway(undefined);
  /**
   * The gateway now listens on `port` (moved there in Settings, or started): a server saved with a
   * URL on that port reaches it now. It is refused at once (gateway_loop, its tools dropped, no
   * reconnecting) — not merely left to meet the gateway's mark, which a kept verdict and a cached
   * tool list could skip.
   */
  function refuseLoopsTo(port: number): void {
    for (const config of registry.servers()) {
      if (gatewayLoopField(config, port) === 'url') void registry.refuse(config.id, new MCPGatewayLoopError(config.id)).catch(() => undefined);
    }
  }

  // A server pointing at the gateway itself (its port as set, as asked for this run — servers load before it listens — or as bound) would loop.
  const servers = new ServerService(registry, options.config, options.secrets, (m) => warnings.notice(m), oauth, (config) => {
    refuseGatewayLoop(config, settings.gateway().port);
    // Until the gateway listens (servers load first), the port asked for this run is where it will.
    if (options.gateway?.port && gateway.status().state !== 'listening') refuseGatewayLoop(config, options.gateway.port);
    const bound = gateway.status();
    if (bound.state === 'listening') refuseGatewayLoop(config, bound.port);
  });
  const permissions = new PermissionService(
    engine,
    app,
    registry,
    (id, trusted) => servers.setTrusted(id, trusted),
    () => emit('permissions.changed', {}),
    () => calls.sessionId,
    detectSandbox,
  );
  // An agent's resource read or prompt get is decided like a read-only tool named after it.
  const features = new ServerFeatureService(registry, tracer, redactor, calls.gui, async (caller, operation, serverId, args, signal) => {
    const config = registry.server(serverId);
    await app.security.authorize(
      { subject: { toolName: operation, serverId, args, annotations: { readOnlyHint: true }, serverTrusted: config?.trusted ?? false, ...(config?.uid ? { serverUid: config.uid } : {}) }, sessionId: caller.sessionId, userId: caller.userId },
      { signal },
    );
  });

  // ── domain events → contract events ───────────────────────────────────────────────────────
  let serversChangedScheduled = false;
  /** Many status changes arrive together (discovery): send the list once per turn. */
  function scheduleServersChanged(): void {
    if (serversChangedScheduled) return;
    serversChangedScheduled = true;
    setImmediate(() => {
      serversChangedScheduled = false;
      servers
        .views()
        .then((list) => emit('servers.changed', { servers: list }))
        .catch(() => undefined);
    });
  }

  const logSubscriptions = new Map<string, () => void>();
  function followLogs(): void {
    for (const config of registry.servers()) {
      if (logSubscriptions.has(config.id)) continue;
      logSubscriptions.set(
        config.id,
        registry.logOf(config.id).subscribe((line) => emit('server.log', { serverId: config.id, line })),
      );
    }
    for (const [id, unsubscribe] of logSubscriptions) {
      if (!registry.server(id)) {
        unsubscribe();
        logSubscriptions.delete(id);
      }
    }
  }

  tracer.onEvent((notification) => {
    if (notification.kind === 'event') return;
    emit('trace.changed', { trace: notification.trace });
    // An agent's trace written (traces are committed in batches, after the call): its last call and count follow.
    if (notification.trace.userId !== GUI_USER) scheduleAgentsChanged();
  });

  registry.subscribe((event) => {
    switch (event.type) {
      case 'status': {
        emit('server.status', { serverId: event.serverId, status: statusView(event.status), at: event.at });
        // Removed, disabled or gone for good: its waiting calls are answered now (app/serverGone.ts).
        const gone = serverGoneWhy(event.serverId, event.status, registry.server(event.serverId) !== undefined);
        if (gone) calls.endCallsOf(event.serverId, gone);
        // A server listed from the cache that became ready (or failed) changes its tools' "cached" mark.
        if (registry.hasCachedTools(event.serverId)) {
          emit('tools.changed', toolsPayload(app, registry));
          gatewayToolsChanged();
        }
        scheduleServersChanged();
        return;
      }
      case 'tools':
        emit('tools.changed', toolsPayload(app, registry));
        gatewayToolsChanged();
        scheduleServersChanged();
        return;
      case 'servers':
        followLogs();
        gatewayToolsChanged();
        scheduleServersChanged();
        return;
      case 'warning':
        warnings.notice(event.message);
        return;
    }
  });
  // Resources and prompts a server listed again, and updates of subscribed resources.
  const stopFeatureEvents = forwardFeatureEvents(registry, emit);

  // ── handlers, by domain ───────────────────────────────────────────────────────────────────
  const handlers: Handlers = {
    ...appHandlers({ mode: options.mode, version: options.version, secrets: options.secrets, warnings: () => warnings.list() }),
    ...serverHandlers({ servers, registry, app, redactor, permissions, warn: (m) => warnings.notice(m) }),
    ...toolHandlers({ app, registry, calls }),
    ...approvalHandlers({ broker }),
    ...askHandlers({ asks }),
    ...permissionHandlers({ permissions }),
    ...settingsHandlers({ settings, emit }),
    ...traceHandlers({ tracer }),
    ...historyHandlers({ app, checkpoints, redactor, calls }),
    ...importHandlers({ registry, servers, redactor }),
    ...agentHandlers({ agents }),
    ...resourceHandlers({ registry, features }),
    ...oauthHandlers({ servers }),
    ...runHandlers({ runs }),
  };
  const dispatch = createDispatcher(handlers, { redact: (text) => redactor.redactText(text), traceIdOf });

  return {
    dispatch,
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async start() {
      started = true;
      // A host may have asked for app.info before: tell its listeners what was found while building.
      if (damagedWhileBuilding) emit('app.warnings', { warnings: warnings.list() });
      servers.load();
      // Rules saved before servers had a uid are bound to the server of their id now.
      await permissions.bindRulesToServers();
      followLogs();
      // Discovery runs in the background: the window opens at once and statuses stream in.
      registry.discover().catch((error: unknown) => warnings.notice(`Discovery failed: ${(error as Error).message}`));
      // Agents connect once the window can show their approvals; the tools stream in as servers answer.
      await startGateway(options.gateway?.port);
    },
    close() {
      closing ??= (async () => {
        for (const unsubscribe of logSubscriptions.values()) unsubscribe();
        await runs.close();
        await gateway.stop();
        stopFeatureEvents();
        await oauth.close();
        await registry.close();
        tracer.flush();
        db.close();
      })();
      return closing;
    },
  };
}
