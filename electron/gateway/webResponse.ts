/**
 * Serves a request of a 2025-era session (agentSession.ts) through the SDK's (v2) Web-standard
 * Streamable HTTP transport, and writes its Response back — in place of the SDK's Node wrapper
 * (`NodeStreamableHTTPServerTransport`), which converts the same way. It exists for one
 * difference, measured in bench/gateway.ts:
 *
 * A single JSON-RPC request whose stream starts with its own response — a call that asked for no
 * progress, so nothing comes before the answer — is answered with one `application/json` body
 * (which the protocol allows for any POST) instead of an SSE stream: one write instead of a header
 * flush and several chunks, and no event-stream parsing on the agent's side. The sessionful
 * transport's own `enableJsonResponse` cannot do this: it is fixed for the whole session, and would
 * also hold back the progress notifications (and any server request) of the calls that do ask for
 * them. Here the choice is made per request, by what comes first: anything but the response
 * (progress, a keep-alive comment, a request to the agent) switches to streaming at once, nothing
 * held back.
 *
 * Modern (2026-07-28) requests are written here too (modernAgents.ts): v2's per-request handler
 * (`createMcpHandler`) makes the JSON-or-stream choice itself (its default `responseMode: 'auto'`),
 * so for that era the sniffing finds nothing to change. They get the same Web Request the era
 * decision read — the SDK's Node adapter (`toNodeHandler`) would build a second one per request
 * and serialize the parsed body back into it, which the handler, given `parsedBody`, never reads.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export type WebHandler = (request: Request, options: { parsedBody?: unknown }) => Promise<Response>;

/**
 * What the SDK reads of a request (the transport, `isLegacyRequest` deciding the era, the modern
 * handler): method, URL and headers; the body comes parsed. `signal`: aborted when the agent goes
 * away before its answer is written (the modern handler ends that exchange by it).
 */
export function toWebRequest(req: IncomingMessage, signal?: AbortSignal): Request {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  return new Request(new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`), {
    method: req.method ?? 'GET',
    headers,
    ...(signal ? { signal } : {}),
  });
}

/** A signal aborted when `res` closes before its answer was all written (the agent went away), as the SDK's Node adapter does. */
export function abortedUnanswered(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  if (res.destroyed) controller.abort();
  return controller.signal;
}

/** A body that is one JSON-RPC request (not a batch, not a notification): its answer may come as JSON. */
function isSingleRequest(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && 'method' in body && 'id' in body;
}

const decoder = new TextDecoder();

/**
 * The JSON of an SSE chunk that is a JSON-RPC response, as the SDK writes one (`event: message`,
 * then `data: ` and the message, whose first key is `result`, or `jsonrpc` then `id` for an
 * error); undefined for anything else. A message shaped otherwise is streamed, never lost.
 */
export function responseData(chunk: string): string | undefined {
  const data = /^event: message\n(?:id: [^\n]*\n)?data: ([^\n]*)\n\n$/.exec(chunk)?.[1];
  return data !== undefined && (data.startsWith('{"result":') || data.startsWith('{"jsonrpc":"2.0","id":'))
    ? data
    : undefined;
}

function waitWritable(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Writes `handler`'s Response for `req` to `res`. `request`: the Web Request already built for
 * `req` (the era decision reads one; it has no body, so one serves both). `sniff`: whether a
 * single request's one-message SSE stream may become a JSON body (the 2025 sessions; the modern
 * handler chooses itself).
 */
export async function serveWebRequest(
  req: IncomingMessage,
  res: ServerResponse,
  handler: WebHandler,
  parsedBody: unknown,
  request: Request = toWebRequest(req),
  sniff = true,
): Promise<void> {
  const response = await handler(request, parsedBody === undefined ? {} : { parsedBody });
  const headers = Object.fromEntries(response.headers);
  if (!response.body) return void res.writeHead(response.status, headers).end();
  const reader = response.body.getReader();
  let ended = false;
  // The agent went away: cancelling the body tells the transport its stream is gone.
  res.on('close', () => {
    if (!ended) reader.cancel().catch(() => undefined);
  });
  try {
    let next: Awaited<ReturnType<typeof reader.read>> | undefined;
    if (sniff && isSingleRequest(parsedBody) && headers['content-type'] === 'text/event-stream') {
      const first = await reader.read();
      const data = first.done ? undefined : responseData(decoder.decode(first.value));
      if (data !== undefined) {
        // The SDK ends a request's stream right after its response.
        const rest = await reader.read();
        if (rest.done) {
          const { 'content-type': _sse, 'x-accel-buffering': _buffering, ...kept } = headers;
          res
            .writeHead(response.status, {
              ...kept,
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(data),
            })
            .end(data);
          return;
        }
        res.writeHead(response.status, headers).write(first.value);
        next = rest;
      } else {
        res.writeHead(response.status, headers);
        next = first;
      }
    } else {
      res.writeHead(response.status, headers);
      // A stream that may stay quiet (the agent's GET stream): its headers go out now.
      if (headers['content-type'] === 'text/event-stream') res.flushHeaders();
    }
    for (next ??= await reader.read(); !next.done; next = await reader.read()) {
      if (!res.write(next.value)) await waitWritable(res);
    }
    res.end();
  } finally {
    ended = true;
  }
}
