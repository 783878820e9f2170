/**
 * Each recorded tool call as a span (a `TraceObserver` on the app's Tracer, tracing/tracer.ts).
 *
 * A call to a server is an MCP client span, `tools/call {tool}` (kind CLIENT), with the MCP
 * conventions' attributes; a built-in (local) tool's call is an `execute_tool {tool}` span
 * (kind INTERNAL). Either carries MiniHarness's decision under `miniharness.*` (attributes.ts):
 * the permission decision and its rule, who let it run and how long the person took, replay vs
 * execution, the checkpoint key, the task id, sandbox violations, a pinning change; and the
 * `jsonrpc.request.id` of the request sent (requestIds.ts). Everything comes from the trace's
 * events as stored, so it went through the same redaction as the Traces view. The span's parent
 * is the work it runs under (a gateway request, an agent run: context.ts), else it starts a trace
 * of its own. Every call to a server also counts in `mcp.client.operation.duration` (metrics.ts),
 * sampled or not.
 *
 * Off the call path: when the trace starts only the span's ids are chosen (so the server can be
 * given its `traceparent` at once) and the sampling decided; the events fill a plain record. Every
 * DRAIN_DELAY_MS the calls ended since are handed on as plain records (`CallRecord`, exportWorker.ts)
 * — to the export worker, which makes, fills and ends each SDK span with the trace's own times and
 * the ids chosen at the start, and records the metric; no SDK span is made on this thread. (Made at
 * the next turn of the event loop instead, each call's span ran inside the next call's steps.) The
 * records are already redacted: their attributes come from the trace's stored events, the payloads
 * from the redacted store. A backlog beyond MAX_BACKLOG is dropped and counted.
 */
import type { Attributes, SpanContext } from '@opentelemetry/api';
import { SpanKind, TraceFlags, trace as traceApi } from '@opentelemetry/api';
import { SamplingDecision, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace';
import type { TraceEvent, TraceSummary } from '../../shared/traces.js';
import type { ObservedTrace, TraceObserver } from '../tracing/tracer.js';
import * as A from './attributes.js';
import { currentContext, propagationOf } from './context.js';
import type { CallRecord, PlainContext } from './exportWorker.js';
import { expectRequestId } from './requestIds.js';

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
  /** Where the ended calls go, as plain records (the export pipeline: to its worker). */
  send: (records: CallRecord[]) => void;
  /** The SDK's random ids: a call's span ids are chosen here, when it starts (the span is made later). */
  ids: { newTraceId(): string; newSpanId(): string };
  /** The share of new traces kept (the provider's root sampler decides the same from the same trace id). */
  sampleRatio: number;
  /** The server's connection as the client span describes it. */
  describeServer: (serverId: string) => ServerDescription | undefined;
  /** The id of built-in tools (`local`): their calls run in-process, no MCP request. */
  localServerId: string;
  /** Told each call's exported trace id (the Traces view links to it). */
  linked?: (traceId: string, externalTraceId: string) => void;
  /** Told of spans dropped because the backlog was full. */
  dropped?: (count: number) => void;
  /**
   * Opt-in: the call's arguments and result (redacted, size-capped) for `gen_ai.tool.call.*`.
   * Read when the span is made, after the call returned; undefined when the person did not turn it on.
   */
  payloads?: ((trace: TraceSummary) => Payloads | undefined | Promise<Payloads | undefined>) | undefined;
  /** `mcp.client.operation.duration` is recorded: each request sent for a call (every call's, sampled or not). */
  measured: boolean;
}

/** A call's opt-in payload attributes (redacted, capped). */
type Payloads = { arguments?: string; result?: string };

/** Ended calls waiting for their span; more are dropped (counted). */
const MAX_BACKLOG = 4096;
/** How long ended calls wait for their spans: one batch per interval, not one turn of the event loop per call. */
const DRAIN_DELAY_MS = 100;

export class CallSpans implements TraceObserver {
  readonly #sampler: TraceIdRatioBasedSampler;
  #backlog: ObservedCall[] = [];
  #scheduled = false;
  /** Batches whose payloads are being read (PostgreSQL): their spans are made once the reads answer. */
  readonly #reading = new Set<Promise<void>>();

  constructor(private readonly options: CallSpanOptions) {
    this.#sampler = new TraceIdRatioBasedSampler(options.sampleRatio);
  }

  started(trace: TraceSummary): ObservedTrace {
    const context = currentContext();
    const found = traceApi.getSpanContext(context);
    const parent = found && traceApi.isSpanContextValid(found) ? found : undefined;
    const ids = this.options.ids;
    const traceId = parent ? parent.traceId : ids.newTraceId();
    const sampled = parent
      ? (parent.traceFlags & TraceFlags.SAMPLED) !== 0
      : this.#sampler.shouldSample(context, traceId).decision === SamplingDecision.RECORD_AND_SAMPLED;
    const call = new ObservedCall(this, trace, parent, traceId, ids.newSpanId(), sampled, this.options.measured);
    if (sampled) this.options.linked?.(trace.traceId, traceId);
    return call;
  }

  /** An ended call: its span is made after the call returned. */
  enqueue(call: ObservedCall): void {
    if (this.#backlog.length >= MAX_BACKLOG) {
      this.options.dropped?.(1);
      return;
    }
    this.#backlog.push(call);
    if (this.#scheduled) return;
    this.#scheduled = true;
    // Unref'd: a backlog never holds the process open (closing drains it).
    setTimeout(() => void this.drain(), DRAIN_DELAY_MS).unref();
  }

  /**
   * Makes the spans of every ended call now (each batch after the calls; at once before a flush). With payloads
   * read later (PostgreSQL), the batch's spans are made when its reads answered: the promise says when.
   */
  drain(): Promise<void> {
    this.#scheduled = false;
    const batch = this.#backlog;
    this.#backlog = [];
    const read = this.options.payloads;
    const found = batch.map((call) =>
      read && call.sampled ? readPayloads(read, call.ended ?? call.trace) : undefined,
    );
    if (!found.some((payloads) => payloads instanceof Promise)) {
      this.#send(batch, found as Array<Payloads | undefined>);
    } else {
      const reading = Promise.all(found).then((all) => this.#send(batch, all));
      this.#reading.add(reading);
      void reading.finally(() => this.#reading.delete(reading));
    }
    return Promise.all(this.#reading).then(() => undefined);
  }

  #send(batch: ObservedCall[], payloads: Array<Payloads | undefined>): void {
    const records: CallRecord[] = [];
    batch.forEach((call, i) => {
      const record = this.#record(call, payloads[i]);
      if (record) records.push(record);
    });
    if (records.length > 0) this.options.send(records);
  }

  /** The call as the export worker takes it; undefined when there is nothing to export or measure. */
  #record(call: ObservedCall, payloads: Payloads | undefined): CallRecord | undefined {
    const { trace, attributes } = call;
    const local = trace.serverId === this.options.localServerId;
    identify(attributes, trace);
    if (!local) {
      attributes[A.MCP_METHOD_NAME] = 'tools/call';
      describe(attributes, this.options.describeServer(trace.serverId));
    }
    // A built-in tool's call sends no MCP request and has no client metric.
    const requests = !local && call.requests.length > 0 ? call.requests : undefined;
    if (!call.sampled && !requests) return undefined;
    const ended = call.ended ?? trace;
    if (payloads?.arguments !== undefined) attributes[A.GEN_AI_TOOL_CALL_ARGUMENTS] = payloads.arguments;
    if (payloads?.result !== undefined) attributes[A.GEN_AI_TOOL_CALL_RESULT] = payloads.result;
    return {
      span: call.sampled,
      name: local ? `execute_tool ${trace.toolName}` : `tools/call ${trace.toolName}`,
      kind: local ? SpanKind.INTERNAL : SpanKind.CLIENT,
      traceId: call.traceId,
      spanId: call.spanId,
      parent: call.parent && plainContextOf(call.parent),
      start: trace.startedAt,
      end: ended.endedAt ?? Date.now(),
      attributes,
      events: call.events.length > 0 ? call.events : undefined,
      errorMessage: ended.error?.message,
      requests,
    };
  }
}

function plainContextOf(context: SpanContext): PlainContext {
  return {
    traceId: context.traceId,
    spanId: context.spanId,
    traceFlags: context.traceFlags,
    isRemote: context.isRemote,
    traceState: context.traceState?.serialize(),
  };
}

/** A call's payloads, now or later; one that cannot be read is left out (the payload is optional, the span is not). */
function readPayloads(
  read: NonNullable<CallSpanOptions['payloads']>,
  trace: TraceSummary,
): Payloads | undefined | Promise<Payloads | undefined> {
  try {
    const found = read(trace);
    return found instanceof Promise ? found.catch(() => undefined) : found;
  } catch {
    return undefined;
  }
}

/** The call's own attributes, added after it ended (off the call path). */
function identify(attributes: Attributes, trace: TraceSummary): void {
  attributes[A.GEN_AI_OPERATION_NAME] = 'execute_tool';
  attributes[A.GEN_AI_TOOL_NAME] = trace.toolName;
  attributes[A.MH_SERVER_ID] = trace.serverId;
  attributes[A.MH_CHECKPOINT_SESSION] = trace.sessionId;
  attributes[A.MH_CHECKPOINT_CALL] = trace.callId;
  attributes[A.MH_TRACE_ID] = trace.traceId;
  attributes[A.MH_CALLER] = trace.userId;
}

function describe(attributes: Attributes, server: ServerDescription | undefined): void {
  if (!server) return;
  if (server.protocolVersion) attributes[A.MCP_PROTOCOL_VERSION] = server.protocolVersion;
  if (server.transport) attributes[A.ATTR_NETWORK_TRANSPORT] = server.transport;
  if (server.address) attributes[A.ATTR_SERVER_ADDRESS] = server.address;
  if (server.port !== undefined) attributes[A.ATTR_SERVER_PORT] = server.port;
  if (server.sessionId) attributes[A.MCP_SESSION_ID] = server.sessionId;
}

/** One call while it runs: the ids chosen at its start and the attributes its events set. */
class ObservedCall implements ObservedTrace {
  /** What the call's events said; the call's own identity is added when its record is made (identify). */
  readonly attributes: Attributes = {};
  readonly events: NonNullable<CallRecord['events']> = [];
  ended: TraceSummary | undefined;
  /** The MCP requests sent (each attempt): how long each took (ms) and how it failed, for the client metric. */
  readonly requests: NonNullable<CallRecord['requests']> = [];
  #propagation: Record<string, string> | undefined;
  #forgetRequestId: (() => void) | undefined;
  #attempts = 0;
  #toolError = false;
  #sandboxViolations = 0;
  #toolChanged = false;
  #approved = false;

  constructor(
    private readonly owner: CallSpans,
    readonly trace: TraceSummary,
    /** The span it runs under (a gateway request, an agent run, an agent's own trace), if any. */
    readonly parent: SpanContext | undefined,
    readonly traceId: string,
    readonly spanId: string,
    readonly sampled: boolean,
    private readonly measured: boolean,
  ) {}

  /** The W3C context of this call's span (made later with these ids): `traceparent`, and the parent's `tracestate`. */
  get propagation(): Readonly<Record<string, string>> {
    if (this.#propagation) return this.#propagation;
    const traceState = this.parent?.traceState;
    this.#propagation = propagationOf(
      traceApi.wrapSpanContext({
        traceId: this.traceId,
        spanId: this.spanId,
        traceFlags: this.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
        ...(traceState ? { traceState } : {}),
      }),
    );
    // The request that carries it tells its JSON-RPC id (requestIds.ts); a retry's id replaces the first.
    const traceparent = this.#propagation.traceparent;
    if (this.sampled && traceparent)
      this.#forgetRequestId = expectRequestId(traceparent, (id) => void (this.attributes[A.JSONRPC_REQUEST_ID] = id));
    return this.#propagation;
  }

  event(event: TraceEvent): void {
    const data = event.data as Record<string, unknown>;
    if (this.measured && event.type === 'attempt_finished' && typeof data.durationMs === 'number') {
      const error = data.error as { code?: unknown } | undefined;
      this.requests.push([
        data.durationMs,
        data.outcome === 'error' ? (typeof error?.code === 'string' ? error.code : '_OTHER') : undefined,
      ]);
    }
    if (event.type === 'completed') this.#toolError = data.isError === true;
    if (!this.sampled) return;
    const set = this.#set;
    switch (event.type) {
      case 'decision':
        // The first decision is the rules'; a later one says what let an ASK through (a session grant).
        if (data.kind === 'session-grant') set(A.MH_APPROVAL_BY, 'session-grant');
        else if (data.kind !== 'warning') {
          // The tool's definition changed since it was pinned (pins.ts): it asked again whatever the rules said.
          if (data.kind === 'tool-changed') this.#toolChanged = true;
          set(A.MH_PERMISSION_DECISION, data.outcome);
          set(A.MH_PERMISSION_KIND, data.kind);
          set(A.MH_PERMISSION_RULE_ID, data.ruleId);
          if (data.outcome === 'allow') set(A.MH_APPROVAL_BY, 'rule');
        }
        return;
      case 'approval_answered':
        set(A.MH_APPROVAL_BY, 'person');
        this.#approved = data.approved === true;
        set(A.MH_APPROVAL_ANSWER, data.answeredBy);
        set(A.MH_APPROVAL_WAIT_MS, data.waitedMs);
        if (data.timedOut === true) set(A.MH_APPROVAL_TIMED_OUT, true);
        this.events.push(['miniharness.approval', { answer: String(data.answeredBy ?? '') }, event.at]);
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
      case 'sandbox_violation':
        this.#sandboxViolations++;
        return;
      default:
        return;
    }
  }

  /** Sets an attribute from an event's field when an attribute can hold it (made once per call, not per event). */
  readonly #set = (key: string, value: unknown): void => {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      this.attributes[key] = value;
  };

  finished(trace: TraceSummary): void {
    this.#forgetRequestId?.();
    const last = this.requests.at(-1);
    if (last && this.#toolError) last[1] ??= 'tool_error';
    if (!this.sampled) {
      // Not exported, but measured: the metric counts every call.
      if (this.requests.length > 0) this.owner.enqueue(this);
      return;
    }
    const attributes = this.attributes;
    if (this.#sandboxViolations > 0) attributes[A.MH_SANDBOX_VIOLATIONS] = this.#sandboxViolations;
    if (this.#toolChanged) attributes[A.MH_PINNING_CHANGE] = this.#approved ? 'reapproved' : 'refused';
    attributes[A.MH_CALL_OUTCOME] = trace.status;
    attributes[A.MH_CALL_EXECUTION] =
      trace.status === 'replayed' ? 'replay' : this.#attempts > 0 ? 'execution' : 'none';
    if (this.#attempts > 0) attributes[A.MH_CALL_ATTEMPTS] = this.#attempts;
    if (trace.status === 'denied') attributes[A.MH_APPROVAL_BY] = 'nobody';
    const errorType = errorTypeOf(trace, this.#toolError);
    if (errorType) attributes[A.ATTR_ERROR_TYPE] = errorType;
    this.ended = trace;
    this.owner.enqueue(this);
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
