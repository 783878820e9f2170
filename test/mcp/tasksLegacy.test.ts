/**
 * The 2025-11-25 (pre-extension) form of tasks against the real server-everything over stdio:
 * its `simulate-research-query` tool declares `execution.taskSupport: "required"`, so the client
 * sends it as a task (`task: {}`), follows it with `tasks/get`, takes its result with
 * `tasks/result`; the server's clarification question (input_required, delivered while the client
 * waits on `tasks/result`) reaches the same request handlers as any elicitation and the answer reaches
 * the task; Cancel is `tasks/cancel`; `getTask` asks a task's state by id (restart recovery).
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCPClient } from '../../electron/mcp/client.js';
import { MCPRequestCancelled } from '../../electron/mcp/errors.js';
import type { TaskEvent } from '../../electron/mcp/tasks/followTask.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { StdioServerConfigSchema } from '../../shared/serverConfig.js';
import { PROJECT_ROOT, waitFor } from '../helpers/fixtures.js';
import { ScriptedServerRequests } from '../doubles/person/scriptedServerRequests.js';
import { testSandboxes } from '../helpers/sandboxes.js';

const entry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

function textOf(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.map((c) => c.text ?? '').join('\n');
}

describe('2025-11-25 tasks against server-everything (stdio)', () => {
  const serverRequests = new ScriptedServerRequests();
  const client = new MCPClient(
    StdioServerConfigSchema.parse({
      id: 'everything',
      name: 'Everything',
      transport: 'stdio',
      command: process.execPath,
      args: [entry, 'stdio'],
      cwd: PROJECT_ROOT,
      timeoutMs: 15_000,
    }),
    { secrets: new DefaultSecretResolver(), sandboxes: testSandboxes(), serverRequests },
  );

  beforeAll(async () => {
    await client.initialize();
    await client.listTools();
  });
  afterAll(async () => {
    await client.close();
  });

  it('a task-required tool is run as a task: its id told first, its stages as statuses, its result the call’s', async () => {
    expect(client.negotiated?.era).toBe('legacy');
    const events: TaskEvent[] = [];
    const result = await client.callTool(
      'simulate-research-query',
      { topic: 'tides' },
      { onTask: (event) => events.push(event) },
    );
    expect(result.isError).toBe(false);
    expect(textOf(result)).toContain('# Research Report: tides');
    expect(events[0]).toMatchObject({ status: 'working' });
    const taskId = events[0]!.taskId;
    expect(taskId).toMatch(/\S/);
    expect(events.every((e) => e.taskId === taskId)).toBe(true);
    expect(events.at(-1)?.status).toBe('completed');
    // The stages the server reported on tasks/get reached the caller as status messages.
    expect(events.some((e) => /\.\.\.$/.test(e.statusMessage ?? ''))).toBe(true);
    // Asked again by id (how a recorded call is resolved after a restart): completed, with the result.
    const task = await client.getTask(taskId);
    expect(task.status).toBe('completed');
    expect(JSON.stringify(task)).toContain('Research Report: tides');
  }, 30_000);

  it('input the task asks for (input_required) goes through the ask handlers; the answer reaches the task', async () => {
    const events: TaskEvent[] = [];
    const call = client.callTool(
      'simulate-research-query',
      { topic: 'python', ambiguous: true },
      { onTask: (event) => events.push(event) },
    );
    const asked = await serverRequests.next();
    if (asked.kind !== 'elicitation' || asked.serverRequest.mode !== 'form')
      throw new Error(`expected a form elicitation, got ${asked.kind}`);
    expect(asked.serverRequest.serverId).toBe('everything');
    expect(asked.serverRequest.message).toContain('python');
    asked.answer({ action: 'accept', content: { interpretation: 'snake' } });
    const result = await call;
    expect(textOf(result)).toContain('Research Report: python (snake)');
    expect(events.map((e) => e.status)).toContain('input_required');
    expect(events.at(-1)?.status).toBe('completed');
  }, 30_000);

  it('Cancel sends tasks/cancel: the server has the task cancelled, the call ends cancelled', async () => {
    const controller = new AbortController();
    const events: TaskEvent[] = [];
    const call = client
      .callTool(
        'simulate-research-query',
        { topic: 'moss' },
        { signal: controller.signal, onTask: (event) => events.push(event) },
      )
      .catch((e: unknown) => e);
    await waitFor(() => events.length > 0);
    controller.abort();
    expect(await call).toBeInstanceOf(MCPRequestCancelled);
    expect((await client.getTask(events[0]!.taskId)).status).toBe('cancelled');
    expect(events.at(-1)).toMatchObject({ status: 'cancelled' });
  }, 30_000);

  it('a tool that forbids tasks is called as before (no task)', async () => {
    const events: TaskEvent[] = [];
    const result = await client.callTool('get-sum', { a: 1, b: 2 }, { onTask: (event) => events.push(event) });
    expect(textOf(result)).toContain('3');
    expect(events).toEqual([]);
  });
});
