/**
 * What the gateway's HTTP boundary bounds besides the body's size, through real sockets to a
 * real Gateway: a body nested deeper than MAX_JSON_DEPTH is answered 400 with the limit named,
 * in both eras, before anything walks it; the gateway keeps serving.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toErrorShape } from '../../electron/app/errors.js';
import { AgentStore } from '../../electron/gateway/agentStore.js';
import { GatewayCatalog } from '../../electron/gateway/catalog.js';
import { Gateway } from '../../electron/gateway/gateway.js';
import { openConfConfigStore } from '../../electron/web/confConfigStore.js';
import { MAX_JSON_DEPTH } from '../../shared/jsonDepth.js';
import { scratchDir } from '../helpers/fixtures.js';

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
    const agents = new AgentStore(openConfConfigStore(join(scratch.dir, 'data')), () => undefined);
    token = agents.create('Deep sender', { allServers: true, serverIds: [], localTools: false }).token;
    gateway = new Gateway({
      agents,
      catalog: new GatewayCatalog(() => [{ name: 'echo', serverId: 'fx', description: 'echo', inputSchema: { type: 'object' } }] as never),
      calls: {
        call: (request) => {
          calls.push(request);
          return Promise.reject(new Error('no call is expected'));
        },
      },
      describe: (error) => toErrorShape(error),
      version: '0.0.0-test',
      stdio: { command: 'miniharness-gateway', args: [] },
      onChange: () => undefined,
    });
    url = new URL((await gateway.start(0)).url);
  });

  afterAll(async () => {
    await gateway?.stop();
    scratch.cleanup();
  });

  const post = async (headers: Record<string, string>, body: string): Promise<{ status: number; body: { error?: { code: number; message: string } } }> => {
    const response = await fetch(url, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, body });
    return { status: response.status, body: (await response.json()) as { error?: { code: number; message: string } } };
  };

  it('a 2026-07-28 tools/call whose arguments nest 5,000 deep is answered 400 with the limit named; nothing is called', async () => {
    const headers = { 'Mcp-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'echo' };
    const deep = await post(headers, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":${nested(5_000)},"_meta":${JSON.stringify(ENVELOPE)}}}`);
    expect(deep.status).toBe(400);
    expect(deep.body.error).toMatchObject({ code: -32600, message: expect.stringContaining(`more than ${MAX_JSON_DEPTH} levels deep`) });
    expect(calls).toEqual([]);
    const discover = await post({ 'Mcp-Protocol-Version': '2026-07-28', 'Mcp-Method': 'server/discover' }, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'server/discover', params: { _meta: ENVELOPE } }));
    expect(discover.status).toBe(200);
  });

  it('a 2025 initialize nested past the limit is 400 too, one at the limit is not refused for its depth', async () => {
    const over = await post({}, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"experimental":${nested(MAX_JSON_DEPTH)}},"clientInfo":{"name":"x","version":"1"}}}`);
    expect(over.status).toBe(400);
    expect(over.body.error?.message).toMatch(/levels deep/);
    // params → capabilities → experimental → … : the whole body at exactly the limit.
    const at = await post({}, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"experimental":${nested(MAX_JSON_DEPTH - 3)}},"clientInfo":{"name":"x","version":"1"}}}`);
    expect(at.body.error?.message ?? '').not.toMatch(/levels deep/);
  });
});
