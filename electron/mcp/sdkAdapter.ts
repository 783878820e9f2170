/**
 * Every place the app works around the MCP TypeScript SDK (v2, 2.4.0): the only file that subclasses
 * the SDK's `Server` and `Client` or reaches past their public API. Each workaround below names the
 * SDK behaviour it works around and the upstream issue where there is one; remove it when the SDK
 * offers the public way.
 *
 * Why the low-level `Server` (deprecated for "the high-level API"; "only use Server for advanced
 * use cases"): the gateway is a forwarder. Its tool, resource and prompt lists are computed per
 * request from the downstream servers' JSON Schemas and the agent's visibility, per agent and per
 * era; `McpServer` registers fixed tools with schemas it validates arguments and results against
 * itself (the downstream server does that, and a second check costs CPU on every call: issue 33).
 * `McpServer.server` is this same class, so nothing would change but one more layer.
 */
import type { JSONRPCResponse as ClientJSONRPCResponse, RequestOptions } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/client';
import type {
  ClientCapabilities,
  Implementation,
  JSONRPCRequest,
  Result,
  ServerContext,
  StandardSchemaV1,
  Transport,
} from '@modelcontextprotocol/server';
import { Server } from '@modelcontextprotocol/server';
import { isPlainObject } from '../util/plainObject.js';

/** What the SDK's Protocol keeps of what waits on a connection: questions to the other side, requests being answered. */
interface ProtocolWaits {
  _responseHandlers: Map<unknown, unknown>;
  _requestHandlerAbortControllers: Map<unknown, AbortController>;
}

/** A handler as the SDK stores it (after its own checks). */
type StoredHandler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/** Runs around every request a server answers, the SDK's own (`initialize`, `ping`, …) included. */
export type RequestHook = (
  method: string,
  request: JSONRPCRequest,
  ctx: ServerContext,
  next: () => Promise<Result>,
) => Promise<Result>;

/**
 * `tools/call` answers handed to the transport as they are: no second check against the era's
 * CallToolResult (see GatewayServer). Only a task answer, or a result valid in every era by its
 * shape (plainInEveryEra), is put here (handAsIs).
 */
const asIs = new WeakSet<Result>();

/** Marks a `tools/call` answer to pass the SDK's result check unchanged (a task answer; a result valid in every era). */
export function handAsIs<T extends Result>(result: T): T {
  asIs.add(result);
  return result;
}

/**
 * Whether a `tools/call` result is valid in every era by its shape alone: text blocks of exactly
 * `type` and a string `text`, structured content that is a plain object, a boolean `isError`, a
 * plain-object `_meta`, nothing else. Such a result is handed on as is (handAsIs): the SDK's check
 * of it against the agent's era is redundant whatever era the server behind speaks. Anything else
 * (an image, annotations, a block one era lacks) is checked by the SDK as before. The loop costs a
 * few ns per block; the check it saves, ~150 ns per block (measured on 1 and 50 text blocks).
 */
export function plainInEveryEra(result: Record<string, unknown>): boolean {
  for (const key in result)
    if (key !== 'content' && key !== 'structuredContent' && key !== 'isError' && key !== '_meta') return false;
  const { content, structuredContent, isError, _meta } = result;
  if (!Array.isArray(content)) return false;
  for (const block of content as unknown[]) {
    if (!isPlainObject(block) || block.type !== 'text' || typeof block.text !== 'string') return false;
    if (Object.keys(block).length !== 2) return false;
  }
  return (
    (structuredContent === undefined || isPlainObject(structuredContent)) &&
    (isError === undefined || typeof isError === 'boolean') &&
    (_meta === undefined || isPlainObject(_meta))
  );
}

/**
 * A `params` schema that accepts what it is given: the SDK's `Server` has already checked the
 * whole `tools/call` request against the era's schema before the handler runs (see GatewayServer).
 */
const CHECKED_BY_SERVER: StandardSchemaV1<Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'miniharness',
    validate: (value) => ({ value: value as Record<string, unknown> }),
  },
};

/** The `tools/call` request's params as the handler reads them. */
export type ToolCallParams = {
  name: string;
  arguments?: Record<string, unknown> | undefined;
  _meta?: Record<string, unknown>;
};

/**
 * The gateway's agent-facing server (see the header for why the low-level `Server`). Over the SDK's
 * own handling it adds:
 *
 * 1. **A task answer to `tools/call`, and results handed on as they are.** The SDK checks every
 *    `tools/call` result against the era's CallToolResult, which a task (`resultType: "task"`, the
 *    tasks extension) is not, and offers no way to return one (modelcontextprotocol/typescript-sdk#2637);
 *    a forwarder's result valid in every era needs no second check (issue 33). An answer marked by
 *    `handAsIs` passes around that check (an empty result is checked in its place, inside
 *    `Server._wrapHandler`, the SDK's documented subclass seam, and the answer put back outside).
 * 2. **One check of a `tools/call` request, not two.** `Server._wrapHandler` validates the request
 *    against the era's schema, and the method-name form of `setRequestHandler` validates it again
 *    before the handler runs. `serveToolCalls` registers with the schema form and a `params` schema
 *    that accepts what the first check passed.
 * 3. **A hook around every request** (`onRequest`), the SDK's own included, for OpenTelemetry's
 *    server spans: the SDK has no request middleware (modelcontextprotocol/typescript-sdk#1264).
 *    Installed through `_wrapHandler` as well, which the constructor's own registrations pass.
 * 4. **The 2025 session's `initialize` identity** (`initialized`): the SDK deprecates its accessors
 *    for the per-request envelope, which a 2025 session does not have; that era's answer is this.
 * 5. **No unused error at every close** (`_onclose`, below).
 */
// eslint-disable-next-line @typescript-eslint/no-deprecated -- the forwarder's low-level Server: the one subclass (see the header)
export class GatewayServer extends Server {
  /** Set after construction; read per request, so the constructor's own handlers have it too. */
  #hook: RequestHook | undefined;
  /** The SDK's handler controllers of the requests whose answer this server has sent (see 5 below). */
  readonly #answered = new WeakSet<AbortController>();

  /** Runs `hook` around every request this server answers (one hook: OpenTelemetry's spans). */
  onRequest(hook: RequestHook): void {
    this.#hook = hook;
  }

  /** `tools/call` with one check of the request (see 2 above). */
  serveToolCalls(handler: (params: ToolCallParams, ctx: ServerContext) => Promise<Result>): void {
    this.setRequestHandler('tools/call', { params: CHECKED_BY_SERVER }, (params, ctx) =>
      handler(params as ToolCallParams, ctx),
    );
  }

  /** A 2025 session's client, as `initialize` declared it (undefined before it). */
  get initialized(): { capabilities?: ClientCapabilities; clientInfo?: Implementation; protocolVersion?: string } {
    /* eslint-disable @typescript-eslint/no-deprecated -- 2025-era accessors: a 2025 session has no per-request envelope (see 4 above) */
    const capabilities = this.getClientCapabilities();
    const clientInfo = this.getClientVersion();
    const protocolVersion = this.getNegotiatedProtocolVersion();
    /* eslint-enable @typescript-eslint/no-deprecated */
    return {
      ...(capabilities ? { capabilities } : {}),
      ...(clientInfo ? { clientInfo } : {}),
      ...(protocolVersion !== undefined ? { protocolVersion } : {}),
    };
  }

  /**
   * 5. **No unused error at every close.** The SDK's close (`Protocol._onclose`) builds a
   *    `ConnectionClosed` error — its stack captured, 5–25 µs with optimized frames on the stack — for
   *    whatever still waits, even when nothing does: a 2026-07-28 agent's server is made and closed
   *    for every request (issue 33). Nothing waits when no question to the client is open and every
   *    request the SDK still tracks has had its answer sent — the per-request transport closes the
   *    server in a microtask right after that answer, before the SDK forgets the request, so the
   *    request's own controller is still listed then; aborting it reaches no handler (the SDK sends
   *    nothing for an aborted request, and this one is answered). Then the error is built without a
   *    stack, and the app's own `onclose` runs right after the SDK's teardown instead of inside it —
   *    the same order, as that teardown has nothing to settle — under the usual stack limit.
   */
  protected override _onclose(): void {
    if (this.#waiting()) {
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- the SDK's own close, in the one subclass
      return super._onclose();
    }
    const onclose = this.onclose;
    this.onclose = undefined;
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- the SDK's own close, in the one subclass
      super._onclose();
    } finally {
      Error.stackTraceLimit = limit;
      this.onclose = onclose;
    }
    onclose?.();
  }

  /** Marks each request's controller once its answer goes out (see 5 above): the SDK offers no hook, so its transport's `send` is wrapped. */
  override async connect(transport: Transport): Promise<void> {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      if ('id' in message && ('result' in message || 'error' in message)) {
        const controller = this.#inside()._requestHandlerAbortControllers.get(message.id);
        if (controller) this.#answered.add(controller);
      }
      return send(message, options);
    };
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the SDK's own connect, in the one subclass
    return super.connect(transport);
  }

  /** Whether the close's error can reach anyone: a question to the client open, or a request not answered yet. */
  #waiting(): boolean {
    const inside = this.#inside();
    if (inside._responseHandlers.size > 0) return true;
    for (const controller of inside._requestHandlerAbortControllers.values())
      if (!this.#answered.has(controller)) return true;
    return false;
  }

  /** The SDK's own bookkeeping of what waits (Protocol's fields, read only). */
  #inside(): ProtocolWaits {
    return this as unknown as ProtocolWaits;
  }

  protected override _wrapHandler(method: string, handler: StoredHandler): StoredHandler {
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the SDK's own handling, in the one subclass
    const wrapped = method === 'tools/call' ? this.#passingAsIs(handler) : super._wrapHandler(method, handler);
    return (request, ctx) => {
      const hook = this.#hook;
      return hook ? hook(method, request, ctx, () => wrapped(request, ctx)) : wrapped(request, ctx);
    };
  }

  #passingAsIs(handler: StoredHandler): StoredHandler {
    /** The as-is answers of the requests in flight, by the request the SDK hands both wrappers. */
    const passing = new WeakMap<JSONRPCRequest, Result>();
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the SDK's own handling, in the one subclass
    const checked = super._wrapHandler('tools/call', async (request, ctx) => {
      const result = await handler(request, ctx);
      if (!asIs.has(result)) return result;
      // The SDK checks an empty result in its place (no exception: a throw costs more than the check it saves).
      passing.set(request, result);
      return { content: [] };
    });
    return async (request, ctx) => {
      const checkedResult = await checked(request, ctx);
      const answer = passing.get(request);
      if (answer === undefined) return checkedResult;
      passing.delete(request);
      return answer;
    };
  }
}

/**
 * The app's `Client` to a downstream server, with the SDK's order of progress and result kept and
 * a seam for a response the SDK would refuse (`answerOf`, tasks/taskWire.ts).
 *
 * Progress before its result: the SDK (`@modelcontextprotocol/client` 2.4.0,
 * `Protocol._onnotification`) runs a notification's handler one microtask later, but a response at
 * once, and the response drops its request's progress handler (`Protocol._onresponse`:
 * `_progressHandlers.delete`). When a server's progress and its result come in one chunk (one stdio
 * read: a busy server, a loaded machine), every progress of that chunk then finds no handler
 * ("unknown token") and is lost — the conformance suite's `tools-call-with-progress` through the
 * gateway lost 50 and 100 so. Here a response waits (a microtask at a time) until the progress that
 * came before it has been handed on; without progress in flight it is dispatched at once. Remove
 * when the SDK dispatches both in order (modelcontextprotocol/typescript-sdk#2580; #2586 only
 * silences the error, the progress stays lost).
 *
 * `answerOf`: the SDK's result decoder knows only `complete` and `input_required` results;
 * `_onresponse` is its documented subclass seam for inbound responses, and a subclass gives here
 * the response to dispatch instead (a task answer as an error of its own: taskWire.ts).
 */
export class SdkClient extends Client {
  /** Progress notifications received whose handler the SDK has not run yet. */
  private progressInFlight = 0;

  /**
   * `tools/call`'s result check, made once per era instead of once per call. The SDK (2.4.0,
   * `Protocol.request` → `codecResultValidator`) first asks the era's codec to validate `undefined`
   * on every request, only to learn whether the method exists in that era: a failed zod parse, a
   * ZodError built and turned into a string (6–7 µs per call in a warm loop, more on a call's deep
   * stack: issue 33), and then returns a check that does exactly what `toolResultCheck` does.
   * `tools/call` is in every era, and a request given its schema is gated by era the same way
   * (`_assertOutboundRequestInEra`), so only the probe is saved; the result is still checked by
   * the era's own codec, with the SDK's own message when it is invalid.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the SDK's two overloads (method-keyed, schema-given), passed through as they are
  override request(request: RequestOf, schemaOrOptions?: unknown, options?: RequestOptions): Promise<any> {
    if (request.method !== 'tools/call' || isStandardSchema(schemaOrOptions))
      return super.request(request as never, schemaOrOptions as never, options);
    return super.request(request as never, toolResultCheck(this._wireCodec()), schemaOrOptions as RequestOptions);
  }

  /** The response to hand the SDK in place of `response` (default: itself). */
  protected answerOf(response: ClientJSONRPCResponse): ClientJSONRPCResponse {
    return response;
  }

  protected override _onnotification(...args: Parameters<Client['_onnotification']>): void {
    super._onnotification(...args);
    if (args[0].method !== 'notifications/progress') return;
    // Queued after the SDK's own microtask for this notification, so it runs after the handler.
    this.progressInFlight++;
    queueMicrotask(() => this.progressInFlight--);
  }

  protected override _onresponse(response: ClientJSONRPCResponse): void {
    if (this.progressInFlight > 0) {
      queueMicrotask(() => this._onresponse(response));
      return;
    }
    super._onresponse(this.answerOf(response));
  }
}

type RequestOf = { method: string; params?: Record<string, unknown> };

/** What SdkClient.request reads of the SDK's era codec (`Protocol._wireCodec()`, its documented accessor for subclasses). */
interface EraCodec {
  readonly era?: string;
  validateResult(
    method: string,
    raw: unknown,
  ): { ok: true; value: unknown } | { ok: false; reason: string; message?: string };
}

/** The check the SDK's `codecResultValidator` makes for a method, one per era codec (there are two). */
const toolResultChecks = new WeakMap<EraCodec, StandardSchemaV1>();

function toolResultCheck(codec: EraCodec): StandardSchemaV1 {
  let check = toolResultChecks.get(codec);
  if (check === undefined) {
    check = {
      '~standard': {
        version: 1,
        vendor: 'miniharness',
        validate(value) {
          const plain = codec.era === PLAIN_CHECKED_ERA ? plainToolResult(value) : undefined;
          if (plain !== undefined) return { value: plain };
          const outcome = codec.validateResult('tools/call', value);
          if (outcome.ok) return { value: outcome.value };
          return {
            issues: [{ message: outcome.reason === 'invalid' ? String(outcome.message) : 'not-in-era: tools/call' }],
          };
        },
      },
    };
    toolResultChecks.set(codec, check);
  }
  return check;
}

/** The era whose CallToolResult schema `plainToolResult` answers for (the 2026-07-28 codec adds its `resultType`: left to it). */
const PLAIN_CHECKED_ERA = '2025-11-25';

/**
 * A `tools/call` result the 2025 era's CallToolResult schema takes, built as that schema's parse
 * builds it, when it is plain (plainInEveryEra, with no `_meta`: the schema checks some of its keys):
 * text blocks `{ type, text }`, then `structuredContent` and `isError` as given, in the schema's
 * key order. Undefined for anything else, which the codec checks as before. A text block costs
 * the schema's union ~150 ns each (GatewayServer's measure); this loop, a few.
 */
function plainToolResult(value: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(value) || !plainInEveryEra(value) || value._meta !== undefined) return undefined;
  const { content, structuredContent, isError } = value as {
    content: Array<{ text: string }>;
    structuredContent?: Record<string, unknown>;
    isError?: boolean;
  };
  // zod's record sets each key by assignment, where a `__proto__` key would not be an own key: left to it.
  if (structuredContent !== undefined && Object.hasOwn(structuredContent, '__proto__')) return undefined;
  const result: Record<string, unknown> = { content: content.map((block) => ({ type: 'text', text: block.text })) };
  if (structuredContent !== undefined) result.structuredContent = { ...structuredContent };
  if (isError !== undefined) result.isError = isError;
  return result;
}

function isStandardSchema(value: unknown): boolean {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && '~standard' in value;
}
