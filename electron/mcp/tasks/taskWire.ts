/**
 * The tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28) on the v2 SDK's `Client`:
 * the capability the client declares, and a `Client` that lets a `tools/call` answered with a
 * task (`resultType: "task"`) reach the caller instead of failing as an unsupported result type.
 *
 * The SDK's result decoder only knows `complete` and `input_required` (the seam that works around
 * it is in ../sdkAdapter.ts, SdkClient.answerOf). A task answer is handed on as a JSON-RPC error with a code of our own (TASK_CREATED_CODE) whose data is the task as the server sent it,
 * so `sdk.callTool` rejects with a `ProtocolError` that `taskCreatedOf` recognises. Nothing else
 * is touched. The task is validated with the extension's own schema (core/v2): a malformed one
 * is not a task (the SDK then reports the unsupported result type as before).
 *
 * The 2025-11-25 form's answer (`{ task }`, no `content`) is handed on the same way, converted
 * by legacyTasks.ts. Only a server that declared the extension may answer with a task, and only a client that
 * declared it gets one: the declaration is in every request's `_meta` on a modern connection
 * (the SDK frames it from the client's capabilities).
 */
import { ProtocolError } from '@modelcontextprotocol/client';
import type { ClientCapabilities, JSONRPCResponse } from '@modelcontextprotocol/client';
import { CreateTaskResultV2Schema, TASKS_EXTENSION_ID_V2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import type { CreateTaskResultV2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import { SdkClient } from '../sdkAdapter.js';
import { legacyTaskCreated } from './legacyTasks.js';

export const TASKS_EXTENSION_ID = TASKS_EXTENSION_ID_V2;

/** A private JSON-RPC error code (implementation-defined range): "this call became a task". */
const TASK_CREATED_CODE = -32_099;

/** The client's capabilities with the tasks extension declared (2026-07-28 `extensions`). */
export function withTasksExtension(capabilities: ClientCapabilities): ClientCapabilities {
  return { ...capabilities, extensions: { ...(capabilities.extensions ?? {}), [TASKS_EXTENSION_ID]: {} } };
}

/**
 * A `Client` whose `tools/call` may end in a task (see the header); built on the app's SDK client
 * (../sdkAdapter.ts), which also keeps a server's progress before its result.
 */
export class TaskAwareClient extends SdkClient {
  protected override answerOf(response: JSONRPCResponse): JSONRPCResponse {
    const result = (response as { result?: unknown }).result;
    if (typeof result !== 'object' || result === null) return response;
    const parsed =
      (result as { resultType?: unknown }).resultType === 'task'
        ? CreateTaskResultV2Schema.safeParse(result)
        : undefined;
    // The 2025-11-25 form (`{ task }`, legacyTasks.ts), shown in the 2026-07-28 shape.
    const task = parsed?.success ? parsed.data : legacyTaskCreated(result);
    if (!task) return response;
    return {
      jsonrpc: '2.0',
      id: response.id,
      error: { code: TASK_CREATED_CODE, message: `the server runs this call as task ${task.taskId}`, data: { task } },
    } as JSONRPCResponse;
  }
}

/** The task a `tools/call` was answered with, when the error is that answer (see TaskAwareClient). */
export function taskCreatedOf(error: unknown): CreateTaskResultV2 | undefined {
  if (!(error instanceof ProtocolError) || error.code !== TASK_CREATED_CODE) return undefined;
  const parsed = CreateTaskResultV2Schema.safeParse((error.data as { task?: unknown } | undefined)?.task);
  return parsed.success ? parsed.data : undefined;
}
