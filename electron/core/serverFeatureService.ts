/**
 * Resources and prompts for the GUI. A read or a prompt get goes through the registry's features
 * part (registry/features.ts) and is recorded as a trace of its own — who, which server, what,
 * how long, how it ended (no checkpoint: nothing is executed, so nothing can run twice) — and its
 * answer is bounded (views.ts) with known secret values redacted before it leaves main. Lists,
 * subscriptions and completions are browsing, not use, and are not traced.
 *
 * The gateway offers the same reads to agents (`readAs`, `getPromptAs`): whether one may happen
 * is the permission engine's decision (with the person's approval where it asks), taken before
 * the server is asked, and the trace names the agent. An MCP App's reads go the same way, as
 * "<server>'s app" (electron/apps/appService.ts).
 */
import { randomUUID } from 'node:crypto';
import type { GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/client';
import type { ParsedRequestOf, PromptResultView, ResourceReadView } from '../../shared/contract.js';
import { expandTemplate } from '../mcp/features/resources.js';
import type { MCPToolRegistry } from '../mcp/registry.js';
import type { CallServerRequestHandlers } from '../mcp/types.js';
import type { SecretRedactor } from '../secrets/secretRedactor.js';
import type { TraceHandle, Tracer } from '../tracing/tracer.js';
import type { ImpliedDecision } from '../security/secureExecutor.js';
import { ApprovalCancelledError, PermissionDeniedError } from '../security/errors.js';
import { toTraceError } from '../tracing/tracer.js';
import type { Caller } from './callService.js';
import { ValidationFailedError } from './errors.js';
import { promptResultView, resourceReadView } from './views.js';

type TracedOperation = 'resources/read' | 'prompts/get';

/** Decides an agent's read or get like a call of a read-only tool named after the operation; throws the denial. */
export type AuthorizeUse = (
  caller: Caller,
  operation: TracedOperation,
  serverId: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
  /** An earlier decision that covers this use (SecureToolExecutor's `impliedBy`): asked only where a person would be. */
  impliedBy?: ImpliedBy,
) => Promise<void>;

/** See AuthorizeOptions.impliedBy (security/secureExecutor.ts). */
export type ImpliedBy = (signal: AbortSignal | undefined) => Promise<ImpliedDecision | undefined>;

export class ServerFeatureService {
  constructor(
    private readonly registry: MCPToolRegistry,
    private readonly tracer: Tracer,
    private readonly redactor: SecretRedactor,
    /** Who the GUI's reads are attributed to (its calls' identity). */
    private readonly caller: Caller,
    private readonly authorize?: AuthorizeUse,
  ) {}

  /** An agent's read through the gateway: decided first, then read, traced as the agent; the raw result, redacted. */
  async readAs(caller: Caller, serverId: string, uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
    return (await this.readAsTraced(caller, serverId, uri, signal)).result;
  }

  /**
   * `readAs` with the read's trace id (an MCP App's reads: electron/apps/). `impliedBy`: an earlier
   * decision that covers the read where a person would be asked (an app's own page, for the call it
   * shows); the trace records what it said.
   */
  async readAsTraced(
    caller: Caller,
    serverId: string,
    uri: string,
    signal: AbortSignal,
    impliedBy?: ImpliedBy,
  ): Promise<{ result: ReadResourceResult; traceId: string }> {
    const run = async (trace: TraceHandle): Promise<ReadResourceResult> => {
      const implied: ImpliedBy | undefined =
        impliedBy &&
        (async (s) => {
          const said = await impliedBy(s);
          if (said) trace.event('decision', { outcome: said.allowed ? 'allow' : 'deny', reason: said.reason });
          return said;
        });
      await this.decide(caller, 'resources/read', serverId, { uri }, signal, implied);
      return this.registry.features.read(serverId, uri, { signal });
    };
    const { result, traceId } = await this.traced(
      'resources/read',
      serverId,
      { uri },
      run,
      (r) => r.contents.length,
      caller,
    );
    return { result: this.redactor.redactSecretValues(result), traceId };
  }

  /** An agent's prompt get through the gateway: decided first (argument names only in the decision and the trace). */
  async getPromptAs(
    caller: Caller,
    serverId: string,
    name: string,
    args: Record<string, string>,
    signal: AbortSignal,
    asks?: CallServerRequestHandlers,
  ): Promise<GetPromptResult> {
    const detail = { prompt: name, argumentNames: Object.keys(args) };
    const run = async (): Promise<GetPromptResult> => {
      await this.decide(caller, 'prompts/get', serverId, detail, signal);
      return this.registry.features.getPrompt(serverId, name, args, {
        signal,
        ...(asks ? { serverRequests: asks } : {}),
      });
    };
    const { result } = await this.traced('prompts/get', serverId, detail, run, (r) => r.messages.length, caller);
    return this.redactor.redactSecretValues(result);
  }

  private async decide(
    caller: Caller,
    operation: TracedOperation,
    serverId: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    impliedBy?: ImpliedBy,
  ): Promise<void> {
    // No decision maker wired: nothing may be read for an agent.
    if (!this.authorize) throw new ValidationFailedError('Resources and prompts are not offered to agents here.', {});
    await this.authorize(caller, operation, serverId, args, signal, impliedBy);
  }

  async read(request: ParsedRequestOf<'resources.read'>): Promise<ResourceReadView> {
    const uri = 'uri' in request ? request.uri : expanded(request.uriTemplate, request.variables);
    const { result, traceId } = await this.traced(
      'resources/read',
      request.serverId,
      { uri },
      () => this.registry.features.read(request.serverId, uri),
      (r) => r.contents.length,
    );
    return this.redactor.redactSecretValues(resourceReadView(uri, result, traceId));
  }

  async getPrompt(request: ParsedRequestOf<'prompts.get'>): Promise<PromptResultView> {
    // The argument values may be anything the person typed: the trace keeps their names only.
    const detail = { prompt: request.name, argumentNames: Object.keys(request.arguments) };
    const { result, traceId } = await this.traced(
      'prompts/get',
      request.serverId,
      detail,
      () => this.registry.features.getPrompt(request.serverId, request.name, request.arguments),
      (r) => r.messages.length,
    );
    return this.redactor.redactSecretValues(promptResultView(result, traceId));
  }

  /** Runs `run` inside a trace of its own; a failure carries the trace id (the GUI links to it). */
  private async traced<T>(
    operation: TracedOperation,
    serverId: string,
    detail: Record<string, unknown>,
    run: (trace: TraceHandle) => Promise<T>,
    blocks: (result: T) => number,
    caller: Caller = this.caller,
  ): Promise<{ result: T; traceId: string }> {
    const trace = this.tracer.start({
      sessionId: caller.sessionId,
      callId: randomUUID(),
      userId: caller.userId,
      toolName: operation,
      serverId,
    });
    trace.event('attempt_started', { attempt: 1, ...detail });
    const started = performance.now();
    try {
      const result = await run(trace);
      trace.event('attempt_finished', { attempt: 1, outcome: 'ok', durationMs: performance.now() - started });
      trace.event('completed', { isError: false, contentBlocks: blocks(result) });
      trace.finish('ok');
      return { result, traceId: trace.traceId };
    } catch (error) {
      trace.event('attempt_finished', {
        attempt: 1,
        outcome: 'error',
        durationMs: performance.now() - started,
        error: toTraceError(error),
      });
      trace.event('failed', { error: toTraceError(error) });
      // Not answered, refused or withdrawn is a decision, as for a call (denied, cancelled): nothing was read.
      trace.finish(
        error instanceof ApprovalCancelledError
          ? 'cancelled'
          : error instanceof PermissionDeniedError
            ? 'denied'
            : 'error',
        error,
      );
      if (error && typeof error === 'object' && Object.isExtensible(error))
        (error as { traceId?: string }).traceId = trace.traceId;
      throw error;
    }
  }
}

function expanded(uriTemplate: string, variables: Record<string, string>): string {
  const result = expandTemplate(uriTemplate, variables);
  if (!result.ok)
    throw new ValidationFailedError(`The resource template cannot be expanded: ${result.reason}`, {
      uriTemplate: [result.reason],
    });
  return result.uri;
}
