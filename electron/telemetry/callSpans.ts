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
 * given its `traceparent` at once) and the sampling decided; its events are only kept, as stored. Every
 * DRAIN_DELAY_MS the calls ended since are handed on as plain records (`CallRecord`, exportWorker.ts)
 * — to the export worker, which makes, fills and ends each SDK span with the trace's own times and
 * the ids chosen at the start, and records the metric; no SDK span is made on this thread. (Made at
 * the next turn of the event loop instead, each call's span ran inside the next call's steps.) The
 * records are already redacted: their attributes come from the trace's stored events, the payloads
 * from the redacted store. A backlog beyond MAX_BACKLOG is dropped and counted.
 */
import type { Attributes, Context, SpanContext, TraceState } from '@opentelemetry/api';
import { ROOT_CONTEXT, SpanKind, TraceFlags, trace as traceApi } from '@opentelemetry/api';
import { SamplingDecision, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace';
import type { TraceEvent, TraceSummary } from '../../shared/traces.js';
import type { ObservedTrace, TraceObserver } from '../tracing/tracer.js';
import * as A from './attributes.js';
import { currentContext } from './context.js';
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
  readonly #sampler: TraceIdRatioBasedSampler | undefined;
  #backlog: ObservedCall[] = [];
  #scheduled = false;
  /** Batches whose payloads are being read (PostgreSQL): their spans are made once the reads answer. */
  readonly #reading = new Set<Promise<void>>();

  constructor(private readonly options: CallSpanOptions) {
    // Every trace kept (or none): no sampler to ask per call.
    const ratio = options.sampleRatio;
    this.#sampler = ratio > 0 && ratio < 1 ? new TraceIdRatioBasedSampler(ratio) : undefined;
  }

  started(trace: TraceSummary): ObservedTrace {
    const context = currentContext();
    const found = context === ROOT_CONTEXT ? undefined : traceApi.getSpanContext(context);
    const parent = found && traceApi.isSpanContextValid(found) ? found : undefined;
    const traceId = parent ? parent.traceId : this.options.ids.newTraceId();
    const sampled = parent ? (parent.traceFlags & TraceFlags.SAMPLED) !== 0 : this.#sampledRoot(context, traceId);
    return new ObservedCall(this, trace, parent, traceId, this.options.ids.newSpanId(), sampled);
  }

  #sampledRoot(context: Context, traceId: string): boolean {
    if (!this.#sampler) return this.options.sampleRatio >= 1;
    return this.#sampler.shouldSample(context, traceId).decision === SamplingDecision.RECORD_AND_SAMPLED;
  }

  /** An ended call: its span is made after the call returned. */
  enqueue(call: ObservedCall): void {
    // Neither exported nor measured: nothing to make.
    if (!call.sampled && !this.options.measured) return;
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
    const { trace } = call;
    const local = trace.serverId === this.options.localServerId;
    const read = readEvents(call, this.options.measured && !local);
    // A built-in tool's call sends no MCP request and has no client metric.
    const requests = read.requests.length > 0 ? read.requests : undefined;
    if (!call.sampled && !requests) return undefined;
    const ended = call.ended ?? trace;
    const attributes = read.attributes;
    identify(attributes, trace);
    if (!local) {
      attributes[A.MCP_METHOD_NAME] = 'tools/call';
      describe(attributes, this.options.describeServer(trace.serverId));
    }
    if (call.requestId !== undefined) attributes[A.JSONRPC_REQUEST_ID] = call.requestId;
    if (payloads?.arguments !== undefined) attributes[A.GEN_AI_TOOL_CALL_ARGUMENTS] = payloads.arguments;
    if (payloads?.result !== undefined) attributes[A.GEN_AI_TOOL_CALL_RESULT] = payloads.result;
    if (call.sampled) this.options.linked?.(trace.traceId, call.traceId);
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
      events: read.events.length > 0 ? read.events : undefined,
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

/**
 * One call while it runs: the ids chosen at its start, and its events as the tracer stored them (redacted).
 * Nothing is read from them until the call's record is made (readEvents), in the batch after the call: a
 * call's own path only keeps them — work spread over every call's steps costs each call more than the same
 * work done for a batch at once.
 */
class ObservedCall implements ObservedTrace {
  readonly events: TraceEvent[] = [];
  ended: TraceSummary | undefined;
  /** The JSON-RPC id of the request that carried this call's `traceparent` (the last, after a retry). */
  requestId: string | undefined;
  #propagation: Record<string, string> | undefined;
  #forgetRequestId: (() => void) | undefined;

  constructor(
    private readonly owner: CallSpans,
    readonly trace: TraceSummary,
    /** The span it runs under (a gateway request, an agent run, an agent's own trace), if any. */
    readonly parent: SpanContext | undefined,
    readonly traceId: string,
    readonly spanId: string,
    readonly sampled: boolean,
  ) {}

  /** The W3C context of this call's span (made later with these ids): `traceparent`, and the parent's `tracestate`. */
  get propagation(): Readonly<Record<string, string>> {
    if (this.#propagation) return this.#propagation;
    this.#propagation = traceContextOf(this.traceId, this.spanId, this.sampled, this.parent?.traceState);
    // The request that carries it tells its JSON-RPC id (requestIds.ts); a retry's id replaces the first.
    if (this.sampled)
      this.#forgetRequestId = expectRequestId(this.#propagation.traceparent as string, (id) => (this.requestId = id));
    return this.#propagation;
  }

  event(event: TraceEvent): void {
    this.events.push(event);
  }

  finished(trace: TraceSummary): void {
    this.#forgetRequestId?.();
    this.ended = trace;
    this.owner.enqueue(this);
  }
}

/**
 * The W3C Trace Context entries of a span context, as the official W3CTraceContextPropagator writes them
 * (version 00, the ids, the sampled flag; the trace state as it is). Written here because the propagator
 * wants a Context around a Span object for the same two strings (test/telemetry/traceContext.test.ts holds
 * them equal).
 */
export function traceContextOf(
  traceId: string,
  spanId: string,
  sampled: boolean,
  traceState: TraceState | undefined,
): Record<string, string> {
  const traceparent = `00-${traceId}-${spanId}-${sampled ? '01' : '00'}`;
  return traceState ? { traceparent, tracestate: traceState.serialize() } : { traceparent };
}

/** What a call's events say: its span's attributes and events, and the MCP requests sent (for the client metric). */
interface ReadEvents {
  attributes: Attributes;
  events: NonNullable<CallRecord['events']>;
  requests: NonNullable<CallRecord['requests']>;
}

/** Reads an ended call's events (off the call path); `measured`: its requests count in the client metric. */
function readEvents(call: ObservedCall, measured: boolean): ReadEvents {
  const attributes: Attributes = {};
  const events: ReadEvents['events'] = [];
  const requests: ReadEvents['requests'] = [];
  let attempts = 0;
  let toolError = false;
  let sandboxViolations = 0;
  let toolChanged = false;
  let approved = false;
  // Sets an attribute from an event's field when an attribute can hold it.
  const set = (key: string, value: unknown): void => {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') attributes[key] = value;
  };
  for (const event of call.events) {
    const data = event.data as Record<string, unknown>;
    switch (event.type) {
      case 'decision':
        // The first decision is the rules'; a later one says what let an ASK through (a session grant).
        if (data.kind === 'session-grant') set(A.MH_APPROVAL_BY, 'session-grant');
        else if (data.kind !== 'warning') {
          // The tool's definition changed since it was pinned (pins.ts): it asked again whatever the rules said.
          if (data.kind === 'tool-changed') toolChanged = true;
          set(A.MH_PERMISSION_DECISION, data.outcome);
          set(A.MH_PERMISSION_KIND, data.kind);
          set(A.MH_PERMISSION_RULE_ID, data.ruleId);
          if (data.outcome === 'allow') set(A.MH_APPROVAL_BY, 'rule');
        }
        break;
      case 'approval_answered':
        set(A.MH_APPROVAL_BY, 'person');
        approved = data.approved === true;
        set(A.MH_APPROVAL_ANSWER, data.answeredBy);
        set(A.MH_APPROVAL_WAIT_MS, data.waitedMs);
        if (data.timedOut === true) set(A.MH_APPROVAL_TIMED_OUT, true);
        events.push(['miniharness.approval', { answer: String(data.answeredBy ?? '') }, event.at]);
        break;
      case 'claim':
        set(A.MH_CHECKPOINT_CLAIM, data.outcome);
        break;
      case 'attempt_started':
        attempts = Math.max(attempts, data.attempt as number);
        break;
      case 'attempt_finished':
        if (measured && typeof data.durationMs === 'number') {
          const error = data.error as { code?: unknown } | undefined;
          requests.push([
            data.durationMs,
            data.outcome === 'error' ? (typeof error?.code === 'string' ? error.code : '_OTHER') : undefined,
          ]);
        }
        break;
      case 'completed':
        toolError = data.isError === true;
        break;
      case 'task':
        set(A.MH_TASK_ID, data.taskId);
        break;
      case 'sandbox_violation':
        sandboxViolations++;
        break;
      default:
        break;
    }
  }
  const last = requests.at(-1);
  if (last && toolError) last[1] ??= 'tool_error';
  const trace = call.ended;
  if (call.sampled && trace) {
    if (sandboxViolations > 0) attributes[A.MH_SANDBOX_VIOLATIONS] = sandboxViolations;
    if (toolChanged) attributes[A.MH_PINNING_CHANGE] = approved ? 'reapproved' : 'refused';
    attributes[A.MH_CALL_OUTCOME] = trace.status;
    attributes[A.MH_CALL_EXECUTION] = trace.status === 'replayed' ? 'replay' : attempts > 0 ? 'execution' : 'none';
    if (attempts > 0) attributes[A.MH_CALL_ATTEMPTS] = attempts;
    if (trace.status === 'denied') attributes[A.MH_APPROVAL_BY] = 'nobody';
    const errorType = errorTypeOf(trace, toolError);
    if (errorType) attributes[A.ATTR_ERROR_TYPE] = errorType;
  }
  return { attributes, events, requests };
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
