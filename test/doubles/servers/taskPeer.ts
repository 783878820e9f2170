/**
 * The peer of the tasks tests: the 2026-07-28 task fixture (doubles/servers/task-server.ts),
 * bundled once into plain JS and spawned over stdio; its tasks live in a folder the test owns.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerConfig } from '../../../shared/serverConfig.js';
import { ServerConfigSchema } from '../../../shared/serverConfig.js';
import { PROJECT_ROOT, sandboxWritingTo } from '../../helpers/fixtures.js';
import { bundledOnce } from '../../helpers/buildFixtures.js';

const TASK_SOURCE = join(PROJECT_ROOT, 'test', 'doubles', 'servers', 'task-server.ts');
export const BUILT_TASK_FIXTURE = join(PROJECT_ROOT, '.cache', 'fixtures', 'task-server.mjs');

export const buildTaskFixture = bundledOnce(TASK_SOURCE, BUILT_TASK_FIXTURE);

export function taskServerConfig(id: string, tasksDir: string): ServerConfig {
  return ServerConfigSchema.parse({
    id,
    name: id,
    transport: 'stdio',
    command: process.execPath,
    args: [BUILT_TASK_FIXTURE],
    env: { TASKS_DIR: tasksDir },
    sandbox: sandboxWritingTo({ TASKS_DIR: tasksDir }),
    cwd: PROJECT_ROOT,
    timeoutMs: 10_000,
    protocolEra: 'modern',
  });
}

export interface TaskFixtureEvent {
  event: 'effect' | 'cancelled' | 'answered';
  taskId: string;
  label: string;
}

export function taskEvents(tasksDir: string): TaskFixtureEvent[] {
  const file = join(tasksDir, 'events.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as TaskFixtureEvent);
}

/** Lets the fixture's task finish (it completes once this file exists). */
export function releaseTask(tasksDir: string, taskId: string): void {
  writeFileSync(join(tasksDir, `${taskId}.release`), '');
}
