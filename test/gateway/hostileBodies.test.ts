/**
 * No request's shape may stall the gateway (issue 28.5): a real Gateway over loopback HTTP gets
 * bodies whose cost behind the boundary grows per key or per element — 50,000 `_meta` keys (which
 * stalled the whole process for seconds), arguments of 30,000 keys, a `_meta` of 1,000 keys, a
 * batch of 100 messages, a `requestState` of 100,000 characters — in both eras. Each is refused
 * with a sentence naming its limit before anything parses or walks it, no call is made, and the
 * gateway keeps serving. Before the bound each of them was served: the call ran (200).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../electron/gateway/gateway.js';
import { MAX_BATCH_MESSAGES, MAX_REQUEST_STATE_CHARS } from '../../electron/gateway/requestBounds.js';
import { MAX_JSON_VALUES, MAX_META_KEYS } from '../../shared/jsonBounds.js';
import { scratchDir } from '../helpers/fixtures.js';
import { startEchoGateway } from './echoGateway.js';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};
const MODERN_CALL = { 'Mcp-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'fx__echo' };

const keys = (n: number): Record<string, string> =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
const modernCall = (params: Record<string, unknown>): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'fx__echo', arguments: {}, ...params, _meta: { ...ENVELOPE, ...(params._meta as object) } },
  });
const legacyInitialize = (meta: Record<string, unknown>): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' }, _meta: meta },
  });

describe('hostile request shapes are refused before anything walks them', () => {
  const scratch = scratchDir('mh-gateway-hostile-');
  let gateway: Gateway;
  let url: URL;
  let token: string;
  const calls: unknown[] = [];

  beforeAll(async () => {
    ({ gateway, url, token } = await startEchoGateway(scratch.dir, 'Hostile sender', (request) => {
      calls.push(request);
      return Promise.resolve({
        result: { content: [{ type: 'text', text: 'ran' }] },
        traceId: 'trace',
        replayed: false,
      } as never);
    }));
  });
  afterAll(async () => {
    await gateway?.stop();
    scratch.cleanup();
  });

  const post = async (
    headers: Record<string, string>,
    body: string,
  ): Promise<{ status: number; message: string | undefined }> => {
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
    const text = await response.text();
    const json = JSON.parse(text.startsWith('{') ? text : '{}') as { error?: { message?: string } };
    return { status: response.status, message: json.error?.message };
  };

  /** The gateway still serves a plain call. */
  async function expectServes(): Promise<void> {
    calls.length = 0;
    const plain = await post(MODERN_CALL, modernCall({ arguments: { text: 'hi' } }));
    expect(plain.status).toBe(200);
    expect(calls).toHaveLength(1);
    calls.length = 0;
  }

  it('a 2026-07-28 call with 50,000 _meta keys is 413, naming the limit of values; nothing is called', async () => {
    const reply = await post(MODERN_CALL, modernCall({ _meta: keys(50_000) }));
    expect(reply).toEqual({
      status: 413,
      message: expect.stringContaining(`more than ${MAX_JSON_VALUES.toLocaleString('en-US')} values`),
    });
    expect(calls).toEqual([]);
    await expectServes();
  });

  it('arguments of 30,000 keys are 413 too', async () => {
    const reply = await post(MODERN_CALL, modernCall({ arguments: keys(30_000) }));
    expect(reply.status).toBe(413);
    expect(reply.message).toMatch(/values/);
    expect(calls).toEqual([]);
    await expectServes();
  });

  it('a _meta of 1,000 keys is 400 naming its limit, in both eras; one of the limit is served', async () => {
    const modern = await post(MODERN_CALL, modernCall({ _meta: keys(1_000) }));
    expect(modern).toEqual({ status: 400, message: `Invalid request: _meta may hold at most ${MAX_META_KEYS} keys.` });
    const legacy = await post({}, legacyInitialize(keys(1_000)));
    expect(legacy).toEqual({ status: 400, message: `Invalid request: _meta may hold at most ${MAX_META_KEYS} keys.` });
    expect(calls).toEqual([]);
    const atLimit = await post(MODERN_CALL, modernCall({ _meta: keys(MAX_META_KEYS - Object.keys(ENVELOPE).length) }));
    expect(atLimit.status).toBe(200);
    expect(calls).toHaveLength(1);
    calls.length = 0;
  });

  it(`a batch of more than ${MAX_BATCH_MESSAGES} messages is 400 naming its limit`, async () => {
    const batch = Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }));
    const reply = await post({}, JSON.stringify(batch));
    expect(reply.status).toBe(400);
    expect(reply.message).toContain(`at most ${MAX_BATCH_MESSAGES} messages`);
    await expectServes();
  });

  it('a requestState of 100,000 characters is 400 naming its limit, before it is decoded', async () => {
    const reply = await post(MODERN_CALL, modernCall({ requestState: 'x'.repeat(100_000) }));
    expect(reply.status).toBe(400);
    expect(reply.message).toContain(`at most ${MAX_REQUEST_STATE_CHARS} characters`);
    expect(calls).toEqual([]);
    await expectServes();
  });
});
