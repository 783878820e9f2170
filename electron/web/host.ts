/**
 * The browser-mode host: serves the built renderer and carries the IPC contract over one
 * WebSocket, on 127.0.0.1 only. Every HTTP request and upgrade is checked (Host, Origin, and the
 * token for anything that reaches data) before anything else happens.
 */
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { WebSocketServer } from 'ws';
import type { WebSocket } from 'ws';
import {
  BRIDGE_ERROR,
  BRIDGE_PATH,
  BRIDGE_PROTOCOL,
  CallFrameSchema,
  MAX_BRIDGE_FRAME_BYTES,
} from '../../shared/bridge.js';
import type { CallFrame, ResultFrame } from '../../shared/bridge.js';
import type { ApprovalView } from '../../shared/contract.js';
import type { JsonBoundsBreach } from '../../shared/jsonBounds.js';
import { jsonBreachSentence, jsonTextBreach } from '../../shared/jsonBounds.js';
import { browserModeCspDirectives, metaCspOf, serializeCsp, withCspMeta } from '../../shared/csp.js';
import { GUI_USER } from '../core/callService.js';
import { currentActor, runAsActor } from '../core/requestActor.js';
import type { Core } from '../core/types.js';
import type { HttpLimits } from '../security/httpLimits.js';
import { DEFAULT_HTTP_LIMITS, capConnections, httpServerOptions } from '../security/httpLimits.js';
import type { WebAccess } from './access.js';
import { loopbackTokenAccess, sessionBearer } from './access.js';
import type { OutboxLimits, OutboxStats } from './eventOutbox.js';
import { DEFAULT_OUTBOX_LIMITS, EventOutbox } from './eventOutbox.js';
import type { SandboxOrigin } from './sandboxOrigin.js';
import { startSandboxOrigin } from './sandboxOrigin.js';
import { withAppSandboxMeta } from '../../shared/appSandbox.js';
import { DisposableStore } from '../util/disposable.js';

export interface WebHostOptions {
  core: Core;
  /** The built renderer (out/renderer). */
  staticDir: string;
  /** `npm run web`'s per-start token (loopbackTokenAccess); not needed when `access` is given. */
  token?: string;
  /** Who may reach the host (default: the loopback token); `miniharness serve` signs people in. */
  access?: WebAccess;
  /** Where to listen (default 127.0.0.1, plain HTTP); `miniharness serve` decides it (electron/serve/listenPolicy.ts). */
  listen?: { host: string; tls?: { cert: Buffer; key: Buffer } };
  /** 0 picks a free port. */
  port?: number;
  /** The MCP Apps sandbox origin's port (electron/web/sandboxOrigin.ts); 0 (default) picks a free one. */
  appSandboxPort?: number;
  /** Largest accepted WebSocket message (default MAX_BRIDGE_FRAME_BYTES, which the renderer also checks). */
  maxMessageBytes?: number;
  /** How much is buffered per page before its events are held, coalesced or dropped. */
  outbox?: OutboxLimits;
  /** Connections open at once, and the time to receive a request (security/httpLimits.ts). */
  httpLimits?: Partial<HttpLimits>;
  /** Problems that closed one connection (a bad frame, a reset socket); default: one line on stderr. */
  onConnectionError?: (error: Error) => void;
  /**
   * A call asks for approval while no page is open: one line with the link to open (default: on
   * stdout, where the host printed its link at start).
   */
  onApprovalWithoutPage?: (line: string) => void;
}

export interface WebHost {
  port: number;
  url: string;
  /** Where MCP Apps run: the sandbox proxy's origin, another loopback port. */
  appSandboxOrigin: string;
  /** Per open page: what is buffered, held and dropped (tests and benchmarks read it). */
  clients(): OutboxStats[];
  /** Contract requests being answered now (a graceful shutdown waits for none). */
  inFlight(): number;
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

/** The desktop page's policy (shared/csp.ts) plus the bridge's WebSocket on this port and the apps' sandbox frames. */
function browserModeCsp(port: number, appSandboxOrigin: string | undefined): string {
  return serializeCsp(browserModeCspDirectives(port, appSandboxOrigin));
}

function securityHeaders(port: number, appSandboxOrigin: string | undefined): Record<string, string> {
  return {
    'Content-Security-Policy': browserModeCsp(port, appSandboxOrigin),
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

function refuseUpgrade(socket: Duplex, status: number, message: string, extra = ''): void {
  socket.end(
    `HTTP/1.1 ${status} ${message}\r\nConnection: close\r\n${extra}Content-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(message)}\r\n\r\n${message}`,
  );
}

/** The request's path, or undefined when it is not a valid URL path (bad `%` escapes included). */
function pathnameOf(req: IncomingMessage): string | undefined {
  try {
    return new URL(req.url ?? '/', 'http://host').pathname;
  } catch {
    return undefined;
  }
}

function decodedPath(pathname: string): string | undefined {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return undefined; // URIError: a malformed %-escape
  }
}

/** One line for a terminal: control characters (a tool name could hold a newline) become spaces. */
function oneLine(text: string): string {
  return text.replace(/[\p{Cc}\u2028\u2029]+/gu, ' ');
}

/** Who asks and for what (never the arguments, which may hold anything), and where to answer. */
function approvalWaitingLine(view: Pick<ApprovalView, 'userId' | 'toolName' | 'serverId'>, link: string): string {
  const who = view.userId === GUI_USER ? 'A call' : `Agent "${view.userId}"`;
  return oneLine(
    `MiniHarness: ${who} asks to run ${view.toolName} (${view.serverId}) and waits for your approval; open ${link}`,
  );
}

function defaultConnectionError(error: Error): void {
  const code = (error as { code?: unknown }).code;
  process.stderr.write(
    `MiniHarness: closed a bridge connection: ${typeof code === 'string' ? `${code}: ` : ''}${error.message}\n`,
  );
}

/** What the host's parts share: the options, the access, and what is known once it listens. */
interface HostContext {
  options: WebHostOptions;
  access: WebAccess;
  staticRoot: string;
  sockets: Map<WebSocket, EventOutbox>;
  onConnectionError: (error: Error) => void;
  port: number;
  sandbox: SandboxOrigin | undefined;
  running: number;
}

export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  if (!options.access && options.token === undefined) throw new Error('startWebHost needs a token or an access.');
  const ctx: HostContext = {
    options,
    access: options.access ?? loopbackTokenAccess(options.token as string),
    staticRoot: resolve(options.staticDir),
    sockets: new Map(),
    onConnectionError: options.onConnectionError ?? defaultConnectionError,
    port: 0,
    sandbox: undefined,
    running: 0,
  };
  /** Each part registers its teardown where it is made; `close()` runs them in reverse (util/disposable.ts). */
  const lifecycle = new DisposableStore();
  if (options.token !== undefined && !options.access)
    lifecycle.defer('approval watch', watchApprovals(ctx, options.token));

  // Bounded connections and time to receive a request (a slow body → 408), by node:http itself.
  const limits = { ...DEFAULT_HTTP_LIMITS, ...options.httpLimits };
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => void handleRequest(ctx, req, res);
  const http = options.listen?.tls
    ? createHttpsServer({ ...httpServerOptions(limits), ...options.listen.tls }, onRequest)
    : createServer(httpServerOptions(limits), onRequest);
  capConnections(http, limits);
  lifecycle.defer('HTTP server', async () => {
    http.closeAllConnections();
    // Not listening (a failed start) is closed too: the callback's error is no failure of ours.
    await new Promise<void>((r) => http.close(() => r()));
  });
  // Malformed requests and reset connections get Node's default `clientError` handling (400 or 408, close).
  lifecycle.defer('bridge sockets', attachBridge(ctx, http));

  await new Promise<void>((resolvePromise, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, options.listen?.host ?? '127.0.0.1', () => resolvePromise());
  });
  ctx.port = (http.address() as AddressInfo).port;
  http.on('error', (error) => ctx.onConnectionError(error));
  let appSandbox: SandboxOrigin;
  try {
    appSandbox = await startSandboxOrigin({
      hostPort: ctx.port,
      port: options.appSandboxPort ?? 0,
      httpLimits: options.httpLimits,
    });
  } catch (error) {
    await lifecycle.dispose().catch(() => undefined);
    throw error;
  }
  ctx.sandbox = appSandbox;
  lifecycle.defer('app sandbox origin', () => appSandbox.close());

  return {
    port: ctx.port,
    url: `${options.listen?.tls ? 'https' : 'http'}://127.0.0.1:${ctx.port}/`,
    appSandboxOrigin: appSandbox.origin,
    clients: () => [...ctx.sockets.values()].map((outbox) => outbox.stats()),
    inFlight: () => ctx.running,
    close: () => lifecycle.dispose(),
  };
}

/** Nobody would see the dialog: say where to answer it (an agent's call waits meanwhile). */
function watchApprovals(ctx: HostContext, token: string): () => void {
  const onApprovalWithoutPage =
    ctx.options.onApprovalWithoutPage ?? ((line: string) => void process.stdout.write(`${line}\n`));
  // Only approvals: a page-less host must not make every event (and the Agents view) worth building.
  return ctx.options.core.onEvent(
    (event, payload) => {
      if (event !== 'approval.requested' || ctx.sockets.size > 0 || ctx.port === 0) return;
      onApprovalWithoutPage(
        approvalWaitingLine(payload as ApprovalView, `http://127.0.0.1:${ctx.port}/#token=${token}`),
      );
    },
    ['approval.requested'],
  );
}

async function handleRequest(ctx: HostContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const { access } = ctx;
    if (access.health && answerHealth(access.health, req, res)) return;
    if (!access.hostAllowed(req.headers.host, ctx.port)) return refuse(res, 403, 'Forbidden: unexpected Host header');
    if (!access.originAllowed(req.headers.origin, ctx.port)) return refuse(res, 403, 'Forbidden: foreign Origin');
    const pathname = pathnameOf(req);
    if (pathname === undefined) return refuse(res, 400, 'Bad request: malformed URL');
    if (access.handle && (await access.handle(req, res, pathname))) return;
    if (pathname === '/session') {
      // Lets the page tell "not authorized" from "host down" before opening the socket.
      if ((await access.authenticate(req, sessionBearer(req))) === undefined)
        return refuse(res, 401, access.unauthorizedText ?? 'Unauthorized');
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }).end('{"ok":true}');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 405, 'Method not allowed');
    await serveStatic(ctx, req, res, pathname);
  } catch {
    if (res.headersSent) res.destroy();
    else refuse(res, 500, 'Internal error');
  }
}

/** `/healthz`: the process answers; `/readyz`: it takes new work (not starting, not draining). */
function answerHealth(health: NonNullable<WebAccess['health']>, req: IncomingMessage, res: ServerResponse): boolean {
  const path = req.url?.split('?')[0];
  if ((path !== '/healthz' && path !== '/readyz') || req.method !== 'GET') return false;
  const state = health();
  const ok = path === '/healthz' || state.ready;
  res
    .writeHead(ok ? 200 : 503, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' })
    .end(ok ? 'ok\n' : `${state.reason ?? 'not ready'}\n`);
  return true;
}

async function serveStatic(
  ctx: HostContext,
  req: IncomingMessage,
  res: ServerResponse,
  rawPath: string,
): Promise<void> {
  const { staticRoot, port, sandbox } = ctx;
  const pathname = decodedPath(rawPath);
  if (pathname === undefined || pathname.includes('\0')) return refuse(res, 400, 'Bad request: malformed path');
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
  // The page's meta policy is the desktop one (connect-src 'self'); both it and the header are
  // enforced, so the page served here carries the browser-mode policy in its meta tag as well.
  // The page learns where apps run from its own HTML (a meta tag), before any request.
  if (extname(target) === '.html') {
    body = Buffer.from(
      withAppSandboxMeta(
        withCspMeta(body.toString('utf8'), metaCspOf(browserModeCspDirectives(port, sandbox?.origin))),
        sandbox?.origin,
      ),
      'utf8',
    );
  }
  res.writeHead(200, {
    ...securityHeaders(port, sandbox?.origin),
    'Content-Type': CONTENT_TYPES[extname(target)] ?? 'application/octet-stream',
    'Cache-Control': target.endsWith('index.html') ? 'no-store' : 'public, max-age=3600',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** The bridge: checked upgrades, one outbox per page, its requests; returns its teardown. */
function attachBridge(ctx: HostContext, http: Server): () => void {
  const { access, sockets, options } = ctx;
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxMessageBytes ?? MAX_BRIDGE_FRAME_BYTES,
    handleProtocols: (protocols) => (protocols.has(BRIDGE_PROTOCOL) ? BRIDGE_PROTOCOL : false),
  });
  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node hands the raw socket over without its own error listener: a reset must not end the process.
    socket.on('error', () => socket.destroy());
    // Shutting down (serve's SIGTERM): refused before anything is read, so a balancer may try another instance.
    if (access.health?.().draining) return refuseUpgrade(socket, 503, 'Service Unavailable', 'Retry-After: 1\r\n');
    if (!access.hostAllowed(req.headers.host, ctx.port)) return refuseUpgrade(socket, 403, 'Forbidden');
    // Browsers always send Origin on WebSocket; a page from elsewhere must not get in.
    if (req.headers.origin === undefined || !access.originAllowed(req.headers.origin, ctx.port))
      return refuseUpgrade(socket, 403, 'Forbidden');
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://host');
    } catch {
      return refuseUpgrade(socket, 400, 'Bad Request');
    }
    if (url.pathname !== BRIDGE_PATH) return refuseUpgrade(socket, 404, 'Not Found');
    // The header first (the CLI's: a query string ends up in proxies' logs), then the page's `?token=`
    // (a browser cannot set headers on a WebSocket; a session's token is useless without its cookie).
    const token = sessionBearer(req) ?? url.searchParams.get('token') ?? undefined;
    // The caller may be read from a database (serve on PostgreSQL): a failed read refuses, it does not throw.
    void Promise.resolve()
      .then(() => access.authenticate(req, token))
      .then(
        (caller) => {
          if (caller === undefined) return refuseUpgrade(socket, 401, 'Unauthorized');
          if (socket.destroyed) return;
          wss.handleUpgrade(req, socket, head, (ws) => onConnection(ctx, ws, caller));
        },
        () => refuseUpgrade(socket, 503, 'Service Unavailable'),
      );
  });
  return () => {
    for (const ws of sockets.keys()) ws.terminate();
    wss.close();
  };
}

function onConnection(ctx: HostContext, ws: WebSocket, caller: unknown): void {
  const outbox = new EventOutbox(ws, ctx.options.outbox ?? DEFAULT_OUTBOX_LIMITS);
  ctx.sockets.set(ws, outbox);
  /** Ids of this page's requests still running: a second request with one of them is refused. */
  const inFlight = new Set<number>();
  const allowed = ctx.access.eventAllowed;
  const unsubscribe = ctx.options.core.onEvent((event, payload) => {
    if (!allowed || allowed(caller, event, currentActor())) outbox.event(event, payload);
  });
  // A frame that breaks the protocol (too big, invalid UTF-8, reserved bits, no mask, unknown
  // opcode) makes `ws` close this socket with the matching code (1009, 1007, 1002) and emit
  // 'error'; without this listener that error would end the whole process.
  ws.on('error', (error) => ctx.onConnectionError(error));
  // A caller signed out (on this instance or another): its bridge closes, and its events stop.
  const { alive, watchEnded } = ctx.access;
  const unwatch =
    alive && watchEnded
      ? watchEnded(() => {
          if (!alive(caller)) ws.close(1008, 'Your session has ended; sign in again.');
        })
      : () => undefined;
  // Ended between the authentication (a database read on PostgreSQL) and the watch: its notice came before.
  if (alive && !alive(caller)) ws.close(1008, 'Your session has ended; sign in again.');
  ws.on('close', () => {
    ctx.sockets.delete(ws);
    outbox.close();
    unsubscribe();
    unwatch();
  });
  ws.on('message', (data, isBinary) => {
    ctx.running++;
    answerFrame(ctx, caller, inFlight, isBinary ? undefined : (data as Buffer))
      .then((reply) => {
        if (ws.readyState === ws.OPEN) outbox.result(JSON.stringify(reply));
      })
      .catch((error: unknown) => ctx.onConnectionError(error instanceof Error ? error : new Error(String(error))))
      .finally(() => ctx.running--);
  });
}

/** The parsed frame, or the refusal to send instead. */
function parseFrame(raw: Buffer | undefined): { frame: CallFrame } | { reply: ResultFrame } {
  // Counted before it is parsed: a frame of a million values (an app's arguments, say) would stall every page and agent.
  const breach = raw === undefined ? undefined : jsonTextBreach(raw);
  if (breach) return { reply: overBounds(raw as Buffer, breach) };
  let json: unknown;
  try {
    json = raw === undefined ? undefined : JSON.parse(raw.toString());
  } catch {
    json = undefined;
  }
  const frame = CallFrameSchema.safeParse(json);
  if (frame.success) return { frame: frame.data };
  const id = typeof (json as { id?: unknown } | undefined)?.id === 'number' ? (json as { id: number }).id : -1;
  const error = { code: BRIDGE_ERROR.invalidFrame, message: 'The message is not a valid bridge call frame.' };
  return { reply: { t: 'result', id, ok: false, error } };
}

async function answerFrame(
  ctx: HostContext,
  caller: unknown,
  inFlight: Set<number>,
  raw: Buffer | undefined,
): Promise<ResultFrame> {
  const parsed = parseFrame(raw);
  if ('reply' in parsed) return parsed.reply;
  const { id, channel, payload } = parsed.frame;
  if (inFlight.has(id)) {
    // Refused without touching the first request, which still answers under this id.
    const message = `Request id ${id} is still in flight on this connection; send each request with a new id.`;
    return { t: 'result', id, ok: false, error: { code: BRIDGE_ERROR.duplicateRequestId, message } };
  }
  // The role check runs on every request, in main: a page that shows a button proves nothing.
  const refusal = ctx.access.refusal?.(caller, channel);
  if (refusal !== undefined) return { t: 'result', id, ok: false, error: { code: 'role_forbidden', message: refusal } };
  inFlight.add(id);
  try {
    const actor = ctx.access.actorOf?.(caller);
    const result = await runAsActor(
      actor,
      () => ctx.access.dispatch?.(caller, channel, payload) ?? ctx.options.core.dispatch(channel, payload),
    );
    ctx.access.onDispatched?.(caller, channel, result.ok);
    return result.ok
      ? { t: 'result', id, ok: true, result: result.result }
      : { t: 'result', id, ok: false, error: result.error };
  } catch {
    // Whatever failed underneath, the page's request is answered: an unanswered one hangs its call.
    const error = { code: 'internal' as const, message: 'The MiniHarness host failed to handle this request.' };
    return { t: 'result', id, ok: false, error };
  } finally {
    inFlight.delete(id);
  }
}

/** The id of a call frame as the renderer writes it (`{"t":"call","id":N,…`), read from its first bytes only. */
function leadingCallId(raw: Buffer): number {
  const match = /^\s*\{\s*"t"\s*:\s*"call"\s*,\s*"id"\s*:\s*(\d{1,15})\s*[,}]/.exec(
    raw.subarray(0, 64).toString('latin1'),
  );
  return match ? Number(match[1]) : -1;
}

/** The answer to a frame refused by its count (shared/jsonBounds.ts), under its id when it leads the frame. */
function overBounds(raw: Buffer, breach: JsonBoundsBreach): ResultFrame {
  return {
    t: 'result',
    id: leadingCallId(raw),
    ok: false,
    error:
      breach.limit === 'depth'
        ? {
            code: BRIDGE_ERROR.requestTooDeep,
            message: `${jsonBreachSentence(breach)} Nothing was run.`,
            details: { limitDepth: breach.max },
          }
        : { code: BRIDGE_ERROR.requestTooLarge, message: `${jsonBreachSentence(breach)} Nothing was run.` },
  };
}
