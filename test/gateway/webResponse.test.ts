/**
 * How the gateway answers on the wire: one JSON body when a request's stream would start with its
 * response, an SSE stream as soon as anything else comes first (progress), and the agent's GET
 * stream opened at once. Raw HTTP against the real gateway, so the content types are seen as sent.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseData } from '../../electron/gateway/webResponse.js';
import { scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import { addFixtureServer, startGatewayApp } from './support.js';

interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Sends one request; resolves with the whole reply, or (`headersOnly`) as soon as the headers came. */
function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body?: string,
  headersOnly = false,
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        headers: { Accept: 'application/json, text/event-stream', 'Content-Type': 'application/json', ...headers },
      },
      (res) => {
        if (headersOnly) {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
          res.destroy();
          return;
        }
        let data = '';
        res.on('data', (chunk: Buffer) => (data += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('the gateway’s responses on the wire', () => {
  const scratch = scratchDir('mh-gateway-wire-');
  let app: GatewayApp;
  let auth: Record<string, string>;

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir);
    await addFixtureServer(app, 'fx', { FIXTURE_TOOLS: 'echo,slow' }, ['echo', 'slow']);
    const agent = await app.createAgent('Wire agent');
    const init = await send(
      app.url,
      'POST',
      { Authorization: `Bearer ${agent.token}` },
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    );
    // initialize itself is a single request answered first thing: JSON, with the session id.
    expect(init.headers['content-type']).toBe('application/json');
    expect(JSON.parse(init.body)).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { serverInfo: { name: 'MiniHarness' } },
    });
    auth = {
      Authorization: `Bearer ${agent.token}`,
      'mcp-session-id': init.headers['mcp-session-id'] as string,
      'mcp-protocol-version': '2025-06-18',
    };
    expect(
      (await send(app.url, 'POST', auth, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })))
        .status,
    ).toBe(202);
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    scratch.cleanup();
  });

  it('a call without a progress token: one application/json body with its exact length', async () => {
    const reply = await send(
      app.url,
      'POST',
      auth,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'fx__echo', arguments: { text: 'plain' } },
      }),
    );
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(Number(reply.headers['content-length'])).toBe(Buffer.byteLength(reply.body));
    expect(JSON.parse(reply.body)).toMatchObject({
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: 'plain' }] },
    });
  });

  it('a 2026-07-28 call without a progress token: one application/json body with its exact length, not chunked', async () => {
    const reply = await send(
      app.url,
      'POST',
      {
        Authorization: auth.Authorization!,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'fx__echo',
      },
      JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: {
          name: 'fx__echo',
          arguments: { text: 'modern' },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    );
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json');
    // One write with its length, as the 2025 answers: no chunked framing (a second write for its end).
    expect(reply.headers['transfer-encoding']).toBeUndefined();
    expect(Number(reply.headers['content-length'])).toBe(Buffer.byteLength(reply.body));
    expect(JSON.parse(reply.body)).toMatchObject({
      jsonrpc: '2.0',
      id: 3,
      result: { content: [{ type: 'text', text: 'modern' }] },
    });
  });

  it('a call with a progress token: an SSE stream whose progress comes before the result', async () => {
    const reply = await send(
      app.url,
      'POST',
      auth,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'fx__slow', arguments: { ms: 50 }, _meta: { progressToken: 'p-3' } },
      }),
    );
    expect(reply.headers['content-type']).toBe('text/event-stream');
    const messages = reply.body
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map(
        (line) => JSON.parse(line.slice(6)) as { method?: string; id?: number; params?: { progressToken?: string } },
      );
    expect(messages.map((m) => m.method ?? `response ${m.id}`)).toEqual(['notifications/progress', 'response 3']);
    expect(messages[0]?.params?.progressToken).toBe('p-3');
  });

  it('a batch keeps the stream: several answers in one reply', async () => {
    const batch = await send(
      app.url,
      'POST',
      auth,
      JSON.stringify([
        { jsonrpc: '2.0', id: 4, method: 'tools/list' },
        { jsonrpc: '2.0', id: 5, method: 'ping' },
      ]),
    );
    expect(batch.headers['content-type']).toBe('text/event-stream');
    expect(batch.body.match(/^data: /gm)).toHaveLength(2);
  });

  it('the agent’s GET stream sends its headers at once, before any event', async () => {
    const reply = await send(app.url, 'GET', auth, undefined, true);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/event-stream');
  });
});

describe('responseData', () => {
  /** The chunk's bytes as the transport's stream yields them, the data found as text. */
  const dataOf = (chunk: string): string | undefined => {
    const bytes = new TextEncoder().encode(chunk);
    return responseData(bytes)?.toString('utf8');
  };

  it('takes the JSON of a response event as the SDK writes it, and nothing else', () => {
    expect(dataOf('event: message\ndata: {"result":{"content":[]},"jsonrpc":"2.0","id":7}\n\n')).toBe(
      '{"result":{"content":[]},"jsonrpc":"2.0","id":7}',
    );
    expect(dataOf('event: message\nid: 12\ndata: {"jsonrpc":"2.0","id":7,"error":{"code":-1,"message":"x"}}\n\n')).toBe(
      '{"jsonrpc":"2.0","id":7,"error":{"code":-1,"message":"x"}}',
    );
    expect(
      dataOf('event: message\ndata: {"method":"notifications/progress","params":{},"jsonrpc":"2.0"}\n\n'),
    ).toBeUndefined();
    expect(
      dataOf('event: message\ndata: {"method":"elicitation/create","params":{},"jsonrpc":"2.0","id":1}\n\n'),
    ).toBeUndefined();
    expect(dataOf(': keepalive\n\n')).toBeUndefined();
    // Two events in one chunk are not one response.
    expect(dataOf('event: message\ndata: {"result":{}}\n\nevent: message\ndata: {"result":{}}\n\n')).toBeUndefined();
  });

  it('refuses what is not exactly one event of one data line, and keeps the bytes as they came', () => {
    // No blank line at the end, a second data line, something after the event, another event name.
    expect(dataOf('event: message\ndata: {"result":{}}\n')).toBeUndefined();
    expect(dataOf('event: message\ndata: {"result":{}}\ndata: {"result":{}}\n\n')).toBeUndefined();
    expect(dataOf('event: message\ndata: {"result":{}}\n\n:')).toBeUndefined();
    expect(dataOf('event: other\ndata: {"result":{}}\n\n')).toBeUndefined();
    expect(dataOf('event: message\nid: 3')).toBeUndefined();
    // A view into a larger buffer (as a stream chunk may be), and text beyond ASCII, byte for byte.
    const framed = new TextEncoder().encode('xxevent: message\ndata: {"result":{"text":"Grüße ✓"}}\n\nyy');
    const found = responseData(framed.subarray(2, framed.length - 2));
    expect(found?.toString('utf8')).toBe('{"result":{"text":"Grüße ✓"}}');
  });
});
