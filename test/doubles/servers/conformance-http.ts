/**
 * TEST ONLY — the conformance double (conformance-server.ts) over Streamable HTTP on 127.0.0.1,
 * for the suite's server leg run against it directly: 2026-07-28 requests served statelessly by
 * `createMcpHandler` (`legacy: 'reject'`), 2025 traffic (as `isLegacyRequest` classifies it)
 * served in sessions by the SDK's `WebStandardStreamableHTTPServerTransport`, so a tool can ask
 * the client (sampling, elicitation) as 2025 servers do. Host and Origin are checked first
 * (loopback names only: DNS rebinding), as a local server must.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  hostHeaderValidationResponse,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from '@modelcontextprotocol/server';
import { buildConformanceServer } from './conformance-server.js';

export interface ConformanceHttp {
  url: string;
  close(): Promise<void>;
}

export async function startConformanceHttp(): Promise<ConformanceHttp> {
  // The handler publishes list changes to open listen streams; the factory reaches it once it exists.
  const modern: ReturnType<typeof createMcpHandler> = createMcpHandler(
    () => buildConformanceServer({ notify: () => modern.notify }),
    { legacy: 'reject' },
  );
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();

  const legacy = async (request: Request): Promise<Response> => {
    const id = request.headers.get('mcp-session-id');
    const known = id ? sessions.get(id) : undefined;
    if (known) return known.handleRequest(request);
    if (id) return new Response('unknown session', { status: 404 });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await buildConformanceServer().connect(transport);
    return transport.handleRequest(request);
  };

  const node = toNodeHandler({
    fetch: async (request) => {
      const refused =
        hostHeaderValidationResponse(request, localhostAllowedHostnames()) ??
        originValidationResponse(request, localhostAllowedOrigins());
      if (refused) return refused;
      return (await isLegacyRequest(request)) ? legacy(request) : modern.fetch(request);
    },
  });
  const server = createServer((req, res) => void node(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      for (const transport of sessions.values()) await transport.close().catch(() => undefined);
      await modern.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Run as a script: serve on a free port and print the URL (for running the suite by hand). */
if (process.argv[1] && /conformance-http\.(ts|mjs|js)$/.test(process.argv[1])) {
  const running = await startConformanceHttp();
  process.stdout.write(`${running.url}\n`);
}
