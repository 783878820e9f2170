/**
 * What a loopback HTTP server of the app (the agent gateway, the browser-mode host) holds open
 * for anyone who connects, bounded with node:http's own options: how many connections at once
 * (`maxConnections`: beyond it a new socket is closed at once), how long the headers may take
 * (`headersTimeout`) and the whole request with its body (`requestTimeout` → 408, then the
 * connection closes). Without them a few hundred sockets that send slowly, or nothing, were held
 * for minutes each. The timeouts bound receiving a request only, never a response being streamed
 * (an approval that waits, a notification stream).
 */
import type { Server, ServerOptions } from 'node:http';
import type { Duplex } from 'node:stream';

export interface HttpLimits {
  /** Connections open at once (default DEFAULT_HTTP_LIMITS.maxConnections). */
  maxConnections: number;
  /** The time to receive a whole request, headers and body (default 30 s; the headers get at most 10 s of it). */
  requestTimeoutMs: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = { maxConnections: 512, requestTimeoutMs: 30_000 };

/** node:http's options for `limits` (the timeouts are checked at a tenth of the request timeout, at most every second). */
export function httpServerOptions(limits: HttpLimits): ServerOptions {
  const requestTimeout = Math.max(1, limits.requestTimeoutMs);
  return {
    requestTimeout,
    headersTimeout: Math.min(10_000, requestTimeout),
    connectionsCheckingInterval: Math.max(1, Math.min(1_000, Math.floor(requestTimeout / 10))),
  };
}

/** Applies the connection cap to a created server. */
export function capConnections(server: Server, limits: HttpLimits): void {
  server.maxConnections = limits.maxConnections;
}

/**
 * A `clientError` listener that answers as node:http would without one — 408 for a request that
 * took too long, 400 for a malformed one — in a sentence naming the app, then closes; a reset
 * socket is only let go. Never throws.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, product: string): void {
  const pending = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || pending?.headersSent) {
    socket.destroy();
    return;
  }
  const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const status = timedOut
    ? '408 Request Timeout'
    : error.code === 'HPE_HEADER_OVERFLOW'
      ? '431 Request Header Fields Too Large'
      : '400 Bad Request';
  const message = timedOut
    ? `${product} did not receive the whole request in time; the connection is closed.`
    : `${product} could not read this request.`;
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message }, id: null });
  socket.end(
    `HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: application/json\r\nCache-Control: no-store\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
