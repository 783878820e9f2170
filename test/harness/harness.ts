/** Builds a complete HarnessApplication over real parts (SQLite, real servers) for tests. */
import type { CheckpointTaskLinks } from '../../electron/checkpoints/taskLinks.js';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import type { SqliteCheckpointStore } from '../../electron/checkpoints/sqliteStore.js';
import type { HarnessApplication } from '../../electron/harness/application.js';
import { createPipeline } from '../../electron/harness/createPipeline.js';
import type { RetryPolicy } from '../../electron/harness/retryPolicy.js';
import type { RegistryOptions } from '../../electron/mcp/registry.js';
import type { MCPToolRegistry } from '../../electron/mcp/registry.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import type { ApprovalAnswer, ApprovalRequest } from '../../electron/security/approvals.js';
import type { NewPermissionRule } from '../../electron/security/permissions.js';
import type { PermissionDecisionEngine } from '../../electron/security/permissions.js';
import { SecureToolExecutor } from '../../electron/security/secureExecutor.js';
import { openAppDatabase } from '../../electron/core/database.js';
import { createLocalTools } from '../../electron/tools/localTools.js';
import type { SecretRedactor } from '../../electron/secrets/secretRedactor.js';
import type { Tracer } from '../../electron/tracing/tracer.js';
import { MemoryRuleStore } from '../doubles/security/memoryRuleStore.js';
import { testSandboxes } from '../helpers/sandboxes.js';

/** Answers approval requests the way a test says; records every request it saw. */
export class ScriptedApprover {
  readonly requests: ApprovalRequest[] = [];
  /** The answer to give; `'never'` leaves the dialog open (until the timeout). */
  answer: ApprovalAnswer | 'never' = 'deny';

  readonly callback = (request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> => {
    this.requests.push(request);
    if (this.answer !== 'never') return Promise.resolve(this.answer);
    return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('dialog dismissed'))));
  };
}

/** Counts authorize() calls, to prove that every kind of tool passes the same executor. */
export class CountingSecureExecutor extends SecureToolExecutor {
  readonly authorized: string[] = [];
  override authorize(
    ...args: Parameters<SecureToolExecutor['authorize']>
  ): ReturnType<SecureToolExecutor['authorize']> {
    this.authorized.push(`${args[0].subject.serverId}/${args[0].subject.toolName}`);
    return super.authorize(...args);
  }
}

export interface TestHarness {
  harness: HarnessApplication;
  registry: MCPToolRegistry;
  engine: PermissionDecisionEngine;
  security: CountingSecureExecutor;
  approver: ScriptedApprover;
  checkpoints: SqliteCheckpointStore;
  taskLinks: CheckpointTaskLinks;
  tracer: Tracer;
  /** The secrets the pipeline redacts with (one SecretRedactor, shared with the tracer). */
  redactor: SecretRedactor;
  db: Database;
  root: string;
  close(): Promise<void>;
}

export async function buildHarness(options: {
  dir: string;
  rules?: NewPermissionRule[];
  approvalTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  dbFile?: string;
  /** Registry options (reconnect policy, size limit); secrets are the default resolver's, sandboxes the tests' own. */
  registry?: Partial<Omit<RegistryOptions, 'secrets'>>;
}): Promise<TestHarness> {
  const root = join(options.dir, 'root');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(root, { recursive: true });
  const db = openAppDatabase(options.dbFile ?? join(options.dir, 'harness.db'));
  const approver = new ScriptedApprover();
  const { harness, registry, engine, security, checkpoints, taskLinks, tracer, redactor } = await createPipeline({
    db,
    secrets: new DefaultSecretResolver(),
    registry: { sandboxes: testSandboxes(), ...options.registry },
    rules: new MemoryRuleStore(),
    requestApproval: approver.callback,
    approvalTimeoutMs: options.approvalTimeoutMs ?? 5_000,
    localTools: createLocalTools({ roots: [root], command: { timeoutMs: 5_000 } }),
    retry: { baseDelayMs: 10, maxDelayMs: 50, ...options.retry },
    createSecurity: (securityOptions) => new CountingSecureExecutor(securityOptions),
  });
  for (const rule of options.rules ?? []) await engine.addRule(rule);
  return {
    harness,
    registry,
    engine,
    security,
    approver,
    checkpoints,
    taskLinks,
    tracer,
    redactor,
    db,
    root,
    async close() {
      await registry.close();
      tracer.flush();
      db.close();
    },
  };
}
