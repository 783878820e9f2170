/**
 * `HarnessApplication.executeTool`: the one entry through which every tool call runs, local or
 * MCP, from the GUI or from an agent. In order (README “The path of one tool call”):
 *
 * 1. permission decision and guardrails, and for ASK a person's approval — a DENY or a refusal
 *    happens before any side effect;
 * 2. the checkpoint for sessionId + callId is claimed atomically;
 * 3. a completed record is replayed as is; otherwise only the owner (fresh random lease) runs;
 * 4. recoverable failures are retried with backoff, every attempt an event of the same trace
 *    (with the `input_required` rounds it went through: the kinds asked and who answered —
 *    the agent that made the call, or the person — never the answers);
 * 5. on success the result is saved, if the lease is still ours.
 *
 * Tool names: a local tool and an MCP tool may share a name. A call by name then reaches the
 * LOCAL tool — the app's own tools, with their known guardrails, must not be shadowed by a remote
 * server — and the MCP tool stays reachable by naming its server. `listTools()` marks the conflict.
 *
 * The checkpoint store is local: a call whose owner died mid-request stays "started" (result
 * unknown). Strict exactly-once needs the server's own idempotency keys — or a server that runs
 * the call as a task (the tasks extension): its task id is recorded on the checkpoint the moment
 * the server names it, the call is then never sent again by a retry, and at the next start
 * taskRecovery.ts asks the server how it ended.
 */
import { checkToolArguments } from './toolArguments.js';
import { refuseOversizedArguments } from './argumentSize.js';
import { InvalidArgumentsError, NotReplayableError } from './errors.js';
import type {
  CheckpointRecord,
  ClaimInput,
  ClaimResult,
  PipelineCheckpoints,
  TaskLinks,
} from '../checkpoints/types.js';
import {
  CheckpointArgumentsMismatchError,
  CheckpointFailedError,
  CheckpointInProgressError,
  CheckpointLeaseLostError,
  ResultNotRecordedError,
} from '../checkpoints/errors.js';
import { checkpointArguments } from '../checkpoints/hash.js';
import { MCPRequestCancelled, MCPUnknownToolError, MCPUrlElicitationRequiredError } from '../mcp/errors.js';
import type { MCPToolRegistry } from '../mcp/registry.js';
import type { ServerConfig } from '../../shared/serverConfig.js';
import type { CallServerRequestHandlers, InputRound, ProgressUpdate, ToolDescriptor } from '../mcp/types.js';
import type { TaskEvent } from '../mcp/tasks/followTask.js';
import type { NormalizedToolResult } from '../results/toolResult.js';
import { toolSchemaFingerprint } from '../security/fingerprint.js';
import type { PoisonFlag, ToolNameIndex } from '../security/poisoning.js';
import { toolNameIndex } from '../security/poisoning.js';
import { screenListedTool } from '../security/toolScreen.js';
import type { PinState } from '../security/pins.js';
import type { HashedDefinition } from '../security/toolDefinition.js';
import { hashedDefinition } from '../security/toolDefinition.js';
import type { CallerWait } from '../security/approvals.js';
import { ApprovalCancelledError, PermissionDeniedError } from '../security/errors.js';
import type { ToolAnnotationHints } from '../security/permissions.js';
import { LOCAL_SERVER_ID } from '../security/permissions.js';
import type { SecureToolExecutor, SecurityEvent, ToolCallAuthorizationRequest } from '../security/secureExecutor.js';
import type { LocalTool } from '../tools/types.js';
import type { TraceHandle, Tracer } from '../tracing/tracer.js';
import { toTraceError } from '../tracing/tracer.js';
import type { SecretRedactor } from '../secrets/secretRedactor.js';
import type { ToolApp } from '../../shared/contract/toolApp.js';
import { appOf } from '../mcp/toolUi.js';
import type { RetryPolicy } from './retryPolicy.js';
import { DEFAULT_RETRY_POLICY, backoffDelay, classifyFailure, sleep } from './retryPolicy.js';

export interface ExecuteOptions {
  userId: string;
  sessionId: string;
  /** Stable per logical call: the same callId replays instead of running again. */
  callId: string;
  signal?: AbortSignal;
  /** Run the tool of this server (or `local`), not whichever a call by name reaches. */
  serverId?: string;
  /** Deadline per attempt for MCP tools (the server's timeout when absent). */
  timeoutMs?: number;
  onProgress?: (update: ProgressUpdate) => void;
  /**
   * Who answers the questions a 2026-07-28 server asks during the call (`input_required`): the
   * caller itself — an agent that declared it can. Absent (the GUI, or an agent that cannot), the
   * person is asked. Each round is recorded in the call's trace (kinds and who answered, never the answers).
   */
  serverRequests?: CallServerRequestHandlers;
  /** How long the caller itself waits for an approval, when known (an agent's client): the dialog shows it. */
  callerWait?: CallerWait;
  /**
   * The call started waiting for the person's approval (with when it expires), or stopped waiting
   * (`undefined`): the gateway keeps an agent informed meanwhile (approvalWaitProgress.ts).
   */
  onApprovalWait?: (waiting: { expiresAt: number } | undefined) => void;
  /** The server runs the call as a task (the tasks extension): its id, then each status — never its result. */
  onTask?: (event: TaskEvent) => void;
  /** The call was allowed (by a rule, a grant or the person) and goes on: an MCP App's page read for it needs no question of its own. */
  onAuthorized?: () => void;
}

export interface ExecuteResult {
  result: NormalizedToolResult;
  /** True when a completed checkpoint answered and nothing ran. */
  replayed: boolean;
  traceId: string;
  toolName: string;
  serverId: string;
  /** Attempts this call made (0 for a replay). */
  attempts: number;
  /** Non-fatal problems (e.g. an "always allow" that could not be saved). */
  warnings: string[];
}

export interface HarnessToolInfo {
  name: string;
  source: 'local' | 'mcp';
  serverId: string;
  /** The tool's display title (MCP `title`), when it has one; `annotations.title` is the older place. */
  title?: string;
  /** The tool's icons (MCP `icons`), as the server listed them. */
  icons?: Array<{
    src: string;
    mimeType?: string | undefined;
    sizes?: string[] | undefined;
    theme?: 'light' | 'dark' | undefined;
  }>;
  description: string | undefined;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown> | undefined;
  annotations: ToolAnnotationHints | undefined;
  /** The server a call by this name reaches, when it is not this one. */
  shadowedBy: string | undefined;
  /** Fingerprint of the tool's interface; an "always allow" is bound to it. */
  schemaFingerprint: string;
  /** The tool's MCP App declaration (`_meta.ui`, checked: electron/mcp/toolUi.ts). */
  app?: ToolApp;
  /** MCP tools: the pinned-definition hash of the tool as listed, its pin, and its poisoning flags (issue 31). */
  definition?: HashedDefinition;
  pin?: PinState;
  flags?: PoisonFlag[];
}

export interface HarnessApplicationOptions {
  registry: MCPToolRegistry;
  localTools: LocalTool[];
  security: SecureToolExecutor;
  /** The tool calls' records, SQLite or PostgreSQL (checkpoints/types.ts). */
  checkpoints: PipelineCheckpoints;
  /** Where a call's server task id is recorded (the tasks extension); without it a task is followed but not recorded. */
  taskLinks?: TaskLinks;
  tracer: Tracer;
  /** The app's known secrets: results, checkpoint args and error messages leave redacted. */
  redactor: SecretRedactor;
  retry?: Partial<RetryPolicy>;
  /** For tests: the random source of the backoff jitter. */
  random?: () => number;
}

/** The trace id of a failed call, carried on the error it threw as `traceId` (for "see trace" links). */
export function traceIdOf(error: unknown): string | undefined {
  const traceId = error && typeof error === 'object' ? (error as { traceId?: unknown }).traceId : undefined;
  return typeof traceId === 'string' ? traceId : undefined;
}

type Target =
  | { kind: 'local'; tool: LocalTool; serverId: typeof LOCAL_SERVER_ID }
  | { kind: 'mcp'; tool: ToolDescriptor; serverId: string };

export class HarnessApplication {
  private readonly local = new Map<string, LocalTool>();
  private readonly retry: RetryPolicy;
  /** Calls this process owns and is running now (sessionId NUL callId). */
  private readonly inFlight = new Set<string>();
  /** Each listed descriptor's poisoning flags, from the last listing (other servers' names change them). */
  private screened = new WeakMap<object, PoisonFlag[]>();

  constructor(private readonly options: HarnessApplicationOptions) {
    for (const tool of options.localTools) this.local.set(tool.name, tool);
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  }

  /** The authorization gate (its session grants are shown and revoked from the GUI). */
  get security(): SecureToolExecutor {
    return this.options.security;
  }

  /**
   * Swaps the local tools (their folders changed in Settings). Calls already running keep the
   * tools they started with; the next call uses the new ones.
   */
  replaceLocalTools(tools: readonly LocalTool[]): void {
    this.local.clear();
    for (const tool of tools) this.local.set(tool.name, tool);
  }

  /** Every tool: local ones first, then each server's, with what shadows what. */
  listTools(): HarnessToolInfo[] {
    const winners = new Map(this.options.registry.tools().map((t) => [t.name, t.serverId]));
    const localInfo = [...this.local.values()].map<HarnessToolInfo>((tool) => ({
      name: tool.name,
      source: 'local',
      serverId: LOCAL_SERVER_ID,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: undefined,
      annotations: tool.annotations,
      shadowedBy: undefined,
      schemaFingerprint: fingerprintOf(tool.name, tool),
    }));
    const all = this.options.registry.allTools();
    const index = toolNameIndex(all.map((entry) => ({ name: entry.name, serverId: entry.serverId })));
    const screened = new WeakMap<object, PoisonFlag[]>();
    const mcpInfo = all.map<HarnessToolInfo>((entry) => {
      const winner = this.local.has(entry.name) ? LOCAL_SERVER_ID : winners.get(entry.name);
      const definition = hashedDefinition(entry.name, entry.tool);
      const flags = screenListedTool(definition, entry.serverId, index);
      screened.set(entry.tool, flags);
      const pin = this.options.security.pins?.check(this.serverUid(entry.serverId), entry.name, definition.hash);
      return {
        name: entry.name,
        source: 'mcp',
        serverId: entry.serverId,
        ...(entry.tool.title ? { title: entry.tool.title } : {}),
        ...(entry.tool.icons?.length ? { icons: entry.tool.icons } : {}),
        description: entry.tool.description,
        inputSchema: entry.tool.inputSchema,
        outputSchema: entry.tool.outputSchema,
        annotations: entry.tool.annotations,
        shadowedBy: winner !== entry.serverId ? winner : undefined,
        schemaFingerprint: fingerprintOf(entry.name, entry.tool),
        ...appOf(entry.tool),
        definition,
        ...(pin && pin.state !== 'unpinned' ? { pin } : {}),
        flags,
      };
    });
    this.screened = screened;
    return [...localInfo, ...mcpInfo];
  }

  /** The key pins use for a server: its identity (`uid`), or its id when it has none (a test's bare config). */
  serverUid(serverId: string): string {
    return this.options.registry.server(serverId)?.uid ?? `id:${serverId}`;
  }

  /** A descriptor's flags from the last listing; screened now (against the current names) when it was never listed. */
  private flagsOf(serverId: string, tool: ToolDescriptor, definition: HashedDefinition): PoisonFlag[] {
    const known = this.screened.get(tool);
    if (known) return known;
    const index: ToolNameIndex = toolNameIndex(
      this.options.registry.allTools().map((entry) => ({ name: entry.name, serverId: entry.serverId })),
    );
    const flags = screenListedTool(definition, serverId, index);
    this.screened.set(tool, flags);
    return flags;
  }

  /** Runs one tool call through the whole pipeline; see the file comment for the order. */
  async executeTool(toolName: string, args: Record<string, unknown>, options: ExecuteOptions): Promise<ExecuteResult> {
    await this.untilListed(toolName, options);
    const target = this.resolve(toolName, options.serverId);
    const trace = this.options.tracer.start({
      sessionId: options.sessionId,
      callId: options.callId,
      userId: options.userId,
      toolName,
      serverId: target.serverId,
    });
    try {
      return await this.run(target, toolName, args, options, trace);
    } catch (error) {
      // Each failure is a fresh error instance (see MCPClient.connectionLostError), so this names one call's trace.
      if (error && typeof error === 'object' && Object.isExtensible(error))
        (error as { traceId?: string }).traceId = trace.traceId;
      if (!trace.finished) trace.finish('error', error);
      throw error;
    }
  }

  /**
   * Returns a completed call's stored result without running anything, and records the replay in
   * a trace of its own. No permission is asked: nothing executes and nothing leaves the app.
   */
  async replay(sessionId: string, callId: string): Promise<ExecuteResult> {
    const record = await this.options.checkpoints.get(sessionId, callId);
    if (!record) throw new NotReplayableError(`No call "${callId}" is recorded in session "${sessionId}".`);
    if (record.status !== 'completed' || !record.result) {
      throw new NotReplayableError(
        record.status === 'started'
          ? 'This call never completed (it is in progress, or its result is unknown): there is no result to replay. Resolve it by hand first.'
          : 'This call failed: there is no result to replay. Run it again as a new call instead.',
      );
    }
    const trace = this.options.tracer.start({
      sessionId,
      callId,
      userId: record.userId,
      toolName: record.toolName,
      serverId: record.serverId,
    });
    traceReplay(trace, record);
    // Redacted again: a record stored before a secret was known to this process may hold it.
    const result = this.options.redactor.redactSecretValues(record.result);
    return {
      result,
      replayed: true,
      traceId: trace.traceId,
      toolName: record.toolName,
      serverId: record.serverId,
      attempts: 0,
      warnings: [],
    };
  }

  /** A recorded key's replay (traced), or its refusal (traced, thrown); undefined for a new key. */
  private async peekRecorded(input: ClaimInput, trace: TraceHandle): Promise<CompletedRecord | undefined> {
    let recorded;
    try {
      recorded = await this.options.checkpoints.peek(input);
    } catch (error) {
      traceRefusedClaim(trace, error);
      throw error;
    }
    if (recorded?.kind !== 'replay') return undefined;
    traceReplay(trace, recorded.record);
    return recorded.record;
  }

  /** Whether this process is running the call now (else a `started` record's result is unknown). */
  isRunning(sessionId: string, callId: string): boolean {
    return this.inFlight.has(`${sessionId}\0${callId}`);
  }

  /** What the call's decision is pinned to: the tool's definition hash (cached per descriptor) and flags. */
  private definitionOf(serverId: string, name: string, tool: ToolDescriptor) {
    const hashed = hashedDefinition(name, tool);
    return { serverUid: this.serverUid(serverId), hashed, flags: this.flagsOf(serverId, tool, hashed) };
  }

  private resolve(toolName: string, serverId: string | undefined): Target {
    if (serverId === LOCAL_SERVER_ID || (serverId === undefined && this.local.has(toolName))) {
      const tool = this.local.get(toolName);
      if (!tool) throw new MCPUnknownToolError(toolName, LOCAL_SERVER_ID);
      return { kind: 'local', tool, serverId: LOCAL_SERVER_ID };
    }
    const entry =
      serverId === undefined ? this.options.registry.resolve(toolName) : this.options.registry.find(serverId, toolName);
    if (!entry) throw new MCPUnknownToolError(toolName, serverId);
    return { kind: 'mcp', tool: entry.tool, serverId: entry.serverId };
  }

  private async run(
    target: Target,
    toolName: string,
    args: Record<string, unknown>,
    options: ExecuteOptions,
    trace: TraceHandle,
  ): Promise<ExecuteResult> {
    const { security, checkpoints, redactor } = this.options;
    const server = target.kind === 'local' ? undefined : this.options.registry.server(target.serverId);
    const trusted = target.kind === 'local' || server?.trusted === true;

    // 0. The arguments must fit what the server can take (argumentSize.ts) and the tool's input schema before anyone is asked to approve them.
    refuseOversizedArguments(toolName, target.serverId, server, args);
    const fieldErrors = checkToolArguments(target.tool.inputSchema, args);
    if (fieldErrors) throw new InvalidArgumentsError(toolName, target.serverId, fieldErrors);

    const claimInput = {
      sessionId: options.sessionId,
      callId: options.callId,
      userId: options.userId,
      toolName,
      serverId: target.serverId,
      ...checkpointArguments(args, (value) => redactor.redactReporting(value)),
      traceId: trace.traceId,
    };
    // 1. Permission, guardrails, approval. Throws (after recording why) when the call may not run.
    // A DENY rule refuses first, even a key already recorded. Before a person would be asked, a
    // recorded key is looked up (`runsNothing`): it runs nothing whatever they answered — its stored
    // result is replayed, or it is refused (other arguments, still running or unknown, failed) —
    // so nobody is asked to approve a call that would not run. (Nothing executes and nothing
    // leaves the app, as with a replay from History.) An ALLOW needs nobody: the claim below
    // answers a recorded key the same way, without a lookup of its own first.
    let recorded: CompletedRecord | undefined;
    let authorization;
    try {
      authorization = await security.authorize(
        this.authorizationRequest(target, toolName, args, options, server, trusted),
        {
          ...(options.signal ? { signal: options.signal } : {}),
          runsNothing: async () => (recorded = await this.peekRecorded(claimInput, trace)) !== undefined,
          onEvent: (event) => {
            recordSecurityEvent(trace, event);
            if (event.type === 'approval_requested') options.onApprovalWait?.({ expiresAt: event.expiresAt });
            if (event.type === 'approval_answered') options.onApprovalWait?.(undefined);
          },
        },
      );
    } catch (error) {
      // Cancelled while it waited (by the caller, or the app: waitEnded.ts) is not a denial.
      // A recorded key refused by its lookup is an error of the call (as from the claim), not a denial.
      if (!isRefusedClaim(error)) trace.finish(error instanceof ApprovalCancelledError ? 'cancelled' : 'denied', error);
      // A denial says "nothing ran" — untrue when an earlier call with this key ran (a DENY rule
      // added since, or a twin attempt allowed while this one waited): the denial says so.
      if (error instanceof PermissionDeniedError) {
        const status = (await checkpoints.get(options.sessionId, options.callId))?.status;
        if (status === 'completed' || status === 'started') error.keyRecorded = status;
      }
      throw error;
    }
    options.onAuthorized?.();
    if (recorded)
      return {
        result: redactor.redactSecretValues(recorded.result),
        replayed: true,
        traceId: trace.traceId,
        toolName,
        serverId: target.serverId,
        attempts: 0,
        warnings: [],
      };
    return this.claimAndRun(target, toolName, args, options, trace, claimInput, trusted, authorization.warning);
  }

  /** What the authorization gate decides on: the call, its tool's guardrails (local) or pinned definition (MCP). */
  private authorizationRequest(
    target: Target,
    toolName: string,
    args: Record<string, unknown>,
    options: ExecuteOptions,
    server: ServerConfig | undefined,
    trusted: boolean,
  ): ToolCallAuthorizationRequest {
    return {
      subject: {
        toolName,
        serverId: target.serverId,
        args,
        annotations: target.tool.annotations,
        serverTrusted: trusted,
        ...(server?.uid ? { serverUid: server.uid } : {}),
      },
      sessionId: options.sessionId,
      userId: options.userId,
      ...(target.kind === 'local' ? { guardrails: () => target.tool.guardrails(args) } : {}),
      schemaFingerprint: fingerprintOf(toolName, target.tool),
      ...(options.callerWait ? { callerWait: options.callerWait } : {}),
      ...(target.kind === 'mcp' ? { definition: this.definitionOf(target.serverId, toolName, target.tool) } : {}),
    };
  }

  /** 2–3 (after the call was allowed): claim its checkpoint, then replay a completed call or run it as its owner. */
  private async claimAndRun(
    target: Target,
    toolName: string,
    args: Record<string, unknown>,
    options: ExecuteOptions,
    trace: TraceHandle,
    claimInput: ClaimInput,
    trusted: boolean,
    warning: string | undefined,
  ): Promise<ExecuteResult> {
    // The claim is group-committed with concurrent calls' writes; it is durable once the promise resolves.
    let claim;
    try {
      claim = await this.options.checkpoints.claim(claimInput);
    } catch (error) {
      traceRefusedClaim(trace, error);
      throw error;
    }
    const warnings = warning ? [warning] : [];
    if (claim.kind === 'replay') {
      traceReplay(trace, claim.record);
      return {
        result: this.options.redactor.redactSecretValues(claim.record.result),
        replayed: true,
        traceId: trace.traceId,
        toolName,
        serverId: target.serverId,
        attempts: 0,
        warnings,
      };
    }
    trace.event('claim', { outcome: 'owner' });
    const key = `${options.sessionId}\0${options.callId}`;
    this.inFlight.add(key);
    try {
      return await this.attempts(target, toolName, args, options, trace, claim.lease, trusted, warnings);
    } finally {
      this.inFlight.delete(key);
    }
  }

  private async attempts(
    target: Target,
    toolName: string,
    args: Record<string, unknown>,
    options: ExecuteOptions,
    trace: TraceHandle,
    lease: string,
    trusted: boolean,
    warnings: string[],
  ): Promise<ExecuteResult> {
    const { checkpoints, redactor } = this.options;
    const annotations = target.tool.annotations;
    // 4. Attempts, with retries only for failures that prove nothing ran (or idempotent tools).
    const idempotent = trusted && annotations?.idempotentHint === true;
    // A call the server runs as a task: its id is recorded on the checkpoint the moment the
    // server names it (a restart can then ask the server how it ended), every status traced.
    let linkedTask: string | undefined;
    /** The task's last status as the server (or its accepted `tasks/cancel`) said it. */
    let taskStatus: TaskEvent['status'] | undefined;
    const onTask = (event: TaskEvent): void => {
      taskStatus = event.status;
      if (event.taskId !== linkedTask) {
        linkedTask = event.taskId;
        // Written at once on SQLite; on PostgreSQL in flight while the call goes on (a failure only loses the link).
        void Promise.resolve(
          this.options.taskLinks?.link(options.sessionId, options.callId, lease, event.taskId),
        ).catch(() => false);
      }
      const statusMessage = event.statusMessage !== undefined ? redactor.redactText(event.statusMessage) : undefined;
      trace.event('task', {
        taskId: event.taskId,
        status: event.status,
        ...(statusMessage !== undefined ? { statusMessage } : {}),
      });
      options.onTask?.({ ...event, ...(statusMessage !== undefined ? { statusMessage } : {}) });
    };
    for (let attempt = 1; ; attempt++) {
      trace.event('attempt_started', { attempt });
      const started = performance.now();
      let result: NormalizedToolResult;
      try {
        // A server may echo a credential it was given: known secrets never reach the stored
        // result, the trace, the caller or the GUI.
        result = redactor.redactSecretValues(await this.invokeTraced(target, toolName, args, options, trace, onTask));
      } catch (error) {
        const cancelled = options.signal?.aborted === true || error instanceof MCPRequestCancelled;
        // A call that became a server task ran there: sending it again would run it twice (its end is the server's to tell).
        const verdict = linkedTask
          ? { retry: false, reason: `the server runs it as task ${linkedTask}` }
          : classifyFailure(error, this.retry, { idempotent, cancelled });
        trace.event('attempt_finished', {
          attempt,
          outcome: 'error',
          durationMs: performance.now() - started,
          error: toTraceError(error),
          recoverable: verdict.retry,
        });
        if (
          verdict.retry &&
          attempt < this.retry.maxAttempts &&
          (await this.waitedToRetry(target, attempt, verdict.reason, options, trace))
        )
          continue;
        // A task the server says is cancelled (it accepted our tasks/cancel, or cancelled it itself)
        // has ended there: nothing runs it any more, so it is filed as ended, not "resolve by hand".
        const taskEnded = linkedTask !== undefined && taskStatus === 'cancelled';
        await this.recordFailure(options, lease, error, attempt, cancelled, taskEnded);
        trace.event('failed', { error: toTraceError(error) });
        trace.finish(cancelled ? 'cancelled' : 'error', error);
        throw error;
      }
      trace.event('attempt_finished', { attempt, outcome: 'ok', durationMs: performance.now() - started });
      // 5. Save the replayable result — only while the lease is still ours — and return it once
      // stored. Outside the attempt's try: the tool has acted, so a failure here is never retried.
      try {
        await checkpoints.complete(options.sessionId, options.callId, lease, result);
      } catch (error) {
        // Someone else resolved the record meanwhile (History): it says so as it is. Any other
        // failure (the disk is full) leaves the record `started`, "result unknown", and the
        // caller is told the call may have acted — never "could not complete".
        const failure =
          error instanceof CheckpointLeaseLostError
            ? error
            : new ResultNotRecordedError(options.sessionId, options.callId, error);
        trace.event('failed', { error: toTraceError(failure) });
        trace.finish('error', failure);
        throw failure;
      }
      trace.event('completed', { isError: result.isError, contentBlocks: result.content.length });
      trace.finish('ok');
      return {
        result,
        replayed: false,
        traceId: trace.traceId,
        toolName,
        serverId: target.serverId,
        attempts: attempt,
        warnings,
      };
    }
  }

  /**
   * One attempt's run, its events in this call's one trace: each input_required round (what was
   * asked, who answered), each task status, a local tool's sandbox violations.
   */
  private invokeTraced(
    target: Target,
    toolName: string,
    args: Record<string, unknown>,
    options: ExecuteOptions,
    trace: TraceHandle,
    onTask: (event: TaskEvent) => void,
  ): Promise<NormalizedToolResult> {
    return this.invoke(
      target,
      toolName,
      args,
      options,
      (round) =>
        trace.event('input_requested', {
          round: round.round,
          requests: round.requests.map((request) => ({ ...request })),
        }),
      onTask,
      (line) => void (trace.finished || trace.event('sandbox_violation', { line })),
      trace.propagation,
    );
  }

  /**
   * Waits before the next attempt — for the server to reconnect when it is coming back by itself
   * (not a blind sleep), else the backoff delay. False when the next attempt may not run (the call
   * was cancelled, or the server did not come back in time).
   */
  private async waitedToRetry(
    target: Target,
    attempt: number,
    reason: string,
    options: ExecuteOptions,
    trace: TraceHandle,
  ): Promise<boolean> {
    if (target.kind === 'mcp' && this.isReconnecting(target.serverId)) {
      const waitMs = this.reconnectWaitMs(target.serverId, options);
      trace.event('retry_scheduled', {
        nextAttempt: attempt + 1,
        delayMs: 0,
        waitForServerMs: waitMs,
        reason: `${reason}; waiting for the server to reconnect`,
      });
      const back = await this.options.registry
        .whenReady(target.serverId, {
          timeoutMs: waitMs,
          throughIdle: true,
          ...(options.signal ? { signal: options.signal } : {}),
        })
        .then(
          () => true,
          () => false,
        );
      return back && !options.signal?.aborted;
    }
    const delayMs = backoffDelay(attempt + 1, this.retry, this.options.random);
    trace.event('retry_scheduled', { nextAttempt: attempt + 1, delayMs, reason });
    await sleep(delayMs, options.signal).catch(() => undefined);
    return !options.signal?.aborted;
  }

  /**
   * Files a failed call. The record stays `started`: the remote side may have acted — unless the
   * server said it did not run the call (it needs a link opened first: -32042), which files it as
   * failed, or its task ended there (`taskEnded`). A note that cannot be written (the disk is full:
   * the app shows a warning, see core/warnings.ts) changes nothing of that: the caller still learns
   * how the call failed, so this never rejects.
   */
  private recordFailure(
    options: ExecuteOptions,
    lease: string,
    error: unknown,
    attempt: number,
    cancelled: boolean,
    taskEnded: boolean,
  ): Promise<unknown> {
    return this.options.checkpoints
      .recordFailure(options.sessionId, options.callId, lease, {
        ...(error instanceof MCPUrlElicitationRequiredError ? { notRun: true } : {}),
        ...(taskEnded ? { ended: true } : {}),
        // A rejection may be anything, `undefined` included: read a code only from an object.
        // A cancellation is recorded as one whatever was thrown (History shows it as Cancelled).
        ...(taskEnded
          ? { code: 'task_cancelled' }
          : cancelled
            ? { code: 'cancelled' }
            : typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string'
              ? { code: (error as { code: string }).code }
              : {}),
        message: this.options.redactor.redactText(error instanceof Error ? error.message : String(error)),
        attempts: attempt,
      })
      .catch(() => undefined);
  }

  /**
   * A call naming its server while the app starts — the server still `idle` or connecting, its
   * tools not listed yet (a cold start) — waits for it (bounded by the call's deadline, else the
   * server's timeout) instead of failing as an unknown tool; a server already up is not waited for.
   */
  private async untilListed(toolName: string, options: ExecuteOptions): Promise<void> {
    const { registry } = this.options;
    const serverId = options.serverId;
    if (serverId === undefined || serverId === LOCAL_SERVER_ID || registry.find(serverId, toolName)) return;
    const state = registry.status(serverId)?.state;
    if (state !== 'idle' && state !== 'connecting' && !(state === 'ready' && !registry.hasTools(serverId))) return;
    await registry
      .whenReady(serverId, {
        timeoutMs: this.reconnectWaitMs(serverId, options),
        throughIdle: true,
        withTools: true,
        ...(options.signal ? { signal: options.signal } : {}),
      })
      .catch(() => undefined); // resolve() then says why the tool cannot be called
  }

  /** The server is not ready now but will be retried by the registry (connecting or reconnecting; at start, idle). */
  private isReconnecting(serverId: string): boolean {
    const state = this.options.registry.status(serverId)?.state;
    return (
      state === 'reconnecting' ||
      state === 'connecting' ||
      (state === 'idle' && this.options.registry.server(serverId)?.enabled === true)
    );
  }

  /** How long a retry waits for a reconnect: the call's own deadline, else the server's timeout. */
  private reconnectWaitMs(serverId: string, options: ExecuteOptions): number {
    return options.timeoutMs ?? this.options.registry.server(serverId)?.timeoutMs ?? 30_000;
  }

  private invoke(
    target: Target,
    toolName: string,
    args: Record<string, unknown>,
    options: ExecuteOptions,
    onInputRound: (round: InputRound) => void,
    onTask: (event: TaskEvent) => void,
    onSandboxViolation: (line: string) => void,
    /** The call's span as W3C trace context (when exported): the server gets it in `_meta`. */
    meta: Readonly<Record<string, string>> | undefined,
  ): Promise<NormalizedToolResult> {
    // A local tool's sandbox violations (run_command) are events of this call's trace.
    if (target.kind === 'local')
      return target.tool.run(args, { ...(options.signal ? { signal: options.signal } : {}), onSandboxViolation });
    return this.options.registry.callServerTool(target.serverId, toolName, args, {
      agentId: options.userId,
      ...(options.serverRequests ? { serverRequests: options.serverRequests } : {}),
      onInputRound,
      onTask,
      ...(meta ? { meta } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
  }
}

/** Fingerprints by tool descriptor: a descriptor is a snapshot (a new listing makes new objects), so each is hashed once, not per call. */
const fingerprints = new WeakMap<object, { name: string; fingerprint: string }>();

function fingerprintOf(
  name: string,
  tool: { description?: string | undefined; inputSchema: unknown; annotations?: ToolAnnotationHints | undefined },
): string {
  const known = fingerprints.get(tool);
  if (known?.name === name) return known.fingerprint;
  const fingerprint = toolSchemaFingerprint({
    name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: tool.annotations,
  });
  fingerprints.set(tool, { name, fingerprint });
  return fingerprint;
}

/** Security steps become trace events, so a trace shows why a call ran or did not. */
function recordSecurityEvent(trace: TraceHandle, event: SecurityEvent): void {
  switch (event.type) {
    case 'guardrail':
      trace.event('guardrail', {
        name: 'tool guardrails',
        outcome: event.ok ? 'passed' : 'blocked',
        ...(event.reason ? { reason: event.reason } : {}),
      });
      return;
    case 'decision':
      trace.event('decision', {
        outcome: event.level === 'ALLOW' ? 'allow' : event.level === 'DENY' ? 'deny' : 'ask',
        reason: event.reason.detail,
        kind: event.reason.kind,
        ...(event.reason.ruleId ? { ruleId: event.reason.ruleId } : {}),
      });
      return;
    case 'session_grant':
      trace.event('decision', {
        outcome: 'allow',
        reason: 'allowed for this session by an earlier approval',
        kind: 'session-grant',
      });
      return;
    case 'approval_requested':
      trace.event('approval_requested', { approvalId: event.requestId, reason: event.reason });
      return;
    case 'approval_answered':
      trace.event('approval_answered', {
        approved: event.answer !== 'deny',
        answeredBy: event.answer,
        waitedMs: event.waitedMs,
        timedOut: event.timedOut,
        cancelled: event.cancelled,
      });
      return;
    case 'rule_save_failed':
      trace.event('decision', {
        outcome: 'allow',
        reason: `approved, but the "always allow" rule could not be saved: ${event.message}`,
        kind: 'warning',
      });
      return;
  }
}

/** The completed record a replay answers with. */
type CompletedRecord = Extract<ClaimResult, { kind: 'replay' }>['record'];

/** A replay in the call's trace: nothing ran, the stored result answered. */
function traceReplay(trace: TraceHandle, record: CheckpointRecord): void {
  trace.event('claim', { outcome: 'replay' });
  trace.event('replay', {
    originalTraceId: record.traceId,
    completedAt: record.updatedAt,
    ...(record.resolvedBy ? { resolvedBy: record.resolvedBy } : {}),
  });
  trace.finish('replayed');
}

/** Why a recorded key may not run again, in the call's trace (the error itself is thrown by the caller). */
function traceRefusedClaim(trace: TraceHandle, error: unknown): void {
  const outcome = refusedClaimOutcome(error);
  if (outcome) trace.event('claim', { outcome });
}

function refusedClaimOutcome(error: unknown): 'in_progress' | 'arguments_mismatch' | 'failed' | undefined {
  return error instanceof CheckpointInProgressError
    ? 'in_progress'
    : error instanceof CheckpointArgumentsMismatchError
      ? 'arguments_mismatch'
      : error instanceof CheckpointFailedError
        ? 'failed'
        : undefined;
}

function isRefusedClaim(error: unknown): boolean {
  return refusedClaimOutcome(error) !== undefined;
}
