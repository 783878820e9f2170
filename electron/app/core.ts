/**
 * The composition root of the main process, shared by the Electron shell and the browser-mode
 * host: it builds the registry, the schema cache, the stores, the security layer and the harness
 * over one data folder, binds the IPC contract's handlers, and turns domain events into contract
 * events. It never imports `electron`.
 */
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import type { AppWarning, EventName, EventOf, FileDamagedWarning, HistoryRecordView, ToolView } from '../../shared/contract.js';
import { events as eventSchemas } from '../../shared/contract.js';
import type { SecretRef } from '../../shared/serverConfig.js';
import { SqliteCheckpointStore } from '../checkpoints/sqliteStore.js';
import type { HistoryEntry } from '../checkpoints/types.js';
import { HarnessApplication, traceIdOf } from '../harness/application.js';
import type { HarnessToolInfo } from '../harness/application.js';
import { MCPToolRegistry } from '../mcp/registry.js';
import { ToolSchemaCache } from '../mcp/schemaCache.js';
import type { SecretResolver } from '../secrets/resolver.js';
import { DefaultSecretResolver } from '../secrets/resolver.js';
import type { SecretValue } from '../secrets/secretValue.js';
import { PermissionDecisionEngine } from '../security/permissions.js';
import { JsonFilePermissionRuleStore } from '../security/permissionStore.js';
import { SecureToolExecutor } from '../security/secureExecutor.js';
import { ensurePrivateDir } from '../storage/privateFiles.js';
import { Tracer } from '../tracing/tracer.js';
import { openAppDatabaseWithReport } from './database.js';
import type { Handlers } from './dispatcher.js';
import { createDispatcher } from './dispatcher.js';
import { ApprovalBroker } from './approvalBroker.js';
import { CallService, persistentGuiCaller } from './callService.js';
import { AppError } from './errors.js';
import { planImport } from './importer.js';
import { PermissionService } from './permissionService.js';
import { ServerService, statusView } from './serverService.js';
import { SettingsService } from './settingsService.js';
import type { AppCore, AppCoreOptions } from './types.js';
import { prepareWorkspace } from './workspace.js';
import { detectSandbox } from '../sandbox/detect.js';

/** Registers every secret the registry resolves, so traces and errors can redact it. */
class ObservedSecretResolver implements SecretResolver {
  constructor(
    private readonly inner: SecretResolver,
    private readonly onResolved: (value: SecretValue) => void,
  ) {}

  async resolve(ref: SecretRef): Promise<SecretValue> {
    const value = await this.inner.resolve(ref);
    this.onResolved(value);
    return value;
  }
}

export function toolView(tool: HarnessToolInfo): ToolView {
  const title = tool.title ?? tool.annotations?.title;
  return {
    name: tool.name,
    source: tool.source,
    serverId: tool.serverId,
    ...(title ? { title } : {}),
    ...(tool.description ? { description: tool.description } : {}),
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations ? { annotations: { ...tool.annotations } } : {}),
    ...(tool.shadowedBy ? { shadowedBy: tool.shadowedBy } : {}),
  };
}

/** Drops keys whose value is undefined (the stores take optional fields, not undefined ones). */
function withoutUndefined<T extends Record<string, unknown>>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> };
}

/** The most a `history.get` answer may carry (arguments + result + error JSON), so it fits a bridge frame. */
export const HISTORY_RECORD_MAX_BYTES = 16 * 1024 * 1024;

export function historyRecordView(record: HistoryEntry, isRunning: (sessionId: string, callId: string) => boolean): HistoryRecordView {
  return {
    sessionId: record.sessionId,
    callId: record.callId,
    userId: record.userId,
    toolName: record.toolName,
    serverId: record.serverId,
    status: record.status === 'started' && !isRunning(record.sessionId, record.callId) ? 'unknown' : record.status,
    args: record.args,
    ...(record.result
      ? { result: { content: record.result.content, ...(record.result.structuredContent ? { structuredContent: record.result.structuredContent } : {}), isError: record.result.isError } }
      : {}),
    ...(record.lastError ? { lastError: { ...(record.lastError.code ? { code: record.lastError.code } : {}), message: record.lastError.message, at: record.lastError.at } } : {}),
    attempts: record.attempts,
    traceId: record.traceId,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    ...(record.resolvedBy ? { resolvedBy: record.resolvedBy } : {}),
    ...(record.resolutionNote ? { resolutionNote: record.resolutionNote } : {}),
    ...(record.preview ? { preview: record.preview } : {}),
  };
}

export function createAppCore(options: AppCoreOptions): AppCore {
  ensurePrivateDir(options.dataDir);
  // Checked before anything opens: a workspace overlapping the data folder would expose it.
  const workspace = prepareWorkspace(options.workspaceDir, options.dataDir);
  const warnings: string[] = [...(options.warnings ?? [])];
  /** Damaged files moved aside at start (config, database, rules, secrets, tool cache). */
  const damaged: FileDamagedWarning[] = [...(options.config.damaged ?? [])];
  const warningList = (): AppWarning[] => [...damaged, ...warnings.map((message): AppWarning => ({ code: 'notice', message }))];
  function reportDamaged(warning: FileDamagedWarning): void {
    damaged.push(warning);
    emit('app.warnings', { warnings: warningList() });
  }
  const listeners = new Set<(event: EventName, payload: unknown) => void>();

  const opened = openAppDatabaseWithReport(join(options.dataDir, 'miniharness.db'));
  if (opened.damaged) damaged.push(opened.damaged);
  const db: Database = opened.db;
  const checkpoints = new SqliteCheckpointStore(db);
  const tracer = new Tracer(db);
  const redact = (text: string): string => tracer.redactText(text);
  const resolver = new ObservedSecretResolver(new DefaultSecretResolver(options.secrets), (value) => tracer.addKnownSecret(value.reveal()));
  const cache = new ToolSchemaCache({ dir: join(options.dataDir, 'tool-cache'), onWarning: (m) => warnings.push(m), onDamaged: (w) => reportDamaged(w) });
  const registry = new MCPToolRegistry({ secrets: resolver, cache });
  const ruleStore = new JsonFilePermissionRuleStore(join(options.dataDir, 'permissions.json'), {
    onDamaged: (warning) => reportDamaged(warning),
  });
  const settings = new SettingsService(options.config, workspace, options.dataDir, (tools) => harness.replaceLocalTools(tools), (m) => warnings.push(m));
  const broker = new ApprovalBroker(
    (event, payload) => emit(event, payload),
    (value) => tracer.redact(value),
  );
  const buildHarness = (rules: PermissionDecisionEngine): HarnessApplication =>
    new HarnessApplication({
      registry,
      localTools: settings.localTools(),
      security: new SecureToolExecutor({ engine: rules, requestApproval: broker.request, onPermissionsChanged: () => emit('permissions.changed', {}) }),
      checkpoints,
      tracer,
    });
  // Replaced in start() by an engine holding the saved rules.
  let engine = new PermissionDecisionEngine(ruleStore, [], { pathBase: workspace });
  let harness = buildHarness(engine);
  const servers = new ServerService(registry, options.config, options.secrets, (m) => warnings.push(m));
  const calls = new CallService(() => harness, checkpoints, (event, payload) => emit(event, payload), persistentGuiCaller(db));
  const permissions = new PermissionService(
    () => engine,
    () => harness,
    registry,
    (id, trusted) => servers.setTrusted(id, trusted),
    () => emit('permissions.changed', {}),
    () => calls.sessionId,
    detectSandbox,
  );

  // ── events ─────────────────────────────────────────────────────────────────────────────────
  function emit<E extends EventName>(event: E, payload: EventOf<E>): void {
    const checked = eventSchemas[event].safeParse(payload);
    if (!checked.success) return; // an event that breaks the contract is dropped, never sent half-valid
    // A server that echoes a credential (in a progress message, say) must not reach the GUI with it.
    const data = tracer.redactSecretValues(checked.data);
    for (const listener of listeners) {
      try {
        listener(event, data);
      } catch {
        // a closed window must not break the core
      }
    }
  }

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

  function toolsPayload(): EventOf<'tools.changed'> {
    return { tools: harness.listTools().map(toolView), conflicts: registry.conflicts() };
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
    if (notification.kind !== 'event') emit('trace.changed', { trace: notification.trace });
  });

  registry.subscribe((event) => {
    switch (event.type) {
      case 'status':
        emit('server.status', { serverId: event.serverId, status: statusView(event.status), at: event.at });
        scheduleServersChanged();
        return;
      case 'tools':
        emit('tools.changed', toolsPayload());
        scheduleServersChanged();
        return;
      case 'servers':
        followLogs();
        scheduleServersChanged();
        return;
      case 'warning':
        warnings.push(event.message);
        return;
    }
  });

  // ── handlers ───────────────────────────────────────────────────────────────────────────────
  const handlers: Handlers = {
    'app.info': async () => {
      const backend = options.secrets.describe();
      const sandbox = await detectSandbox();
      return {
        mode: options.mode,
        version: options.version,
        secretBackend: { kind: backend.kind, secure: backend.secure, ...(backend.warning ? { warning: backend.warning } : {}) },
        sandbox: { kind: sandbox.kind, detail: sandbox.detail },
        warnings: warningList(),
      };
    },
    'servers.list': () => servers.views(),
    'servers.get': async ({ id }) => {
      const server = await servers.view(id);
      const negotiated = registry.negotiated(id);
      return {
        server,
        ...(negotiated
          ? {
              negotiated: {
                protocolVersion: negotiated.protocolVersion,
                capabilities: negotiated.capabilities,
                serverInfo: negotiated.serverInfo,
                ...(negotiated.instructions ? { instructions: negotiated.instructions } : {}),
                timings: negotiated.timings,
              },
            }
          : {}),
        tools: harness
          .listTools()
          .filter((t) => t.serverId === id)
          .map(toolView),
        conflicts: registry.conflicts().filter((c) => c.servers.some((s) => s.serverId === id)),
      };
    },
    'servers.save': (request) => {
      // The values the person typed are secrets from now on: keep them out of every message.
      for (const value of Object.values(request.secrets)) tracer.addKnownSecret(value);
      return servers.save(request);
    },
    'servers.remove': async ({ id, removeRules }) => ({ rulesRemoved: removeRules ? await permissions.removeRulesOfServer(id) : 0, removed: await servers.remove(id) }),
    'servers.setEnabled': ({ id, enabled }) => servers.setEnabled(id, enabled),
    'servers.connect': ({ id }) => servers.connect(id),
    'servers.disconnect': ({ id }) => servers.disconnect(id),
    'servers.discover': async ({ refresh }) => {
      // Answers at once with the servers as they are now; discovery runs on, and each server's
      // status streams in as 'server.status' / 'servers.changed' events (never a rejection).
      const views = await servers.views();
      registry.discover({ refresh }).catch((error: unknown) => warnings.push(`Discovery failed: ${redact(error instanceof Error ? error.message : String(error))}`));
      return views;
    },
    'servers.log': ({ id }) => {
      if (!registry.server(id)) throw new AppError('not_found', `There is no server "${id}".`);
      return registry.logOf(id).all();
    },
    'tools.list': () => toolsPayload(),
    'tools.call': (request) => calls.call(request),
    'tools.cancel': ({ callId }) => ({ cancelled: calls.cancel(callId) }),

    'approvals.list': () => broker.list(),
    'approvals.answer': ({ requestId, answer }) => {
      broker.answer(requestId, answer);
      return { accepted: true as const };
    },

    'permissions.get': () => permissions.view(),
    'permissions.setToolLevel': (request) => permissions.setToolLevel(request),
    'permissions.setServerTrust': ({ serverId, trusted }) => permissions.setServerTrust(serverId, trusted),
    'permissions.removeRule': ({ ruleId }) => permissions.removeRule(ruleId),
    'permissions.revokeSessionGrant': (request) => permissions.revokeSessionGrant(request),
    'settings.get': () => settings.view(),
    'settings.setRoots': ({ roots }) => settings.setRoots(roots),

    'traces.list': (query) => tracer.listTraces(withoutUndefined(query)),
    'traces.get': ({ traceId }) => {
      const detail = tracer.getTrace(traceId);
      if (!detail) throw new AppError('not_found', `There is no trace "${traceId}".`);
      return detail;
    },
    'traces.export': ({ traceId }) => tracer.exportTrace(traceId),

    'history.sessions': () => ({ current: calls.sessionId, sessions: checkpoints.listSessions() }),
    'history.page': (query) => {
      const page = checkpoints.history(withoutUndefined(query));
      const running = (sessionId: string, callId: string): boolean => harness.isRunning(sessionId, callId);
      // Redacted on the way out too: a record stored before its secret was known may hold it.
      return { records: page.records.map((r) => tracer.redactSecretValues(historyRecordView(r, running))), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    },
    'history.get': ({ sessionId, callId }) => {
      const bytes = checkpoints.recordBytes(sessionId, callId);
      if (bytes === undefined) throw new AppError('not_found', `No call "${callId}" is recorded in session "${sessionId}".`);
      if (bytes > HISTORY_RECORD_MAX_BYTES) {
        throw new AppError(
          'record_too_large',
          `This record holds ${(bytes / 1024 / 1024).toFixed(1)} MiB of arguments and result, more than the ${HISTORY_RECORD_MAX_BYTES / 1024 / 1024} MiB the app shows at once. Its preview is all that can be shown here.`,
          { limitBytes: HISTORY_RECORD_MAX_BYTES },
        );
      }
      const record = checkpoints.get(sessionId, callId);
      if (!record) throw new AppError('not_found', `No call "${callId}" is recorded in session "${sessionId}".`);
      return tracer.redactSecretValues(historyRecordView(record, (s, c) => harness.isRunning(s, c)));
    },
    'history.replay': ({ sessionId, callId }) => calls.replay(sessionId, callId),
    'history.rerun': ({ sessionId, callId, newCallId }) => calls.rerun(sessionId, callId, newCallId),
    'history.resolve': ({ sessionId, callId, resolution }) => {
      if (harness.isRunning(sessionId, callId)) throw new AppError('still_running', 'This call is still running; wait for it to finish or cancel it first.');
      const record = checkpoints.resolveManually(
        sessionId,
        callId,
        resolution.status === 'failed'
          ? { status: 'failed', ...(resolution.note ? { note: resolution.note } : {}) }
          : { status: 'completed', result: { content: [{ type: 'text', text: resolution.resultText }], structuredContent: undefined, isError: false }, ...(resolution.note ? { note: resolution.note } : {}) },
      );
      return historyRecordView(record, () => false);
    },

    'import.preview': ({ content, fileName }) => {
      const plan = planImport(content, fileName);
      return {
        format: plan.format,
        inputs: plan.inputs,
        servers: plan.servers.map((server) => ({
          name: server.name,
          ...(server.config ? { config: server.config } : {}),
          secretSlots: [...Object.keys(server.fileSecrets), ...Object.keys(server.inputSecrets)],
          inputs: [...new Set(Object.values(server.inputSecrets))],
          exists: server.config !== undefined && registry.server(String(server.config.id)) !== undefined,
          problems: server.problems,
        })),
      };
    },
    'import.apply': async ({ content, fileName, names, inputs }) => {
      const plan = planImport(content, fileName);
      const chosen = plan.servers.filter((s) => names.includes(s.name));
      const missing = names.filter((n) => !plan.servers.some((s) => s.name === n));
      if (missing.length) throw new AppError('import_unknown_server', `The file has no server named ${missing.map((n) => `"${n}"`).join(', ')}. Nothing was imported.`);
      for (const server of chosen) for (const value of Object.values(server.fileSecrets)) tracer.addKnownSecret(value);
      for (const value of Object.values(inputs)) tracer.addKnownSecret(value);
      return { imported: await servers.importPlanned(chosen, inputs) };
    },
  };
  const dispatch = createDispatcher(handlers, { redact, traceIdOf });

  let closing: Promise<void> | undefined;
  return {
    dispatch,
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async start() {
      for (const warning of (await options.secrets.damagedFiles?.()) ?? []) reportDamaged(warning);
      // Traces left running by a process that died (kill -9, crash) are closed as interrupted.
      tracer.closeInterrupted();
      engine = await PermissionDecisionEngine.load(ruleStore, { pathBase: workspace });
      harness = buildHarness(engine);
      servers.load();
      await permissions.bindRulesToServers();
      followLogs();
      // Discovery runs in the background: the window opens at once and statuses stream in.
      registry.discover().catch((error: unknown) => warnings.push(`Discovery failed: ${(error as Error).message}`));
    },
    close() {
      closing ??= (async () => {
        for (const unsubscribe of logSubscriptions.values()) unsubscribe();
        await registry.close();
        tracer.flush();
        db.close();
      })();
      return closing;
    },
  };
}
