/**
 * Calls a server runs as a task, through the whole app core (browser mode's `buildCore`), with
 * the task fixture over stdio: the GUI's call emits `call.task` (its id and status for the call
 * panel) and ends with the task's result; an agent calling through the gateway — which does not
 * declare tasks — gets the final result, the app following the task for it; each side effect once.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallOutcome, EventOf } from '../../shared/contract.js';
import { PROJECT_ROOT, scratchDir, waitFor, sandboxWritingTo } from '../helpers/fixtures.js';
import { BUILT_TASK_FIXTURE, buildTaskFixture, releaseTask, taskEvents } from '../doubles/servers/taskPeer.js';
import type { GatewayApp } from '../gateway/support.js';
import { connectModernAgent, saveServerListed, startGatewayApp } from '../gateway/support.js';

describe('calls run as tasks, through the app core', () => {
  const scratch = scratchDir('mh-task-core-');
  const tasksDir = join(scratch.dir, 'tasks');
  let app: GatewayApp;

  beforeAll(async () => {
    await buildTaskFixture();
    app = await startGatewayApp(scratch.dir);
    await saveServerListed(app, {
      id: 'tasks',
      name: 'Tasks',
      transport: 'stdio',
      command: process.execPath,
      args: [BUILT_TASK_FIXTURE],
      cwd: PROJECT_ROOT,
      env: { TASKS_DIR: tasksDir },
      sandbox: sandboxWritingTo({ TASKS_DIR: tasksDir }),
      protocolEra: 'modern',
    });
    await app.call('permissions.setToolLevel', { serverId: 'tasks', toolName: 'long_job', level: 'ALLOW' });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    scratch.cleanup();
  });

  it('the GUI call shows its task (call.task), ends with the task’s result, and History names the task', async () => {
    const call = app.call<CallOutcome>('tools.call', {
      name: 'long_job',
      serverId: 'tasks',
      args: { label: 'gui' },
      callId: 'gui-task-1',
    });
    const task = await app.nextEvent<EventOf<'call.task'>>('call.task', (e) => e.callId === 'gui-task-1');
    expect(task).toMatchObject({ status: 'working', statusMessage: 'working on gui' });
    releaseTask(tasksDir, task.taskId);
    const outcome = await call;
    expect(JSON.stringify(outcome)).toContain('done gui');
    expect(taskEvents(tasksDir).filter((e) => e.event === 'effect' && e.label === 'gui')).toHaveLength(1);
    // History shows the task the call became.
    const record = await app.call<{ status: string; taskId?: string }>('history.get', {
      sessionId: outcome.sessionId,
      callId: 'gui-task-1',
    });
    expect(record).toMatchObject({ status: 'completed', taskId: task.taskId });
  }, 60_000);

  it('an agent that does not declare tasks gets the final result through the gateway', async () => {
    const { token } = await app.createAgent('Task agent');
    const agent = await connectModernAgent(app.url, token);
    try {
      const called = agent.callTool({ name: 'tasks__long_job', arguments: { label: 'agent' } });
      await waitFor(() => taskEvents(tasksDir).some((e) => e.event === 'effect' && e.label === 'agent'), 20_000);
      releaseTask(tasksDir, taskEvents(tasksDir).find((e) => e.event === 'effect' && e.label === 'agent')!.taskId);
      const result = await called;
      expect(result.isError).toBeFalsy();
      expect(result.content).toEqual([{ type: 'text', text: 'done agent' }]);
      expect(taskEvents(tasksDir).filter((e) => e.event === 'effect' && e.label === 'agent')).toHaveLength(1);
      // Not the GUI's call: no call.task for it.
      expect(
        app.events.filter(
          (e) =>
            e.event === 'call.task' && (e.payload as { statusMessage?: string }).statusMessage === 'working on agent',
        ),
      ).toEqual([]);
    } finally {
      await agent.close();
    }
  }, 60_000);
});
