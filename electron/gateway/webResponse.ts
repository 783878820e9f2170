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
 * so for that era the sniffing finds nothing to change; its JSON answers are written whole, with
 * their length (they were chunked: a second write for the end of each). They get the same Web Request the era
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
  const target = req.url ?? '/';
  const base = `http://${req.headers.host ?? '127.0.0.1'}`;
  // A path (the usual request target) is appended to the base as a string, which Request parses once; any other
  // form (absolute, `//…`) is resolved against the base as before.
  const url = target.startsWith('/') && !target.startsWith('//') ? base + target : new URL(target, base);
  return new Request(url, {
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

const ascii = (text: string): Uint8Array => new TextEncoder().encode(text);
const EVENT_LINE = ascii('event: message\n');
const ID_FIELD = ascii('id: ');
const DATA_FIELD = ascii('data: ');
const RESULT_START = ascii('{"result":');
const ERROR_START = ascii('{"jsonrpc":"2.0","id":');
const NEWLINE = 0x0a;

/** Whether `bytes` holds `prefix` at `at` (a plain loop: shorter than a call into native code for these few bytes). */
function startsAt(bytes: Uint8Array, at: number, prefix: Uint8Array): boolean {
  if (bytes.length - at < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[at + i] !== prefix[i]) return false;
  return true;
}

/**
 * The JSON of an SSE chunk that is a JSON-RPC response, as the SDK writes one (`event: message`,
 * an optional `id: ` line, then `data: ` and the message on one line, whose first key is `result`,
 * or `jsonrpc` then `id` for an error, and the blank line that ends the event); undefined for
 * anything else. A message shaped otherwise is streamed, never lost. Read on the bytes as they
 * came (no decoding into a string and encoding back): the answer is written from them as is.
 */
export function responseData(chunk: Uint8Array): Buffer | undefined {
  if (!startsAt(chunk, 0, EVENT_LINE)) return undefined;
  let at = EVENT_LINE.length;
  if (startsAt(chunk, at, ID_FIELD)) {
    const end = chunk.indexOf(NEWLINE, at);
    if (end < 0) return undefined;
    at = end + 1;
  }
  if (!startsAt(chunk, at, DATA_FIELD)) return undefined;
  at += DATA_FIELD.length;
  // The data is one line, and the event's blank line ends the chunk: nothing after it.
  const end = chunk.indexOf(NEWLINE, at);
  if (end < 0 || end !== chunk.length - 2 || chunk[end + 1] !== NEWLINE) return undefined;
  if (!startsAt(chunk, at, RESULT_START) && !startsAt(chunk, at, ERROR_START)) return undefined;
  return Buffer.from(chunk.buffer, chunk.byteOffset + at, end - at);
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
  if (headers['content-type']?.startsWith('application/json')) {
    // One JSON message, whole before it is sent (the modern handler's answers, the SDK's errors): one write with
    // its length, as the 2025 answers below, instead of chunked framing and a second write for its end.
    const whole = response.body.getReader();
    const chunks: Uint8Array[] = [];
    for (let next = await whole.read(); !next.done; next = await whole.read()) chunks.push(next.value);
    const data = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    return void res.writeHead(response.status, { ...headers, 'content-length': data.byteLength }).end(data);
  }
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
      const data = first.done ? undefined : responseData(first.value);
      if (data !== undefined) {
        // The SDK ends a request's stream right after its response.
        const rest = await reader.read();
        if (rest.done) {
          const { 'content-type': _sse, 'x-accel-buffering': _buffering, ...kept } = headers;
          res
            .writeHead(response.status, {
              ...kept,
              'content-type': 'application/json',
              'content-length': data.byteLength,
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
