/**
 * The composition root of the main process, shared by the Electron shell and the browser-mode
 * host: it builds the registry, the schema cache, the stores, the security layer and the harness
 * over one data folder, binds the IPC contract's handlers, and turns domain events into contract
 * events. It never imports `electron`.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import type { EventName, EventOf, ToolView } from '../../shared/contract.js';
import { events as eventSchemas } from '../../shared/contract.js';
import type { SecretRef } from '../../shared/serverConfig.js';
import { SqliteCheckpointStore } from '../checkpoints/sqliteStore.js';
import { HarnessApplication } from '../harness/application.js';
import type { HarnessToolInfo } from '../harness/application.js';
import { MCPToolRegistry } from '../mcp/registry.js';
import { ToolSchemaCache } from '../mcp/schemaCache.js';
import type { SecretResolver } from '../secrets/resolver.js';
import { DefaultSecretResolver } from '../secrets/resolver.js';
import type { SecretValue } from '../secrets/secretValue.js';
import { PermissionDecisionEngine } from '../security/permissions.js';
import { JsonFilePermissionRuleStore } from '../security/permissionStore.js';
import { SecureToolExecutor } from '../security/secureExecutor.js';
import { openDatabase } from '../storage/database.js';
import { createLocalTools } from '../tools/localTools.js';
import { Tracer } from '../tracing/tracer.js';
import type { Handlers } from './dispatcher.js';
import { createDispatcher } from './dispatcher.js';
import { AppError } from './errors.js';
import { ServerService } from './serverService.js';
import type { AppCore, AppCoreOptions } from './types.js';

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
  const title = tool.annotations?.title;
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

export function createAppCore(options: AppCoreOptions): AppCore {
  mkdirSync(options.dataDir, { recursive: true });
  const warnings: string[] = [];
  const listeners = new Set<(event: EventName, payload: unknown) => void>();

  const db: Database = openDatabase(join(options.dataDir, 'miniharness.db'));
  const checkpoints = new SqliteCheckpointStore(db);
  const tracer = new Tracer(db);
  const redact = (text: string): string => tracer.redactText(text);
  const resolver = new ObservedSecretResolver(new DefaultSecretResolver(options.secrets), (value) => tracer.addKnownSecret(value.reveal()));
  const cache = new ToolSchemaCache({ dir: join(options.dataDir, 'tool-cache'), onWarning: (m) => warnings.push(m) });
  const registry = new MCPToolRegistry({ secrets: resolver, cache });
  const ruleStore = new JsonFilePermissionRuleStore(join(options.dataDir, 'permissions.json'), {
    onCorrupt: (error) => warnings.push(error.message),
  });
  const workspace = join(options.dataDir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  const localTools = createLocalTools({ roots: [workspace] });
  const buildHarness = (engine: PermissionDecisionEngine): HarnessApplication =>
    new HarnessApplication({
      registry,
      localTools,
      // Approvals arrive with the Approvals view; until then an ASK is answered with deny.
      security: new SecureToolExecutor({ engine, requestApproval: async () => 'deny' }),
      checkpoints,
      tracer,
    });
  // Replaced in start() by one whose engine holds the saved rules.
  let harness = buildHarness(new PermissionDecisionEngine(ruleStore, [], { pathBase: workspace }));
  const servers = new ServerService(registry, options.config, options.secrets, (m) => warnings.push(m));

  // ── events ─────────────────────────────────────────────────────────────────────────────────
  function emit<E extends EventName>(event: E, payload: EventOf<E>): void {
    const checked = eventSchemas[event].safeParse(payload);
    if (!checked.success) return; // an event that breaks the contract is dropped, never sent half-valid
    for (const listener of listeners) {
      try {
        listener(event, checked.data);
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

  registry.subscribe((event) => {
    switch (event.type) {
      case 'status':
        emit('server.status', { serverId: event.serverId, status: event.status.state === 'error' ? { state: 'error', code: event.status.code, reason: event.status.reason } : { state: event.status.state }, at: event.at });
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
    'app.info': () => {
      const backend = options.secrets.describe();
      return {
        mode: options.mode,
        version: options.version,
        secretBackend: { kind: backend.kind, secure: backend.secure, ...(backend.warning ? { warning: backend.warning } : {}) },
        warnings: [...warnings],
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
    'servers.remove': async ({ id }) => ({ removed: await servers.remove(id) }),
    'servers.setEnabled': ({ id, enabled }) => servers.setEnabled(id, enabled),
    'servers.connect': ({ id }) => servers.connect(id),
    'servers.disconnect': ({ id }) => servers.disconnect(id),
    'servers.discover': async ({ refresh }) => {
      await registry.discover({ refresh });
      return servers.views();
    },
    'servers.log': ({ id }) => {
      if (!registry.server(id)) throw new AppError('not_found', `There is no server "${id}".`);
      return registry.logOf(id).all();
    },
    'tools.list': () => toolsPayload(),
  };
  const dispatch = createDispatcher(handlers, { redact });

  let closing: Promise<void> | undefined;
  return {
    dispatch,
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async start() {
      harness = buildHarness(await PermissionDecisionEngine.load(ruleStore, { pathBase: workspace }));
      servers.load();
      followLogs();
      // Discovery runs in the background: the window opens at once and statuses stream in.
      registry.discover().catch((error: unknown) => warnings.push(`Discovery failed: ${(error as Error).message}`));
    },
    close() {
      closing ??= (async () => {
        for (const unsubscribe of logSubscriptions.values()) unsubscribe();
        await registry.close();
        db.close();
      })();
      return closing;
    },
  };
}
