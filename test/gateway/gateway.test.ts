/**
 * The agent gateway end to end, in process: a real SDK Client as the agent over Streamable HTTP,
 * the real fixture MCP server (stdio) behind the app, the contract as the GUI's side.
 */
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { META_CALL_ID, META_REPLAYED, META_SESSION } from '../../shared/agents.js';
import type { AgentsView } from '../../shared/agents.js';
import type { ApprovalView, HistoryRecordView as HistoryRecord } from '../../shared/contract.js';
import type { TraceSummary } from '../../shared/traces.js';
import {
  BUILT_STDIO_FIXTURE,
  PROJECT_ROOT,
  readEvents,
  readLines,
  scratchDir,
  sandboxWritingTo,
} from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import { connectAgent, startGatewayApp, saveServerListed } from './support.js';

function text(result: unknown): string {
  return ((result as CallToolResult).content[0] as { text: string }).text;
}

/** A raw HTTP request to the gateway (headers the SDK would never send). */
function rawPost(
  url: URL,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
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

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

describe('the agent gateway', () => {
  const scratch = scratchDir('mh-gateway-');
  const counter = join(scratch.dir, 'counter.txt');
  const fixtureEvents = join(scratch.dir, 'events.jsonl');
  let app: GatewayApp;
  let agent: { id: string; token: string };
  let client: Client;

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir);
    await saveServerListed(app, {
      id: 'fx',
      name: 'Fixture',
      transport: 'stdio',
      command: process.execPath,
      args: [BUILT_STDIO_FIXTURE],
      cwd: PROJECT_ROOT,
      env: { FIXTURE_COUNTER: counter, FIXTURE_EVENTS: fixtureEvents },
      sandbox: sandboxWritingTo({ FIXTURE_COUNTER: counter, FIXTURE_EVENTS: fixtureEvents }),
    });
    await app.call('permissions.setToolLevel', { serverId: 'fx', toolName: 'echo', level: 'ALLOW' });
    await app.call('permissions.setToolLevel', { serverId: 'fx', toolName: 'slow', level: 'ALLOW' });
    agent = await app.createAgent('Claude Code');
    client = await connectAgent(app.url, agent.token);
  }, 30_000);

  afterAll(async () => {
    await client?.close();
    await app?.close();
    scratch.cleanup();
  });

  it('lists the tools it may see as <server>__<tool>, with schemas and annotations passed through', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['fx__echo', 'fx__append', 'fx__slow']));
    // The local tools are not visible unless allowed.
    expect(names.some((n) => n.startsWith('local__'))).toBe(false);
    const slow = tools.find((t) => t.name === 'fx__slow');
    expect(slow?.inputSchema).toMatchObject({ type: 'object', properties: { ms: { type: 'integer' } } });
    expect(slow?.annotations).toMatchObject({ readOnlyHint: true });
    expect(client.getInstructions()).toContain(META_CALL_ID);
  });

  it('runs a call through the pipeline as the agent: result, trace and history under its name', async () => {
    const result = await client.callTool({ name: 'fx__echo', arguments: { text: 'hello from an agent' } });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe('hello from an agent');
    const traceId = (result._meta as Record<string, unknown>)['io.miniharness/traceId'] as string;
    const { trace } = await app.call<{ trace: TraceSummary }>('traces.get', { traceId });
    expect(trace).toMatchObject({ userId: 'Claude Code', toolName: 'echo', serverId: 'fx', status: 'ok' });
    const page = await app.call<{ records: HistoryRecord[] }>('history.page', { sessionId: trace.sessionId });
    expect(page.records.map((r) => [r.userId, r.toolName, r.status])).toEqual([['Claude Code', 'echo', 'completed']]);
    // The Agents view counts it, with the live session.
    const view = await app.call<AgentsView>('agents.list');
    const mine = view.agents.find((a) => a.id === agent.id);
    expect(mine?.calls).toBeGreaterThanOrEqual(1);
    expect(mine?.sessions.map((s) => s.clientName)).toContain('test-agent');
  });

  it('asks the person, naming the agent; Deny comes back as isError with the reason, and nothing ran', async () => {
    const before = readLines(counter).length;
    const asked = app.nextEvent<ApprovalView>('approval.requested', (a) => a.toolName === 'append');
    const pending = client.callTool({ name: 'fx__append', arguments: { line: 'denied' } });
    const approval = await asked;
    expect(approval.userId).toBe('Claude Code');
    await app.call('approvals.answer', { requestId: approval.requestId, answer: 'deny' });
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/The user denied this call of fx__append/);
    expect((result._meta as Record<string, unknown>)['io.miniharness/error']).toBe('permission_denied');
    expect(readLines(counter).length).toBe(before);
  });

  it('Allow runs it and the agent gets the result', async () => {
    const asked = app.nextEvent<ApprovalView>(
      'approval.requested',
      (a) => a.toolName === 'append' && (a.args as { line?: string }).line === 'allowed',
    );
    const pending = client.callTool({ name: 'fx__append', arguments: { line: 'allowed' } });
    await app.call('approvals.answer', { requestId: (await asked).requestId, answer: 'allow-once' });
    const result = await pending;
    expect(result.isError).toBeFalsy();
    expect(readLines(counter)).toContain('allowed');
  });

  it('the approval timeout is a setting, applied to the next request', async () => {
    const settings = await app.call<{ approvalTimeoutSeconds: number }>('settings.setApprovalTimeout', { seconds: 15 });
    expect(settings.approvalTimeoutSeconds).toBe(15);
    const asked = app.nextEvent<ApprovalView>(
      'approval.requested',
      (a) => (a.args as { line?: string }).line === 'timeout-setting',
    );
    const pending = client.callTool({ name: 'fx__append', arguments: { line: 'timeout-setting' } });
    const approval = await asked;
    const left = approval.expiresAt - Date.now();
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(15_000);
    await app.call('approvals.answer', { requestId: approval.requestId, answer: 'deny' });
    expect((await pending).isError).toBe(true);
    await app.call('settings.setApprovalTimeout', { seconds: 120 });
  });

  it('a DENY rule is an isError result the model can act on, not a protocol error', async () => {
    await app.call('permissions.setToolLevel', { serverId: 'fx', toolName: 'echo', level: 'DENY' });
    try {
      const result = await client.callTool({ name: 'fx__echo', arguments: { text: 'x' } });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/permission rules do not allow fx__echo/);
    } finally {
      await app.call('permissions.setToolLevel', { serverId: 'fx', toolName: 'echo', level: 'ALLOW' });
    }
  });

  it('replays a call repeated with the same _meta callId: one side effect, the stored result', async () => {
    await app.call('permissions.setToolLevel', { serverId: 'fx', toolName: 'append', level: 'ALLOW' });
    const meta = { [META_CALL_ID]: 'write-once-1', [META_SESSION]: 'task-7' };
    const first = await client.callTool({ name: 'fx__append', arguments: { line: 'once' }, _meta: meta });
    // Another session of the same agent (a reconnect) sends it again.
    const other = await connectAgent(app.url, agent.token);
    try {
      const again = await other.callTool({ name: 'fx__append', arguments: { line: 'once' }, _meta: meta });
      expect(text(again)).toBe(text(first));
      expect((again._meta as Record<string, unknown>)[META_REPLAYED]).toBe(true);
    } finally {
      await other.close();
    }
    expect(readLines(counter).filter((l) => l === 'once')).toHaveLength(1);
  });

  it('another agent with the same callId does not get this agent’s result: keys are per agent', async () => {
    const second = await app.createAgent('Cursor');
    const cursor = await connectAgent(app.url, second.token);
    try {
      await cursor.callTool({
        name: 'fx__append',
        arguments: { line: 'once' },
        _meta: { [META_CALL_ID]: 'write-once-1', [META_SESSION]: 'task-7' },
      });
    } finally {
      await cursor.close();
    }
    expect(readLines(counter).filter((l) => l === 'once')).toHaveLength(2);
  });

  it('cancelling a call aborts it and the upstream server observes the cancellation', async () => {
    const controller = new AbortController();
    const pending = client.callTool({ name: 'fx__slow', arguments: { ms: 60_000 } }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort(),
    });
    await expect(pending).rejects.toThrow();
    // The fixture writes `cancelled` when the client's notifications/cancelled reaches it.
    await expect
      .poll(() => readEvents(fixtureEvents).some((e) => e.event === 'cancelled'), { timeout: 10_000 })
      .toBe(true);
  });

  it('forwards upstream progress to the agent’s progress token', async () => {
    const messages: string[] = [];
    const result = await client.callTool({ name: 'fx__slow', arguments: { ms: 1000 } }, undefined, {
      onprogress: (p) => messages.push(p.message ?? ''),
    });
    expect(result.isError).toBeFalsy();
    expect(messages).toContain('started');
  });

  it('sends tools/list_changed when a server is added in the GUI, and the new tools are listed', async () => {
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
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
    await changed;
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('fy__echo');
  });

  it('narrowing an agent’s visibility tells its sessions and hides the tools (and refuses their calls)', async () => {
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    await app.call('agents.setVisibility', {
      id: agent.id,
      visibility: { allServers: false, serverIds: ['fy'], localTools: false },
    });
    await changed;
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['fy__echo']);
    // The message on the wire is the sentence alone: the agent's SDK adds its one "MCP error -32602:" prefix.
    const unknown = (await client
      .callTool({ name: 'fx__echo', arguments: { text: 'x' } })
      .catch((error: unknown) => error)) as { code: number; message: string };
    expect(unknown.code).toBe(-32602);
    expect(unknown.message).toBe(
      'MCP error -32602: Unknown tool: fx__echo. Call tools/list for the tools this agent may use.',
    );
    await app.call('agents.setVisibility', {
      id: agent.id,
      visibility: { allServers: true, serverIds: [], localTools: false },
    });
  });

  it('refuses a missing, wrong or revoked token (401) and a foreign Host or Origin (403)', async () => {
    expect((await rawPost(app.url, {}, INITIALIZE)).status).toBe(401);
    expect((await rawPost(app.url, { Authorization: 'Bearer mhg_not-a-real-token' }, INITIALIZE)).status).toBe(401);
    const auth = { Authorization: `Bearer ${agent.token}` };
    expect((await rawPost(app.url, { ...auth, Host: `evil.example:${app.url.port}` }, INITIALIZE)).status).toBe(403);
    expect((await rawPost(app.url, { ...auth, Origin: 'http://evil.example' }, INITIALIZE)).status).toBe(403);
    expect((await rawPost(app.url, auth, INITIALIZE)).status).toBe(200);

    const revoked = await app.createAgent('Short-lived');
    const doomed = await connectAgent(app.url, revoked.token);
    const closed = new Promise<void>((resolve) => (doomed.onclose = () => resolve()));
    await app.call('agents.revoke', { id: revoked.id });
    expect((await rawPost(app.url, { Authorization: `Bearer ${revoked.token}` }, INITIALIZE)).status).toBe(401);
    await expect(doomed.listTools()).rejects.toThrow();
    await doomed.close();
    await closed;
  });

  it('reads the Bearer scheme whatever its case and however many spaces follow it; a wrong token so written is still refused with the sentence', async () => {
    // The SDK's own check splits on one space: "BEARER  <token>" (two spaces) is read only by MiniHarness's own bearerOf.
    for (const scheme of ['bearer ', 'BEARER  ', 'bEaReR ']) {
      const accepted = await rawPost(app.url, { Authorization: `${scheme}${agent.token}` }, INITIALIZE);
      expect(accepted.status, JSON.stringify(scheme)).toBe(200);
      expect(accepted.body).toContain('"serverInfo"');
      expect(accepted.headers['mcp-session-id']).toEqual(expect.any(String));
    }
    for (const scheme of ['bearer ', 'BEARER  ']) {
      const refused = await rawPost(app.url, { Authorization: `${scheme}mhg_not-a-real-token` }, INITIALIZE);
      expect(refused.status).toBe(401);
      expect((JSON.parse(refused.body) as { error: { message: string } }).error.message).toMatch(
        /^MiniHarness refused this agent's token: it is wrong or expired/,
      );
      expect(refused.headers['www-authenticate']).toContain('error="invalid_token"');
      expect(refused.headers['www-authenticate']).toContain(
        'error_description="MiniHarness refused this agent\'s token',
      );
    }
  });

  it('answers bad input with an HTTP error and keeps serving: not JSON, too large, another agent’s session', async () => {
    const auth = { Authorization: `Bearer ${agent.token}` };
    expect((await rawPost(app.url, auth, '{not json')).status).toBe(400);
    expect(
      (
        await rawPost(
          app.url,
          { ...auth, 'mcp-session-id': 'made-up' },
          '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
        )
      ).status,
    ).toBe(404);
    const other = await app.createAgent('Other');
    const sessionId = (client.transport as { sessionId?: string }).sessionId as string;
    expect(
      (
        await rawPost(
          app.url,
          { Authorization: `Bearer ${other.token}`, 'mcp-session-id': sessionId },
          '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
        )
      ).status,
    ).toBe(404);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('refuses a server that points at the gateway itself', async () => {
    const result = await app.core.dispatch('servers.save', {
      mode: 'create',
      config: { id: 'loop', name: 'Loop', transport: 'streamable_http', url: `http://localhost:${app.url.port}/mcp` },
    });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatchObject({
      code: 'gateway_loop',
      details: { fieldErrors: { url: [expect.any(String)] } },
    });
  });

  it('stores only a hash of the token', async () => {
    const { readFileSync } = await import('node:fs');
    const config = readFileSync(join(app.dataDir, 'config.json'), 'utf8');
    const stored = (JSON.parse(config) as { gateway: { agents: Array<{ id: string; tokenHash: string }> } }).gateway
      .agents;
    expect(stored.find((a) => a.id === agent.id)?.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(config).not.toContain(agent.token);
  });
});
