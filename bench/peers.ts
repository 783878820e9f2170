/**
 * The stdio → Streamable HTTP proxies people run in front of a stdio MCP server, started by
 * bench/gateway.ts as the peers of the agent gateway: `mcp-proxy` (sessions for 2025 agents, and
 * its 2026-07-28 leg on the same endpoint, `--modern`, its default) and `supergateway`
 * (`--outputTransport streamableHttp`, `--stateful` sessions or stateless). Each runs as its own
 * process from the project's node_modules/.bin (dev dependencies), bound to 127.0.0.1 on a port
 * found free just before; the peer is ready when a TCP connection to that port succeeds.
 */
import { spawn } from 'node:child_process';
import { createServer, connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { waitFor } from '../test/helpers/fixtures.js';

export interface PeerProcess {
  url: URL;
  pid: number;
  /** What the peer printed (stdout and stderr), for a failure's message. */
  output(): string;
  stop(): void;
}

export interface PeerSpec {
  /** The binary in node_modules/.bin. */
  bin: 'mcp-proxy' | 'supergateway';
  /** Its arguments, given the port; the stdio server's command line goes in them. */
  args(port: number, server: string[]): string[];
  path: string;
}

export const MCP_PROXY: PeerSpec = {
  bin: 'mcp-proxy',
  // Stream endpoint only; the resumability store off (request/response traffic, as its help advises).
  args: (port, server) => [
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--server',
    'stream',
    '--no-eventStore',
    '--',
    ...server,
  ],
  path: '/mcp',
};

export function supergateway(stateful: boolean): PeerSpec {
  return {
    bin: 'supergateway',
    args: (port, server) => [
      '--stdio',
      server.map((part) => (/[^\w@%+=:,./-]/.test(part) ? `'${part.replace(/'/g, `'\\''`)}'` : part)).join(' '),
      '--outputTransport',
      'streamableHttp',
      '--port',
      String(port),
      '--logLevel',
      'none',
      ...(stateful ? ['--stateful'] : []),
    ],
    path: '/mcp',
  };
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen({ host: '127.0.0.1', port: 0 }, resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Starts a peer in front of `server` (a command line) and resolves once it accepts connections. */
export async function startPeer(
  root: string,
  spec: PeerSpec,
  server: string[],
  timeoutMs = 30_000,
): Promise<PeerProcess> {
  const port = await freePort();
  const child = spawn(join(root, 'node_modules', '.bin', spec.bin), spec.args(port, server), {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-4000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let exited: string | undefined;
  child.once('exit', (code, signal) => void (exited = `exited (${code ?? signal})`));
  const peer: PeerProcess = {
    url: new URL(`http://127.0.0.1:${port}${spec.path}`),
    pid: child.pid!,
    output: () => output,
    stop: () => void child.kill('SIGTERM'),
  };
  try {
    // Polled: the peers print no ready line in a form both share.
    await waitFor(
      async () => {
        if (exited) throw new Error(exited);
        return accepts(port);
      },
      timeoutMs,
      50,
    );
  } catch (error) {
    peer.stop();
    throw new Error(
      `${spec.bin} ${exited ?? (error instanceof Error ? error.message : 'did not listen')}: ${output.trim().slice(-400)}`,
    );
  }
  return peer;
}
