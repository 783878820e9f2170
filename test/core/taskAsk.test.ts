/**
 * History's "Ask the server now" (`history.askTask`) through the app core, with the task fixture
 * over stdio: a call whose wait ended (the server's total deadline, 800 ms) while the server ran it as a task is left
 * "unknown" with its task id; asking the server now while the task still works leaves it so and
 * follows the task, which then completes it with the server's result; asking after the task
 * ended stores the result at once, and the call replays from then on — one side effect each.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallOutcome, HistoryRecordView } from '../../shared/contract.js';
import type { TraceDetail, TraceSummary } from '../../shared/traces.js';
import { PROJECT_ROOT, scratchDir, waitFor, sandboxWritingTo } from '../helpers/fixtures.js';
import { BUILT_TASK_FIXTURE, buildTaskFixture, releaseTask, taskEvents } from '../doubles/servers/taskPeer.js';
import type { GatewayApp } from '../gateway/support.js';
import { saveServerListed, startGatewayApp } from '../gateway/support.js';

describe('History: ask the server now about a call run as a task', () => {
  const scratch = scratchDir('mh-task-ask-');
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
      maxTotalTimeoutMs: 800,
    });
    await app.call('permissions.setToolLevel', { serverId: 'tasks', toolName: 'long_job', level: 'ALLOW' });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    scratch.cleanup();
  });

  /** A GUI call whose wait ends (a short deadline) while its task works on: the record is left unknown with the task id. */
  async function orphanedTaskCall(callId: string, label: string): Promise<{ sessionId: string; taskId: string }> {
    const failed = await app
      .call<CallOutcome>('tools.call', { name: 'long_job', serverId: 'tasks', args: { label }, callId, timeoutMs: 300 })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(Error);
    const { current: sessionId } = await app.call<{ current: string }>('history.sessions');
    const record = await app.call<HistoryRecordView>('history.get', { sessionId, callId });
    expect(record.status).toBe('unknown');
    expect(record.taskId).toBeDefined();
    return { sessionId, taskId: record.taskId! };
  }

  it('after the task ended: the server’s result is stored at once, and the call replays it', async () => {
    const { sessionId, taskId } = await orphanedTaskCall('ask-task-1', 'later');
    releaseTask(tasksDir, taskId);
    const record = await app.call<HistoryRecordView>('history.askTask', { sessionId, callId: 'ask-task-1' });
    expect(record.status).toBe('completed');
    expect(JSON.stringify(record.result)).toContain('done later');
    // Traces show the task's life after the app lost the call: the server's answer, then the stored result.
    const traces = (
      await app.call<{ traces: TraceSummary[] }>('traces.list', { toolName: 'long_job', limit: 50 })
    ).traces.filter((t) => t.callId === 'ask-task-1');
    const details = await Promise.all(traces.map((t) => app.call<TraceDetail>('traces.get', { traceId: t.traceId })));
    const recovery = details.find(
      (d) =>
        d.events.some((e) => e.type === 'task' && e.data.status === 'completed') &&
        d.events.at(-1)?.type === 'completed',
    );
    // The ask itself first (who asked, the outcome), then the task's status and the stored end.
    expect(recovery?.events.map((e) => e.type)).toEqual(['task_check', 'task', 'completed']);
    expect(recovery?.events[0]?.data).toMatchObject({ trigger: 'person', outcome: 'answered' });
    const replay = await app.call<CallOutcome>('history.replay', { sessionId, callId: 'ask-task-1' });
    expect(replay.replayed).toBe(true);
    expect(taskEvents(tasksDir).filter((e) => e.event === 'effect' && e.label === 'later')).toHaveLength(1);
  }, 60_000);

  it('while the task still works: the record stays, the task is followed, and its end completes the record', async () => {
    const { sessionId, taskId } = await orphanedTaskCall('ask-task-2', 'still');
    const record = await app.call<HistoryRecordView>('history.askTask', { sessionId, callId: 'ask-task-2' });
    expect(record).toMatchObject({ status: 'unknown', taskId });
    releaseTask(tasksDir, taskId);
    await waitFor(
      async () =>
        (await app.call<HistoryRecordView>('history.get', { sessionId, callId: 'ask-task-2' })).status === 'completed',
      20_000,
    );
    expect(taskEvents(tasksDir).filter((e) => e.event === 'effect' && e.label === 'still')).toHaveLength(1);
  }, 60_000);

  it('a record without a task is refused with a coded error', async () => {
    const { current: sessionId } = await app.call<{ current: string }>('history.sessions');
    const refused = await app
      .call('history.askTask', { sessionId, callId: 'no-such-call' })
      .catch((e: unknown) => e as { shape?: { code: string } });
    expect((refused as { shape?: { code: string } }).shape?.code).toBe('not_found');
  });
});
