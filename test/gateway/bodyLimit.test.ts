/**
 * The body limit holds before the era is decided: a request larger than the gateway accepts is
 * answered 413 whether it is a 2025 `initialize` or a 2026-07-28 request carrying the `_meta`
 * envelope, and the gateway keeps serving. A real Gateway (its HTTP server, agents, catalog)
 * with a small limit; no call path is reached.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toErrorShape } from '../../electron/core/errors.js';
import { AgentStore } from '../../electron/gateway/agentStore.js';
import { GatewayCatalog } from '../../electron/gateway/catalog.js';
import { Gateway } from '../../electron/gateway/gateway.js';
import { openConfConfigStore } from '../../electron/web/confConfigStore.js';
import { scratchDir } from '../helpers/fixtures.js';

const LIMIT = 4096;
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};

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

  const post = async (headers: Record<string, string>, body: unknown): Promise<{ status: number; body: unknown }> => {
    const response = await fetch(url, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });
    return { status: response.status, body: await response.json() };
  };
  const padding = 'x'.repeat(LIMIT);

  it('a legacy initialize over the limit is 413', async () => {
    const big = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: padding, version: '1' } } };
    expect((await post({}, big)).status).toBe(413);
  });

  it('a modern request over the limit is 413; under it, the same request is served', async () => {
    const headers = { 'Mcp-Protocol-Version': '2026-07-28', 'Mcp-Method': 'server/discover' };
    const big = await post(headers, { jsonrpc: '2.0', id: 2, method: 'server/discover', params: { _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientInfo': { name: padding, version: '1' } } } });
    expect(big.status).toBe(413);
    const small = await post(headers, { jsonrpc: '2.0', id: 3, method: 'server/discover', params: { _meta: ENVELOPE } });
    expect(small.status).toBe(200);
    expect(small.body).toMatchObject({ result: { supportedVersions: expect.arrayContaining(['2026-07-28']), capabilities: { tools: { listChanged: true } } } });
  });
});
