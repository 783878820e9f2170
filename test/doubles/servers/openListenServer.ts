/**
 * A 2026-07-28 server over loopback HTTP that answers `subscriptions/listen` wrongly: with
 * `200 application/json` and a response it never finishes (no body, the connection held open),
 * as some servers behind buffering proxies do. Everything else is the dual-era fixture
 * (modern-server.ts) served by v2's `createMcpHandler`: `server/discover` says the server sends
 * list changes, so a client that wants them opens `subscriptions/listen`. Counts the listen
 * requests it is holding, so a test can see the client gave up on them. Tests only.
 */
import type { ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { buildModernServer } from './modern-server.js';

export interface OpenListenServer {
  url: string;
  /** `subscriptions/listen` requests received. */
  listens: number;
  /** Of them, those whose connection the client has since closed. */
  listensClosedByClient: number;
  /** Resolves once the client has closed a held listen request. */
  aListenClosed: Promise<void>;
  close(): Promise<void>;
}

export async function startOpenListenServer(): Promise<OpenListenServer> {
  const handler = createMcpHandler(() => buildModernServer({}), { legacy: 'reject' });
  const node = toNodeHandler(handler);
  const held = new Set<ServerResponse>();
  const state = { listens: 0, listensClosedByClient: 0 };
  let listenClosed!: () => void;
  const aListenClosed = new Promise<void>((resolve) => (listenClosed = resolve));
  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      void node(req, res);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
      if ((body as { method?: unknown } | null)?.method === 'subscriptions/listen') {
        state.listens++;
        // Headers out, then nothing: a JSON body that never ends.
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.flushHeaders();
        held.add(res);
        res.on('close', () => {
          held.delete(res);
          state.listensClosedByClient++;
          listenClosed();
        });
        return;
      }
      void node(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    get listens() {
      return state.listens;
    },
    get listensClosedByClient() {
      return state.listensClosedByClient;
    },
    aListenClosed,
    close: async () => {
      for (const res of held) res.destroy();
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
