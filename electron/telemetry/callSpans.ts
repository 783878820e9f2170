/**
 * Each recorded tool call as a span (a `TraceObserver` on the app's Tracer, tracing/tracer.ts).
 *
 * A call to a server is an MCP client span, `tools/call {tool}` (kind CLIENT), with the MCP
 * conventions' attributes; a built-in (local) tool's call is an `execute_tool {tool}` span
 * (kind INTERNAL). Either carries MiniHarness's decision under `miniharness.*` (attributes.ts):
 * the permission decision and its rule, who let it run and how long the person took, replay vs
 * execution, the checkpoint key, the task id. Everything comes from the trace's events as stored,
 * so it went through the same redaction as the Traces view. The span's parent is the work it runs
 * under (a gateway request, an agent run: context.ts), else it starts a trace of its own.
 *
 * The span starts when the trace does and ends when it finishes, with the trace's own times.
 */
import type { Attributes, Span, Tracer } from '@opentelemetry/api';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { TraceEvent, TraceSummary } from '../../shared/traces.js';
import type { ObservedTrace, TraceObserver } from '../tracing/tracer.js';
import * as A from './attributes.js';
import { currentContext, propagationOf } from './context.js';

/** What the client span says of the server behind a call (its connection), when known. */
export interface ServerDescription {
  protocolVersion?: string | undefined;
  /** `pipe` for stdio, `tcp` for HTTP (the conventions' values). */
  transport?: 'pipe' | 'tcp' | undefined;
  address?: string | undefined;
  port?: number | undefined;
  sessionId?: string | undefined;
}

export interface CallSpanOptions {
  tracer: Tracer;
  /** The server's connection as the client span describes it. */
  describeServer: (serverId: string) => ServerDescription | undefined;
  /** The id of built-in tools (`local`): their calls run in-process, no MCP request. */
  localServerId: string;
  /**
   * Opt-in: the call's arguments and result (redacted, size-capped) for `gen_ai.tool.call.*`.
   * Read after the call ended, off its path; undefined when the person did not turn it on.
   */
  /** Told each call's exported trace id (the Traces view links to it). */
  linked?: (traceId: string, externalTraceId: string) => void;
  payloads?: ((trace: TraceSummary) => { arguments?: string; result?: string } | undefined) | undefined;
}

/**
 * Hooks for the work built beside this (sandbox violations, pinning changes): a function that
 * adds attributes to a call's span when its trace finishes. Registered with `CallSpans.addHook`.
 */
export type CallSpanHook = (trace: TraceSummary) => Attributes | undefined;

export class CallSpans implements TraceObserver {
  readonly #hooks: CallSpanHook[] = [];

  constructor(private readonly options: CallSpanOptions) {}

  /** Adds a hook (see CallSpanHook); e.g. the sandbox sets `miniharness.sandbox.violations`. */
  addHook(hook: CallSpanHook): void {
    this.#hooks.push(hook);
  }

  started(trace: TraceSummary): ObservedTrace {
    const local = trace.serverId === this.options.localServerId;
    const attributes: Attributes = {
      [A.GEN_AI_OPERATION_NAME]: 'execute_tool',
      [A.GEN_AI_TOOL_NAME]: trace.toolName,
      [A.MH_SERVER_ID]: trace.serverId,
      [A.MH_CHECKPOINT_SESSION]: trace.sessionId,
      [A.MH_CHECKPOINT_CALL]: trace.callId,
      [A.MH_TRACE_ID]: trace.traceId,
      [A.MH_CALLER]: trace.userId,
    };
    if (!local) {
      attributes[A.MCP_METHOD_NAME] = 'tools/call';
      describe(attributes, this.options.describeServer(trace.serverId));
    }
    const span = this.options.tracer.startSpan(
      local ? `execute_tool ${trace.toolName}` : `tools/call ${trace.toolName}`,
      { kind: local ? SpanKind.INTERNAL : SpanKind.CLIENT, startTime: trace.startedAt, attributes },
      currentContext(),
    );
    this.options.linked?.(trace.traceId, span.spanContext().traceId);
    return new ObservedCall(span, this.#hooks, this.options.payloads);
  }
}

function describe(attributes: Attributes, server: ServerDescription | undefined): void {
  if (!server) return;
  if (server.protocolVersion) attributes[A.MCP_PROTOCOL_VERSION] = server.protocolVersion;
  if (server.transport) attributes[A.ATTR_NETWORK_TRANSPORT] = server.transport;
  if (server.address) attributes[A.ATTR_SERVER_ADDRESS] = server.address;
  if (server.port !== undefined) attributes[A.ATTR_SERVER_PORT] = server.port;
  if (server.sessionId) attributes[A.MCP_SESSION_ID] = server.sessionId;
}

class ObservedCall implements ObservedTrace {
  #propagation: Record<string, string> | undefined;
  #attempts = 0;
  #toolError = false;

  constructor(
    private readonly span: Span,
    private readonly hooks: readonly CallSpanHook[],
    private readonly payloads: CallSpanOptions['payloads'],
  ) {}

  get propagation(): Readonly<Record<string, string>> {
    return (this.#propagation ??= propagationOf(this.span));
  }

  event(event: TraceEvent): void {
    const data = event.data as Record<string, unknown>;
    const set = (key: string, value: unknown): void => {
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
        this.span.setAttribute(key, value);
    };
    switch (event.type) {
      case 'decision':
        // The first decision is the rules'; a later one says what let an ASK through (a session grant).
        if (data.kind === 'session-grant') set(A.MH_APPROVAL_BY, 'session-grant');
        else if (data.kind !== 'warning') {
          set(A.MH_PERMISSION_DECISION, data.outcome);
          set(A.MH_PERMISSION_KIND, data.kind);
          set(A.MH_PERMISSION_RULE_ID, data.ruleId);
          if (data.outcome === 'allow') set(A.MH_APPROVAL_BY, 'rule');
        }
        return;
      case 'approval_answered':
        set(A.MH_APPROVAL_BY, 'person');
        set(A.MH_APPROVAL_ANSWER, data.answeredBy);
        set(A.MH_APPROVAL_WAIT_MS, data.waitedMs);
        if (data.timedOut === true) set(A.MH_APPROVAL_TIMED_OUT, true);
        this.span.addEvent('miniharness.approval', { answer: String(data.answeredBy ?? '') }, event.at);
        return;
      case 'claim':
        set(A.MH_CHECKPOINT_CLAIM, data.outcome);
        return;
      case 'attempt_started':
        this.#attempts = Math.max(this.#attempts, data.attempt as number);
        return;
      case 'task':
        set(A.MH_TASK_ID, data.taskId);
        return;
      case 'completed':
        this.#toolError = data.isError === true;
        return;
      default:
        return;
    }
  }

  finished(trace: TraceSummary): void {
    const span = this.span;
    span.setAttribute(A.MH_CALL_OUTCOME, trace.status);
    span.setAttribute(
      A.MH_CALL_EXECUTION,
      trace.status === 'replayed' ? 'replay' : this.#attempts > 0 ? 'execution' : 'none',
    );
    if (this.#attempts > 0) span.setAttribute(A.MH_CALL_ATTEMPTS, this.#attempts);
    if (trace.status === 'denied') span.setAttribute(A.MH_APPROVAL_BY, 'nobody');
    const errorType = errorTypeOf(trace, this.#toolError);
    if (errorType) {
      span.setAttribute(A.ATTR_ERROR_TYPE, errorType);
      span.setStatus({ code: SpanStatusCode.ERROR, ...(trace.error ? { message: trace.error.message } : {}) });
    }
    for (const hook of this.hooks) {
      try {
        const extra = hook(trace);
        if (extra) span.setAttributes(extra);
      } catch {
        // a hook's failure never changes the call or the rest of its span
      }
    }
    const endTime = trace.endedAt ?? Date.now();
    if (!this.payloads || !span.isRecording()) {
      span.end(endTime);
      return;
    }
    // The opt-in payloads are read after the call returned, off its path.
    const payloads = this.payloads;
    setImmediate(() => {
      try {
        const found = payloads(trace);
        if (found?.arguments !== undefined) span.setAttribute(A.GEN_AI_TOOL_CALL_ARGUMENTS, found.arguments);
        if (found?.result !== undefined) span.setAttribute(A.GEN_AI_TOOL_CALL_RESULT, found.result);
      } finally {
        span.end(endTime);
      }
    });
  }
}

/** `error.type`: the error's code, `tool_error` for a result with isError (the conventions), or the outcome. */
function errorTypeOf(trace: TraceSummary, toolError: boolean): string | undefined {
  switch (trace.status) {
    case 'ok':
      return toolError ? 'tool_error' : undefined;
    case 'replayed':
      return undefined;
    case 'denied':
      return trace.error?.code ?? 'permission_denied';
    default:
      return trace.error?.code ?? trace.status;
  }
}
