/**
 * Transparent names (issue 28.15) through the real gateway: an agent whose visibility asks for own
 * names sees the tools and prompts under the names their servers documented, the seed's priority
 * rule decides a name two servers offer (the other stays reachable as `<server>__<tool>`), and
 * `completion/complete` reaches the server of the prompt or template, in both eras. The servers are
 * our conformance double (test/doubles/servers/conformance-server.ts) over stdio, twice: `a`
 * (priority 0) and `b` (priority 5). Before: every name was `<server>__<tool>` whatever the agent
 * asked, and completion/complete answered -32601 (Method not found) in both eras.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalView } from '../../shared/contract.js';
import { bundledOnce } from '../helpers/buildFixtures.js';
import { PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';
import { join } from 'node:path';
import type { GatewayApp } from './support.js';
import { connectAgent, connectModernAgent, saveServerListed, startGatewayApp } from './support.js';

const BUILT = join(PROJECT_ROOT, '.cache', 'fixtures', 'conformance-server.mjs');
const build = bundledOnce(join(PROJECT_ROOT, 'test', 'doubles', 'servers', 'conformance-server.ts'), BUILT);

let app: GatewayApp;
let scratch: ReturnType<typeof scratchDir>;
let own: { token: string };
let prefixed: { token: string };
/** The server and tool of each approval asked (which server a name reached). */
const asked: Array<{ serverId: string; toolName: string }> = [];

beforeAll(async () => {
  await build();
  scratch = scratchDir('mh-own-names-');
  app = await startGatewayApp(scratch.dir);
  // The suite plays the person: every approval is allowed once.
  app.core.onEvent((event, payload) => {
    if (event === 'approval.requested') asked.push(payload as ApprovalView);
    if (event === 'approval.requested')
      void app
        .call('approvals.answer', { requestId: (payload as ApprovalView).requestId, answer: 'allow-once' })
        .catch(() => undefined);
  });
  for (const [id, priority] of [
    ['a', 0],
    ['b', 5],
  ] as const)
    await saveServerListed(app, {
      id,
      name: `Double ${id}`,
      transport: 'stdio',
      command: process.execPath,
      args: [BUILT],
      cwd: PROJECT_ROOT,
      priority,
    });
  own = await app.createAgent('Own names', { allServers: true, serverIds: [], localTools: false, ownNames: true });
  prefixed = await app.createAgent('Prefixed', { allServers: true, serverIds: [], localTools: false });
}, 60_000);

afterAll(async () => {
  await app?.close();
  scratch?.cleanup();
});

function textOf(result: unknown): string {
  return ((result as CallToolResult).content[0] as { text: string }).text;
}

describe('an agent that keeps own names', () => {
  it('sees each tool’s own name; a name both servers offer goes to the higher priority, the other keeps its prefix', async () => {
    const agent = await connectAgent(app.url, own.token);
    try {
      const names = (await agent.listTools()).tools.map((t) => t.name);
      expect(names).toContain('test_simple_text');
      expect(names).toContain('a__test_simple_text');
      expect(names).not.toContain('b__test_simple_text');
      expect(names.filter((n) => n === 'test_simple_text')).toHaveLength(1);
      // The bare name reaches b (the higher priority); b's prefixed name still reaches it too.
      const bare = await agent.callTool({ name: 'test_simple_text' });
      expect(textOf(bare)).toBe('This is a simple text response for testing.');
      expect(asked.at(-1)).toMatchObject({ serverId: 'b', toolName: 'test_simple_text' });
      expect((await agent.callTool({ name: 'b__test_simple_text' })).isError).toBeFalsy();
      expect((await agent.callTool({ name: 'a__test_simple_text' })).isError).toBeFalsy();
      expect(asked.at(-1)).toMatchObject({ serverId: 'a', toolName: 'test_simple_text' });
      // Prompts follow the same rule.
      const prompts = (await agent.listPrompts()).prompts.map((p) => p.name);
      expect(prompts).toContain('test_simple_prompt');
      expect(prompts).toContain('a__test_simple_prompt');
      const got = await agent.getPrompt({ name: 'test_simple_prompt' });
      expect(got.messages[0]?.content).toEqual({ type: 'text', text: 'This is a simple prompt for testing.' });
    } finally {
      await agent.close();
    }
  });

  it('an agent without the setting still sees only <server>__<tool>', async () => {
    const agent = await connectAgent(app.url, prefixed.token);
    try {
      const names = (await agent.listTools()).tools.map((t) => t.name);
      expect(names).toContain('a__test_simple_text');
      expect(names).toContain('b__test_simple_text');
      expect(names).not.toContain('test_simple_text');
    } finally {
      await agent.close();
    }
  });
});

describe('completion/complete through the gateway', () => {
  it('2025: a prompt argument and a template variable are completed by their server', async () => {
    const agent = await connectAgent(app.url, own.token);
    try {
      const prompt = await agent.complete({
        ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
        argument: { name: 'arg1', value: 'par' },
      });
      expect(prompt.completion.values).toEqual(['paris', 'park', 'party']);
    } finally {
      await agent.close();
    }
    const other = await connectAgent(app.url, prefixed.token);
    try {
      const prompt = await other.complete({
        ref: { type: 'ref/prompt', name: 'a__test_prompt_with_arguments' },
        argument: { name: 'arg1', value: 'park' },
      });
      expect(prompt.completion.values).toEqual(['park']);
      // Both servers list the template: the bare one is ambiguous, the namespaced one reaches its server.
      await expect(
        other.complete({
          ref: { type: 'ref/resource', uri: 'test://template/{id}/data' },
          argument: { name: 'id', value: '1' },
        }),
      ).rejects.toThrow(/Several servers offer/);
      const template = await other.complete({
        ref: { type: 'ref/resource', uri: 'miniharness://server/a/test://template/{id}/data' },
        argument: { name: 'id', value: '4' },
      });
      expect(template.completion.values).toEqual(['456']);
    } finally {
      await other.close();
    }
  });

  it('2026-07-28: the same, statelessly', async () => {
    const agent = await connectModernAgent(app.url, own.token);
    try {
      expect(agent.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const prompt = await agent.complete({
        ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
        argument: { name: 'arg1', value: 'pa' },
      });
      expect(prompt.completion.values).toEqual(['paris', 'park', 'party']);
    } finally {
      await agent.close();
    }
  });
});

describe('the servers’ log messages and resource subscriptions through the gateway', () => {
  it('2025: logging/setLevel is accepted; a call’s log messages reach the agent at its level', async () => {
    await app.call('servers.setLogLevel', { id: 'b', level: 'debug' });
    const agent = await connectAgent(app.url, own.token);
    try {
      const messages: Array<{ level: string; data: unknown }> = [];
      agent.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void messages.push(n.params));
      await agent.setLoggingLevel('info');
      const result = await agent.callTool({ name: 'test_tool_with_logging' });
      expect(result.isError).toBeFalsy();
      expect(messages.map((m) => m.data)).toEqual([
        'Tool execution started',
        'Tool processing data',
        'Tool execution completed',
      ]);
      // Above the agent's level only: at "error", the info messages are not sent.
      messages.length = 0;
      await agent.setLoggingLevel('error');
      await agent.callTool({ name: 'test_tool_with_logging' });
      expect(messages).toEqual([]);
    } finally {
      await agent.close();
    }
  });

  it('2025: resources/subscribe of a resource the agent may read is accepted, and unsubscribe; an unknown one is refused', async () => {
    const agent = await connectAgent(app.url, own.token);
    try {
      expect(agent.getServerCapabilities()?.resources?.subscribe).toBe(true);
      agent.setNotificationHandler(ResourceUpdatedNotificationSchema, () => undefined);
      await expect(agent.subscribeResource({ uri: 'miniharness://server/a/test://watched-resource' })).resolves.toEqual(
        {},
      );
      await expect(
        agent.unsubscribeResource({ uri: 'miniharness://server/a/test://watched-resource' }),
      ).resolves.toEqual({});
      await expect(agent.subscribeResource({ uri: 'test://nothing-here' })).rejects.toThrow(/Unknown resource/);
    } finally {
      await agent.close();
    }
  });
});
