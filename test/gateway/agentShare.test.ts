/**
 * Each agent's share of what the gateway holds open (issue 28.6), through real HTTP to a real
 * Gateway: one agent may hold 32 `subscriptions/listen` streams, the 33rd is refused (503) with the
 * limit named while its 32 keep streaming, and another agent still opens its own stream and is
 * served; and with a small connection cap, an agent holding its share (a quarter of the cap) in
 * open streams gets 503 for more, while another agent is still served. Before the shares, the
 * 33rd stream was opened like any, and one agent's streams up to the cap reset every other agent.
 */
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { toErrorShape } from '../../electron/core/errors.js';
import { MAX_LISTEN_STREAMS_PER_AGENT } from '../../electron/gateway/agentShare.js';
import { AgentStore } from '../../electron/gateway/agentStore.js';
import { GatewayCatalog } from '../../electron/gateway/catalog.js';
import { Gateway } from '../../electron/gateway/gateway.js';
import { openConfConfigStore } from '../../electron/web/confConfigStore.js';
import { scratchDir } from '../helpers/fixtures.js';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};
const ALL = { allServers: true, serverIds: [], localTools: false };

describe('each agent’s share of open streams and connections', () => {
  const scratch = scratchDir('mh-gateway-share-');
  const agents = new AgentStore(openConfConfigStore(join(scratch.dir, 'data')), () => undefined);
  const greedy = agents.create('Greedy', ALL).token;
  const other = agents.create('Other', ALL).token;
  let gateway: Gateway | undefined;
  const streams: AbortController[] = [];

  const start = async (maxConnections?: number): Promise<URL> => {
    gateway = new Gateway({
      agents,
      catalog: new GatewayCatalog(
        () => [{ name: 'echo', serverId: 'fx', description: 'echo', inputSchema: { type: 'object' } }] as never,
      ),
      calls: { call: () => Promise.reject(new Error('no call is expected')) },
      describe: (error) => toErrorShape(error),
      version: '0.0.0-test',
      stdio: { command: 'miniharness-gateway', args: [] },
      onChange: () => undefined,
      ...(maxConnections ? { httpLimits: { maxConnections } } : {}),
    });
    return new URL((await gateway.start(0)).url);
  };
  afterEach(async () => {
    for (const stream of streams.splice(0)) stream.abort();
    await gateway?.stop();
  });
  afterAll(() => scratch.cleanup());

  const post = (url: URL, token: string, method: string, id: number, signal?: AbortSignal): Promise<Response> =>
    fetch(url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Protocol-Version': '2026-07-28',
        'Mcp-Method': method,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        method,
        params: {
          ...(method === 'subscriptions/listen' ? { notifications: { toolsListChanged: true } } : {}),
          _meta: ENVELOPE,
        },
      }),
      ...(signal ? { signal } : {}),
    });
  /** Opens a listen stream and keeps it open (its body unread); the response, whatever it is. */
  const listen = async (url: URL, token: string, id: number): Promise<Response> => {
    const controller = new AbortController();
    streams.push(controller);
    return post(url, token, 'subscriptions/listen', id, controller.signal);
  };

  it(`one listen stream more than ${MAX_LISTEN_STREAMS_PER_AGENT} for one agent is 503 naming the limit; another agent is still served`, async () => {
    const url = await start();
    for (let i = 0; i < MAX_LISTEN_STREAMS_PER_AGENT; i++) {
      const open = await listen(url, greedy, i);
      expect(open.status).toBe(200);
      expect(open.headers.get('content-type')).toMatch(/text\/event-stream/);
    }
    const refused = await listen(url, greedy, 99);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toMatchObject({
      id: 99,
      error: { message: expect.stringContaining(`MiniHarness allows ${MAX_LISTEN_STREAMS_PER_AGENT} per agent`) },
    });
    const theirs = await listen(url, other, 1);
    expect(theirs.status).toBe(200);
    const list = await post(url, other, 'tools/list', 2);
    expect(list.status).toBe(200);
    expect(await list.text()).toContain('fx__echo');
  });

  it('with a cap of 40 connections, one agent holds at most 10 open requests; another agent is still served', async () => {
    const url = await start(40);
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await listen(url, greedy, i)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.slice(10).every((s) => s === 503)).toBe(true);
    const list = await post(url, other, 'tools/list', 2);
    expect(list.status).toBe(200);
    expect(await list.text()).toContain('fx__echo');
  });
});
