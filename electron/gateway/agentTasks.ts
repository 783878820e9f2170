/**
 * Tasks through the gateway (the tasks extension, 2026-07-28): an agent that declares the
 * extension in its request's envelope gets a task when the server behind runs its call as one,
 * instead of holding its request open until the end.
 *
 * - The agent never sees the downstream task id: the gateway names its own task (a random UUID,
 *   unguessable) and keeps the map here, with the agent that owns it. Every `tasks/get` and
 *   `tasks/cancel` checks that the task belongs to the asking agent; another agent's task is
 *   answered exactly like a task that does not exist (nothing leaks about it).
 * - The call itself runs as any agent call (permission, approval, checkpoint, trace), on a signal
 *   of its own: the agent's request ends when the task is handed over, the call does not.
 *   `tasks/cancel` aborts it, and the app's follower sends `tasks/cancel` downstream.
 * - A call that ends before the server names a task is answered with its result, as before.
 * - The agent sees status and status message; a downstream question (input_required) is
 *   answered in MiniHarness (the person's dialogs), shown to the agent as `working`.
 * - `tasks/*` from a request that did not declare the extension: -32021 (missing capability).
 * Finished tasks are kept for `tasks/get` up to MAX_FINISHED_TASKS (the oldest forgotten first).
 */
import { randomUUID } from 'node:crypto';
import type { CallToolResult, Result, ServerContext } from '@modelcontextprotocol/server';
import {
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import { TASKS_EXTENSION_ID_V2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import { z } from 'zod';
import type { TaskEvent } from '../mcp/tasks/followTask.js';
import type { GatewayServer } from '../mcp/sdkAdapter.js';
import { handAsIs } from '../mcp/sdkAdapter.js';

const MAX_FINISHED_TASKS = 500;

type Status = 'working' | 'completed' | 'failed' | 'cancelled';

interface AgentTask {
  taskId: string;
  agentId: string;
  status: Status;
  statusMessage?: string | undefined;
  createdAt: string;
  lastUpdatedAt: string;
  result?: CallToolResult;
  controller: AbortController;
}

/** How a call is run for a task: on `signal`, telling each downstream task status. */
export type TaskRunner = (signal: AbortSignal, onTask: (event: TaskEvent) => void) => Promise<CallToolResult>;

/** Whether the agent's request declared the tasks extension (its 2026-07-28 envelope). */
export function agentDeclaresTasks(ctx: ServerContext): boolean {
  const capabilities = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
    { extensions?: unknown } | undefined;
  const extensions = capabilities?.extensions;
  return typeof extensions === 'object' && extensions !== null && Object.hasOwn(extensions, TASKS_EXTENSION_ID_V2);
}

/** The gateway's tasks, by its own ids, each with the agent that owns it. */
export class AgentTasks {
  readonly #tasks = new Map<string, AgentTask>();

  /**
   * Runs the call; resolves with its result if it ends before a downstream task is named, else
   * with the task (`resultType: "task"`) the agent follows with `tasks/get`.
   */
  start(agentId: string, run: TaskRunner): Promise<Result> {
    const controller = new AbortController();
    let task: AgentTask | undefined;
    let downstream: TaskEvent['status'] | undefined;
    return new Promise<Result>((resolve) => {
      const onTask = (event: TaskEvent): void => {
        downstream = event.status;
        const now = new Date().toISOString();
        if (!task) {
          task = {
            taskId: randomUUID(),
            agentId,
            status: 'working',
            statusMessage: event.statusMessage,
            createdAt: now,
            lastUpdatedAt: now,
            controller,
          };
          this.#tasks.set(task.taskId, task);
          // A task is no CallToolResult: handed past the SDK's tools/call result check (mcp/sdkAdapter.ts).
          resolve(handAsIs({ ...shown(task), resultType: 'task' }));
          return;
        }
        if (task.status !== 'working') return;
        task.statusMessage = event.statusMessage;
        task.lastUpdatedAt = now;
      };
      run(controller.signal, onTask).then(
        (result) => {
          if (!task) return resolve(result as Result);
          this.finish(
            task,
            controller.signal.aborted || downstream === 'cancelled'
              ? 'cancelled'
              : downstream === 'failed'
                ? 'failed'
                : 'completed',
            result,
          );
        },
        (error: unknown) => {
          // `run` answers failures as results; anything else is a bug reported as the task's failure.
          if (!task)
            return resolve({
              content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }],
              isError: true,
            } as Result);
          this.finish(task, 'failed', {
            content: [{ type: 'text', text: 'the call failed in MiniHarness' }],
            isError: true,
          });
        },
      );
    });
  }

  /** The task as `tasks/get` shows it to its agent; another agent's task is "unknown", like a missing one. */
  get(agentId: string, taskId: string): Result {
    const task = this.owned(agentId, taskId);
    const base = shown(task);
    if (task.status === 'completed')
      return { ...base, result: task.result ?? { content: [] }, resultType: 'complete' } as Result;
    if (task.status === 'failed')
      return {
        ...base,
        error: { code: -32603, message: textOf(task.result) || 'the call failed' },
        resultType: 'complete',
      } as Result;
    return { ...base, resultType: 'complete' } as Result;
  }

  /** `tasks/cancel` of the agent's own task: the call is cancelled (downstream too). */
  cancel(agentId: string, taskId: string): Result {
    const task = this.owned(agentId, taskId);
    if (task.status === 'working') task.controller.abort(new Error('cancelled by the agent (tasks/cancel)'));
    return { resultType: 'complete' } as Result;
  }

  /** The agent was removed or revoked, or the gateway closes: its tasks' calls end. */
  close(agentId?: string): void {
    for (const task of this.#tasks.values()) {
      if (agentId !== undefined && task.agentId !== agentId) continue;
      if (task.status === 'working') task.controller.abort(new Error('the gateway closed'));
    }
  }

  private owned(agentId: string, taskId: string): AgentTask {
    const task = this.#tasks.get(taskId);
    if (!task || task.agentId !== agentId) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Unknown task.');
    return task;
  }

  private finish(task: AgentTask, status: Status, result: CallToolResult): void {
    task.status = status;
    task.result = result;
    task.lastUpdatedAt = new Date().toISOString();
    const finished = [...this.#tasks.values()].filter((t) => t.status !== 'working');
    for (const old of finished.slice(0, Math.max(0, finished.length - MAX_FINISHED_TASKS)))
      this.#tasks.delete(old.taskId);
  }
}

function shown(task: AgentTask): Record<string, unknown> {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: null,
  };
}

function textOf(result: CallToolResult | undefined): string {
  return (result?.content ?? [])
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('\n')
    .slice(0, 2_000);
}

const ById = z.object({ taskId: z.string().max(256) });

/** A tasks/* request from a client that did not declare the extension: -32021, as the extension requires. */
function requireDeclared(ctx: ServerContext): void {
  if (!agentDeclaresTasks(ctx))
    throw new MissingRequiredClientCapabilityError({
      requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID_V2]: {} } },
    });
}

/**
 * `tasks/get`, `tasks/cancel` and `tasks/update` for the agent `agentOf()` names (throws when it
 * was revoked). The gateway's tasks never wait on the agent's input (the person answers a
 * downstream question), so `tasks/update` of an owned task is refused as asking nothing.
 */
export function serveAgentTasks(server: GatewayServer, tasks: AgentTasks, agentOf: () => { id: string }): void {
  server.setRequestHandler('tasks/get', { params: ById }, ({ taskId }, ctx) => {
    requireDeclared(ctx);
    return tasks.get(agentOf().id, taskId);
  });
  server.setRequestHandler('tasks/cancel', { params: ById }, ({ taskId }, ctx) => {
    requireDeclared(ctx);
    return tasks.cancel(agentOf().id, taskId);
  });
  server.setRequestHandler('tasks/update', { params: ById }, ({ taskId }, ctx) => {
    requireDeclared(ctx);
    tasks.get(agentOf().id, taskId);
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'This task is not waiting for input from the agent.');
  });
}
