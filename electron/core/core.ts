/**
 * The composition root of the main process, shared by the Electron shell and the browser-mode
 * host. `buildCore` builds every part once, complete, before anything runs, in the order of
 * what each needs:
 *
 *   data folder + database (SQLite; the tool calls in PostgreSQL when `options.database` says so:
 *   storageWiring.ts) → tracer → event hub (eventHub.ts) and warnings (warnings.ts)
 *   → OAuth sessions → pipeline (registry, permission engine with the saved rules,
 *   SecureToolExecutor, checkpoints, HarnessApplication: harness/createPipeline.ts)
 *   → services (calls, runs, resources and prompts) → the agent gateway (gatewayWiring.ts: agents,
 *   their tool names, the MCP endpoint; its calls go through the same CallService)
 *   → servers, permissions → registry / tracer events → contract events (registryWiring.ts)
 *   → handlers by domain (handlers/*.ts) → dispatcher.
 *
 * One function per step (openStorageAndEvents, openOAuthSessions, buildPipelineParts,
 * buildServices, wireGatewayAndServers, handlersOf); each hands the next what it built.
 *
 * No closure refers to a name declared after it: where a part built first needs one built from
 * it at run time (three here, the Agents view in gatewayWiring.ts), the later part is a named
 * `Late` slot (util/late.ts), declared before both.
 * Bursts of changes reach the GUI and the agents once per turn (util/coalesce.ts).
 *
 * `start()` then loads the saved servers and starts discovery. Every domain → contract mapping
 * lives in views.ts. It never imports `electron`.
 */
import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { traceIdOf } from '../harness/application.js';
import { createPipeline } from '../harness/createPipeline.js';
import { TaskRecoveryService } from '../harness/taskRecovery.js';
import { OAuthCredentials } from '../mcp/oauth/credentials.js';
import { OAuthManager } from '../mcp/oauth/manager.js';
import type { MCPToolRegistry } from '../mcp/registry.js';
import { ToolSchemaCache } from '../mcp/schemaCache.js';
import { VerdictStore } from '../mcp/verdictStore.js';
import { DefaultSecretResolver } from '../secrets/resolver.js';
import { JsonFilePermissionRuleStore } from '../security/permissionStore.js';
import { groupCommitFor } from '../storage/groupCommit.js';
import { ensurePrivateDir } from '../storage/privateFiles.js';
import type { LocalTool } from '../tools/types.js';
import { SecretRedactor } from '../secrets/secretRedactor.js';
import { Tracer } from '../tracing/tracer.js';
import { callerStats } from '../tracing/callerStats.js';
import { detectSandbox } from '../sandbox/commandSandbox.js';
import { ServerSandboxes } from '../sandbox/serverSandbox.js';
import { sandboxProfileView } from '../sandbox/profileView.js';
import { coalesce } from '../util/coalesce.js';
import { DisposableStore } from '../util/disposable.js';
import { Late } from '../util/late.js';
import { refuseGatewayLoop } from '../gateway/loop.js';
import { RunStore } from '../runs/runStore.js';
import { RunTaskOutcomes } from '../runs/taskOutcomes.js';
import { runServers } from '../runs/runServers.js';
import { ApprovalBroker } from './approvalBroker.js';
import { SharedApprovals } from './sharedApprovals.js';
import { PostgresAgentStore } from '../gateway/postgresAgentStore.js';
import { followSharedLists } from './sharedLists.js';
import { sandboxHandlers, wireEgress } from './egressWiring.js';
import { ServerRequestBroker } from './serverRequests/broker.js';
import type { CoreStorage } from './storageWiring.js';
import { openCoreStorage } from './storageWiring.js';
import type { Caller } from './callService.js';
import { CallService, persistentGuiCaller } from './callService.js';
import type { Handlers } from './dispatcher.js';
import { createDispatcher } from './dispatcher.js';
import { EventHub } from './eventHub.js';
import { wireGateway } from './gatewayWiring.js';
import { agentHandlers } from './handlers/agents.js';
import { AgentConfigFiles } from './agentConfigFiles.js';
import { appHandlers } from './handlers/app.js';
import { approvalHandlers } from './handlers/approvals.js';
import { serverRequestHandlers } from './handlers/serverRequests.js';
import { historyHandlers } from './handlers/history.js';
import { importHandlers } from './handlers/import.js';
import { oauthHandlers } from './handlers/oauth.js';
import { permissionHandlers } from './handlers/permissions.js';
import { forwardFeatureEvents, resourceHandlers } from './handlers/resources.js';
import { runHandlers } from './handlers/runs.js';
import { serverHandlers } from './handlers/servers.js';
import { settingsHandlers } from './handlers/settings.js';
import { toolHandlers } from './handlers/tools.js';
import { traceHandlers } from './handlers/traces.js';
import { PermissionService } from './permissionService.js';
import { wireRegistryEvents } from './registryWiring.js';
import { RunService } from './runService.js';
import { storageKey } from './secretSlots.js';
import { ServerFeatureService } from './serverFeatureService.js';
import { appsHandlers } from './handlers/apps.js';
import { catalogHandlers } from './handlers/catalog.js';
import { CatalogService } from '../catalog/catalogService.js';
import { AppService } from '../apps/appService.js';
import { ServerService } from './serverService.js';
import { SettingsService } from './settingsService.js';
import type { Core, CoreOptions } from './types.js';
import { AppWarnings } from './warnings.js';
import { ObservabilityService } from './observabilityService.js';
import { observabilityHandlers } from './handlers/observability.js';
import { peopleHandlers } from './handlers/people.js';
import { Telemetry } from '../telemetry/telemetry.js';
import { describeServers } from '../telemetry/serverDescription.js';
import { LOCAL_SERVER_ID } from '../security/permissions.js';
import { prepareWorkspace } from './workspace.js';

/** Builds the whole core (the saved permission rules are loaded first); nothing runs until `start()`. */
export async function buildCore(options: CoreOptions): Promise<Core> {
  ensurePrivateDir(options.dataDir);
  // Checked before anything opens: a workspace overlapping the data folder would expose it.
  const workspace = prepareWorkspace(options.workspaceDir, options.dataDir);
  /** Each part registers its teardown where it is built; `close()` runs them in reverse (util/disposable.ts). */
  const lifecycle = new DisposableStore();
  const base = await openStorageAndEvents(options, workspace, lifecycle);
  const oauth = openOAuthSessions(base);
  const pipeline = await buildPipelineParts(base, oauth);
  const services = buildServices(base, pipeline);
  await services.runs.open();
  const front = wireGatewayAndServers(base, oauth, pipeline, services);
  // ── domain events → contract events (registryWiring.ts) ───────────────────────────────────
  const logs = wireRegistryEvents({
    hub: base.hub,
    warnings: base.warnings,
    registry: pipeline.registry,
    harness: pipeline.harness,
    tracer: base.tracer,
    calls: services.calls,
    serversChanged: base.serversChanged,
    gatewayToolsChanged: front.gw.toolsChanged,
    agentsChanged: front.gw.agentsChanged,
  });
  lifecycle.defer('server logs', () => logs.stopLogs());
  // Resources and prompts a server listed again, and updates of subscribed resources.
  lifecycle.defer('resource and prompt events', forwardFeatureEvents(pipeline.registry, base.emit));
  const dispatch = createDispatcher(handlersOf(base, pipeline, services, front), {
    redact: (text) => base.redactor.redactText(text),
    traceIdOf,
  });

  return {
    dispatch,
    onEvent: (listener, only) => base.hub.on(listener, only),
    async start() {
      const { warnings } = base;
      warnings.start();
      await services.observability.start();
      front.servers.load();
      // Rules saved before servers had a uid are bound to the server of their id now.
      await front.permissions.bindRulesToServers();
      logs.followLogs();
      // Discovery runs in the background: the window opens at once and statuses stream in.
      pipeline.registry
        .discover()
        .catch((error: unknown) => warnings.notice(`Discovery failed: ${(error as Error).message}`));
      // Each server is waited for (bounded) while discovery connects it, and asked again when it becomes ready later.
      const recovery = services.taskRecovery.start();
      services.runTaskOutcomes.track(recovery);
      void recovery
        .then((r) => r.following)
        .catch((error: unknown) => warnings.notice(`Resolving calls run as tasks failed: ${(error as Error).message}`));
      // Agents connect once the window can show their approvals; the tools stream in as servers answer.
      await front.gw.start(options.gateway?.port);
    },
    drainAgents: (graceMs) => front.gw.gateway.drain(graceMs),
    close: () => lifecycle.dispose(),
  };
}

/** What every part of the wiring may use: storage, the tracer, events, warnings, and the named cycles. */
interface CoreBase {
  options: CoreOptions;
  workspace: string;
  lifecycle: DisposableStore;
  storage: CoreStorage;
  /** The GUI's (and CLI's) caller: its session id is in the app metadata, shared on PostgreSQL. */
  guiCaller: Caller;
  redactor: SecretRedactor;
  tracer: Tracer;
  hub: EventHub;
  emit: EventHub['emit'];
  warnings: AppWarnings;
  /** The registry names servers in the request dialogs and notes sign-in steps in their logs; it is built with both. */
  lateRegistry: Late<MCPToolRegistry>;
  /** OAuth sign-ins change the servers list, whose service is built on the OAuth sessions. */
  lateServers: Late<ServerService>;
  /** The folders in Settings swap the pipeline's local tools; the pipeline is built with the settings. */
  lateSwapLocalTools: Late<(tools: LocalTool[]) => void>;
  /** Many status changes arrive together (discovery): the list is sent once per turn. */
  serversChanged: () => void;
}

/** ── storage, events, warnings ── The SQLite file, PostgreSQL when selected (storageWiring.ts). */
async function openStorageAndEvents(
  options: CoreOptions,
  workspace: string,
  lifecycle: DisposableStore,
): Promise<CoreBase> {
  // Made before everything else: the events and the approval broker redact with it.
  const redactor = new SecretRedactor();
  const lateTracer = new Late<Tracer>('The tracer');
  const storage = await openCoreStorage(options.dataDir, options.database, lifecycle, () => lateTracer.get().flush());
  const tracer = new Tracer(storage.db, { redactor, ...(storage.traces ? { shared: storage.traces } : {}) });
  lateTracer.set(tracer);
  const hub = new EventHub((value) => redactor.redactSecretValues(value));
  const emit = hub.emit;
  const warnings = new AppWarnings(hub, options.config.damaged ?? [], options.warnings ?? [], (text) =>
    redactor.redactText(text),
  );
  if (storage.damaged) warnings.damagedBeforeBuild(storage.damaged);
  // While the disk holding the database is full, the GUI says so (until a write succeeds again).
  warnings.watchStorage(groupCommitFor(storage.db), storage.dbFile);
  for (const warning of (await options.secrets.damagedFiles?.()) ?? []) warnings.damagedFile(warning);
  // Traces left running by a process that died (kill -9, crash) are closed as interrupted.
  await tracer.sweepInterrupted();

  // The cycles of the wiring, each named: parts built first that need, at run time, a part built from them.
  const lateServers = new Late<ServerService>('The server service');
  const serversChanged = coalesce(() => {
    lateServers
      .get()
      .views()
      .then((list) => emit('servers.changed', { servers: list }))
      .catch(() => undefined);
  });
  return {
    options,
    workspace,
    lifecycle,
    storage,
    guiCaller: await persistentGuiCaller(storage.appMeta),
    redactor,
    tracer,
    hub,
    emit,
    warnings,
    lateRegistry: new Late<MCPToolRegistry>('The tool registry'),
    lateServers,
    lateSwapLocalTools: new Late<(tools: LocalTool[]) => void>('The local tools swap'),
    serversChanged,
  };
}

/** ── OAuth sessions: tokens in the secret store, redacted everywhere ── */
function openOAuthSessions(base: CoreBase): OAuthManager {
  const { options, emit, redactor, lateRegistry } = base;
  const oauth = new OAuthManager({
    credentials: new OAuthCredentials(options.secrets, (serverId, kind) => storageKey(serverId, `oauth.${kind}`)),
    secrets: new DefaultSecretResolver(options.secrets),
    // Electron opens the system browser; browser mode asks its page to open a tab.
    open: (url, serverId) =>
      options.openExternal ? options.openExternal(url) : emit('oauth.authorize', { serverId, url }),
    onSecret: (value) => redactor.add(value),
    onChange: () => base.serversChanged(),
    // Called only once the registry exists (its clients use the sessions).
    note: (serverId, text) => {
      const registry = lateRegistry.get();
      if (registry.server(serverId)) registry.logOf(serverId).note(text);
    },
    clientVersion: options.version,
  });
  base.lifecycle.defer('OAuth sessions', () => oauth.close());
  return oauth;
}

type PipelineParts = Awaited<ReturnType<typeof buildPipelineParts>>;

/** ── pipeline ── registry, permission engine with the saved rules, checkpoints (harness/createPipeline.ts). */
async function buildPipelineParts(base: CoreBase, oauth: OAuthManager) {
  const { options, emit, redactor, tracer, warnings, lateRegistry } = base;
  /** Drawn fresh each run: the gateway names itself with it, and the app's client refuses a server that does. */
  const gatewayMark = randomUUID();
  /** The gateway marks each server answered with: the MiniHarness gateways behind this one, which its own gateway names. */
  const marksBehind = new Map<string, string[]>();
  const broker = new ApprovalBroker(emit, (value) => redactor.redact(value));
  // Serve on PostgreSQL: approvals reach every instance's approvers (sharedApprovals.ts).
  const sharedDb = base.storage.postgres;
  if (sharedDb) {
    const shared = await broker.share((events) => SharedApprovals.open(sharedDb.pool, sharedDb.url, events));
    base.lifecycle.defer('shared approvals', () => shared.close());
  }
  // …and the agents and their tokens (gateway/postgresAgentStore.ts); else they are in the config file.
  const agentStore = sharedDb
    ? await PostgresAgentStore.open(sharedDb.pool, sharedDb.url, base.storage.where, warnings.notice)
    : undefined;
  if (agentStore) base.lifecycle.defer('shared agents', () => agentStore.close());
  // Servers' elicitation and sampling requests, shown to the person as dialogs naming the server.
  const serverRequests = new ServerRequestBroker(emit, {
    serverName: (id: string): string => lateRegistry.get().server(id)?.name ?? id,
  });
  // The local tools' folders (Settings → Folders): the workspace first; a change swaps the tools in.
  const settings = new SettingsService(
    options.config,
    base.workspace,
    options.dataDir,
    (tools) => base.lateSwapLocalTools.get()(tools),
    warnings.notice,
  );
  // A sandboxed server reaching a host nobody decided asks the person, like a call (egressWiring.ts).
  const egress = wireEgress({
    tracer,
    broker,
    approvalTimeoutMs: () => settings.approvalTimeoutMs(),
    servers: base.lateServers,
    registry: lateRegistry,
    onRulesChanged: () => emit('permissions.changed', {}),
  });
  // Stdio servers whose sandbox is on (issue 29): each refused access the library records is a line in its Log tab.
  const sandboxes = new ServerSandboxes({
    dataDir: options.dataDir,
    onViolation: (serverId, line) => {
      const registry = lateRegistry.get();
      if (registry.server(serverId)) registry.logOf(serverId).note(`Sandbox: ${line}`);
      // …and an event on the trace of each call running on that server then.
      tracer.eventOnCallsInFlight(serverId, 'sandbox_violation', { line: line.slice(0, 2_000) });
    },
    egress,
  });
  const pipeline = await createPipeline({
    db: base.storage.db,
    ...(base.storage.checkpoints ? { stores: base.storage.checkpoints } : {}),
    tracer,
    redactor,
    secrets: new DefaultSecretResolver(options.secrets),
    registry: {
      cache: new ToolSchemaCache({
        dir: join(options.dataDir, 'tool-cache'),
        onWarning: warnings.notice,
        onDamaged: warnings.damagedFile,
      }),
      // Each server's negotiated protocol era, dated, beside its tool list.
      verdicts: new VerdictStore({ dir: join(options.dataDir, 'tool-cache') }),
      serverRequests,
      oauth,
      // A server answering with this run's gateway mark is the app's own gateway (mcp/ownGateway.ts).
      ownGatewayMark: gatewayMark,
      // Servers see this app's version in clientInfo.
      clientVersion: options.version,
      onGatewayMarks: (serverId, marks) => void marksBehind.set(serverId, marks),
      sandboxes,
    },
    ...(base.storage.pins ? { pins: base.storage.pins } : {}),
    rules:
      base.storage.rules ??
      new JsonFilePermissionRuleStore(join(options.dataDir, 'permissions.json'), { onDamaged: warnings.damagedFile }),
    pathBase: base.workspace,
    requestApproval: broker.request,
    approvalTimeoutMs: () => settings.approvalTimeoutMs(),
    localTools: settings.localTools(),
    onPermissionsChanged: () => emit('permissions.changed', {}),
  });
  const { registry } = pipeline;
  lateRegistry.set(registry);
  base.lifecycle.defer('tool registry', () => registry.close());
  // On PostgreSQL: rules and pins another core saves take effect here too, and the GUI is told (sharedLists.ts).
  if (sharedDb) {
    const lists = await followSharedLists({
      url: sharedDb.url,
      origin: sharedDb.origin,
      engine: pipeline.engine,
      pinStore: base.storage.pins,
      pins: pipeline.harness.security.pins,
      changed: () => emit('permissions.changed', {}),
      warn: warnings.notice,
    });
    base.lifecycle.defer('shared lists', () => lists.close());
  }
  return { ...pipeline, gatewayMark, marksBehind, broker, serverRequests, settings, egress, sandboxes, agentStore };
}

type Services = ReturnType<typeof buildServices>;

/** ── services ── calls, task recovery, telemetry, agent runs, resources and prompts. */
function buildServices(base: CoreBase, pipeline: PipelineParts) {
  const { options, emit, redactor, tracer, warnings, lifecycle } = base;
  const { harness, registry, stores } = pipeline;
  const taskRecoveryStop = new AbortController();
  // Calls that died while their server ran them as a task: the server says how they ended
  // (harness/taskRecovery.ts) — at start, whenever a server becomes ready later, and on the person's ask.
  const taskRecovery = new TaskRecoveryService({
    links: stores.taskLinks,
    registry,
    redactResult: (r) => redactor.redactSecretValues(r),
    redactText: (t) => redactor.redactText(t),
    tracer,
    waitMs: 60_000,
    signal: taskRecoveryStop.signal,
    isRunning: (sessionId, callId) => harness.isRunning(sessionId, callId),
  });
  lifecycle.defer('task recovery', () => {
    taskRecoveryStop.abort();
    taskRecovery.stop();
  });
  // OpenTelemetry export (Settings → Observability, off by default): telemetry/, applied in start().
  const telemetry = new Telemetry({
    tracer,
    localServerId: LOCAL_SERVER_ID,
    describeServer: describeServers(registry),
    redactText: (text) => redactor.redactText(text),
    redact: (value) => redactor.redact(value),
    // Where the calls are recorded: the SQLite file (at once) or PostgreSQL (read in the spans' idle batch).
    recorded: (sessionId, callId) => pipeline.stores.pipeline.get(sessionId, callId),
  });
  lifecycle.defer('telemetry', () => telemetry.close());
  const observability = new ObservabilityService(
    options.config,
    options.secrets,
    telemetry,
    options.version,
    redactor,
    warnings.notice,
  );
  const calls = new CallService(harness, stores.pipeline, emit, base.guiCaller);
  // Agent runs of the person's own models (README “Run your own model”): one more caller of the same pipeline.
  // A resumed run's unknown call that its server ran as a task waits for the task recovery's outcome.
  const runTaskOutcomes = new RunTaskOutcomes(stores.pipeline);
  const runs = new RunService({
    store: base.storage.runs ?? new RunStore(base.storage.db),
    // Shared runs (PostgreSQL): another instance's changes reach this GUI as `runs.changed`.
    ...(base.storage.runs && base.storage.postgres
      ? { follow: base.storage.runs.follow.bind(base.storage.runs, base.storage.postgres.url) }
      : {}),
    secrets: options.secrets,
    harness,
    emit,
    knownSecret: (value) => redactor.add(value),
    taskSettled: (sessionId, callId, signal) => runTaskOutcomes.settled(sessionId, callId, signal),
    // A run started or resumed while servers still connect (the app just started) waits for them.
    servers: runServers(registry),
    spans: telemetry.runs,
  });
  lifecycle.defer('agent runs', () => runs.close());
  // An agent's resource read or prompt get is decided like a read-only tool named after it.
  const features = new ServerFeatureService(
    registry,
    tracer,
    redactor,
    calls.gui,
    async (caller, operation, serverId, args, signal, impliedBy) => {
      const config = registry.server(serverId);
      await harness.security.authorize(
        {
          subject: {
            toolName: operation,
            serverId,
            args,
            annotations: { readOnlyHint: true },
            serverTrusted: config?.trusted ?? false,
            ...(config?.uid ? { serverUid: config.uid } : {}),
          },
          sessionId: caller.sessionId,
          userId: caller.userId,
        },
        { signal, ...(impliedBy ? { impliedBy } : {}) },
      );
    },
  );
  return { taskRecovery, telemetry, observability, calls, runTaskOutcomes, runs, features };
}

type Front = ReturnType<typeof wireGatewayAndServers>;

/** ── the agent gateway (gatewayWiring.ts), the servers list, permissions ── */
function wireGatewayAndServers(base: CoreBase, oauth: OAuthManager, pipeline: PipelineParts, services: Services) {
  const { options, warnings, lifecycle } = base;
  const { harness, registry, settings, marksBehind } = pipeline;
  const gw = wireGateway({
    options,
    hub: base.hub,
    warnings,
    settings,
    harness,
    registry,
    calls: services.calls,
    features: services.features,
    redactor: base.redactor,
    callerStats: async (userIds) =>
      base.storage.traces ? base.storage.traces.callerStats(userIds) : callerStats(base.storage.db, userIds),
    mark: pipeline.gatewayMark,
    marksThrough: () => [
      ...new Set([...marksBehind].filter(([id]) => registry.server(id) !== undefined).flatMap(([, marks]) => marks)),
    ],
    closing: () => lifecycle.isDisposed,
    requestSpans: services.telemetry.requests,
    ...(pipeline.agentStore ? { agentStore: pipeline.agentStore } : {}),
    ...(base.storage.oauth ? { oauthStore: base.storage.oauth } : {}),
  });
  const { gateway } = gw;
  lifecycle.defer('agent gateway', () => gateway.stop());
  base.lateSwapLocalTools.set((tools) => {
    harness.replaceLocalTools(tools);
    gw.toolsChanged();
  });

  // A server pointing at the gateway itself (its port as set, as asked for this run — servers load before it listens — or as bound) would loop.
  const servers = new ServerService(registry, options.config, options.secrets, warnings.notice, oauth, (config) => {
    refuseGatewayLoop(config, settings.gateway().port);
    // Until the gateway listens (servers load first), the port asked for this run is where it will.
    if (options.gateway?.port && gateway.status().state !== 'listening')
      refuseGatewayLoop(config, options.gateway.port);
    const bound = gateway.status();
    if (bound.state === 'listening') refuseGatewayLoop(config, bound.port);
  });
  base.lateServers.set(servers);
  const permissions = new PermissionService(
    pipeline.engine,
    harness,
    registry,
    (id, trusted) => servers.setTrusted(id, trusted),
    () => base.emit('permissions.changed', {}),
    () => services.calls.sessionId,
    detectSandbox,
  );
  return { gw, servers, permissions };
}

/** ── handlers, by domain (handlers/*.ts) ── */
function handlersOf(base: CoreBase, pipeline: PipelineParts, services: Services, front: Front): Handlers {
  const { options, emit, redactor, tracer, warnings } = base;
  const { harness, registry, stores, broker, egress, serverRequests, settings, sandboxes } = pipeline;
  const { calls, features, observability, runs, taskRecovery } = services;
  const { servers, permissions } = front;
  const { agents } = front.gw;
  return {
    ...appHandlers({ mode: options.mode, version: options.version, secrets: options.secrets, warnings: warnings.list }),
    ...serverHandlers({
      servers,
      registry,
      harness,
      redactor,
      permissions,
      warn: warnings.notice,
      sandboxProfile: (config) => sandboxProfileView(sandboxes, config),
    }),
    ...toolHandlers({ harness, registry, calls }),
    ...approvalHandlers({ broker }),
    ...sandboxHandlers({ egress, registry, servers, onRulesChanged: () => emit('permissions.changed', {}) }),
    ...serverRequestHandlers({ serverRequests }),
    ...permissionHandlers({ permissions }),
    ...settingsHandlers({ settings, emit }),
    ...traceHandlers({ tracer }),
    ...observabilityHandlers({ observability }),
    ...peopleHandlers(),
    ...historyHandlers({
      harness,
      checkpoints: stores.storage,
      redactor,
      calls,
      // History's "Ask the server now": one record's task, asked at once; a task still working is followed in the background.
      askTask: (sessionId, callId) => taskRecovery.ask(sessionId, callId),
    }),
    ...importHandlers({ registry, servers, redactor }),
    ...agentHandlers({
      agents,
      // "Add to …" writes into this user's own config files, where each application reads them.
      configFiles: new AgentConfigFiles(
        options.clientConfigPlaces ?? { platform: process.platform, home: homedir(), env: process.env },
      ),
    }),
    ...resourceHandlers({ registry, features }),
    ...oauthHandlers({ servers }),
    ...runHandlers({ runs }),
    // The MCP Registry catalog (issue 30): installs are saved through the same server service.
    ...catalogHandlers({
      catalog: new CatalogService({
        dataDir: options.dataDir,
        config: options.config,
        servers: () => registry.servers(),
        save: (request) => servers.save(request),
        onSecret: (value) => redactor.add(value),
      }),
    }),
    ...appsHandlers({
      apps: new AppService({
        registry,
        listTools: () => harness.listTools(),
        guiSessionId: () => calls.sessionId,
        call: (request, caller) => calls.call(request, caller),
        read: (caller, serverId, uri, signal, impliedBy) =>
          features.readAsTraced(caller, serverId, uri, signal, impliedBy),
        // An app's page for a call: that call's decision (apps/appService.ts pageDecision).
        runningCall: (sessionId, callId) => calls.runningCall(sessionId, callId),
        recordedCall: (sessionId, callId) => stores.pipeline.get(sessionId, callId),
      }),
    }),
  };
}
