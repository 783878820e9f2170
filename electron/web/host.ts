/**
 * The browser-mode host: serves the built renderer and carries the IPC contract over one
 * WebSocket, on 127.0.0.1 only. Every HTTP request and upgrade is checked (Host, Origin, and the
 * token for anything that reaches data) before anything else happens.
 */
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { WebSocketServer } from 'ws';
import type { WebSocket } from 'ws';
import { BRIDGE_PATH, BRIDGE_PROTOCOL, CallFrameSchema } from '../../shared/bridge.js';
import type { ResultFrame } from '../../shared/bridge.js';
import type { AppCore } from '../app/types.js';
import { bearerOf, isAllowedHost, isAllowedOrigin, tokensEqual } from './access.js';

export interface WebHostOptions {
  core: AppCore;
  /** The built renderer (out/renderer). */
  staticDir: string;
  token: string;
  /** 0 picks a free port. */
  port?: number;
  /** Largest accepted WebSocket message. */
  maxMessageBytes?: number;
}

export interface WebHost {
  port: number;
  url: string;
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

function securityHeaders(port: number): Record<string, string> {
  return {
    'Content-Security-Policy': `default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self' data:; connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}

function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' }).end(message);
}

function refuseUpgrade(socket: Duplex, status: number, message: string): void {
  socket.end(`HTTP/1.1 ${status} ${message}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(message)}\r\n\r\n${message}`);
}

export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const staticRoot = resolve(options.staticDir);
  let port = 0;
  const sockets = new Set<WebSocket>();

  async function serveStatic(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://host').pathname);
    const relative = pathname === '/' ? 'index.html' : pathname.replace(/^\/+/, '');
    const file = normalize(join(staticRoot, relative));
    if (file !== staticRoot && !file.startsWith(staticRoot + sep)) return refuse(res, 403, 'Forbidden');
    let target = file;
    try {
      if (!(await stat(target)).isFile()) target = join(staticRoot, 'index.html');
    } catch {
      // Unknown paths get the app (client-side routes); real assets 404.
      if (extname(relative)) return refuse(res, 404, 'Not found');
      target = join(staticRoot, 'index.html');
    }
    let body: Buffer;
    try {
      body = await readFile(target);
    } catch {
      return refuse(res, 503, 'The renderer is not built. Run `npm run build` (or `npm run web`, which builds it).');
    }
    res.writeHead(200, {
      ...securityHeaders(port),
      'Content-Type': CONTENT_TYPES[extname(target)] ?? 'application/octet-stream',
      'Cache-Control': target.endsWith('index.html') ? 'no-store' : 'public, max-age=3600',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  const http = createServer((req, res) => {
    if (!isAllowedHost(req.headers.host, port)) return refuse(res, 403, 'Forbidden: unexpected Host header');
    if (!isAllowedOrigin(req.headers.origin, port)) return refuse(res, 403, 'Forbidden: foreign Origin');
    const pathname = new URL(req.url ?? '/', 'http://host').pathname;
    if (pathname === '/session') {
      // Lets the page tell "not authorized" from "host down" before opening the socket.
      if (!tokensEqual(options.token, bearerOf(req.headers.authorization))) return refuse(res, 401, 'Unauthorized: open the link printed by `npm run web`.');
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }).end('{"ok":true}');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 405, 'Method not allowed');
    serveStatic(req, res).catch(() => refuse(res, 500, 'Internal error'));
  });

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxMessageBytes ?? 1024 * 1024,
    handleProtocols: (protocols) => (protocols.has(BRIDGE_PROTOCOL) ? BRIDGE_PROTOCOL : false),
  });

  http.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://host');
    if (!isAllowedHost(req.headers.host, port)) return refuseUpgrade(socket, 403, 'Forbidden');
    // Browsers always send Origin on WebSocket; a page from elsewhere must not get in.
    if (req.headers.origin === undefined || !isAllowedOrigin(req.headers.origin, port)) return refuseUpgrade(socket, 403, 'Forbidden');
    if (url.pathname !== BRIDGE_PATH) return refuseUpgrade(socket, 404, 'Not Found');
    if (!tokensEqual(options.token, url.searchParams.get('token'))) return refuseUpgrade(socket, 401, 'Unauthorized');
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  wss.on('connection', (ws: WebSocket) => {
    sockets.add(ws);
    const unsubscribe = options.core.onEvent((event, payload) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ t: 'event', event, payload }));
    });
    ws.on('close', () => {
      sockets.delete(ws);
      unsubscribe();
    });
    ws.on('message', (data, isBinary) => {
      void handleMessage(ws, isBinary ? undefined : data.toString());
    });
  });

  async function handleMessage(ws: WebSocket, text: string | undefined): Promise<void> {
    let json: unknown;
    try {
      json = text === undefined ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    const frame = CallFrameSchema.safeParse(json);
    let reply: ResultFrame;
    if (!frame.success) {
      const id = typeof (json as { id?: unknown } | undefined)?.id === 'number' ? (json as { id: number }).id : -1;
      reply = { t: 'result', id, ok: false, error: { code: 'invalid_frame', message: 'The message is not a valid bridge call frame.' } };
    } else {
      const result = await options.core.dispatch(frame.data.channel, frame.data.payload);
      reply = result.ok ? { t: 'result', id: frame.data.id, ok: true, result: result.result } : { t: 'result', id: frame.data.id, ok: false, error: result.error };
    }
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(reply));
  }

  await new Promise<void>((resolvePromise, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, '127.0.0.1', () => resolvePromise());
  });
  port = (http.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  return {
    port,
    url: `http://127.0.0.1:${port}/`,
    close() {
      closing ??= (async () => {
        for (const ws of sockets) ws.terminate();
        wss.close();
        http.closeAllConnections();
        await new Promise<void>((r) => http.close(() => r()));
      })();
      return closing;
    },
  };
}
