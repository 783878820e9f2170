/**
 * Where the agent runs are kept: one interface, two stores — the app's SQLite file (runStore.ts,
 * synchronous, the desktop default) and PostgreSQL (postgresRunStore.ts, shared by the cores on
 * one database). A method may answer at once or with a promise: the engine and the service await
 * every answer, so the SQLite store keeps its synchronous transactions unchanged.
 */
import type { ModelConfig } from '../models/providerFactory.js';
import type { ConversationMessage, ModelToolCall } from '../models/types.js';
import type { RunLimits, RunOutcome, RunRecord, RunStatus, RunToolCallRecord, StoredToolResult } from './types.js';

type Awaitable<T> = T | Promise<T>;

export interface NewRun {
  id: string;
  model: ModelConfig;
  visibility: RunRecord['visibility'];
  systemPrompt?: string | undefined;
  limits: RunLimits;
}

/** A call the assistant turn made, with the tool it routes to. */
export interface RoutedCall {
  call: ModelToolCall;
  toolName: string;
  serverId: string;
}

/** The statuses a run is resumed from. */
export const RESUMABLE_STATUSES: readonly RunStatus[] = [
  'interrupted',
  'stopped',
  'failed',
  'needs_resolution',
  'limit_reached',
];

export interface RunStorage {
  create(run: NewRun, firstMessage: ConversationMessage): Awaitable<RunRecord>;
  get(id: string): Awaitable<RunRecord | undefined>;
  require(id: string): Awaitable<RunRecord>;
  /** Newest first. */
  list(limit?: number): Awaitable<RunRecord[]>;
  messages(runId: string): Awaitable<ConversationMessage[]>;
  toolCalls(runId: string): Awaitable<RunToolCallRecord[]>;
  /** A completed model turn: its message, its calls (pending), its usage — one transaction. */
  appendAssistantTurn(
    runId: string,
    message: Extract<ConversationMessage, { role: 'assistant' }>,
    routed: RoutedCall[],
    usage: { inputTokens: number; outputTokens: number },
  ): Awaitable<void>;
  /** A call is about to go to the pipeline: it counts against the run's limit from now on. */
  markCallRunning(runId: string, callId: string): Awaitable<void>;
  recordCallResult(
    runId: string,
    callId: string,
    result: StoredToolResult,
    traceId: string | undefined,
  ): Awaitable<void>;
  appendMessage(runId: string, message: ConversationMessage): Awaitable<void>;
  setStatus(runId: string, status: RunStatus, outcome?: RunOutcome): Awaitable<void>;
  /** `running` again if it is resumable now: false when another process resumed it first. */
  markResumed(runId: string): Awaitable<boolean>;
  /** At start-up: runs a dead process left `running` are `interrupted` (shown with Resume). */
  markInterrupted(): Awaitable<number>;
  /** Removes a run that is not running. */
  delete(runId: string): Awaitable<boolean>;
  saveModel(config: ModelConfig): Awaitable<void>;
  models(): Awaitable<ModelConfig[]>;
  deleteModel(id: string): Awaitable<boolean>;
}
