/**
 * Tasks through the gateway (2026-07-28 tasks extension), with the task fixture behind it over
 * stdio and two real agents (the SDK's Client, declaring the extension) over HTTP: an agent's
 * call that the server runs as a task comes back as the agent's own task — an id of the gateway's,
 * not the server's — followed with tasks/get to the server's result; tasks/cancel of it cancels the
 * server's task; another agent can neither get nor cancel it (answered as an unknown task).
 */
import { join } from 'node:path';
import { ProtocolError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DetailedTaskV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';
import { TaskAwareClient, taskCreatedOf, withTasksExtension } from '../../electron/mcp/tasks/taskWire.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { PROJECT_ROOT, scratchDir, waitFor, sandboxWritingTo } from '../helpers/fixtures.js';
import { BUILT_TASK_FIXTURE, buildTaskFixture, releaseTask, taskEvents } from '../doubles/servers/taskPeer.js';
import type { GatewayApp } from './support.js';
import { saveServerListed, startGatewayApp } from './support.js';

const anyResult = z.record(z.string(), z.unknown());

async function taskAgent(url: URL, token: string, name: string): Promise<TaskAwareClient> {
  const client = new TaskAwareClient(
    { name, version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' }, capabilities: withTasksExtension({}) },
  );
  await client.connect(
    new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  return client;
}

/** The task a tools/call became (the gateway's answer), or the call's result. */
async function callForTask(agent: TaskAwareClient, label: string): Promise<{ taskId: string; status: string }> {
  const error = await agent.callTool({ name: 'tasks__long_job', arguments: { label } }).then(
    (result) => new Error(`expected a task, got ${JSON.stringify(result)}`),
    (e: unknown) => e,
  );
  const task = taskCreatedOf(error);
  if (!task) throw error instanceof Error ? error : new Error(String(error));
  return task;
}

describe('tasks through the gateway, scoped to the agent', () => {
  const scratch = scratchDir('mh-task-gateway-');
  const tasksDir = join(scratch.dir, 'tasks');
  let app: GatewayApp;
  let a: TaskAwareClient;
  let b: TaskAwareClient;

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
    a = await taskAgent(app.url, (await app.createAgent('Agent A')).token, 'agent-a');
    b = await taskAgent(app.url, (await app.createAgent('Agent B')).token, 'agent-b');
  }, 60_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await app?.close();
    scratch.cleanup();
  });

  it('offers the extension; a call the server runs as a task is the agent’s task, followed to the server’s result', async () => {
    expect(Object.keys(a.getServerCapabilities()?.extensions ?? {})).toContain('io.modelcontextprotocol/tasks');
    const task = await callForTask(a, 'scoped');
    expect(task.status).toBe('working');
    const downstream = taskEvents(tasksDir).find((e) => e.event === 'effect' && e.label === 'scoped')!;
    // The agent's id is the gateway's own, never the server's.
    expect(task.taskId).not.toBe(downstream.taskId);
    expect(await a.request({ method: 'tasks/get', params: { taskId: task.taskId } }, anyResult)).toMatchObject({
      taskId: task.taskId,
      status: 'working',
      statusMessage: 'working on scoped',
    });
    releaseTask(tasksDir, downstream.taskId);
    let got: Record<string, unknown> = {};
    await waitFor(async () => {
      got = await a.request({ method: 'tasks/get', params: { taskId: task.taskId } }, anyResult);
      return got.status !== 'working';
    }, 20_000);
    expect(got).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'done scoped' }] } });
    // The answer is a task as the extension's schema defines it (the SDK consumed its resultType).
    expect(DetailedTaskV2Schema.safeParse(got).error?.issues ?? []).toEqual([]);
    expect(taskEvents(tasksDir).filter((e) => e.event === 'effect' && e.label === 'scoped')).toHaveLength(1);
  }, 60_000);

  it('another agent can neither get nor cancel it; its owner cancels it, and the server’s task is cancelled', async () => {
    const task = await callForTask(a, 'private');
    const downstream = taskEvents(tasksDir).find((e) => e.event === 'effect' && e.label === 'private')!;
    const bGet = await b
      .request({ method: 'tasks/get', params: { taskId: task.taskId } }, anyResult)
      .catch((e: unknown) => e);
    expect(bGet).toBeInstanceOf(ProtocolError);
    expect((bGet as ProtocolError).message).toMatch(/Unknown task/);
    const bCancel = await b
      .request({ method: 'tasks/cancel', params: { taskId: task.taskId } }, anyResult)
      .catch((e: unknown) => e);
    expect(bCancel).toBeInstanceOf(ProtocolError);
    // B's cancel did nothing: the task still works, the server cancelled nothing.
    expect(await a.request({ method: 'tasks/get', params: { taskId: task.taskId } }, anyResult)).toMatchObject({
      status: 'working',
    });
    expect(taskEvents(tasksDir).some((e) => e.event === 'cancelled' && e.taskId === downstream.taskId)).toBe(false);
    // A unknown id is answered the same way as B's look at A's task.
    const unknown = await a
      .request({ method: 'tasks/get', params: { taskId: 'no-such-task' } }, anyResult)
      .catch((e: unknown) => e);
    expect((unknown as ProtocolError).message).toBe((bGet as ProtocolError).message);
    await a.request({ method: 'tasks/cancel', params: { taskId: task.taskId } }, anyResult);
    await waitFor(
      () => taskEvents(tasksDir).some((e) => e.event === 'cancelled' && e.taskId === downstream.taskId),
      20_000,
    );
    await waitFor(
      async () =>
        (await a.request({ method: 'tasks/get', params: { taskId: task.taskId } }, anyResult)).status === 'cancelled',
      20_000,
    );
    // The server confirmed the cancel: History files the call as ended (failed, task_cancelled), not as a
    // call to resolve by hand, and no session counts it as needing attention (issue 34.7).
    type Page = {
      records: Array<{ sessionId: string; taskId?: string; status: string; lastError?: { code?: string } }>;
    };
    let record: Page['records'][number] | undefined;
    await waitFor(async () => {
      record = (await app.call<Page>('history.page', { limit: 100 })).records.find(
        (r) => r.taskId === downstream.taskId,
      );
      return record?.status === 'failed';
    }, 20_000);
    expect(record).toMatchObject({ status: 'failed', lastError: { code: 'task_cancelled' } });
    const sessions = await app.call<{ sessions: Array<{ sessionId: string; started: number }> }>(
      'history.sessions',
      {},
    );
    expect(sessions.sessions.find((s) => s.sessionId === record?.sessionId)?.started ?? 0).toBe(0);
  }, 60_000);

  it('tasks/* from a request that does not declare the extension: -32021 (missing capability)', async () => {
    const task = await callForTask(a, 'undeclared');
    const { token } = await app.createAgent('Plain agent');
    const plain = new TaskAwareClient({ name: 'plain', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await plain.connect(
      new StreamableHTTPClientTransport(app.url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
    );
    try {
      const refused = await plain
        .request({ method: 'tasks/get', params: { taskId: task.taskId } }, anyResult)
        .catch((e: unknown) => e);
      expect((refused as ProtocolError).code).toBe(-32021);
    } finally {
      await plain.close();
      await a.request({ method: 'tasks/cancel', params: { taskId: task.taskId } }, anyResult);
    }
  }, 60_000);
});
