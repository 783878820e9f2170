/**
 * A cancelled call has its own status: Cancelled in Traces (not Denied while it waited for
 * approval, not Error while it ran) and in History (a call cancelled while it ran, not "result
 * unknown"), and both filters find it. Driven by a real v2 SDK agent through the real gateway:
 * it cancels its own calls (closing the request's stream), and its revocation ends one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { META_CALL_ID } from '../../shared/agents.js';
import type { ApprovalView, HistoryRecordView } from '../../shared/contract.js';
import type { TraceSummary } from '../../shared/traces.js';
import { scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import { addFixtureServer, connectModernAgent, startGatewayApp } from './support.js';

describe('the Cancelled status in Traces and History', () => {
  const scratch = scratchDir('mh-gateway-cancelled-');
  let app: GatewayApp;
  let agent: { id: string; token: string };
  let client: Client;

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir);
    await addFixtureServer(app, 'fx', { FIXTURE_TOOLS: 'append,slow', FIXTURE_COUNTER: `${scratch.dir}/counter.txt` }, [
      'slow',
    ]);
    await app.nextEvent<{ tools: Array<{ name: string; serverId: string }> }>('tools.changed', (p) =>
      p.tools.some((t) => t.serverId === 'fx' && t.name === 'slow'),
    );
    agent = await app.createAgent('Canceller');
    client = await connectModernAgent(app.url, agent.token);
  }, 30_000);

  afterAll(async () => {
    await client?.close();
    await app?.close();
    scratch.cleanup();
  });

  async function cancelledTraces(): Promise<TraceSummary[]> {
    return (await app.call<{ traces: TraceSummary[] }>('traces.list', { status: 'cancelled', userId: 'Canceller' }))
      .traces;
  }

  it('a call cancelled while it waits for approval is traced Cancelled, not Denied', async () => {
    const asked = app.nextEvent<ApprovalView>(
      'approval.requested',
      (a) => (a.args as { line?: string }).line === 'never',
    );
    const controller = new AbortController();
    const pending = client.callTool(
      { name: 'fx__append', arguments: { line: 'never' } },
      { signal: controller.signal },
    );
    const approval = await asked;
    const finished = app.nextEvent<{ trace: TraceSummary }>(
      'trace.changed',
      (c) => c.trace.toolName === 'append' && c.trace.status !== 'running',
    );
    const closed = app.nextEvent('approval.closed', (c: { requestId: string }) => c.requestId === approval.requestId);
    controller.abort();
    await expect(pending).rejects.toThrow();
    await closed;
    expect((await finished).trace.status).toBe('cancelled');
    expect((await cancelledTraces()).map((t) => t.toolName)).toEqual(['append']);
    expect(
      (await app.call<{ traces: TraceSummary[] }>('traces.list', { status: 'denied', userId: 'Canceller' })).traces,
    ).toEqual([]);
  });

  it('a call cancelled while it runs is traced Cancelled, and History shows and filters it as Cancelled', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const controller = new AbortController();
    const pending = client.callTool(
      { name: 'fx__slow', arguments: { ms: 600_000 }, _meta: { [META_CALL_ID]: 'cancel-me' } },
      { signal: controller.signal, onprogress: (p) => p.message === 'started' && started() },
    );
    await running;
    const finished = app.nextEvent<{ trace: TraceSummary }>(
      'trace.changed',
      (c) => c.trace.toolName === 'slow' && c.trace.status !== 'running',
    );
    controller.abort();
    await expect(pending).rejects.toThrow();
    const { trace } = await finished;
    expect(trace.status).toBe('cancelled');
    expect((await cancelledTraces()).map((t) => t.toolName).sort()).toEqual(['append', 'slow']);

    const record = (
      await app.call<{ records: HistoryRecordView[] }>('history.page', { sessionId: trace.sessionId })
    ).records.find((r) => r.callId === 'cancel-me');
    expect(record?.status).toBe('cancelled');
    const filtered = await app.call<{ records: HistoryRecordView[] }>('history.page', {
      sessionId: trace.sessionId,
      status: 'cancelled',
    });
    expect(filtered.records.map((r) => r.callId)).toEqual(['cancel-me']);
    // "Unfinished" (started) no longer lists it: its cause is known.
    expect(
      (
        await app.call<{ records: HistoryRecordView[] }>('history.page', {
          sessionId: trace.sessionId,
          status: 'started',
        })
      ).records,
    ).toEqual([]);
  });
});
