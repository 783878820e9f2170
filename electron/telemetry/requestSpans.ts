/**
 * The gateway's side: each request an agent sends MiniHarness is an MCP server span
 * (`{mcp.method.name} {target}`, kind SERVER), in both eras. Its parent is the agent's own trace
 * context when it sent one — `params._meta.traceparent` (2026-07-28, and any agent that follows
 * the MCP conventions), else the HTTP `traceparent` header (a 2025 session) — so the agent's
 * trace shows MiniHarness and, under it, the call to the server. The call traces started while
 * the request is served (the pipeline's spans, callSpans.ts) are its children.
 */
import type { Attributes, Span, Tracer } from '@opentelemetry/api';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import * as A from './attributes.js';
import { extractContext, hasRemoteParent, runWithSpan } from './context.js';
import type { GatewayServer } from '../mcp/sdkAdapter.js';
import { metricAttributes } from './metrics.js';

/** What a handler's context offers (the SDK's ServerContext, read structurally). */
interface HandlerContext {
  sessionId?: string | undefined;
  mcpReq?: { id?: unknown; _meta?: Record<string, unknown> | undefined; envelope?: unknown };
  http?: { req?: { headers?: { get(name: string): string | null } } | undefined } | undefined;
}

export type GatewayEra = '2025' | '2026-07-28';

/** Where a served request's duration goes (`mcp.server.operation.duration`: the export pipeline, exportPipeline.ts). */
export interface ServedMetric {
  server(seconds: number, attributes: Attributes): void;
}

const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';

export class RequestSpans {
  /** The tracer while export is on, else undefined (every request then runs untouched). */
  constructor(
    private readonly tracer: () => Tracer | undefined,
    private readonly redactText: (text: string) => string,
    /** `mcp.server.operation.duration` while export is on. */
    private readonly metrics: () => ServedMetric | undefined = () => undefined,
  ) {}

  /** Serves one request under its span (or directly, when export is off). */
  serve<T>(
    method: string,
    params: Record<string, unknown> | undefined,
    ctx: HandlerContext | undefined,
    era: GatewayEra,
    caller: string | undefined,
    handler: () => T,
  ): T {
    const tracer = this.tracer();
    if (!tracer) return handler();
    const { span, attributes } = this.#start(tracer, method, params, ctx, era, caller);
    const served = new Served(span, attributes, this.metrics(), performance.now());
    let result: T;
    try {
      result = runWithSpan(span, handler);
    } catch (error) {
      served.failed(error);
      throw error;
    }
    if (result instanceof Promise) {
      result.then(
        (value: unknown) => served.answered(value),
        (error: unknown) => served.failed(error),
      );
    } else served.answered(result);
    return result;
  }

  #start(
    tracer: Tracer,
    method: string,
    params: Record<string, unknown> | undefined,
    ctx: HandlerContext | undefined,
    era: GatewayEra,
    caller: string | undefined,
  ): { span: Span; attributes: Attributes } {
    const meta = ctx?.mcpReq?._meta ?? (params?._meta as Record<string, unknown> | undefined);
    let parent = extractContext(meta);
    const headers = ctx?.http?.req?.headers;
    if (!hasRemoteParent(parent) && headers) {
      const traceparent = headers.get('traceparent');
      const tracestate = headers.get('tracestate');
      if (traceparent) parent = extractContext({ traceparent, ...(tracestate ? { tracestate } : {}) });
    }
    const attributes: Attributes = {
      [A.MCP_METHOD_NAME]: method,
      [A.ATTR_NETWORK_TRANSPORT]: 'tcp',
      [A.MH_GATEWAY_ERA]: era,
    };
    const id = ctx?.mcpReq?.id;
    if (typeof id === 'string' || typeof id === 'number') attributes[A.JSONRPC_REQUEST_ID] = String(id);
    if (ctx?.sessionId) attributes[A.MCP_SESSION_ID] = ctx.sessionId;
    const envelope = ctx?.mcpReq?.envelope as Record<string, unknown> | undefined;
    const version = envelope?.[PROTOCOL_VERSION_META_KEY] ?? headers?.get('mcp-protocol-version');
    if (typeof version === 'string') attributes[A.MCP_PROTOCOL_VERSION] = version;
    if (caller) attributes[A.MH_CALLER] = caller;
    let target: string | undefined;
    const name = typeof params?.name === 'string' ? params.name : undefined;
    if (method === 'tools/call' && name) {
      target = name;
      attributes[A.GEN_AI_TOOL_NAME] = name;
      attributes[A.GEN_AI_OPERATION_NAME] = 'execute_tool';
    } else if (method === 'prompts/get' && name) {
      target = name;
      attributes[A.GEN_AI_PROMPT_NAME] = name;
    }
    // A URI may carry a credential (a query): the same redaction as the traces.
    if (typeof params?.uri === 'string') attributes[A.MCP_RESOURCE_URI] = this.redactText(params.uri);
    const span = tracer.startSpan(
      target ? `${method} ${target}` : method,
      { kind: SpanKind.SERVER, attributes },
      parent,
    );
    return { span, attributes };
  }
}

/** One request being served: its span ends, and the server metric is recorded, when it is answered. */
class Served {
  constructor(
    private readonly span: Span,
    private readonly attributes: Attributes,
    private readonly metrics: ServedMetric | undefined,
    private readonly startedAt: number,
  ) {}

  answered(value: unknown): void {
    if (value && typeof value === 'object' && (value as { isError?: unknown }).isError === true) {
      this.#set(A.ATTR_ERROR_TYPE, 'tool_error');
      this.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    this.#end();
  }

  failed(error: unknown): void {
    const code = error && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
    this.#set(A.ATTR_ERROR_TYPE, typeof code === 'number' || typeof code === 'string' ? String(code) : '_OTHER');
    if (typeof code === 'number') this.#set(A.RPC_RESPONSE_STATUS_CODE, String(code));
    this.span.setStatus({ code: SpanStatusCode.ERROR });
    this.#end();
  }

  #set(key: string, value: string): void {
    this.attributes[key] = value;
    this.span.setAttribute(key, value);
  }

  #end(): void {
    this.span.end();
    this.metrics?.server((performance.now() - this.startedAt) / 1000, metricAttributes(this.attributes));
  }
}

/**
 * Puts every request `server` serves under a server span: the ones our handlers answer and the
 * ones the SDK answers itself (`initialize`, `ping`, `server/discover`, `logging/setLevel`),
 * through the adapter's request hook (mcp/sdkAdapter.ts: the SDK has no request middleware).
 */
export function traceRequests(
  server: Pick<GatewayServer, 'onRequest'>,
  spans: RequestSpans,
  era: GatewayEra,
  caller: () => string | undefined,
): void {
  server.onRequest((method, request, ctx, next) => spans.serve(method, request.params, ctx, era, caller(), next));
}
