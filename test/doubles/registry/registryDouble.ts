/**
 * A loopback MCP Registry double serving the v0.1 API (modelcontextprotocol/registry
 * docs/reference/api/openapi.yaml): `GET /v0.1/servers` (search, cursor, limit, updated_since,
 * version=latest), `/v0.1/servers/{name}/versions`, `/versions/{version}` and `/versions/latest`,
 * from real `server.json` documents (fixtures/, sources in fixtures/SOURCES.md) wrapped as
 * `ServerResponse`s with the official `_meta`. Faults on demand: a malformed entry among good
 * ones (`extra`), a cursor that loops, an answer that is not JSON, one that never comes, one too
 * large. Files (mcpb bundles) are served under /files/.
 */
import { readFileSync, readdirSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** Every fixture document, by file name without `.json`. */
export function fixtureDocuments(): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const file of readdirSync(FIXTURES).filter((f) => f.endsWith('.json')))
    out[file.replace(/\.json$/, '')] = JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as Record<
      string,
      unknown
    >;
  return out;
}

export type Fault = 'none' | 'loop' | 'garbage' | 'hang' | 'huge';

export interface RegistryDouble {
  url: string;
  /** Request paths with their queries, in order. */
  requests: string[];
  /** Replaces the documents served (each a server.json), with when each was updated. */
  setDocuments(documents: Array<{ doc: Record<string, unknown>; updatedAt?: string }>): void;
  /** Raw list entries served after the documents' (malformed ones). */
  extra: unknown[];
  fault: Fault;
  pageSize: number;
  files: Map<string, Buffer>;
  close(): Promise<void>;
}

interface Stored {
  doc: Record<string, unknown>;
  updatedAt: string;
}

function wrap(entry: Stored, all: Stored[]): Record<string, unknown> {
  const name = entry.doc.name;
  const versions = all.filter((e) => e.doc.name === name);
  return {
    server: entry.doc,
    _meta: {
      'io.modelcontextprotocol.registry/official': {
        status: 'active',
        publishedAt: '2025-10-24T00:00:00Z',
        updatedAt: entry.updatedAt,
        isLatest: versions[versions.length - 1] === entry,
      },
    },
  };
}

export async function startRegistryDouble(
  documents: Array<{ doc: Record<string, unknown>; updatedAt?: string }> = [],
): Promise<RegistryDouble> {
  let stored: Stored[] = [];
  const sockets = new Set<Socket>();
  const state: RegistryDouble = {
    url: '',
    requests: [],
    extra: [],
    fault: 'none',
    pageSize: 100,
    files: new Map(),
    setDocuments(docs) {
      stored = docs.map((d) => ({ doc: d.doc, updatedAt: d.updatedAt ?? '2025-11-01T00:00:00Z' }));
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  state.setDocuments(documents);

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const list = (url: URL, res: ServerResponse) => {
    const search = url.searchParams.get('search') ?? '';
    const since = url.searchParams.get('updated_since');
    const latestOnly = url.searchParams.get('version') === 'latest';
    const limit = Math.min(Number(url.searchParams.get('limit') ?? 30), state.pageSize);
    const matching: unknown[] = [
      ...stored
        .filter((e) => String(e.doc.name).includes(search))
        .filter((e) => !since || e.updatedAt >= since)
        .map((e) => wrap(e, stored))
        .filter(
          (w) =>
            !latestOnly ||
            (w._meta as Record<string, { isLatest: boolean }>)['io.modelcontextprotocol.registry/official']!.isLatest,
        ),
      // Malformed entries are matched by their name, when they have one.
      ...state.extra.filter((raw) => {
        const name = (raw as { server?: { name?: unknown } } | null)?.server?.name;
        return typeof name !== 'string' || name.includes(search);
      }),
    ];
    const start = Number(url.searchParams.get('cursor') ?? 0);
    const page = matching.slice(start, start + limit);
    const next = start + limit < matching.length ? String(start + limit) : undefined;
    // A registry that loops hands back the first page's cursor again.
    const cursor = state.fault === 'loop' && next ? String(limit) : next;
    json(res, 200, { servers: page, metadata: { count: page.length, ...(cursor ? { nextCursor: cursor } : {}) } });
  };

  const versions = (name: string, version: string | undefined, res: ServerResponse) => {
    const all = stored.filter((e) => e.doc.name === name);
    if (all.length === 0) return json(res, 404, { error: 'Server not found' });
    if (version === undefined)
      return json(res, 200, {
        servers: [...all].reverse().map((e) => wrap(e, stored)),
        metadata: { count: all.length },
      });
    const found = version === 'latest' ? all[all.length - 1] : all.find((e) => e.doc.version === version);
    if (!found) return json(res, 404, { error: 'Server version not found' });
    json(res, 200, wrap(found, stored));
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    state.requests.push(url.pathname + url.search);
    if (url.pathname.startsWith('/files/')) {
      const file = state.files.get(url.pathname.slice('/files/'.length));
      if (!file) return json(res, 404, { error: 'no such file' });
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.byteLength });
      return void res.end(file);
    }
    if (state.fault === 'hang') return; // never answers: the client's deadline must end it
    if (state.fault === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end('<html>Service Unavailable</html>');
    }
    if (state.fault === 'huge') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(`{"servers":[],"padding":"${'x'.repeat(9 * 1024 * 1024)}"}`);
    }
    if (url.pathname === '/v0.1/servers') return list(url, res);
    const match = /^\/v0\.1\/servers\/([^/]+)\/versions(?:\/([^/]+))?$/.exec(url.pathname);
    if (match) return versions(decodeURIComponent(match[1]!), match[2] ? decodeURIComponent(match[2]) : undefined, res);
    json(res, 404, { error: 'not found' });
  };

  const server = createServer(handle);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
