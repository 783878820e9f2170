/**
 * The gateway hands a result that is valid in every era by its shape to the agent as is, and the
 * SDK checks anything else against the agent's era as before (issue 33: the server leg's second
 * check of a result; mcp/sdkAdapter.ts plainInEveryEra). A real Gateway over loopback HTTP, agents
 * of both eras on the official SDK clients.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallOutcome } from '../../shared/contract.js';
import type { Gateway } from '../../electron/gateway/gateway.js';
import { plainInEveryEra } from '../../electron/mcp/sdkAdapter.js';
import { scratchDir } from '../helpers/fixtures.js';
import { startEchoGateway } from './echoGateway.js';
import { connectAgent, connectModernAgent } from './support.js';

describe('plainInEveryEra', () => {
  const text = { type: 'text', text: 'hi' };
  it.each([
    [{ content: [] }],
    [{ content: [text, text], isError: true, _meta: { k: 'v' } }],
    [{ content: [text], structuredContent: { a: [1, 2] } }],
  ])('accepts %j', (result) => {
    expect(plainInEveryEra(result)).toBe(true);
  });
  it.each([
    [{ content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }] }],
    [{ content: [{ ...text, annotations: { priority: 1 } }] }],
    [{ content: [{ type: 'text', text: 42 }] }],
    [{ content: [text], structuredContent: [1, 2] }],
    [{ content: [text], structuredContent: 'x' }],
    [{ content: [text], isError: 'yes' }],
    [{ content: [text], resultType: 'task' }],
    [{ content: 'hi' }],
  ])('leaves %j to the SDK’s check', (result) => {
    expect(plainInEveryEra(result)).toBe(false);
  });
});

describe('a tools/call result through the gateway, in both eras', () => {
  const scratch = scratchDir('mh-gateway-as-is-');
  let gateway: Gateway;
  let url: URL;
  let token: string;
  let next: CallOutcome['result'] = { content: [], isError: false };

  beforeAll(async () => {
    ({ gateway, url, token } = await startEchoGateway(scratch.dir, 'As-is agent', (request) =>
      Promise.resolve({
        callId: request.callId,
        traceId: 'trace-1',
        sessionId: 's',
        toolName: 'echo',
        serverId: 'fx',
        replayed: false,
        attempts: 1,
        result: next,
        warnings: [],
      }),
    ));
  });

  afterAll(async () => {
    await gateway?.stop();
    scratch.cleanup();
  });

  const agents = {
    legacy: async () => {
      const client = await connectAgent(url, token);
      return { call: (name: string) => client.callTool({ name }), close: () => client.close() };
    },
    modern: async () => {
      const client = await connectModernAgent(url, token);
      return { call: (name: string) => client.callTool({ name }), close: () => client.close() };
    },
  };

  it.each(['legacy', 'modern'] as const)('the %s agent gets a plain result whole', async (era) => {
    const agent = await agents[era]();
    try {
      next = { content: [{ type: 'text', text: 'Echo: hi' }], structuredContent: { said: 'hi' }, isError: false };
      const result = (await agent.call('fx__echo')) as CallToolResult;
      expect(result.content).toEqual([{ type: 'text', text: 'Echo: hi' }]);
      expect(result.structuredContent).toEqual({ said: 'hi' });
      expect(result._meta).toMatchObject({ 'io.miniharness/traceId': 'trace-1', 'io.miniharness/replayed': false });
    } finally {
      await agent.close();
    }
  });

  it.each(['legacy', 'modern'] as const)(
    'the %s agent never gets a result its era refuses: the SDK still checks what is not plain',
    async (era) => {
      const agent = await agents[era]();
      try {
        next = { content: [{ type: 'text', text: 42 } as never], isError: false };
        await expect(agent.call('fx__echo')).rejects.toThrow(/Invalid tools\/call result/);
      } finally {
        await agent.close();
      }
    },
  );
});
