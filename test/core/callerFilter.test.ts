/**
 * History and Traces filtered by caller (`userId`): the person's own calls (`gui`) and each
 * agent's, through the contract as the GUI asks, with a real agent over the gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { HistoryRecordView } from '../../shared/contract.js';
import type { TraceSummary } from '../../shared/traces.js';
import { GUI_USER } from '../../electron/core/callService.js';
import type { GatewayApp } from '../gateway/support.js';
import { connectAgent, startGatewayApp } from '../gateway/support.js';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';

describe('the caller filter of History and Traces', () => {
  const scratch = scratchDir('mh-caller-filter-');
  let app: GatewayApp;
  let agent: Client;

  const pageOf = async (query: Record<string, unknown>) =>
    (await app.call<{ records: HistoryRecordView[] }>('history.page', { limit: 50, ...query })).records;
  const tracesOf = async (query: Record<string, unknown>) =>
    (await app.call<{ traces: TraceSummary[] }>('traces.list', { limit: 50, ...query })).traces;

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir);
    await app.call('servers.save', {
      mode: 'create',
      config: {
        id: 'fx',
        name: 'Fixture',
        transport: 'stdio',
        command: process.execPath,
        args: [BUILT_STDIO_FIXTURE],
        cwd: PROJECT_ROOT,
        env: { FIXTURE_TOOLS: 'echo' },
      },
    });
    // Its tools, not only its status: 'ready' can be told before the tool map has them.
    await app.nextEvent<{ tools: Array<{ name: string; serverId: string }> }>('tools.changed', (p) =>
      p.tools.some((t) => t.serverId === 'fx' && t.name === 'echo'),
    );
    await app.call('permissions.setToolLevel', { serverId: 'fx', toolName: 'echo', level: 'ALLOW' });
    const created = await app.createAgent('Builder');
    agent = await connectAgent(app.url, created.token);
    await app.call('tools.call', {
      name: 'echo',
      serverId: 'fx',
      args: { text: 'from the person' },
      callId: 'gui-call-1',
    });
    await agent.callTool({ name: 'fx__echo', arguments: { text: 'from the agent' } });
    await agent.callTool({ name: 'fx__echo', arguments: { text: 'again from the agent' } });
  }, 30_000);

  afterAll(async () => {
    await agent?.close();
    await app?.close();
    scratch.cleanup();
  });

  it('History: all callers without a filter; only the chosen caller’s records with one', async () => {
    expect((await pageOf({})).map((r) => r.userId).sort()).toEqual(['Builder', 'Builder', GUI_USER]);
    const mine = await pageOf({ userId: GUI_USER });
    expect(mine.map((r) => [r.userId, r.callId])).toEqual([[GUI_USER, 'gui-call-1']]);
    const agents = await pageOf({ userId: 'Builder' });
    expect(agents).toHaveLength(2);
    expect(agents.every((r) => r.userId === 'Builder')).toBe(true);
    // Combined with the other filters (here the agent's own session).
    expect(await pageOf({ userId: GUI_USER, sessionId: agents[0]?.sessionId })).toEqual([]);
    expect(await pageOf({ userId: 'Nobody' })).toEqual([]);
  });

  it('Traces: the same, and pages stay exact under the filter', async () => {
    expect((await tracesOf({})).map((t) => t.userId).sort()).toEqual(['Builder', 'Builder', GUI_USER]);
    expect((await tracesOf({ userId: GUI_USER })).map((t) => t.callId)).toEqual(['gui-call-1']);
    const first = await app.call<{ traces: TraceSummary[]; nextCursor?: string }>('traces.list', {
      userId: 'Builder',
      limit: 1,
    });
    expect(first.traces.map((t) => t.userId)).toEqual(['Builder']);
    const second = await app.call<{ traces: TraceSummary[]; nextCursor?: string }>('traces.list', {
      userId: 'Builder',
      limit: 1,
      cursor: first.nextCursor,
    });
    expect(second.traces.map((t) => t.userId)).toEqual(['Builder']);
    expect(second.traces[0]?.traceId).not.toBe(first.traces[0]?.traceId);
    expect(second.nextCursor).toBeUndefined();
  });
});
