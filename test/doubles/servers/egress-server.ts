/**
 * A stdio server for the egress ask (issue 29): its one tool, `reach`, opens a connection to
 * `host:port` the way a server that honours proxies does — a CONNECT through the HTTP proxy its
 * environment names (HTTP_PROXY, which sandbox-runtime sets inside the sandbox) — and says the
 * proxy's answer: `200` (allowed) or `403` (refused). Once through, it reads the upstream's first
 * line, so a test sees the host was really reached. `proxyPort` sends it to another port of the
 * proxy's host instead (a server going around the app's egress gate); `plainHttp` sends a plain
 * `GET http://host:port/` through the proxy instead of a CONNECT, and says the body.
 */
import { connect } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

type Reached = { status: string; greeting: string };

/** A plain-http request through the proxy (absolute-form `GET http://host:port/`), as an HTTP client sends it. */
function get(url: URL, host: string, port: number, auth: string): Promise<Reached> {
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    let buffer = '';
    const done = (reached: Reached): void => {
      socket.destroy();
      resolve(reached);
    };
    socket.setTimeout(20_000, () => done({ status: 'ETIMEDOUT', greeting: '' }));
    socket.once('connect', () =>
      socket.write(`GET http://${host}:${port}/ HTTP/1.1\r\nHost: ${host}:${port}\r\n${auth}Connection: close\r\n\r\n`),
    );
    socket.on('data', (chunk: Buffer) => (buffer += chunk.toString('latin1')));
    socket.once('error', (error) => done({ status: (error as { code?: string }).code ?? 'error', greeting: '' }));
    socket.once('close', () => {
      const status = buffer.slice(0, buffer.indexOf('\r\n')).split(' ')[1] ?? 'closed';
      const body = buffer.slice(buffer.indexOf('\r\n\r\n') + 4).trim();
      resolve({ status, greeting: status === '200' ? body : '' });
    });
  });
}

function reach(host: string, port: number, proxyPort?: number, plainHttp = false): Promise<Reached> {
  const proxy = process.env.HTTP_PROXY ?? process.env.http_proxy;
  if (!proxy) return Promise.resolve({ status: 'no proxy', greeting: '' });
  const url = new URL(proxy);
  // Another port on the same proxy host (e.g. around the app's gate, straight to the library's proxy).
  if (proxyPort !== undefined) url.port = String(proxyPort);
  const auth = url.username
    ? `Proxy-Authorization: Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}\r\n`
    : '';
  if (plainHttp) return get(url, host, port, auth);
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    let buffer = '';
    let status: string | undefined;
    const done = (reached: Reached): void => {
      socket.destroy();
      resolve(reached);
    };
    socket.setTimeout(20_000, () => done({ status: status ?? 'ETIMEDOUT', greeting: '' }));
    socket.once('connect', () =>
      socket.write(`CONNECT ${host}:${port} HTTP/1.1\r\nHost: ${host}:${port}\r\n${auth}\r\n`),
    );
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      if (status === undefined) {
        const head = buffer.indexOf('\r\n\r\n');
        if (head === -1) return;
        status = buffer.slice(0, buffer.indexOf('\r\n')).split(' ')[1] ?? '';
        buffer = buffer.slice(head + 4);
        if (status !== '200') return done({ status, greeting: '' });
      }
      const end = buffer.indexOf('\n');
      if (end !== -1) done({ status, greeting: buffer.slice(0, end).trim() });
    });
    socket.once('error', (error) => done({ status: (error as { code?: string }).code ?? 'error', greeting: '' }));
    socket.once('close', () => done({ status: status ?? 'closed', greeting: buffer.trim() }));
  });
}

const server = new McpServer({ name: 'egress', version: '1.0.0' }, { capabilities: { tools: {} } });
server.registerTool(
  'reach',
  {
    description: 'Connects to host:port through the proxy; says what the proxy and the host answered.',
    inputSchema: {
      host: z.string(),
      port: z.number(),
      proxyPort: z.number().optional(),
      plainHttp: z.boolean().optional(),
    },
    outputSchema: { status: z.string(), greeting: z.string() },
  },
  async ({ host, port, proxyPort, plainHttp }) => {
    const reached = await reach(host, port, proxyPort, plainHttp);
    return { content: [{ type: 'text', text: JSON.stringify(reached) }], structuredContent: reached };
  },
);

await server.connect(new StdioServerTransport());
process.stdin.on('end', () => process.exit(0));
