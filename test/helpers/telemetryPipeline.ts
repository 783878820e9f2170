/**
 * The tool-call pipeline (createPipeline, real parts over a SQLite file) with the app's Telemetry
 * on its tracer, calling the stdio fixture's `echo` under an ALLOW rule: shared by the
 * collector-fault tests and bench/otel.ts.
 */
import { join } from 'node:path';
import { openAppDatabase } from '../../electron/core/database.js';
import { createPipeline } from '../../electron/harness/createPipeline.js';
import type { Pipeline } from '../../electron/harness/createPipeline.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import type { PermissionRuleStore } from '../../electron/security/permissionStore.js';
import type { PermissionRule } from '../../electron/security/permissions.js';
import { LOCAL_SERVER_ID } from '../../electron/security/permissions.js';
import { describeServers } from '../../electron/telemetry/serverDescription.js';
import type { TelemetryOptions } from '../../electron/telemetry/telemetry.js';
import { Telemetry } from '../../electron/telemetry/telemetry.js';
import { stdioFixtureConfig } from './fixtures.js';
import { testSandboxes } from './sandboxes.js';

class MemoryRules implements PermissionRuleStore {
  #rules: PermissionRule[] = [];
  load(): Promise<PermissionRule[]> {
    return Promise.resolve([...this.#rules]);
  }
  save(rules: PermissionRule[]): Promise<void> {
    this.#rules = [...rules];
    return Promise.resolve();
  }
}

export interface TelemetryPipeline {
  pipeline: Pipeline;
  telemetry: Telemetry;
  /** One `echo` call with a fresh call id; resolves with its text (rejects on a wrong answer). */
  echo(text: string): Promise<string>;
  close(): Promise<void>;
}

export async function startTelemetryPipeline(
  dir: string,
  serverId = 'fx',
  /** The exporters to use instead of the OTLP ones (the benchmark's in-memory way). */
  exporters: Pick<TelemetryOptions, 'exporterFor' | 'metricExporterFor'> = {},
): Promise<TelemetryPipeline> {
  const db = openAppDatabase(join(dir, 'harness.db'));
  const pipeline = await createPipeline({
    db,
    secrets: new DefaultSecretResolver(),
    rules: new MemoryRules(),
    requestApproval: () => Promise.reject(new Error('no approval expected: an ALLOW rule decides')),
    localTools: [],
    registry: { sandboxes: testSandboxes() },
  });
  const { registry, engine, tracer, redactor, checkpoints } = pipeline;
  const telemetry = new Telemetry({
    tracer,
    localServerId: LOCAL_SERVER_ID,
    describeServer: describeServers(registry),
    redactText: (text) => redactor.redactText(text),
    redact: (value) => redactor.redact(value),
    recorded: (sessionId, callId) => checkpoints.get(sessionId, callId),
    ...exporters,
  });
  await engine.addRule({ level: 'ALLOW', match: { serverId }, note: 'allow the fixture' });
  registry.addServer(stdioFixtureConfig(serverId));
  const discovery = await registry.discover();
  if (discovery.servers[serverId]?.status.state !== 'ready') throw new Error('the fixture did not come up');
  let n = 0;
  return {
    pipeline,
    telemetry,
    async echo(text) {
      const out = await pipeline.harness.executeTool(
        'echo',
        { text },
        { userId: 'tester', sessionId: 'otel', callId: `c-${++n}-${text}` },
      );
      const got = (out.result.content[0] as { text?: string } | undefined)?.text;
      if (got !== text) throw new Error(`echo answered ${JSON.stringify(got)}`);
      return got;
    },
    async close() {
      await telemetry.close();
      await registry.close();
      tracer.flush();
      db.close();
    },
  };
}
