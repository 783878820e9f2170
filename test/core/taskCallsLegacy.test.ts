/**
 * A 2025-11-25 task (server-everything's `simulate-research-query`) through the whole app core:
 * the same product behaviour as the 2026-07-28 form — the GUI's call emits `call.task`, ends with
 * the task's result, and its History record carries the task id.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallOutcome, EventOf } from '../../shared/contract.js';
import { PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from '../gateway/support.js';
import { saveServerListed, startGatewayApp } from '../gateway/support.js';

const entry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

describe('a 2025-11-25 task through the app core', () => {
  const scratch = scratchDir('mh-task-legacy-');
  let app: GatewayApp;

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir);
    await saveServerListed(app, {
      id: 'everything',
      name: 'Everything',
      transport: 'stdio',
      command: process.execPath,
      args: [entry, 'stdio'],
      cwd: PROJECT_ROOT,
    });
    await app.call('permissions.setToolLevel', {
      serverId: 'everything',
      toolName: 'simulate-research-query',
      level: 'ALLOW',
    });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    scratch.cleanup();
  });

  it('the GUI call shows its task (call.task), ends with the task’s result, History names the task', async () => {
    const call = app.call<CallOutcome>('tools.call', {
      name: 'simulate-research-query',
      serverId: 'everything',
      args: { topic: 'eels' },
      callId: 'legacy-task-1',
    });
    const task = await app.nextEvent<EventOf<'call.task'>>('call.task', (e) => e.callId === 'legacy-task-1');
    expect(task.status).toBe('working');
    const outcome = await call;
    expect(JSON.stringify(outcome)).toContain('Research Report: eels');
    const record = await app.call<{ status: string; taskId?: string }>('history.get', {
      sessionId: outcome.sessionId,
      callId: 'legacy-task-1',
    });
    expect(record).toMatchObject({ status: 'completed', taskId: task.taskId });
  }, 60_000);
});
