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

/** What a handler's context offers (the SDK's ServerContext, read structurally). */
interface HandlerContext {
  sessionId?: string | undefined;
  mcpReq?: { id?: unknown; _meta?: Record<string, unknown> | undefined; envelope?: unknown };
  http?: { req?: { headers?: { get(name: string): string | null } } | undefined } | undefined;
}

export type GatewayEra = '2025' | '2026-07-28';

const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';

export class RequestSpans {
  /** The tracer while export is on, else undefined (every request then runs untouched). */
  constructor(
    private readonly tracer: () => Tracer | undefined,
    private readonly redactText: (text: string) => string,
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
    const span = this.#start(tracer, method, params, ctx, era, caller);
    let result: T;
    try {
      result = runWithSpan(span, handler);
    } catch (error) {
      endWithError(span, error);
      throw error;
    }
    if (result instanceof Promise) {
      result.then(
        (value: unknown) => endWithResult(span, value),
        (error: unknown) => endWithError(span, error),
      );
    } else endWithResult(span, result);
    return result;
  }

  #start(
    tracer: Tracer,
    method: string,
    params: Record<string, unknown> | undefined,
    ctx: HandlerContext | undefined,
    era: GatewayEra,
    caller: string | undefined,
  ): Span {
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
    return tracer.startSpan(target ? `${method} ${target}` : method, { kind: SpanKind.SERVER, attributes }, parent);
  }
}

function endWithResult(span: Span, value: unknown): void {
  if (value && typeof value === 'object' && (value as { isError?: unknown }).isError === true) {
    span.setAttribute(A.ATTR_ERROR_TYPE, 'tool_error');
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

function endWithError(span: Span, error: unknown): void {
  const code = error && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
  const type = typeof code === 'number' || typeof code === 'string' ? String(code) : '_OTHER';
  span.setAttribute(A.ATTR_ERROR_TYPE, type);
  if (typeof code === 'number') span.setAttribute(A.RPC_RESPONSE_STATUS_CODE, String(code));
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

type AnyHandler = (request: { params?: Record<string, unknown> }, ctx: HandlerContext) => unknown;

/**
 * Puts every request handler registered on `server` from now on under a server span. The SDK's
 * `Server` has no hook for this; its `setRequestHandler` takes the handler last, in each overload.
 */
export function traceRequests(
  server: { setRequestHandler: (...args: never[]) => unknown },
  spans: RequestSpans,
  era: GatewayEra,
  caller: () => string | undefined,
): void {
  const target = server as unknown as { setRequestHandler: (...args: unknown[]) => unknown };
  const original = target.setRequestHandler.bind(server);
  target.setRequestHandler = (...args: unknown[]) => {
    const method = args[0];
    const handler = args[args.length - 1] as AnyHandler;
    if (typeof method !== 'string' || typeof handler !== 'function') return original(...args);
    const traced: AnyHandler = (request, ctx) =>
      spans.serve(method, request.params, ctx, era, caller(), () => handler(request, ctx));
    return original(...args.slice(0, -1), traced);
  };
}
