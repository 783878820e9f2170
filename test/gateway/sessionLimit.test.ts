/**
 * An agent's 2025 sessions beyond its limit (here 2, as the core is told): the least recently
 * seen session without a call in flight is closed to make room, never the one whose call is
 * waiting — that call still gets its answer and its record is completed (the same key replays);
 * when every session has a call in flight, the new session is refused with 503 and a sentence
 * naming the limit, and the calls keep running. Real app core + gateway, real v1 SDK agents.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { META_CALL_ID, META_REPLAYED } from '../../shared/agents.js';
import type { AgentsView } from '../../shared/agents.js';
import type { ApprovalView, HistoryRecordView } from '../../shared/contract.js';
import type { TraceSummary } from '../../shared/traces.js';
import { readLines, scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import { addFixtureServer, connectAgent, startGatewayApp } from './support.js';

describe('the limit of sessions per agent', () => {
  const scratch = scratchDir('mh-gateway-sessions-');
  const counter = join(scratch.dir, 'counter.txt');
  let app: GatewayApp;
  let agent: { id: string; token: string };
  const clients: Client[] = [];

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir, { gateway: { maxSessionsPerAgent: 2 } });
    await addFixtureServer(app, 'fx', { FIXTURE_COUNTER: counter });
    agent = await app.createAgent('Many Sessions');
  }, 30_000);

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await app?.close();
    scratch.cleanup();
  });

  async function session(name: string): Promise<Client> {
    const client = await connectAgent(app.url, agent.token, name);
    clients.push(client);
    return client;
  }

  async function liveSessions(): Promise<string[]> {
    const view = await app.call<AgentsView>('agents.list');
    return (view.agents.find((a) => a.id === agent.id)?.sessions ?? []).map((s) => s.clientName ?? '?').sort();
  }

  /** A call of fx__append keyed by `callId` that waits for the person; resolves once the approval is up. */
  async function waitingCall(
    client: Client,
    line: string,
  ): Promise<{ pending: Promise<CallToolResult>; approval: ApprovalView }> {
    const asked = app.nextEvent<ApprovalView>('approval.requested', (a) => (a.args as { line?: string }).line === line);
    const pending = client.callTool(
      { name: 'fx__append', arguments: { line }, _meta: { [META_CALL_ID]: line } },
      undefined,
      { timeout: 600_000 },
    ) as Promise<CallToolResult>;
    return { pending, approval: await asked };
  }

  it('a session with a call in flight is not evicted: the idle one goes, the call is answered and recorded', async () => {
    const busy = await session('busy');
    const { pending, approval } = await waitingCall(busy, 'kept-call');
    const idle = await session('idle');
    await idle.listTools();
    // The third session: the limit is 2, and the idle session makes room, not the busy one.
    await session('third');
    expect(await liveSessions()).toEqual(['busy', 'third']);

    await app.call('approvals.answer', { requestId: approval.requestId, answer: 'allow-once' });
    const result = await pending;
    expect(result.isError).toBeFalsy();
    expect(readLines(counter)).toEqual(['kept-call']);
    const traceId = (result._meta as Record<string, unknown>)['io.miniharness/traceId'] as string;
    const { trace } = await app.call<{ trace: TraceSummary }>('traces.get', { traceId });
    const page = await app.call<{ records: HistoryRecordView[] }>('history.page', { sessionId: trace.sessionId });
    expect(page.records.find((r) => r.callId === 'kept-call')?.status).toBe('completed');
    // The key replays its recorded result: nothing runs again.
    const again = (await busy.callTool({
      name: 'fx__append',
      arguments: { line: 'kept-call' },
      _meta: { [META_CALL_ID]: 'kept-call' },
    })) as CallToolResult;
    expect((again._meta as Record<string, unknown>)[META_REPLAYED]).toBe(true);
    expect(readLines(counter)).toEqual(['kept-call']);
  });

  it('when every session has a call in flight, a new session is refused with 503 naming the limit; the calls go on', async () => {
    const [first, second] = await Promise.all([
      waitingCall(clients[0]!, 'first-busy'),
      waitingCall(clients[2]!, 'second-busy'),
    ]);
    const refused = connectAgent(app.url, agent.token, 'one-too-many');
    await expect(refused).rejects.toMatchObject({ code: 503 });
    await expect(refused).rejects.toThrow(/MiniHarness allows 2 per agent/);
    expect(await liveSessions()).toEqual(['busy', 'third']);
    for (const call of [first, second])
      await app.call('approvals.answer', { requestId: call.approval.requestId, answer: 'allow-once' });
    expect((await first.pending).isError).toBeFalsy();
    expect((await second.pending).isError).toBeFalsy();
    expect(readLines(counter).sort()).toEqual(['first-busy', 'kept-call', 'second-busy']);
  });
});
