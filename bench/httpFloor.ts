/**
 * The floor for bench/gateway.ts, run as its own process: the thinnest Streamable HTTP → stdio
 * proxy the SDK allows for one protocol era, whose `tools/list` and `tools/call` are passed to
 * server-everything through an SDK `Client` over stdio. No auth, no permission, no checkpoint, no
 * trace. What the gateway adds beyond this is MiniHarness's own work; what this adds beyond a
 * direct stdio call is the HTTP hop itself.
 * - `--era legacy` (the default): the 2025 era's bare proxy — a v1 SDK `Server` over the
 *   sessionful `StreamableHTTPServerTransport`, a v1 `Client` upstream (v1 is what legacy peers are).
 * - `--era legacy-v2`: the same sessionful proxy on the SDK's current (v2) line, which the gateway
 *   is built on — v2's `NodeStreamableHTTPServerTransport`, a v2 `Server` per session, a v2
 *   `Client` upstream — so the gateway's own work is told from what the SDK line costs.
 * - `--era modern`: the 2026-07-28 era's bare proxy — v2's `createMcpHandler` (stateless, legacy
 *   refused) served by `toNodeHandler`, a fresh v2 `Server` per request, a v2 `Client` upstream.
 *
 *   tsx bench/httpFloor.ts [--era legacy|modern] [--json] -- <command> <args…>   prints "floor listening on <port>"
 *
 * `--json` (legacy): the transport answers with JSON bodies instead of SSE streams (enableJsonResponse).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { Server as ModernServer, createMcpHandler } from '@modelcontextprotocol/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const dashes = process.argv.indexOf('--');
const [command, ...args] = process.argv.slice(dashes + 1);
if (dashes < 0 || !command) {
  process.stderr.write('usage: tsx bench/httpFloor.ts [--era legacy|legacy-v2|modern] [--json] -- <command> <args…>\n');
  process.exit(2);
}
const options = process.argv.slice(2, dashes);
const json = options.includes('--json');
const era = options.includes('--era') ? options[options.indexOf('--era') + 1] : 'legacy';
if (era !== 'legacy' && era !== 'legacy-v2' && era !== 'modern') {
  process.stderr.write(`unknown era ${era}: legacy, legacy-v2 or modern\n`);
  process.exit(2);
}

if (era === 'modern') {
  const upstream = new ModernClient({ name: 'floor', version: '0.0.0' });
  await upstream.connect(new ModernStdio({ command, args, stderr: 'ignore' }));
  const handler = createMcpHandler(
    () => {
      const server = new ModernServer({ name: 'floor', version: '0.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler('tools/list', () => upstream.listTools());
      server.setRequestHandler('tools/call', (request, ctx) =>
        upstream.callTool(request.params, { signal: ctx.mcpReq.signal }),
      );
      return server;
    },
    { legacy: 'reject' },
  );
  const serve = toNodeHandler(handler);
  const http = createServer((req, res) => void serve(req, res));
  http.listen({ host: '127.0.0.1', port: 0 }, () =>
    process.stdout.write(`floor listening on ${(http.address() as AddressInfo).port}\n`),
  );
  process.on('SIGTERM', () => {
    void upstream.close().finally(() => process.exit(0));
  });
} else if (era === 'legacy-v2') {
  await legacyV2Floor(command);
} else {
  await legacyFloor(command);
}

/** Serves each request by its session's transport, a new session for a request without one. */
function serveSessions<T>(
  sessions: Map<string, T>,
  newSession: () => T,
  handle: (transport: T, req: IncomingMessage, res: ServerResponse, body: unknown) => void,
): void {
  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown) : undefined;
      const id = req.headers['mcp-session-id'];
      const transport = typeof id === 'string' ? sessions.get(id) : newSession();
      if (!transport) return void res.writeHead(404).end();
      handle(transport, req, res, body);
    });
  });
  http.listen({ host: '127.0.0.1', port: 0 }, () =>
    process.stdout.write(`floor listening on ${(http.address() as AddressInfo).port}\n`),
  );
}

async function legacyV2Floor(command: string): Promise<void> {
  const upstream = new ModernClient({ name: 'floor', version: '0.0.0' });
  await upstream.connect(new ModernStdio({ command, args, stderr: 'ignore' }));
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  serveSessions(
    sessions,
    () => {
      const server = new ModernServer({ name: 'floor', version: '0.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler('tools/list', () => upstream.listTools());
      server.setRequestHandler('tools/call', (request, ctx) =>
        upstream.callTool(request.params, { signal: ctx.mcpReq.signal }),
      );
      const transport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, transport),
      });
      void server.connect(transport);
      return transport;
    },
    (transport, req, res, body) => void transport.handleRequest(req, res, body),
  );
  process.on('SIGTERM', () => {
    void upstream.close().finally(() => process.exit(0));
  });
}

async function legacyFloor(command: string): Promise<void> {
  const upstream = new Client({ name: 'floor', version: '0.0.0' });
  const stdio = new StdioClientTransport({ command, args, stderr: 'ignore' });
  await upstream.connect(stdio);

  /** One SDK server and transport per session, as a stateful server must have. */
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  function newSession(): StreamableHTTPServerTransport {
    const server = new Server({ name: 'floor', version: '0.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => upstream.listTools());
    server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
      upstream.callTool(request.params, undefined, { signal: extra.signal }),
    );
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: json,
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    void server.connect(transport);
    return transport;
  }

  serveSessions(sessions, newSession, (transport, req, res, body) => void transport.handleRequest(req, res, body));
  process.on('SIGTERM', () => {
    void upstream.close().finally(() => process.exit(0));
  });
}
