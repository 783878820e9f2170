/**
 * Whole cores (buildCore) started with a PostgreSQL database selection (`--database`): the tool
 * calls' checkpoints live there, not in the SQLite file. A GUI call and an agent call through the
 * gateway each run once and replay when sent again, and a second core on the same database sees
 * them in its History; both cores' GUI calls are in one session. Real parts: the stdio fixture server, the v2 SDK agent, PostgreSQL.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CallOutcome } from '../../shared/contract.js';
import { META_CALL_ID, META_REPLAYED } from '../../shared/agents.js';
import { openAppDatabase } from '../../electron/core/database.js';
import { redactDatabaseUrl } from '../../electron/storage/postgres/url.js';
import { scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from '../gateway/support.js';
import { addFixtureServer, connectAgent, connectModernAgent, startGatewayApp } from '../gateway/support.js';
import type { AgentsView } from '../../shared/agents.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase, describePostgres } from '../storage/postgres.js';

interface TracePageView {
  traces: Array<{ traceId: string; callId: string; status: string; userId: string }>;
}

interface HistoryPageView {
  records: Array<{ callId: string; status: string; userId: string }>;
}

describePostgres('app cores on PostgreSQL', () => {
  const scratch = scratchDir('mh-pg-core-');
  const counter = join(scratch.dir, 'counter.txt');
  let database: TestDatabase;
  let first: GatewayApp;
  let second: GatewayApp;

  beforeAll(async () => {
    database = await createTestDatabase('core');
    const selection = { kind: 'postgres' as const, url: database.url, where: redactDatabaseUrl(database.url) };
    first = await startGatewayApp(join(scratch.dir, 'one'), { database: selection });
    await addFixtureServer(first, 'fx', { FIXTURE_COUNTER: counter, FIXTURE_TOOLS: 'append' }, ['append']);
    // The instances share one servers configuration, as a team deployment does: the same server identity, so the
    // shared rules (kept live on both) apply on both.
    mkdirSync(join(scratch.dir, 'two', 'data'), { recursive: true, mode: 0o700 });
    copyFileSync(join(scratch.dir, 'one', 'data', 'config.json'), join(scratch.dir, 'two', 'data', 'config.json'));
    second = await startGatewayApp(join(scratch.dir, 'two'), { database: selection });
    await second.nextEvent<{ tools: Array<{ serverId: string; name: string }> }>('tools.changed', (p) =>
      p.tools.some((t) => t.serverId === 'fx' && t.name === 'append'),
    );
  }, 90_000);

  afterAll(async () => {
    await first?.close();
    await second?.close();
    await database?.drop();
    scratch.cleanup();
  });

  const lines = (): string[] => readFileSync(counter, 'utf8').split('\n').filter(Boolean);

  it('a GUI call runs once and replays; the other core sees it in History, and the SQLite file has no record', async () => {
    const call = { name: 'append', serverId: 'fx', args: { line: 'gui' }, callId: 'gui-1' };
    const ran = await first.call<CallOutcome>('tools.call', call);
    expect(ran.replayed).toBe(false);
    const again = await first.call<CallOutcome>('tools.call', call);
    expect(again.replayed).toBe(true);
    expect(lines().filter((l) => l === 'gui')).toHaveLength(1);

    const sessions = await second.call<{ current: string; sessions: Array<{ sessionId: string; count: number }> }>(
      'history.sessions',
    );
    // One GUI session on every core of the database: its id is in PostgreSQL's app metadata.
    expect(sessions.current).toBe(ran.sessionId);
    expect(sessions.sessions).toContainEqual(expect.objectContaining({ sessionId: ran.sessionId, count: 1 }));
    const page = await second.call<HistoryPageView>('history.page', { sessionId: ran.sessionId, limit: 10 });
    expect(page.records).toEqual([expect.objectContaining({ callId: 'gui-1', status: 'completed', userId: 'gui' })]);
    // The other core replays it from History (nothing runs).
    const replayed = await second.call<CallOutcome>('history.replay', { sessionId: ran.sessionId, callId: 'gui-1' });
    expect(replayed.replayed).toBe(true);
    expect(lines().filter((l) => l === 'gui')).toHaveLength(1);

    // The pin the call took on the first core holds on the second (the same server identity), without a restart.
    type Tools = { tools: Array<{ name: string; serverId: string; pin?: { state: string } }> };
    for (;;) {
      let armed = false;
      const changed = second.nextEvent('permissions.changed', () => armed);
      armed = true;
      const listed = await second.call<Tools>('tools.list');
      if (listed.tools.find((t) => t.serverId === 'fx' && t.name === 'append')?.pin?.state === 'pinned') break;
      await changed;
    }

    // Nothing of it in the first core's SQLite file: the calls are in PostgreSQL only.
    const local = openAppDatabase(join(scratch.dir, 'one', 'data', 'miniharness.db'));
    try {
      expect(local.prepare('SELECT COUNT(*) AS n FROM checkpoints').get()).toEqual({ n: 0 });
    } finally {
      local.close();
    }
  }, 60_000);

  it('an agent call through the gateway runs once and replays its key; the other core lists it', async () => {
    const { token } = await first.createAgent('PG agent');
    const agent = await connectModernAgent(first.url, token);
    try {
      const request = { name: 'fx__append', arguments: { line: 'agent' }, _meta: { [META_CALL_ID]: 'agent-1' } };
      const ran = await agent.callTool(request);
      expect(ran.isError).toBeFalsy();
      expect(ran._meta?.[META_REPLAYED]).toBe(false);
      const again = await agent.callTool(request);
      expect(again._meta?.[META_REPLAYED]).toBe(true);
      expect(again.content).toEqual(ran.content);
    } finally {
      await agent.close();
    }
    expect(lines().filter((l) => l === 'agent')).toHaveLength(1);
    const page = await second.call<HistoryPageView>('history.page', { userId: 'PG agent', limit: 10 });
    expect(page.records).toEqual([expect.objectContaining({ callId: 'agent-1', status: 'completed' })]);
  }, 60_000);

  it("each core's Traces view lists and opens the traces the other recorded; none are in the SQLite files", async () => {
    const ran = await second.call<CallOutcome>('tools.call', {
      name: 'append',
      serverId: 'fx',
      args: { line: 'traced' },
      callId: 'traced-1',
    });
    expect(ran.replayed).toBe(false);
    // Trace writes are batched after the call: its finish is told once it is committed.
    type Changed = { trace: { callId: string; status: string } };
    const committed = (callId: string, status: string) => (p: Changed) =>
      p.trace.callId === callId && p.trace.status === status;
    await second.nextEvent<Changed>('trace.changed', committed('traced-1', 'ok'));
    await first.nextEvent<Changed>('trace.changed', committed('agent-1', 'replayed'));
    // The session is the GUI's one shared session: the first test's calls are in it too.
    const listed = await first.call<TracePageView>('traces.list', { sessionId: ran.sessionId, limit: 10 });
    const traced = listed.traces.filter((t) => t.callId === 'traced-1');
    expect(traced).toEqual([expect.objectContaining({ callId: 'traced-1', status: 'ok', userId: 'gui' })]);
    const traceId = traced[0]?.traceId as string;
    const detail = await first.call<{ events: Array<{ type: string; seq: number }> }>('traces.get', { traceId });
    expect(detail.events.map((e) => e.type)).toContain('attempt_finished');
    expect(detail.events.map((e) => e.seq)).toEqual(detail.events.map((_, i) => i + 1));
    const exported = await first.call<{ format: string; trace: { traceId: string } }>('traces.export', { traceId });
    expect(exported).toEqual(
      expect.objectContaining({ format: 'miniharness-trace', trace: expect.objectContaining({ traceId }) }),
    );
    // The first core's own calls (the earlier tests) are listed by the second, newest first, by caller.
    const byAgent = await second.call<TracePageView>('traces.list', { userId: 'PG agent', limit: 10 });
    expect(byAgent.traces.map((t) => [t.callId, t.status])).toEqual([
      ['agent-1', 'replayed'],
      ['agent-1', 'ok'],
    ]);
    // The Agents view counts an agent's calls from the same traces.
    const agents = await first.call<{ agents: Array<{ name: string; calls: number; lastCall?: { status: string } }> }>(
      'agents.list',
    );
    expect(agents.agents).toContainEqual(
      expect.objectContaining({
        name: 'PG agent',
        calls: 2,
        lastCall: expect.objectContaining({ status: 'replayed' }),
      }),
    );
    for (const dir of ['one', 'two']) {
      const local = openAppDatabase(join(scratch.dir, dir, 'data', 'miniharness.db'));
      try {
        expect(local.prepare('SELECT COUNT(*) AS n FROM traces').get()).toEqual({ n: 0 });
        // Nor the tool pins the calls took (a rule's allow pins the tool): they are in PostgreSQL.
        expect(local.prepare('SELECT COUNT(*) AS n FROM tool_pins').get()).toEqual({ n: 0 });
      } finally {
        local.close();
      }
    }
  }, 60_000);

  it('the permission rules are one shared row: a save from an older read applies to the newer rules; a later core loads them', async () => {
    type View = { rules: Array<{ id: string; level: string; match: { serverUid?: string; toolName?: string } }> };
    await first.call<View>('permissions.setToolLevel', { serverId: 'fx', toolName: 'append', level: 'DENY' });
    // Whether or not the second core has heard of that save yet (mh_lists), its save applies to the rules as now stored.
    const asked = await second.call<View>('permissions.setToolLevel', {
      serverId: 'fx',
      toolName: 'append',
      level: 'ASK',
    });
    const rule = asked.rules.find((r) => r.match.toolName === 'append');
    expect(rule?.level).toBe('ASK');
    for (const dir of ['one', 'two'])
      expect(existsSync(join(scratch.dir, dir, 'data', 'permissions.json'))).toBe(false);
    // A core started now reads them from PostgreSQL.
    const selection = { kind: 'postgres' as const, url: database.url, where: redactDatabaseUrl(database.url) };
    const third = await startGatewayApp(join(scratch.dir, 'three'), { database: selection });
    try {
      const view = await third.call<View>('permissions.get');
      expect(view.rules).toContainEqual(expect.objectContaining({ id: rule?.id, level: 'ASK' }));
    } finally {
      await third.close();
    }
  }, 60_000);

  it('an agent made on one core connects to the other; revoked on the first, its session on the other ends and its token is refused', async () => {
    const { id, token } = await first.createAgent('Roaming agent');
    // The second core is told through PostgreSQL (mh_agents): its Agents view lists the agent, no restart.
    await second.nextEvent<AgentsView>('agents.changed', (v) => v.agents.some((a) => a.id === id));
    const legacy = await connectAgent(second.url, token);
    try {
      expect((await legacy.listTools()).tools.map((t) => t.name)).toContain('fx__append');
      const open = (await second.call<AgentsView>('agents.list')).agents.find((a) => a.id === id);
      expect(open?.sessions).toHaveLength(1);

      await first.call('agents.revoke', { id });
      // The second core ends the agent's session there once it re-read the revoked agent.
      await second.nextEvent<AgentsView>('agents.changed', (v) =>
        v.agents.some((a) => a.id === id && a.revokedAt !== undefined && a.sessions.length === 0),
      );
      await expect(legacy.listTools()).rejects.toThrow();
      await expect(connectModernAgent(second.url, token).then((c) => c.listTools())).rejects.toThrow();
    } finally {
      await legacy.close().catch(() => undefined);
    }
  }, 60_000);
});
