/**
 * SdkClient checks a `tools/call` result with the era's own codec, made once per era instead of
 * the SDK's per-request probe (issue 33; mcp/sdkAdapter.ts SdkClient.request): the same results
 * pass and the same ones are refused, with the same error, as with the SDK's own `Client` — and
 * the codec is never asked to validate `undefined` (the probe) on a call. The server is a peer
 * written on the other end of the SDK's in-memory transport, so it can answer what no SDK server
 * would send.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { SdkClient } from '../../electron/mcp/sdkAdapter.js';

/** A 2025 server that answers initialize, then every tools/call with `result`. */
async function connected<C extends Client>(client: C, result: unknown): Promise<C> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  serverSide.onmessage = (message: JSONRPCMessage) => {
    if (!('method' in message) || !('id' in message)) return;
    const answer =
      message.method === 'initialize'
        ? {
            protocolVersion: '2025-11-25',
            capabilities: { tools: {} },
            serverInfo: { name: 'peer', version: '1.0.0' },
          }
        : result;
    void serverSide.send({ jsonrpc: '2.0', id: message.id, result: answer } as JSONRPCMessage);
  };
  await serverSide.start();
  await client.connect(clientSide);
  return client;
}

/** The era codec's validateResult, wrapped to count what it is asked (restored after each test). */
type Codec = { validateResult(method: string, raw: unknown): unknown };
const restore: Array<() => void> = [];
function countProbes(client: Client): { probes: number; checks: number } {
  const codec = (client as unknown as { _wireCodec(): Codec })._wireCodec();
  const original = codec.validateResult;
  const counts = { probes: 0, checks: 0 };
  codec.validateResult = function (method: string, raw: unknown) {
    if (method === 'tools/call') {
      if (raw === undefined) counts.probes++;
      else counts.checks++;
    }
    return original.call(this, method, raw);
  };
  restore.push(() => {
    codec.validateResult = original;
  });
  return counts;
}

const info = { name: 'test', version: '1.0.0' };
const outcome = (promise: Promise<unknown>) =>
  promise.then(
    (value) => ({ value }),
    (error: unknown) => ({
      error: {
        name: (error as Error).name,
        code: (error as { code?: unknown }).code,
        message: (error as Error).message,
      },
    }),
  );

describe('SdkClient: a tools/call result checked once per era', () => {
  afterEach(async () => {
    for (const undo of restore.splice(0)) undo();
  });

  const valid: unknown = { content: [{ type: 'text', text: 'hi' }], structuredContent: { a: 1 }, isError: false };
  const invalid: unknown[] = [
    { content: 'not an array' },
    { content: [{ type: 'text', text: 42 }] },
    { content: [{ type: 'image', data: 'AA==' }] },
  ];

  it.each<[unknown]>([[valid], ...invalid.map((result): [unknown] => [result])])(
    'answers %j as the SDK’s own Client does',
    async (result) => {
      const sdk = await connected(new Client(info), result);
      const ours = await connected(new SdkClient(info), result);
      const theirs = await outcome(sdk.callTool({ name: 'echo', arguments: {} }));
      const mine = await outcome(ours.callTool({ name: 'echo', arguments: {} }));
      expect(mine).toEqual(theirs);
      if (result !== valid) expect(mine).toHaveProperty('error');
      else expect(mine).toEqual({ value: expect.objectContaining(valid) });
      await Promise.all([sdk.close(), ours.close()]);
    },
  );

  /** Valid results the codec still checks (not plain): an image, annotations, a `_meta`, a key of the block's own. */
  const checked: unknown[] = [
    { content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }] },
    { content: [{ type: 'text', text: 'a', annotations: { priority: 1 } }] },
    { content: [], _meta: { note: 1 } },
    { content: [{ type: 'text', text: 'a', _meta: {} }] },
  ];
  /** Plain results (built without the codec, plainToolResult) in several key orders and shapes. */
  const plainOnes: unknown[] = [
    valid,
    { content: [] },
    { isError: true, content: [{ text: 'b', type: 'text' }] },
    { structuredContent: { z: 1, a: [1, { b: null }] }, content: [{ type: 'text', text: '' }] },
    {
      content: [
        { type: 'text', text: 'x' },
        { text: 'y', type: 'text' },
      ],
      isError: false,
      structuredContent: {},
    },
  ];

  it.each<[unknown]>([...checked, ...plainOnes].map((result): [unknown] => [result]))(
    'answers the valid %j exactly as the SDK’s own Client does (same value, same JSON)',
    async (result) => {
      const sdk = await connected(new Client(info), result);
      const ours = await connected(new SdkClient(info), result);
      const theirs = await sdk.callTool({ name: 'echo', arguments: {} });
      const mine = await ours.callTool({ name: 'echo', arguments: {} });
      expect(mine).toStrictEqual(theirs);
      expect(JSON.stringify(mine)).toBe(JSON.stringify(theirs));
      await Promise.all([sdk.close(), ours.close()]);
    },
  );

  it('a plain result is built without the codec; any other is checked by it', async () => {
    const plainClient = await connected(new SdkClient(info), plainOnes[3]);
    const plainCounts = countProbes(plainClient);
    for (let i = 0; i < 3; i++) await plainClient.callTool({ name: 'echo', arguments: {} });
    expect(plainCounts).toEqual({ probes: 0, checks: 0 });
    await plainClient.close();

    const other = await connected(new SdkClient(info), checked[1]);
    const otherCounts = countProbes(other);
    for (let i = 0; i < 3; i++) await other.callTool({ name: 'echo', arguments: {} });
    expect(otherCounts).toEqual({ probes: 0, checks: 3 });
    await other.close();
  });

  it('checks every result, and never probes the codec with undefined', async () => {
    const sdk = await connected(new Client(info), valid);
    const counts = countProbes(sdk);
    for (let i = 0; i < 3; i++) await sdk.callTool({ name: 'echo', arguments: {} });
    // The SDK's own Client probes once per call: what SdkClient saves.
    expect(counts).toEqual({ probes: 3, checks: 3 });
    await sdk.close();
    for (const undo of restore.splice(0)) undo();

    // A result the codec checks (plain ones are built without it: the test above).
    const ours = await connected(new SdkClient(info), checked[0]);
    const ourCounts = countProbes(ours);
    for (let i = 0; i < 3; i++) await ours.callTool({ name: 'echo', arguments: {} });
    expect(ourCounts).toEqual({ probes: 0, checks: 3 });
    await ours.close();
  });
});
