/**
 * Runs an agent: the person's model, in a loop, with every tool call through the pipeline.
 *
 * model turn (streamed) → each tool call → `HarnessApplication.executeTool` with callId = the
 * model's tool-call id, sessionId = the run's id and the caller "agent run <id> (<model>)" (so the
 * approval dialog, History and Traces name it) → the results back to the model (a denial or a
 * failure as a tool error it can act on) → … until the model stops, the run's tool-call limit or
 * token budget is reached, or the person stops it.
 *
 * Durability: the store is written as the run advances (see runStore.ts). `resume` rebuilds the
 * conversation from it; a call without a stored answer is sent to the pipeline again with its
 * callId, which replays a completed call from its checkpoint (no second side effect) and refuses
 * one that is "in progress or unknown" — unless the server ran it as a task and the app's task
 * recovery settles it from the server (taskOutcomes.ts), the run then waits as `needs_resolution`
 * for the person to resolve that call in History, and a later resume replays the resolution.
 *
 * Stop aborts the model stream and the call in flight (the pipeline cancels it at the server).
 */
import type { RunSpans } from '../telemetry/runSpans.js';
import { randomUUID } from 'node:crypto';
import type { AgentVisibility } from '../../shared/agents.js';
import type { ExecuteOptions, ExecuteResult, HarnessToolInfo } from '../harness/application.js';
import { traceIdOf } from '../harness/application.js';
import { sleep } from '../harness/retryPolicy.js';
import { ModelError } from '../models/errors.js';
import type { ModelConfig } from '../models/providerFactory.js';
import type { ConversationMessage, ModelProvider, ModelToolCall, ModelToolResult } from '../models/types.js';
import { RunNotResumableError } from './errors.js';
import { resultText } from './resultText.js';
import type { RoutedCall, RunStorage } from './runStorage.js';
import { RESUMABLE_STATUSES } from './runStorage.js';
import type { RunToolSet } from './runTools.js';
import { visibleTools } from './runTools.js';
import type { RunLimits, RunOutcome, RunRecord, RunStatus, StoredToolResult } from './types.js';
import { DEFAULT_RUN_LIMITS } from './types.js';

export type RunEvent =
  | { runId: string; type: 'text'; delta: string }
  /** A model turn failed mid-stream and is asked again: the partial text shown so far is void. */
  | { runId: string; type: 'turn_restarted'; reason: string }
  | {
      runId: string;
      type: 'tool_call';
      callId: string;
      name: string;
      toolName: string;
      serverId: string;
      args: Record<string, unknown>;
      status: 'pending' | 'running' | 'done';
      result?: StoredToolResult;
    }
  | { runId: string; type: 'status'; status: RunStatus; outcome?: RunOutcome }
  | { runId: string; type: 'usage'; inputTokens: number; outputTokens: number; toolCalls: number }
  /**
   * At a start or resume, the run waits (bounded) until the servers it may use are ready or failed
   * (the app may have just started: they are still connecting). `waiting` names them; `settled`
   * ends the wait, naming those that did not become ready.
   */
  | {
      runId: string;
      type: 'servers';
      state: 'waiting' | 'settled';
      serverIds: string[];
      timeoutMs?: number;
      failed?: ServerNotReady[];
    };

/** A server the run may use that is not ready, and why. */
export interface ServerNotReady {
  serverId: string;
  reason: string;
}

/** The servers a run may use, as the engine needs them (core/runService.ts builds it on the registry). */
export interface RunServers {
  /** The run's servers that are not ready now (connecting, reconnecting, failed, …). */
  notReady(visibility: AgentVisibility): ServerNotReady[];
  /** Waits until each of these is ready (its tools listed) or failed, or the wait's bound; resolves with those not ready. */
  settle(serverIds: string[], signal: AbortSignal): Promise<ServerNotReady[]>;
  /** The bound of `settle`, shown to the person. */
  readonly waitMs: number;
}

export interface RunEngineOptions {
  harness: {
    executeTool(toolName: string, args: Record<string, unknown>, options: ExecuteOptions): Promise<ExecuteResult>;
    listTools(): HarnessToolInfo[];
  };
  store: RunStorage;
  providerFor(model: ModelConfig): Promise<ModelProvider>;
  onEvent?: (event: RunEvent) => void;
  /** Model turns that fail with a retryable code (429, 5xx, a cut stream) are asked again. */
  modelRetry?: { maxAttempts: number; baseDelayMs: number; maxWaitMs: number };
  /**
   * A call found "in progress or unknown" that the server ran as a task: resolves true once the
   * app's task recovery has settled its record (then it is asked again: replayed or refused).
   * See taskOutcomes.ts. Absent or false: the run waits for the person (`needs_resolution`).
   */
  taskSettled?(sessionId: string, callId: string, signal: AbortSignal): Promise<boolean>;
  /**
   * The servers a run may use. With it, a start or resume first waits for them (visibly, bounded),
   * and a call that cannot run because its server is not ready halts the run (`failed`,
   * `servers_unavailable`, resumable; the call runs at the resume) instead of telling the model
   * there is no such tool and ending "completed" with a step skipped.
   */
  servers?: RunServers;
  /** OpenTelemetry: the run and each model request as GenAI spans, its tool calls under them (telemetry/runSpans.ts). */
  spans?: RunSpans;
}

export interface StartRunInput {
  model: ModelConfig;
  visibility: AgentVisibility;
  prompt: string;
  systemPrompt?: string;
  limits?: Partial<RunLimits>;
  /** For tests and imports; a fresh UUID otherwise. */
  id?: string;
}

const RESUMABLE: ReadonlySet<RunStatus> = new Set(RESUMABLE_STATUSES);
const RETRYABLE = new Set(['model_rate_limited', 'model_server_error', 'model_stream_cut']);

/** The caller a run's calls are made as: approvals, History and Traces show it. */
export function runCaller(run: Pick<RunRecord, 'id' | 'model'>): string {
  return `agent run ${run.id.slice(0, 8)} (${run.model.name})`;
}

type AnswerOutcome =
  | { kind: 'answered'; results: ModelToolResult[]; limitReached: boolean }
  | { kind: 'halt'; status: RunStatus; outcome: RunOutcome };

export class RunEngine {
  private readonly active = new Map<string, { controller: AbortController; settled: Promise<RunRecord> }>();
  private readonly retry: NonNullable<RunEngineOptions['modelRetry']>;

  constructor(private readonly options: RunEngineOptions) {
    this.retry = options.modelRetry ?? { maxAttempts: 3, baseDelayMs: 1_000, maxWaitMs: 60_000 };
  }

  async start(input: StartRunInput): Promise<RunRecord> {
    const limits = { ...DEFAULT_RUN_LIMITS, ...input.limits };
    const run = await this.options.store.create(
      {
        id: input.id ?? randomUUID(),
        model: input.model,
        visibility: input.visibility,
        systemPrompt: input.systemPrompt,
        limits,
      },
      { role: 'user', text: input.prompt },
    );
    this.launch(run.id);
    return run;
  }

  async resume(runId: string): Promise<RunRecord> {
    const run = await this.options.store.require(runId);
    // The conditional update also refuses a run another process (on a shared store) resumed first.
    if (this.active.has(runId) || !RESUMABLE.has(run.status) || !(await this.options.store.markResumed(runId)))
      throw new RunNotResumableError(
        `Run ${runId} is ${this.active.has(runId) ? 'running' : RESUMABLE.has(run.status) ? 'running elsewhere' : run.status}: it cannot be resumed.`,
      );
    this.emit({ runId, type: 'status', status: 'running' });
    this.launch(runId);
    return this.options.store.require(runId);
  }

  /** Cancels the model stream and the call in flight; the run ends `stopped`. */
  stop(runId: string): boolean {
    const active = this.active.get(runId);
    active?.controller.abort();
    return active !== undefined;
  }

  /** The run's record once its loop has ended (now, when it is not running). */
  settled(runId: string): Promise<RunRecord> {
    return this.active.get(runId)?.settled ?? Promise.resolve(this.options.store.require(runId));
  }

  isRunning(runId: string): boolean {
    return this.active.has(runId);
  }

  private launch(runId: string): void {
    const controller = new AbortController();
    const drive = () => this.drive(runId, controller.signal);
    const spans = this.options.spans;
    const settled = Promise.resolve(this.options.store.require(runId))
      .then((run) => (spans ? spans.run(run, drive) : drive()))
      .catch((error: unknown) =>
        this.setStatus(runId, 'failed', {
          code: 'internal',
          message: error instanceof Error ? error.message : String(error),
        }),
      )
      .then(() => {
        this.active.delete(runId);
        return this.options.store.require(runId);
      });
    this.active.set(runId, { controller, settled });
  }

  private async setStatus(runId: string, status: RunStatus, outcome?: RunOutcome): Promise<void> {
    await this.options.store.setStatus(runId, status, outcome);
    this.emit({ runId, type: 'status', status, ...(outcome ? { outcome } : {}) });
  }

  private emit(event: RunEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // A listener's failure must not end the run.
    }
  }

  private async emitUsage(runId: string): Promise<void> {
    const run = await this.options.store.require(runId);
    this.emit({
      runId,
      type: 'usage',
      inputTokens: run.inputTokens,
      outputTokens: run.outputTokens,
      toolCalls: run.toolCalls,
    });
  }

  private async drive(runId: string, signal: AbortSignal): Promise<void> {
    const { store } = this.options;
    const first = await store.require(runId);
    const provider = await this.options.providerFor(first.model);
    await this.settleServers(first, signal);
    for (;;) {
      if (signal.aborted)
        return this.setStatus(runId, 'stopped', { code: 'cancelled', message: 'Stopped by the person.' });
      const run = await store.require(runId);
      const messages = await store.messages(runId);
      const last = messages.at(-1);
      const lastSeq = messages.length - 1;
      if (last?.role === 'assistant') {
        if (!last.toolCalls.length) return this.setStatus(runId, 'completed');
        const answered = await this.answerCalls(run, lastSeq, signal);
        if (answered.kind === 'halt') return this.setStatus(runId, answered.status, answered.outcome);
        await store.appendMessage(runId, { role: 'tool_results', results: answered.results });
        if (answered.limitReached)
          return this.setStatus(runId, 'limit_reached', {
            code: 'max_tool_calls',
            message: `The run reached its limit of ${run.limits.maxToolCalls} tool calls.`,
          });
        continue;
      }
      if (run.inputTokens + run.outputTokens >= run.limits.tokenBudget) {
        return this.setStatus(runId, 'limit_reached', {
          code: 'token_budget',
          message: `The run spent its budget of ${run.limits.tokenBudget} tokens.`,
        });
      }
      const toolSet = visibleTools(this.options.harness.listTools(), run.visibility);
      let turn;
      try {
        const request = () => this.modelTurn(run, provider, messages, toolSet, signal);
        turn = await (this.options.spans ? this.options.spans.turn(run, request) : request());
      } catch (error) {
        if (signal.aborted) continue; // reported as stopped at the top of the loop
        const modelError = error instanceof ModelError ? error : new ModelError('model_unreachable', String(error));
        return this.setStatus(runId, 'failed', { code: modelError.code, message: modelError.message });
      }
      const routed: RoutedCall[] = turn.calls.map((call) => ({
        call,
        ...(toolSet.route.get(call.name) ?? { toolName: call.name, serverId: '' }),
      }));
      await store.appendAssistantTurn(
        runId,
        { role: 'assistant', text: turn.text, toolCalls: turn.calls },
        routed,
        turn.usage,
      );
      for (const { call, toolName, serverId } of routed)
        this.emit({
          runId,
          type: 'tool_call',
          callId: call.id,
          name: call.name,
          toolName,
          serverId,
          args: call.args,
          status: 'pending',
        });
      await this.emitUsage(runId);
    }
  }

  /** Waits until the run's servers are ready or failed (bounded), as run events the GUI shows. */
  private async settleServers(run: RunRecord, signal: AbortSignal): Promise<void> {
    const servers = this.options.servers;
    if (!servers) return;
    const pending = servers.notReady(run.visibility).map((s) => s.serverId);
    if (pending.length === 0) return;
    this.emit({ runId: run.id, type: 'servers', state: 'waiting', serverIds: pending, timeoutMs: servers.waitMs });
    const failed = await servers.settle(pending, signal);
    this.emit({ runId: run.id, type: 'servers', state: 'settled', serverIds: pending, failed });
  }

  /** A call that cannot run because its server (or, unrouted, any of the run's servers) is not ready: the halt that says so. */
  private serversUnavailable(
    run: RunRecord,
    call: ModelToolCall,
    toolName: string,
    serverId: string,
  ): AnswerOutcome | undefined {
    const notReady = this.options.servers
      ?.notReady(run.visibility)
      .filter((s) => serverId === '' || s.serverId === serverId);
    if (!notReady?.length) return undefined;
    const which = notReady.map((s) => `${s.serverId} (${s.reason})`).join(', ');
    return {
      kind: 'halt',
      status: 'failed',
      outcome: {
        code: 'servers_unavailable',
        callId: call.id,
        message:
          serverId === ''
            ? `The model called ${call.name}, which no ready server offers, while ${notReady.length === 1 ? 'this server is' : 'these servers are'} not ready: ${which}. Resume the run once ${notReady.length === 1 ? 'it is' : 'they are'}.`
            : `The call ${call.id} (${toolName}) could not run: its server ${which} is not ready. Resume the run once it is; the call runs then.`,
      },
    };
  }

  /** One model turn, asked again on a retryable failure (its partial text is then void). */
  private async modelTurn(
    run: RunRecord,
    provider: ModelProvider,
    messages: ConversationMessage[],
    toolSet: RunToolSet,
    signal: AbortSignal,
  ): Promise<{ text: string; calls: ModelToolCall[]; usage: { inputTokens: number; outputTokens: number } }> {
    for (let attempt = 1; ; attempt++) {
      let text = '';
      const calls: ModelToolCall[] = [];
      let usage = { inputTokens: 0, outputTokens: 0 };
      try {
        for await (const event of provider.turn({
          ...(run.systemPrompt ? { system: run.systemPrompt } : {}),
          messages,
          tools: toolSet.tools,
          signal,
        })) {
          if (event.type === 'text') {
            text += event.delta;
            this.emit({ runId: run.id, type: 'text', delta: event.delta });
          } else if (event.type === 'tool_call') calls.push(event.call);
          else if (event.type === 'usage') usage = { inputTokens: event.inputTokens, outputTokens: event.outputTokens };
        }
        return { text, calls, usage };
      } catch (error) {
        if (
          !(error instanceof ModelError) ||
          !RETRYABLE.has(error.code) ||
          attempt >= this.retry.maxAttempts ||
          signal.aborted
        )
          throw error;
        const waitMs = error.retryAfterMs ?? this.retry.baseDelayMs * 2 ** (attempt - 1);
        if (waitMs > this.retry.maxWaitMs) throw error;
        this.emit({ runId: run.id, type: 'turn_restarted', reason: error.code });
        await sleep(waitMs, signal);
      }
    }
  }

  /** Answers the calls of the assistant turn at `messageSeq`, in order, each through the pipeline unless already answered. */
  private async answerCalls(run: RunRecord, messageSeq: number, signal: AbortSignal): Promise<AnswerOutcome> {
    const { store } = this.options;
    const results: ModelToolResult[] = [];
    let limitReached = false;
    const caller = runCaller(run);
    // A call the model's turn could not route (its server was not listed then) is routed again now.
    let current: RunToolSet | undefined;
    for (const record of (await store.toolCalls(run.id)).filter((c) => c.messageSeq === messageSeq)) {
      const { call } = record;
      let { toolName, serverId } = record;
      if (!serverId && record.status !== 'done') {
        current ??= visibleTools(this.options.harness.listTools(), run.visibility);
        const routed = current.route.get(call.name);
        if (routed) ({ toolName, serverId } = routed);
        else {
          const halt = this.serversUnavailable(run, call, call.name, '');
          if (halt) return halt;
        }
      }
      const event = {
        runId: run.id,
        type: 'tool_call' as const,
        callId: call.id,
        name: call.name,
        toolName,
        serverId,
        args: call.args,
      };
      let answer = record.status === 'done' ? record.result : undefined;
      if (!answer && !serverId) {
        answer = { text: `There is no tool named "${call.name}".`, isError: true, code: 'unknown_tool' };
        await store.recordCallResult(run.id, call.id, answer, undefined);
      } else if (
        !answer &&
        record.status === 'pending' &&
        (await store.require(run.id)).toolCalls >= run.limits.maxToolCalls
      ) {
        limitReached = true;
        answer = {
          text: `Not run: this run reached its limit of ${run.limits.maxToolCalls} tool calls.`,
          isError: true,
          code: 'max_tool_calls',
        };
        await store.recordCallResult(run.id, call.id, answer, undefined);
      } else if (!answer) {
        await store.markCallRunning(run.id, call.id);
        this.emit({ ...event, status: 'running' });
        await this.emitUsage(run.id);
        try {
          const execute = () =>
            this.options.harness.executeTool(toolName, call.args, {
              userId: caller,
              sessionId: run.id,
              callId: call.id,
              serverId,
              signal,
            });
          const executed = await execute().catch(async (error: unknown) => {
            // Unknown, but run as a task: the server's outcome (recovered at start) is used when there is one.
            if (codeOf(error) === 'in_progress' && (await this.options.taskSettled?.(run.id, call.id, signal)))
              return execute();
            throw error;
          });
          answer = { text: resultText(executed.result), isError: executed.result.isError };
          await store.recordCallResult(run.id, call.id, answer, executed.traceId);
        } catch (error) {
          if (signal.aborted)
            return {
              kind: 'halt',
              status: 'stopped',
              outcome: { code: 'cancelled', message: 'Stopped by the person.' },
            };
          const code = codeOf(error);
          // Its server is not ready (not listed yet, or not connected): nothing ran; the run halts and the call runs at its resume.
          if (code === 'unknown_tool' || code === 'unavailable') {
            const halt = this.serversUnavailable(run, call, toolName, serverId);
            if (halt) return halt;
          }
          if (code === 'in_progress') {
            return {
              kind: 'halt',
              status: 'needs_resolution',
              outcome: {
                code,
                callId: call.id,
                message: `The call ${call.id} (${toolName}) may have run before the app stopped: resolve it in History, then resume.`,
              },
            };
          }
          answer = {
            text: error instanceof Error ? error.message : String(error),
            isError: true,
            ...(code ? { code } : {}),
          };
          await store.recordCallResult(run.id, call.id, answer, traceIdOf(error));
        }
      }
      this.emit({ ...event, status: 'done', result: answer });
      results.push({ callId: call.id, name: call.name, text: answer.text, isError: answer.isError });
    }
    return { kind: 'answered', results, limitReached };
  }
}

function codeOf(error: unknown): string | undefined {
  const code = error && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}
