/**
 * A `tools/call` answered with a task (the tasks extension, 2026-07-28), through the product's
 * client against the task fixture over stdio (a real subprocess): the client declares the
 * extension, follows the task with `tasks/get` to its end, and the task's result is the call's;
 * a failed task fails the call with the server's reason; the caller's cancel sends
 * `tasks/cancel` and the server records the task cancelled; `getTask` asks a task's state by id;
 * a task's question (input_required) goes through the request handlers and back with `tasks/update`.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MCPClient } from '../../electron/mcp/client.js';
import { MCPRemoteError, MCPRequestCancelled } from '../../electron/mcp/errors.js';
import type { TaskEvent } from '../../electron/mcp/tasks/followTask.js';
import type { InputRound } from '../../electron/mcp/types.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { scratchDir, waitFor } from '../helpers/fixtures.js';
import { ScriptedServerRequests } from '../doubles/person/scriptedServerRequests.js';
import { buildTaskFixture, releaseTask, taskEvents, taskServerConfig } from '../doubles/servers/taskPeer.js';
import { testSandboxes } from '../helpers/sandboxes.js';

const clients: MCPClient[] = [];
let scratch: ReturnType<typeof scratchDir>;

async function connected(serverRequests?: ScriptedServerRequests): Promise<MCPClient> {
  const c = new MCPClient(taskServerConfig('tasks', scratch.dir), {
    secrets: new DefaultSecretResolver(),
    sandboxes: testSandboxes(),
    ...(serverRequests ? { serverRequests } : {}),
  });
  clients.push(c);
  await c.initialize();
  return c;
}

beforeAll(async () => {
  await buildTaskFixture();
});

beforeEach(() => {
  scratch = scratchDir('mh-tasks-');
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  scratch.cleanup();
});

describe('a tool call the server runs as a task', () => {
  it('is followed with tasks/get to its end: the task id is told first, the result is the call’s', async () => {
    const c = await connected();
    expect(c.negotiated?.era).toBe('modern');
    const events: TaskEvent[] = [];
    const call = c.callTool('long_job', { label: 'report' }, { onTask: (event) => events.push(event) });
    await waitFor(() => events.length > 0);
    expect(events[0]).toMatchObject({ status: 'working', statusMessage: 'working on report' });
    const taskId = events[0]!.taskId;
    expect(taskEvents(scratch.dir)).toEqual([expect.objectContaining({ event: 'effect', taskId, label: 'report' })]);
    releaseTask(scratch.dir, taskId);
    const result = await call;
    expect(result.isError).toBe(false);
    expect(result.content).toEqual([{ type: 'text', text: 'done report' }]);
    expect(events.map((e) => e.status)).toEqual(['working', 'completed']);
    expect(events.every((e) => e.taskId === taskId)).toBe(true);
    // One call, one side effect: following polls, it never calls again.
    expect(taskEvents(scratch.dir).filter((e) => e.event === 'effect')).toHaveLength(1);
  });

  it('a failed task fails the call with the server’s reason', async () => {
    const c = await connected();
    const error = await c.callTool('doomed_job', { label: 'backup' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MCPRemoteError);
    expect((error as MCPRemoteError).message).toMatch(/failed: the job backup ran out of disk/);
  });

  it('Cancel sends tasks/cancel: the server records the task cancelled, the call ends cancelled', async () => {
    const c = await connected();
    const controller = new AbortController();
    const events: TaskEvent[] = [];
    const call = c
      .callTool('long_job', { label: 'import' }, { signal: controller.signal, onTask: (event) => events.push(event) })
      .catch((e: unknown) => e);
    await waitFor(() => events.length > 0);
    controller.abort();
    expect(await call).toBeInstanceOf(MCPRequestCancelled);
    await waitFor(() => taskEvents(scratch.dir).some((e) => e.event === 'cancelled'));
    expect(taskEvents(scratch.dir).find((e) => e.event === 'cancelled')).toMatchObject({
      taskId: events[0]!.taskId,
      label: 'import',
    });
    expect((await c.getTask(events[0]!.taskId)).status).toBe('cancelled');
  });

  it('getTask asks a task’s state by id (how a recorded call is resolved after a restart)', async () => {
    const c = await connected();
    const events: TaskEvent[] = [];
    const call = c.callTool('long_job', { label: 'nightly' }, { onTask: (event) => events.push(event) });
    await waitFor(() => events.length > 0);
    const taskId = events[0]!.taskId;
    expect((await c.getTask(taskId)).status).toBe('working');
    releaseTask(scratch.dir, taskId);
    await call;
    const task = await c.getTask(taskId);
    expect(task).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'done nightly' }] } });
  });

  it('a task that asks (input_required): the question reaches the ask handlers, the answer goes back with tasks/update', async () => {
    const serverRequests = new ScriptedServerRequests();
    const c = await connected(serverRequests);
    const events: TaskEvent[] = [];
    const rounds: InputRound[] = [];
    const call = c.callTool(
      'asking_job',
      { label: 'door' },
      { onTask: (event) => events.push(event), onInputRound: (round) => rounds.push(round) },
    );
    const asked = await serverRequests.next();
    if (asked.kind !== 'elicitation' || asked.serverRequest.mode !== 'form')
      throw new Error(`expected a form elicitation, got ${asked.kind}`);
    expect(asked.serverRequest).toMatchObject({ serverId: 'tasks', message: 'Which colour for door?' });
    asked.answer({ action: 'accept', content: { colour: 'teal' } });
    const result = await call;
    expect(result.content).toEqual([{ type: 'text', text: 'done door in teal' }]);
    expect(events.map((e) => e.status)).toEqual(['input_required', 'completed']);
    // The answered question is reported as the call's input (its trace shows it): what was asked, who answered.
    expect(rounds).toEqual([{ round: 1, requests: [{ kind: 'elicitation', answeredBy: 'person' }] }]);
    // Asked once, answered once.
    expect(serverRequests.received).toHaveLength(1);
    expect(taskEvents(scratch.dir).filter((e) => e.event === 'answered')).toEqual([
      expect.objectContaining({ label: 'door', colour: 'teal' }),
    ]);
  });
});
