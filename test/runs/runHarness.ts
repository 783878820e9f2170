/**
 * A run engine over the real pipeline (test/harness/harness.ts: SQLite, a real stdio fixture
 * server `fx` with the `append` write tool) and the loopback provider, for the runs tests and
 * their kill -9 child.
 */
import type { ModelConfig } from '../../electron/models/providerFactory.js';
import { createProvider, modelKeyStorageKey } from '../../electron/models/providerFactory.js';
import type { RunEvent } from '../../electron/runs/runEngine.js';
import { RunEngine } from '../../electron/runs/runEngine.js';
import { RunStore } from '../../electron/runs/runStore.js';
import { RunTaskOutcomes } from '../../electron/runs/taskOutcomes.js';
import type { ConversationMessage } from '../../electron/models/types.js';
import { SecretValue } from '../../electron/secrets/secretValue.js';
import type { NewPermissionRule } from '../../electron/security/permissions.js';
import { stdioFixtureConfig } from '../helpers/fixtures.js';
import { taskServerConfig } from '../doubles/servers/taskPeer.js';
import type { TestHarness } from '../harness/harness.js';
import { buildHarness } from '../harness/harness.js';

export const TEST_KEY = 'sk-run-test-key-5678';

export interface RunHarness {
  h: TestHarness;
  engine: RunEngine;
  store: RunStore;
  events: RunEvent[];
  /** Track the task recovery here (as the app does at start) for resumed runs to use its outcomes. */
  taskOutcomes: RunTaskOutcomes;
  close(): Promise<void>;
}

export function loopbackModel(kind: ModelConfig['kind'], origin: string): ModelConfig {
  return {
    id: 'loop',
    name: 'Loopback',
    kind,
    model: 'loopback-model',
    baseUrl: kind === 'anthropic' ? origin : `${origin}/v1`,
  };
}

/** `tasksDir`: the task fixture (test/doubles/servers/taskPeer.ts) is added as server `tasks`, its calls allowed. */
export async function buildRunHarness(options: {
  dir: string;
  dbFile?: string;
  counter: string;
  events?: string;
  rules: NewPermissionRule[];
  tasksDir?: string;
}): Promise<RunHarness> {
  const rules = options.tasksDir
    ? [...options.rules, { level: 'ALLOW' as const, match: { serverId: 'tasks' } }]
    : options.rules;
  const h = await buildHarness({ dir: options.dir, ...(options.dbFile ? { dbFile: options.dbFile } : {}), rules });
  h.registry.addServer(
    stdioFixtureConfig('fx', {
      FIXTURE_COUNTER: options.counter,
      FIXTURE_TOOLS: 'append,slow,slow_append',
      ...(options.events ? { FIXTURE_EVENTS: options.events } : {}),
    }),
  );
  if (options.tasksDir) h.registry.addServer(taskServerConfig('tasks', options.tasksDir));
  await h.registry.discover();
  const taskOutcomes = new RunTaskOutcomes(h.checkpoints);
  const store = new RunStore(h.db);
  const secrets = new Map([[modelKeyStorageKey('loop'), new SecretValue(TEST_KEY)]]);
  const events: RunEvent[] = [];
  const engine = new RunEngine({
    harness: h.harness,
    store,
    providerFor: (model) => createProvider(model, { get: (key) => Promise.resolve(secrets.get(key)) }),
    onEvent: (event) => events.push(event),
    modelRetry: { maxAttempts: 3, baseDelayMs: 1, maxWaitMs: 5_000 },
    taskSettled: (sessionId, callId, signal) => taskOutcomes.settled(sessionId, callId, signal),
  });
  return { h, engine, store, events, taskOutcomes, close: () => h.close() };
}

/** The conversation as text: what each side said and what each tool answered (ids included). */
export function conversationText(messages: ConversationMessage[]): string {
  return messages
    .map((m) =>
      m.role === 'user'
        ? `user: ${m.text}`
        : m.role === 'assistant'
          ? `assistant: ${m.text}${m.toolCalls.map((c) => ` [call ${c.id} ${c.name} ${JSON.stringify(c.args)}]`).join('')}`
          : m.results.map((r) => `result ${r.callId}${r.isError ? ' (error)' : ''}: ${r.text}`).join('\n'),
    )
    .join('\n');
}
