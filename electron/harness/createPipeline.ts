/**
 * The one place the tool-call pipeline is assembled: `HarnessApplication` over its
 * `MCPToolRegistry`, its security (`SecureToolExecutor` + `PermissionDecisionEngine` with the
 * saved rules), its checkpoint store (SQLite's by default, or one given: PostgreSQL) and its tracer, all redacting with one
 * `SecretRedactor` (secrets/secretRedactor.ts). The app core, the tests and the
 * benchmarks all build it here, so they run the same wiring.
 */
import type { Database } from '../storage/database.js';
import type { SecretRef } from '../../shared/serverConfig.js';
import { SqliteCheckpointStore, sqliteCheckpointStores } from '../checkpoints/sqliteStore.js';
import type { CheckpointStores } from '../checkpoints/types.js';
import { CheckpointTaskLinks } from '../checkpoints/taskLinks.js';
import type { RegistryOptions } from '../mcp/registry.js';
import { MCPToolRegistry } from '../mcp/registry.js';
import type { SecretResolver } from '../secrets/resolver.js';
import { SecretRedactor } from '../secrets/secretRedactor.js';
import type { SecretValue } from '../secrets/secretValue.js';
import type { ApprovalCallback } from '../security/approvals.js';
import type { PermissionRuleStore } from '../security/permissionStore.js';
import { PermissionDecisionEngine } from '../security/permissions.js';
import { ToolPins } from '../security/pins.js';
import { SqlitePinStore } from '../security/sqlitePinStore.js';
import type { PinStore } from '../security/pins.js';
import type { SecureToolExecutorOptions } from '../security/secureExecutor.js';
import { SecureToolExecutor } from '../security/secureExecutor.js';
import type { LocalTool } from '../tools/types.js';
import { Tracer } from '../tracing/tracer.js';
import { HarnessApplication } from './application.js';
import type { RetryPolicy } from './retryPolicy.js';

/** Registers every secret the registry resolves with the redactor, so traces and errors redact it. */
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

/**
 * The tracer over the database, when the caller needs it before the pipeline exists (a new one
 * otherwise), with the redactor it was built with: the pipeline registers resolved secrets there.
 */
type PipelineTracing = { tracer?: undefined; redactor?: SecretRedactor } | { tracer: Tracer; redactor: SecretRedactor };

export type PipelineOptions<S extends SecureToolExecutor = SecureToolExecutor> = PipelineTracing & PipelineParts<S>;

interface PipelineParts<S extends SecureToolExecutor> {
  /** The database the traces are kept in, and the checkpoints unless `stores` is given. */
  db: Database;
  /** Where the tool calls are recorded instead of `db` (the core: PostgreSQL when a database URL is set). */
  stores?: CheckpointStores;
  /** Where server secrets come from; each value resolved is registered for redaction. */
  secrets: SecretResolver;
  /** Registry options besides the secrets (the stdio servers' sandboxes, schema cache, reconnect policy, …). */
  registry: Omit<RegistryOptions, 'secrets'>;
  /** The saved permission rules; loaded before the pipeline is built. */
  rules: PermissionRuleStore;
  /** Where the tool pins are kept; the SQLite database (`db`) by default. */
  pins?: PinStore;
  /** The folder relative path arguments are resolved against in rules (the local tools' first root). */
  pathBase?: string;
  /** Asks a person about an ASK decision. */
  requestApproval: ApprovalCallback;
  approvalTimeoutMs?: number | (() => number);
  /** Told when a session grant or a saved "always allow" changes what the GUI shows. */
  onPermissionsChanged?: () => void;
  localTools: LocalTool[];
  retry?: Partial<RetryPolicy>;
  /** Builds the security layer; tests pass a subclass that records what it authorized. */
  createSecurity?: (options: SecureToolExecutorOptions) => S;
}

export interface Pipeline<S extends SecureToolExecutor = SecureToolExecutor> {
  harness: HarnessApplication;
  registry: MCPToolRegistry;
  engine: PermissionDecisionEngine;
  security: S;
  /** The checkpoints in `db`, synchronous (tests and benchmarks read them); the pipeline records there unless `stores` was given. */
  checkpoints: SqliteCheckpointStore;
  /** The server task ids of checkpointed calls in `db` (the tasks extension); see harness/taskRecovery.ts. */
  taskLinks: CheckpointTaskLinks;
  /** Where the pipeline records its calls: `options.stores`, or the two above. */
  stores: CheckpointStores;
  tracer: Tracer;
  redactor: SecretRedactor;
}

export async function createPipeline<S extends SecureToolExecutor = SecureToolExecutor>(
  options: PipelineOptions<S>,
): Promise<Pipeline<S>> {
  const checkpoints = new SqliteCheckpointStore(options.db);
  const taskLinks = new CheckpointTaskLinks(options.db);
  const stores = options.stores ?? sqliteCheckpointStores(checkpoints, taskLinks);
  const redactor = options.redactor ?? new SecretRedactor();
  const tracer = options.tracer ?? new Tracer(options.db, { redactor });
  const secrets = new ObservedSecretResolver(options.secrets, (value) => redactor.add(value.reveal()));
  // The same secrets also keep servers' descriptions, the tool cache file and progress clean.
  const registry = new MCPToolRegistry({ ...options.registry, secrets, redactor });
  const engine = await PermissionDecisionEngine.load(
    options.rules,
    options.pathBase !== undefined ? { pathBase: options.pathBase } : {},
  );
  const securityOptions: SecureToolExecutorOptions = {
    engine,
    // Each tool's definition as it was approved, in the same database as the checkpoints (issue 31).
    pins: new ToolPins(options.pins ?? new SqlitePinStore(options.db)),
    requestApproval: options.requestApproval,
    ...(options.approvalTimeoutMs !== undefined ? { approvalTimeoutMs: options.approvalTimeoutMs } : {}),
    ...(options.onPermissionsChanged ? { onPermissionsChanged: options.onPermissionsChanged } : {}),
  };
  // Without a factory S is SecureToolExecutor itself (the default type argument).
  const security = options.createSecurity
    ? options.createSecurity(securityOptions)
    : (new SecureToolExecutor(securityOptions) as S);
  const harness = new HarnessApplication({
    registry,
    localTools: options.localTools,
    security,
    checkpoints: stores.pipeline,
    taskLinks: stores.taskLinks,
    tracer,
    redactor,
    ...(options.retry ? { retry: options.retry } : {}),
  });
  return { harness, registry, engine, security, checkpoints, taskLinks, stores, tracer, redactor };
}
