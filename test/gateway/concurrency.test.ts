/**
 * Many agent calls at once through the gateway (real SDK clients over HTTP, the real fixture
 * server behind the app, an ALLOW rule): 100 distinct callIds all run once each; 100 copies of
 * one callId run once, and every other copy gets the stored result or "still running".
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { META_ERROR } from '../../electron/gateway/agentResults.js';
import { META_CALL_ID, META_REPLAYED, META_SESSION } from '../../shared/agents.js';
import type { AgentsView } from '../../shared/agents.js';
import type { HistoryRecordView } from '../../shared/contract.js';
import { readLines, scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import { addFixtureServer, connectAgent, startGatewayApp } from './support.js';

const CALLS = 100;
/** The calls are spread over several sessions of one agent, as reconnecting agents do. */
const SESSIONS = 4;

function meta(result: CallToolResult): Record<string, unknown> {
  return (result._meta ?? {}) as Record<string, unknown>;
}

describe('concurrent agent calls through the gateway', () => {
  const scratch = scratchDir('mh-gateway-concurrent-');
  const counter = join(scratch.dir, 'counter.txt');
  let app: GatewayApp;
  let clients: Client[] = [];

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir);
    await addFixtureServer(app, 'fx', { FIXTURE_COUNTER: counter, FIXTURE_TOOLS: 'append,slow_append' }, [
      'append',
      'slow_append',
    ]);
    const agent = await app.createAgent('Busy agent');
    clients = await Promise.all(Array.from({ length: SESSIONS }, () => connectAgent(app.url, agent.token)));
  }, 30_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await app?.close();
    scratch.cleanup();
  });

  it(`${CALLS} concurrent calls with distinct callIds all complete, each side effect once`, async () => {
    const results = (await Promise.all(
      Array.from({ length: CALLS }, (_, i) =>
        clients[i % SESSIONS]!.callTool({
          name: 'fx__append',
          arguments: { line: `distinct-${i}` },
          _meta: { [META_CALL_ID]: `distinct-${i}`, [META_SESSION]: 'burst' },
        }),
      ),
    )) as CallToolResult[];
    results.forEach((result, i) => {
      expect(result.isError, `call ${i}`).toBeFalsy();
      expect(result.content).toEqual([{ type: 'text', text: `appended distinct-${i}` }]);
      expect(meta(result)).toMatchObject({ [META_CALL_ID]: `distinct-${i}`, [META_REPLAYED]: false });
    });
    const lines = readLines(counter).filter((l) => l.startsWith('distinct-'));
    expect(lines.sort()).toEqual(Array.from({ length: CALLS }, (_, i) => `distinct-${i}`).sort());

    // Recorded under the agent, one completed record per callId.
    const sessionId = (await app.call<{ sessions: Array<{ sessionId: string }> }>('history.sessions')).sessions
      .map((s) => s.sessionId)
      .find((s) => s.endsWith(':burst'));
    expect(sessionId).toBeDefined();
    const page = await app.call<{ records: HistoryRecordView[] }>('history.page', { sessionId, limit: 200 });
    expect(page.records).toHaveLength(CALLS);
    expect(new Set(page.records.map((r) => r.status))).toEqual(new Set(['completed']));
    expect(new Set(page.records.map((r) => r.userId))).toEqual(new Set(['Busy agent']));
    // The Agents view hears of the burst (reports are grouped, the last one comes after the last call).
    // Traces are committed in batches after the calls: the view follows once the last one is written.
    const done = (v: AgentsView) => {
      const agent = v.agents.find((a) => a.name === 'Busy agent');
      return (agent?.calls ?? 0) >= CALLS && agent?.lastCall?.status === 'ok';
    };
    const view = await app.nextEvent<AgentsView>('agents.changed', done);
    expect(view.agents.find((a) => a.name === 'Busy agent')?.lastCall).toMatchObject({
      toolName: 'append',
      serverId: 'fx',
      status: 'ok',
    });
  });

  it(`${CALLS} concurrent calls with ONE callId execute once; the others get the stored result or "still running"`, async () => {
    const callMeta = { [META_CALL_ID]: 'the-one', [META_SESSION]: 'same' };
    // slow_append holds the call open, so copies arrive while it runs as well as after it ended.
    const results = (await Promise.all(
      Array.from({ length: CALLS }, (_, i) =>
        clients[i % SESSIONS]!.callTool({
          name: 'fx__slow_append',
          arguments: { line: 'the-one', ms: 200 },
          _meta: callMeta,
        }),
      ),
    )) as CallToolResult[];

    expect(readLines(counter).filter((l) => l === 'the-one')).toHaveLength(1);
    const executed = results.filter((r) => !r.isError && meta(r)[META_REPLAYED] === false);
    const replayed = results.filter((r) => !r.isError && meta(r)[META_REPLAYED] === true);
    const running = results.filter((r) => r.isError);
    expect(executed).toHaveLength(1);
    expect(executed[0]!.content).toEqual([{ type: 'text', text: 'appended the-one' }]);
    for (const r of replayed) expect(r.content).toEqual(executed[0]!.content);
    // This process runs the call: a copy that arrives meanwhile is refused before the checkpoint
    // (duplicate_call), with the same sentence an agent gets for a call another process holds.
    for (const r of running) {
      expect(meta(r)[META_ERROR]).toBe('duplicate_call');
      expect((r.content[0] as { text: string }).text).toMatch(
        /^The call with callId "the-one" is still running, or its result is unknown/,
      );
    }
    expect(executed.length + replayed.length + running.length).toBe(CALLS);

    // Afterwards the call is settled: a copy replays it.
    const later = (await clients[0]!.callTool({
      name: 'fx__slow_append',
      arguments: { line: 'the-one', ms: 200 },
      _meta: callMeta,
    })) as CallToolResult;
    expect(meta(later)[META_REPLAYED]).toBe(true);
    expect(later.content).toEqual(executed[0]!.content);
    expect(readLines(counter).filter((l) => l === 'the-one')).toHaveLength(1);
  });
});
