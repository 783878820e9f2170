/**
 * The egress gate (issue 29): a small HTTP proxy in front of sandbox-runtime's own, where a
 * sandboxed server's connection WAITS for the person's answer.
 *
 * Why a proxy of ours. sandbox-runtime 0.0.83 hands its ask callback `{host, port}` only (the
 * wrap's id stays inside its proxy), and on Linux every wrap reaches that proxy through one
 * bridge socket, so neither the callback nor the socket can say which server asked. The id does
 * travel with each request: the library puts `srt.<base64 of the wrap's id>` as the proxy user
 * name in the server's HTTP_PROXY. So the app takes the library's SOCKS slot
 * (`network.socksProxyPort`: the library bridges it into the sandbox, on Linux as port 1080) for
 * this gate, and points the server's HTTP(S)_PROXY / ALL_PROXY at it (serverSandbox.ts). The gate
 * reads the request's head, takes the wrap's id from its Proxy-Authorization, asks `decide` (which
 * may wait for the person), and then either refuses at once (403) or hands the untouched request
 * to the library's proxy, which still enforces the wrap's allow list (the answer has been put in
 * it) with all its own checks (host validation, the resolved-address guard) and records its own
 * refusals. The gate never widens anything by itself: a server that bypasses it reaches the
 * library's proxy directly and is decided by the allow list alone.
 *
 * Only HTTP proxy requests (CONNECT, and absolute-form requests for plain http://) pass here; a
 * SOCKS client on this port is refused.
 */
import { connect, createServer } from 'node:net';
import type { Server, Socket } from 'node:net';

/** What `decide` answers for one attempt; `done` is called once the library's proxy has answered it. */
export type GateDecision = { allow: true; done?: () => void } | { allow: false; reason: string };

export interface EgressGateOptions {
  /** The library's own proxy (HTTP), where an allowed request goes on. */
  upstreamPort: () => number | undefined;
  /** Decides one attempt of the wrap `commandId` (undefined: the request named none); may wait. */
  decide: (commandId: string | undefined, host: string, port: number) => Promise<GateDecision>;
}

/** The most a request's head may be: beyond it the request is refused. */
const MAX_HEAD_BYTES = 16 * 1024;
/** How long a client may take to send its request's head (a silent one is not kept open). */
const HEAD_TIMEOUT_MS = 30_000;
const END_OF_HEAD = Buffer.from('\r\n\r\n');

export interface EgressGate {
  port: number;
  close(): Promise<void>;
}

interface RequestHead {
  host: string;
  port: number;
  /** The wrap's id, from the Proxy-Authorization user name `srt.<base64 of the id>`. */
  commandId?: string;
}

/** `host:port` of a CONNECT, or the authority of an absolute-form `http://` target. */
function targetOf(method: string, target: string): { host: string; port: number } | undefined {
  if (method === 'CONNECT') {
    const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]/]+):(\d{1,5})$/.exec(target);
    if (!match) return undefined;
    return { host: (match[1] ?? '').replace(/^\[(.*)\]$/, '$1'), port: Number(match[2]) };
  }
  try {
    const url = new URL(target);
    if (url.protocol !== 'http:' || !url.hostname) return undefined;
    return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port ? Number(url.port) : 80 };
  } catch {
    return undefined;
  }
}

/** The wrap id a `Proxy-Authorization: Basic …` header names (the library's user name format). */
export function commandIdOf(header: string | undefined): string | undefined {
  const basic = /^basic\s+([a-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!basic?.[1]) return undefined;
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const user = decoded.slice(0, Math.max(0, decoded.indexOf(':')));
  if (!user.startsWith('srt.') || user.length <= 4) return undefined;
  return Buffer.from(user.slice(4), 'base64').toString('utf8') || undefined;
}

/** The request head of an HTTP proxy request, or undefined for anything else. */
export function parseHead(head: string): RequestHead | undefined {
  const [requestLine = '', ...lines] = head.split('\r\n');
  const request = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/.exec(requestLine);
  if (!request?.[1] || !request[2]) return undefined;
  const target = targetOf(request[1], request[2]);
  if (!target || target.port < 1 || target.port > 65535) return undefined;
  const auth = lines.find((line) => /^proxy-authorization:/i.test(line));
  const commandId = commandIdOf(auth?.slice(auth.indexOf(':') + 1).trim());
  return { ...target, ...(commandId ? { commandId } : {}) };
}

function refuse(socket: Socket, status: string, reason: string): void {
  // The reason is ours (never the request's bytes): one line, no CR/LF.
  const why = reason.replace(/[^\x20-\x7e]/g, ' ');
  socket.end(`HTTP/1.1 ${status}\r\nX-MiniHarness-Sandbox: ${why}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
}

/** Hands the request (its head and whatever followed) to the library's proxy and joins the two sockets. */
function forward(client: Socket, buffered: Buffer, upstreamPort: number, done: (() => void) | undefined): void {
  const upstream = connect({ host: '127.0.0.1', port: upstreamPort });
  let answered = false;
  const settle = (): void => {
    if (answered) return;
    answered = true;
    done?.();
  };
  upstream.once('connect', () => {
    upstream.write(buffered);
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  });
  upstream.once('data', settle);
  upstream.once('close', () => {
    settle();
    client.destroy();
  });
  upstream.on('error', () => client.destroy());
  client.once('close', () => upstream.destroy());
}

function handle(socket: Socket, options: EgressGateOptions): void {
  let buffered = Buffer.alloc(0);
  socket.on('error', () => socket.destroy());
  socket.setTimeout(HEAD_TIMEOUT_MS, () => socket.destroy());
  const onData = (chunk: Buffer): void => {
    buffered = Buffer.concat([buffered, chunk]);
    // A SOCKS greeting (version 4 or 5) is not for this port.
    if (buffered[0] === 4 || buffered[0] === 5) return void socket.destroy();
    const end = buffered.indexOf(END_OF_HEAD);
    if (end === -1) {
      if (buffered.length > MAX_HEAD_BYTES) refuse(socket, '431 Request Header Fields Too Large', 'head too large');
      return;
    }
    socket.off('data', onData);
    socket.setTimeout(0);
    socket.pause();
    const head = parseHead(buffered.subarray(0, end).toString('latin1'));
    if (!head) return refuse(socket, '400 Bad Request', 'not a proxy request');
    void options.decide(head.commandId, head.host, head.port).then(
      (decision) => {
        if (socket.destroyed) return decision.allow ? decision.done?.() : undefined;
        if (!decision.allow) return refuse(socket, '403 Forbidden', decision.reason);
        const upstreamPort = options.upstreamPort();
        if (upstreamPort === undefined) {
          decision.done?.();
          return refuse(socket, '502 Bad Gateway', 'the sandbox proxy is not running');
        }
        forward(socket, buffered, upstreamPort, decision.done);
      },
      () => refuse(socket, '403 Forbidden', 'the decision failed'),
    );
  };
  socket.on('data', onData);
}

/** Starts the gate on a loopback port of its own. */
export async function startEgressGate(options: EgressGateOptions): Promise<EgressGate> {
  const open = new Set<Socket>();
  const server: Server = createServer((socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    handle(socket, options);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the egress gate has no port');
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of open) socket.destroy();
      }),
  };
}
