/**
 * What the gateway's HTTP boundary bounds besides the body's size, through real sockets to a
 * real Gateway: a body nested deeper than MAX_JSON_DEPTH is answered 400 with the limit named,
 * in both eras, before anything walks it; a body sent too slowly is answered 408 and its
 * connection closed, while an answer that takes long (a call waiting) is not cut; connections
 * beyond the cap are closed at once, and the gateway keeps serving.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toErrorShape } from '../../electron/core/errors.js';
import { AgentStore } from '../../electron/gateway/agentStore.js';
import { GatewayCatalog } from '../../electron/gateway/catalog.js';
import { Gateway } from '../../electron/gateway/gateway.js';
import { openConfConfigStore } from '../../electron/web/confConfigStore.js';
import { MAX_JSON_DEPTH } from '../../shared/jsonDepth.js';
import { scratchDir } from '../helpers/fixtures.js';
import { startEchoGateway } from './echoGateway.js';
import { rawSocket } from '../helpers/rawSocket.js';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};

/** `{"a":{"a":…"bottom"…}}` `depth` levels deep, as text (JSON.stringify itself overflows on deep values). */
const nested = (depth: number): string => `${'{"a":'.repeat(depth)}"bottom"${'}'.repeat(depth)}`;

describe('the gateway boundary', () => {
  const scratch = scratchDir('mh-gateway-boundary-');
  let gateway: Gateway;
  let url: URL;
  let token: string;
  const calls: unknown[] = [];

  beforeAll(async () => {
    ({ gateway, url, token } = await startEchoGateway(scratch.dir, 'Deep sender', (request) => {
      calls.push(request);
      return Promise.reject(new Error('no call is expected'));
    }));
  });

  afterAll(async () => {
    await gateway?.stop();
    scratch.cleanup();
  });

  const post = async (
    headers: Record<string, string>,
    body: string,
  ): Promise<{ status: number; body: { error?: { code: number; message: string } } }> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        ...headers,
      },
      body,
    });
    return { status: response.status, body: (await response.json()) as { error?: { code: number; message: string } } };
  };

  it('a 2026-07-28 tools/call whose arguments nest 5,000 deep is answered 400 with the limit named; nothing is called', async () => {
    const headers = { 'Mcp-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'echo' };
    const deep = await post(
      headers,
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":${nested(5_000)},"_meta":${JSON.stringify(ENVELOPE)}}}`,
    );
    expect(deep.status).toBe(400);
    expect(deep.body.error).toMatchObject({
      code: -32600,
      message: expect.stringContaining(`more than ${MAX_JSON_DEPTH} levels deep`),
    });
    expect(calls).toEqual([]);
    const discover = await post(
      { 'Mcp-Protocol-Version': '2026-07-28', 'Mcp-Method': 'server/discover' },
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'server/discover', params: { _meta: ENVELOPE } }),
    );
    expect(discover.status).toBe(200);
  });

  it('a 2025 initialize nested past the limit is 400 too, one at the limit is not refused for its depth', async () => {
    const over = await post(
      {},
      `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"experimental":${nested(MAX_JSON_DEPTH)}},"clientInfo":{"name":"x","version":"1"}}}`,
    );
    expect(over.status).toBe(400);
    expect(over.body.error?.message).toMatch(/levels deep/);
    // params → capabilities → experimental → … : the whole body at exactly the limit.
    const at = await post(
      {},
      `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"experimental":${nested(MAX_JSON_DEPTH - 3)}},"clientInfo":{"name":"x","version":"1"}}}`,
    );
    expect(at.body.error?.message ?? '').not.toMatch(/levels deep/);
  });
});

describe('the gateway holds no slow or surplus connection', () => {
  const scratch = scratchDir('mh-gateway-conns-');
  const gateways: Gateway[] = [];
  let token: string;
  let agents: AgentStore;
  /** The answer of the one call the test lets finish, once it started. */
  let releaseCall: (() => void) | undefined;
  let callStarted!: () => void;
  const started = new Promise<void>((resolve) => (callStarted = resolve));

  beforeAll(() => {
    agents = new AgentStore(openConfConfigStore(join(scratch.dir, 'data')), () => undefined);
    token = agents.create('Slow sender', { allServers: true, serverIds: [], localTools: false }).token;
  });
  afterAll(async () => {
    releaseCall?.();
    await Promise.all(gateways.map((g) => g.stop()));
    scratch.cleanup();
  });

  async function startGateway(httpLimits: { maxConnections?: number; requestTimeoutMs?: number }): Promise<URL> {
    const gateway = new Gateway({
      agents,
      catalog: new GatewayCatalog(
        () => [{ name: 'wait', serverId: 'fx', description: 'waits', inputSchema: { type: 'object' } }] as never,
      ),
      calls: {
        call: () =>
          new Promise((resolve) => {
            callStarted();
            releaseCall = () =>
              resolve({
                result: { content: [{ type: 'text', text: 'answered late' }], isError: false },
                traceId: 't',
                replayed: false,
              } as never);
          }),
      },
      describe: (error) => toErrorShape(error),
      version: '0.0.0-test',
      stdio: { command: 'miniharness-gateway', args: [] },
      onChange: () => undefined,
      httpLimits,
    });
    gateways.push(gateway);
    return new URL((await gateway.start(0)).url);
  }

  it('a body that arrives too slowly is answered 408 and the connection closed; a call answered after that time is still answered', async () => {
    const url = await startGateway({ requestTimeoutMs: 400 });
    const headers = {
      'Mcp-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'tools/call',
      'Mcp-Name': 'fx__wait',
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    };
    // A call whose answer comes only when the test lets it: it must outlive the request timeout.
    const slowAnswer = fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'fx__wait', arguments: {}, _meta: ENVELOPE },
      }),
    });
    const slow = await rawSocket(url.hostname, Number(url.port));
    slow.socket.write(
      `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":`,
    );
    // A socket that sends nothing at all is closed too.
    const silent = await rawSocket(url.hostname, Number(url.port));
    await slow.closed;
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(slow.received()).toContain('did not receive the whole request in time');
    await silent.closed;
    await started;
    releaseCall?.();
    const answered = await slowAnswer;
    expect(answered.status).toBe(200);
    expect(await answered.text()).toContain('answered late');
  });

  it('connections beyond the cap are closed at once; once one goes, the gateway serves again', async () => {
    const url = await startGateway({ maxConnections: 4 });
    const held = await Promise.all([1, 2, 3, 4].map(() => rawSocket(url.hostname, Number(url.port))));
    const surplus = await rawSocket(url.hostname, Number(url.port));
    await surplus.closed;
    expect(surplus.received()).toBe('');
    for (const h of held) h.socket.destroy();
    await Promise.all(held.map((h) => h.closed));
    // The server learns of the closes on its own turn: the first requests after may still meet the cap.
    let status = 0;
    for (let attempt = 0; attempt < 100 && status === 0; attempt++) {
      status = await fetch(url, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'Mcp-Protocol-Version': '2026-07-28',
          'Mcp-Method': 'server/discover',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'server/discover', params: { _meta: ENVELOPE } }),
      }).then(
        (r) => r.status,
        () => 0,
      );
    }
    expect(status).toBe(200);
  });
});
