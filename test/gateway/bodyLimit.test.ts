/**
 * The body limit holds before the era is decided: a request larger than the gateway accepts is
 * answered 413, naming the limit in bytes, with `Connection: close`, and the gateway then closes
 * that connection — whether it is a 2025 `initialize` or a 2026-07-28 request carrying the `_meta`
 * envelope — and keeps serving. A real Gateway (its HTTP server, agents, catalog) with a small
 * limit; no call path is reached.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toErrorShape } from '../../electron/core/errors.js';
import { AgentStore } from '../../electron/gateway/agentStore.js';
import { GatewayCatalog } from '../../electron/gateway/catalog.js';
import { Gateway } from '../../electron/gateway/gateway.js';
import { openConfConfigStore } from '../../electron/web/confConfigStore.js';
import { scratchDir } from '../helpers/fixtures.js';
import { rawSocket } from '../helpers/rawSocket.js';

const LIMIT = 4096;
/** The sentence the gateway answers a body over the limit with (gateway.ts). */
const TOO_LARGE = `Request too large: the gateway accepts at most ${LIMIT} bytes.`;
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};

/** The body of a raw HTTP/1.1 answer, chunked or not; throws when it was cut short. */
function bodyOf(answer: string): string {
  const split = answer.indexOf('\r\n\r\n');
  if (split < 0) throw new Error('no end of headers');
  const head = answer.slice(0, split);
  let rest = answer.slice(split + 4);
  if (!/\r\ntransfer-encoding: chunked\r?$/im.test(head)) return rest;
  let body = '';
  for (;;) {
    const line = rest.indexOf('\r\n');
    if (line < 0) throw new Error('a chunk was cut short');
    const size = Number.parseInt(rest.slice(0, line), 16);
    if (size === 0) return body;
    body += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 2 + size + 2);
  }
}

describe('the body limit, in both eras', () => {
  const scratch = scratchDir('mh-gateway-body-');
  let gateway: Gateway;
  let url: URL;
  let token: string;

  beforeAll(async () => {
    const agents = new AgentStore(openConfConfigStore(join(scratch.dir, 'data')), () => undefined);
    token = agents.create('Big sender', { allServers: true, serverIds: [], localTools: false }).token;
    gateway = new Gateway({
      agents,
      catalog: new GatewayCatalog(() => []),
      calls: { call: () => Promise.reject(new Error('no call is expected')) },
      describe: (error) => toErrorShape(error),
      version: '0.0.0-test',
      stdio: { command: 'miniharness-gateway', args: [] },
      onChange: () => undefined,
      maxBodyBytes: LIMIT,
    });
    url = new URL((await gateway.start(0)).url);
  });

  afterAll(async () => {
    await gateway?.stop();
    scratch.cleanup();
  });

  const post = async (
    headers: Record<string, string>,
    body: unknown,
  ): Promise<{ status: number; connection: string | null; body: unknown }> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    });
    return { status: response.status, connection: response.headers.get('connection'), body: await response.json() };
  };
  const padding = 'x'.repeat(LIMIT);
  const MODERN_HEADERS = { 'Mcp-Protocol-Version': '2026-07-28', 'Mcp-Method': 'server/discover' };
  const BIG = {
    legacy: {
      headers: {},
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: padding, version: '1' } },
      },
    },
    modern: {
      headers: MODERN_HEADERS,
      body: {
        jsonrpc: '2.0',
        id: 2,
        method: 'server/discover',
        params: { _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientInfo': { name: padding, version: '1' } } },
      },
    },
  } as const;

  it('a legacy initialize over the limit is 413, naming the limit, and the connection closes', async () => {
    const big = await post(BIG.legacy.headers, BIG.legacy.body);
    expect(big.status).toBe(413);
    expect(big.body).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: TOO_LARGE }, id: null });
    expect(big.connection).toBe('close');
  });

  it('a modern request over the limit is 413, naming the limit, and the connection closes; under it, the same request is served', async () => {
    const big = await post(BIG.modern.headers, BIG.modern.body);
    expect(big.status).toBe(413);
    expect(big.body).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: TOO_LARGE }, id: null });
    expect(big.connection).toBe('close');
    const small = await post(MODERN_HEADERS, {
      jsonrpc: '2.0',
      id: 3,
      method: 'server/discover',
      params: { _meta: ENVELOPE },
    });
    expect(small.status).toBe(200);
    expect(small.body).toMatchObject({
      result: {
        supportedVersions: expect.arrayContaining(['2026-07-28']),
        capabilities: { tools: { listChanged: true } },
      },
    });
  });

  for (const era of ['legacy', 'modern'] as const) {
    it(`${era}: on the wire, the whole 413 reaches the client and then the gateway ends the connection (the client keeps its side open)`, async () => {
      const body = JSON.stringify(BIG[era].body);
      const extra = Object.entries(BIG[era].headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      const conn = await rawSocket(url.hostname, Number(url.port));
      // HTTP/1.1 keeps a connection open by default: only the gateway's close ends this one.
      conn.socket.write(
        `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      try {
        await conn.closed;
      } finally {
        conn.socket.destroy(); // a no-op once the gateway closed it; frees it if the test failed first
      }
      const received = conn.received();
      expect(received).toMatch(/^HTTP\/1\.1 413 /);
      expect(received).toMatch(/\r\nconnection: close\r\n/i);
      // The whole answer came before the close: its body complete, up to the last (empty) chunk.
      expect(JSON.parse(bodyOf(received))).toEqual({
        jsonrpc: '2.0',
        error: { code: -32600, message: TOO_LARGE },
        id: null,
      });
    });
  }
});
