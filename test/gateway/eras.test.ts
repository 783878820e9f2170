/**
 * Agents of both protocol eras at the one endpoint, in process: a v2 SDK Client negotiating in
 * `auto` mode (it must end modern, 2026-07-28, served statelessly) and a v1 SDK Client (a real
 * 2025-era peer: it ends legacy, in a session). Each lists, calls, is asked (Deny and Allow, as
 * the person answers in the GUI) and replays by `_meta["io.miniharness/callId"]` — the key works
 * across the eras. The modern agent's list changes come on its `subscriptions/listen` stream; the
 * checks before the era is decided (token, Host/Origin, body) hold for modern requests too.
 */
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import type { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { META_CALL_ID, META_REPLAYED, META_SESSION } from '../../shared/agents.js';
import type { ApprovalView } from '../../shared/contract.js';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT, readLines, scratchDir, sandboxWritingTo } from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import { connectAgent, connectModernAgent, startGatewayApp, saveServerListed } from './support.js';

interface ToolResult {
  content: unknown[];
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** What the tests need of an agent, whichever SDK line it is. */
interface Agent {
  era: string | undefined;
  listTools(): Promise<{ tools: Array<{ name: string }> }>;
  callTool(params: {
    name: string;
    arguments: Record<string, unknown>;
    _meta?: Record<string, unknown>;
  }): Promise<ToolResult>;
  instructions(): string | undefined;
  close(): Promise<void>;
}

function text(result: ToolResult): string {
  return (result.content[0] as { text: string }).text;
}

/** A v2 Client in auto mode over Streamable HTTP with the agent's bearer token. */
async function modernAgent(url: URL, token: string): Promise<{ agent: Agent; client: ModernClient }> {
  const client = await connectModernAgent(url, token);
  return {
    client,
    agent: {
      era: `${client.getProtocolEra()} ${client.getNegotiatedProtocolVersion()}`,
      listTools: () => client.listTools(),
      callTool: async (params) => (await client.callTool(params)) as ToolResult,
      instructions: () => client.getInstructions(),
      close: () => client.close(),
    },
  };
}

/** A v1 Client (the 2025 handshake) over Streamable HTTP with the agent's bearer token. */
async function legacyAgent(url: URL, token: string): Promise<{ agent: Agent; client: LegacyClient }> {
  const client = await connectAgent(url, token, 'legacy-agent');
  return {
    client,
    agent: {
      era: `legacy ${client.getServerVersion() ? 'initialized' : 'none'}`,
      listTools: () => client.listTools(),
      callTool: async (params) => (await client.callTool(params)) as ToolResult,
      instructions: () => client.getInstructions(),
      close: () => client.close(),
    },
  };
}

/** A raw HTTP exchange (headers and bodies the SDKs would never send). */
function raw(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let data = '';
        res.on('data', (chunk: Buffer) => (data += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};
const DISCOVER = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: ENVELOPE } });
const MODERN_HEADERS = { 'Mcp-Protocol-Version': '2026-07-28', 'Mcp-Method': 'server/discover' };

describe('agents of both eras at one endpoint', () => {
  const scratch = scratchDir('mh-gateway-eras-');
  const counter = join(scratch.dir, 'counter.txt');
  let app: GatewayApp;
  let token: string;
  const open: Agent[] = [];
  const eras: Record<'modern' | 'legacy', Agent> = {} as Record<'modern' | 'legacy', Agent>;
  let modernClient: ModernClient;

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir);
    await saveServerListed(app, {
      id: 'fx',
      name: 'Fixture',
      transport: 'stdio',
      command: process.execPath,
      args: [BUILT_STDIO_FIXTURE],
      cwd: PROJECT_ROOT,
      env: { FIXTURE_COUNTER: counter },
      sandbox: sandboxWritingTo({ FIXTURE_COUNTER: counter }),
    });
    await app.call('permissions.setToolLevel', { serverId: 'fx', toolName: 'echo', level: 'ALLOW' });
    await app.call('permissions.setToolLevel', { serverId: 'fx', toolName: 'slow', level: 'ALLOW' });
    token = (await app.createAgent('Both Eras')).token;
    const modern = await modernAgent(app.url, token);
    modernClient = modern.client;
    eras.modern = modern.agent;
    eras.legacy = (await legacyAgent(app.url, token)).agent;
    open.push(eras.modern, eras.legacy);
  }, 30_000);

  afterAll(async () => {
    for (const agent of open) await agent.close().catch(() => undefined);
    await app?.close();
    scratch.cleanup();
  });

  it('a v2 client in auto mode ends modern (2026-07-28); a v1 client ends legacy', () => {
    expect(eras.modern.era).toBe('modern 2026-07-28');
    expect(eras.legacy.era).toBe('legacy initialized');
    expect(modernClient.getDiscoverResult()?._meta?.['io.modelcontextprotocol/serverInfo']).toMatchObject({
      name: 'MiniHarness',
    });
  });

  describe.each(['modern', 'legacy'] as const)('the %s agent', (era) => {
    const agent = (): Agent => eras[era];

    it('lists the tools it may see, and is told how to make a call safe to retry', async () => {
      const { tools } = await agent().listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['fx__echo', 'fx__append']));
      expect(agent().instructions()).toContain(META_CALL_ID);
    });

    it('calls a tool through the pipeline', async () => {
      const result = await agent().callTool({ name: 'fx__echo', arguments: { text: `hello from ${era}` } });
      expect(result.isError).toBeFalsy();
      expect(text(result)).toBe(`hello from ${era}`);
      expect(result._meta?.['io.miniharness/traceId']).toEqual(expect.any(String));
    });

    it('is asked: Deny comes back as isError and nothing ran; Allow runs it', async () => {
      const before = readLines(counter).length;
      const asked = app.nextEvent<ApprovalView>(
        'approval.requested',
        (a) => (a.args as { line?: string }).line === `${era}-denied`,
      );
      const denied = agent().callTool({ name: 'fx__append', arguments: { line: `${era}-denied` } });
      const approval = await asked;
      expect(approval.userId).toBe('Both Eras');
      await app.call('approvals.answer', { requestId: approval.requestId, answer: 'deny' });
      const refused = await denied;
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/The user denied this call of fx__append/);
      expect(readLines(counter).length).toBe(before);

      const askedAgain = app.nextEvent<ApprovalView>(
        'approval.requested',
        (a) => (a.args as { line?: string }).line === `${era}-allowed`,
      );
      const allowed = agent().callTool({ name: 'fx__append', arguments: { line: `${era}-allowed` } });
      await app.call('approvals.answer', { requestId: (await askedAgain).requestId, answer: 'allow-once' });
      expect((await allowed).isError).toBeFalsy();
      expect(readLines(counter)).toContain(`${era}-allowed`);
    });

    it('replays a call repeated with the same callId from a new connection: one side effect', async () => {
      await app.call('permissions.setToolLevel', { serverId: 'fx', toolName: 'append', level: 'ALLOW' });
      try {
        const meta = { [META_CALL_ID]: `${era}-once`, [META_SESSION]: 'task-1' };
        const first = await agent().callTool({ name: 'fx__append', arguments: { line: `${era}-once` }, _meta: meta });
        const again =
          era === 'modern' ? (await modernAgent(app.url, token)).agent : (await legacyAgent(app.url, token)).agent;
        open.push(again);
        const second = await again.callTool({ name: 'fx__append', arguments: { line: `${era}-once` }, _meta: meta });
        expect(text(second)).toBe(text(first));
        expect(second._meta?.[META_REPLAYED]).toBe(true);
        expect(readLines(counter).filter((l) => l === `${era}-once`)).toHaveLength(1);
      } finally {
        await app.call('permissions.setToolLevel', { serverId: 'fx', toolName: 'append', level: 'ASK' });
      }
    });

    it('a callId at ASK: the first call is asked and runs; the same key replays without asking; with other arguments it is refused without asking and nothing runs', async () => {
      const key = `${era}-asked-key`;
      const meta = { [META_CALL_ID]: key, [META_SESSION]: 'task-ask' };
      const asked = (): number => app.events.filter((e) => e.event === 'approval.requested').length;
      /** The call's answer; fails at once (not at the test's timeout) if a person is asked for it instead. */
      const unasked = (line: string, call: Promise<ToolResult>): Promise<ToolResult> => {
        const seen = new Set(
          app.events.filter((e) => e.event === 'approval.requested').map((e) => (e.payload as ApprovalView).requestId),
        );
        return Promise.race([
          call,
          app
            .nextEvent<ApprovalView>(
              'approval.requested',
              (a) => !seen.has(a.requestId) && (a.args as { line?: string }).line === line,
            )
            .then((a): never => {
              throw new Error(`a person was asked (${a.requestId}) for a call that runs nothing`);
            }),
        ]);
      };
      // fx__append is at ASK: a person is asked for the first call, and Allow runs it.
      const firstAsked = app.nextEvent<ApprovalView>(
        'approval.requested',
        (a) => (a.args as { line?: string }).line === `${era}-keyed`,
      );
      const pending = agent().callTool({ name: 'fx__append', arguments: { line: `${era}-keyed` }, _meta: meta });
      await app.call('approvals.answer', { requestId: (await firstAsked).requestId, answer: 'allow-once' });
      const first = await pending;
      expect(first.isError).toBeFalsy();
      expect(readLines(counter).filter((l) => l === `${era}-keyed`)).toHaveLength(1);
      const askedAfterFirst = asked();
      const linesAfterFirst = readLines(counter).length;

      // The same key and arguments: the stored result, and nobody is asked (the rule is still ASK).
      const replay = await unasked(
        `${era}-keyed`,
        agent().callTool({ name: 'fx__append', arguments: { line: `${era}-keyed` }, _meta: meta }),
      );
      expect(replay.isError).toBeFalsy();
      expect(replay._meta?.[META_REPLAYED]).toBe(true);
      expect(text(replay)).toBe(text(first));

      // The same key with other arguments: refused with the sentence before anyone is asked; nothing runs.
      const reused = await unasked(
        `${era}-other`,
        agent().callTool({ name: 'fx__append', arguments: { line: `${era}-other` }, _meta: meta }),
      );
      expect(reused.isError).toBe(true);
      expect(reused._meta?.['io.miniharness/error']).toBe('arguments_mismatch');
      expect(text(reused)).toBe(
        `The callId "${key}" was already used for a call with other arguments. Use a new callId for a new call.`,
      );

      expect(asked()).toBe(askedAfterFirst);
      expect(await app.call<unknown[]>('approvals.list')).toEqual([]);
      expect(readLines(counter)).toHaveLength(linesAfterFirst);
      expect(readLines(counter)).not.toContain(`${era}-other`);
    });
  });

  it('the callId is the key across the eras: a legacy call is replayed to the modern agent', async () => {
    await app.call('permissions.setToolLevel', { serverId: 'fx', toolName: 'append', level: 'ALLOW' });
    try {
      const meta = { [META_CALL_ID]: 'cross-era-1' };
      const first = await eras.legacy.callTool({ name: 'fx__append', arguments: { line: 'cross-era' }, _meta: meta });
      const second = await eras.modern.callTool({ name: 'fx__append', arguments: { line: 'cross-era' }, _meta: meta });
      expect(second._meta?.[META_REPLAYED]).toBe(true);
      expect(text(second)).toBe(text(first));
      expect(readLines(counter).filter((l) => l === 'cross-era')).toHaveLength(1);
    } finally {
      await app.call('permissions.setToolLevel', { serverId: 'fx', toolName: 'append', level: 'ASK' });
    }
  });

  it('a modern call without a callId is a new call each time it is sent (no session to key it)', async () => {
    await app.call('permissions.setToolLevel', { serverId: 'fx', toolName: 'append', level: 'ALLOW' });
    try {
      const first = await eras.modern.callTool({ name: 'fx__append', arguments: { line: 'stateless-twice' } });
      const second = await eras.modern.callTool({ name: 'fx__append', arguments: { line: 'stateless-twice' } });
      expect(first._meta?.[META_CALL_ID]).not.toBe(second._meta?.[META_CALL_ID]);
      expect(second._meta?.[META_REPLAYED]).toBe(false);
      expect(readLines(counter).filter((l) => l === 'stateless-twice')).toHaveLength(2);
    } finally {
      await app.call('permissions.setToolLevel', { serverId: 'fx', toolName: 'append', level: 'ASK' });
    }
  });

  it('a modern call asks for progress and gets it', async () => {
    const messages: string[] = [];
    const result = await modernClient.callTool(
      { name: 'fx__slow', arguments: { ms: 300 } },
      { onprogress: (p) => messages.push(p.message ?? '') },
    );
    expect(result.isError).toBeFalsy();
    expect(messages).toContain('started');
  });

  it('cancelling a modern call closes its stream, which cancels it: the approval it waits for is withdrawn', async () => {
    const asked = app.nextEvent<ApprovalView>(
      'approval.requested',
      (a) => (a.args as { line?: string }).line === 'never-answered',
    );
    const controller = new AbortController();
    const pending = modernClient.callTool(
      { name: 'fx__append', arguments: { line: 'never-answered' } },
      { signal: controller.signal },
    );
    const approval = await asked;
    const closed = app.nextEvent<{ requestId: string; outcome: string }>(
      'approval.closed',
      (c) => c.requestId === approval.requestId,
    );
    controller.abort();
    await expect(pending).rejects.toThrow();
    expect((await closed).outcome).toBe('cancelled');
    expect(readLines(counter)).not.toContain('never-answered');
  });

  it('modern lists carry the cache fields and resultType', async () => {
    const listed = await raw(
      app.url,
      'POST',
      { Authorization: `Bearer ${token}`, 'Mcp-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list' },
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: ENVELOPE } }),
    );
    expect(listed.status).toBe(200);
    expect(JSON.parse(listed.body)).toMatchObject({
      result: { resultType: 'complete', ttlMs: expect.any(Number), cacheScope: 'private', tools: expect.any(Array) },
    });
  });

  it('checks come before the era: a modern request without a token is 401, from a foreign Origin or Host 403', async () => {
    expect((await raw(app.url, 'POST', MODERN_HEADERS, DISCOVER)).status).toBe(401);
    const auth = { ...MODERN_HEADERS, Authorization: `Bearer ${token}` };
    expect((await raw(app.url, 'POST', { ...auth, Origin: 'http://evil.example' }, DISCOVER)).status).toBe(403);
    expect((await raw(app.url, 'POST', { ...auth, Host: `evil.example:${app.url.port}` }, DISCOVER)).status).toBe(403);
    const discovered = await raw(app.url, 'POST', auth, DISCOVER);
    expect(discovered.status).toBe(200);
    expect(discovered.headers['mcp-session-id']).toBeUndefined();
    expect(JSON.parse(discovered.body)).toMatchObject({
      result: { resultType: 'complete', supportedVersions: expect.arrayContaining(['2026-07-28']) },
    });
  });

  it('answers what the 2026-07-28 revision says: GET without a session is 405, a header that contradicts the body is 400', async () => {
    const auth = { Authorization: `Bearer ${token}` };
    const get = await raw(app.url, 'GET', { ...auth, Accept: 'text/event-stream' });
    expect(get.status).toBe(405);
    const mismatch = await raw(app.url, 'POST', { ...auth, ...MODERN_HEADERS, 'Mcp-Method': 'tools/list' }, DISCOVER);
    expect(mismatch.status).toBe(400);
    expect(JSON.parse(mismatch.body)).toMatchObject({ error: { code: -32020 } });
  });

  it('subscriptions/listen carries what list_changed carries: a server added, the agent’s visibility narrowed; revoking ends the stream', async () => {
    let notified: () => void = () => undefined;
    modernClient.setNotificationHandler('notifications/tools/list_changed', () => notified());
    const next = (): Promise<void> => new Promise((resolve) => (notified = resolve));
    const subscription = await modernClient.listen({ toolsListChanged: true });
    expect(subscription.honoredFilter).toMatchObject({ toolsListChanged: true });

    const added = next();
    await app.call('servers.save', {
      mode: 'create',
      config: {
        id: 'fy',
        name: 'Second',
        transport: 'stdio',
        command: process.execPath,
        args: [BUILT_STDIO_FIXTURE],
        cwd: PROJECT_ROOT,
        env: { FIXTURE_TOOLS: 'echo' },
      },
    });
    await added;
    expect((await eras.modern.listTools()).tools.map((t) => t.name)).toContain('fy__echo');

    const agentId = (await app.call<{ agents: Array<{ id: string; name: string }> }>('agents.list')).agents.find(
      (a) => a.name === 'Both Eras',
    )?.id;
    const narrowed = next();
    await app.call('agents.setVisibility', {
      id: agentId,
      visibility: { allServers: false, serverIds: ['fy'], localTools: false },
    });
    await narrowed;
    expect((await eras.modern.listTools()).tools.map((t) => t.name)).toEqual(['fy__echo']);

    await app.call('agents.revoke', { id: agentId });
    expect(await subscription.closed).not.toBe('local');
  });
});
