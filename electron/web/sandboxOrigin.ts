/**
 * Browser mode's MCP Apps sandbox origin: a second loopback HTTP server, on a port of its own (so
 * an origin other than the host page's), that serves only the sandbox proxy page and its script
 * (electron/core/appSandboxPage.ts). No token, no data, no WebSocket: nothing here reaches the
 * app core. Host checked like the host's; only GET and HEAD; only the host page may frame it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HttpLimits } from '../security/httpLimits.js';
import { DEFAULT_HTTP_LIMITS, capConnections, httpServerOptions } from '../security/httpLimits.js';
import { isAllowedHost } from '../security/loopbackAccess.js';
import { sandboxResponse } from '../core/appSandboxPage.js';

export interface SandboxOriginOptions {
  /** The host page's port: its origins are the only ones that may frame the proxy. */
  hostPort: number;
  /** 0 picks a free port. */
  port?: number;
  httpLimits?: Partial<HttpLimits>;
}

export interface SandboxOrigin {
  port: number;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  close(): Promise<void>;
}

function refuse(res: ServerResponse, status: number, message: string): void {
  res
    .writeHead(status, {
      'Content-Type': 'text/plain; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    })
    .end(message);
}

export async function startSandboxOrigin(options: SandboxOriginOptions): Promise<SandboxOrigin> {
  let port = 0;
  const limits = { ...DEFAULT_HTTP_LIMITS, ...options.httpLimits };
  const frameAncestors = [`http://127.0.0.1:${options.hostPort}`, `http://localhost:${options.hostPort}`];

  function handle(req: IncomingMessage, res: ServerResponse): void {
    if (!isAllowedHost(req.headers.host, port)) return refuse(res, 403, 'Forbidden: unexpected Host header');
    if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 405, 'Method not allowed');
    let url: URL;
    try {
      url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    } catch {
      return refuse(res, 400, 'Bad request: malformed URL');
    }
    const answer = sandboxResponse(url, { sandboxOrigin: `http://127.0.0.1:${port}`, frameAncestors });
    res.writeHead(answer.status, answer.headers).end(req.method === 'HEAD' ? undefined : answer.body);
  }

  const http = createServer(httpServerOptions(limits), handle);
  capConnections(http, limits);
  await new Promise<void>((resolvePromise, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, '127.0.0.1', () => resolvePromise());
  });
  port = (http.address() as AddressInfo).port;
  // A socket error after listening closes that connection only.
  http.on('error', () => undefined);

  let closing: Promise<void> | undefined;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    close() {
      closing ??= (async () => {
        http.closeAllConnections();
        await new Promise<void>((r) => http.close(() => r()));
      })();
      return closing;
    },
  };
}
