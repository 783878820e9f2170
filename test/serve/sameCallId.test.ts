/**
 * The same callId sent to two `miniharness serve` instances on one PostgreSQL at once runs once
 * (issue 36): each instance runs its own copy of a stdio server whose tool appends a line per
 * execution to one shared file, so a second execution on either instance is a second line.
 *
 * A call is keyed by (session, callId). The bridge's and the CLI's calls are in the GUI session,
 * whose id is in the app metadata — in PostgreSQL when a database is selected, so both instances
 * use one session id and their two claims meet in one row: one instance runs the tool, the other
 * replays its result or (still running) answers `in_progress`, and a retry there gets the stored
 * result. (Before, each instance kept its own GUI session id in its SQLite file: the tool ran twice.)
 *
 * An agent's 2026-07-28 (stateless) calls are keyed by `agent:<id>:stateless`: the agent, created
 * on A, is in PostgreSQL, so B accepts its token (told on `mh_agents`, without a restart) and keys
 * its calls the same. (Before, agents were in each instance's config file: B refused the token.)
 */
import { createHash } from 'node:crypto';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AgentsView } from '../../shared/agents.js';
import { META_CALL_ID, META_REPLAYED } from '../../shared/agents.js';
import type { CallOutcome } from '../../shared/contract.js';
import { connectModernAgent } from '../gateway/support.js';
import { scratchDir, waitFor } from '../helpers/fixtures.js';
import { buildSideEffectServer } from '../restart/restartSoak.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase, describePostgres } from '../storage/postgres.js';
import { BridgeClient } from '../web/host.js';
import type { TestServe } from './serveHarness.js';
import { sideEffectServerConfig, startTestServe } from './serveHarness.js';

const OPS = 'same-callid-ops-token-0123456789';
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

describePostgres('the same callId on two serve instances at once', () => {
  const scratch = scratchDir('mh-serve-samecall-');
  const effects = join(scratch.dir, 'effects.jsonl');
  let database: TestDatabase;
  let a: TestServe;
  let b: TestServe;

  beforeAll(async () => {
    await buildSideEffectServer();
    database = await createTestDatabase('samecall');
    const shared = {
      databaseUrl: database.url,
      apiTokens: [{ name: 'ops', role: 'admin' as const, sha256: sha256(OPS) }],
      ...sideEffectServerConfig(effects),
    };
    a = await startTestServe(join(scratch.dir, 'a'), undefined, shared);
    b = await startTestServe(join(scratch.dir, 'b'), undefined, shared);
    for (const serve of [a, b]) {
      const client = await BridgeClient.connect(serve.port, { token: OPS });
      try {
        await waitFor(async () => {
          const reply = await client.call('tools.list', {});
          return (
            reply.ok && (reply.result as { tools: Array<{ name: string }> }).tools.some((t) => t.name === 'effect')
          );
        }, 60_000);
      } finally {
        client.close();
      }
    }
  }, 180_000);
  afterAll(async () => {
    await a?.serving.shutdown();
    await b?.serving.shutdown();
    await database?.drop();
    scratch.cleanup();
  });

  const effectLines = (key: string): number =>
    existsSync(effects)
      ? readFileSync(effects, 'utf8')
          .split('\n')
          .filter((l) => l.includes(`"key":"${key}"`)).length
      : 0;

  it('runs once; both answers carry the one result (or one is in progress and its retry gets it)', async () => {
    const onA = await BridgeClient.connect(a.port, { token: OPS });
    const onB = await BridgeClient.connect(b.port, { token: OPS });
    try {
      const request = { name: 'effect', serverId: 'fx', args: { key: 'both-at-once' }, callId: 'both-at-once' };
      const clients = [onA, onB];
      const replies = await Promise.all(clients.map((c) => c.call('tools.call', request)));
      expect(effectLines('both-at-once')).toBe(1);
      const results: unknown[] = [];
      for (const [i, reply] of replies.entries()) {
        if (reply.ok) {
          results.push((reply.result as CallOutcome).result);
          continue;
        }
        // The other instance's claim was still running: "in progress", and a retry replays the stored result.
        expect(reply.error.code, JSON.stringify(reply)).toBe('in_progress');
        const retry = await (clients[i] as BridgeClient).call('tools.call', request);
        expect(retry, JSON.stringify(retry)).toMatchObject({ ok: true });
        if (retry.ok) results.push((retry.result as CallOutcome).result);
      }
      expect(results).toHaveLength(2);
      expect(results[0]).toBeDefined();
      expect(results[1]).toEqual(results[0]);
      expect(effectLines('both-at-once')).toBe(1);
    } finally {
      onA.close();
      onB.close();
    }
  }, 120_000);
  /** One answer of an agent's call: its result's content, or that the call is in progress elsewhere. */
  type AgentAnswer = { content: unknown; replayed: unknown } | 'in_progress';
  const agentCall = async (url: string, token: string, callId: string): Promise<AgentAnswer> => {
    const agent = await connectModernAgent(new URL(url), token);
    try {
      const result = await agent.callTool({
        name: 'fx__effect',
        arguments: { key: callId },
        _meta: { [META_CALL_ID]: callId },
      });
      if (result.isError) {
        // The other instance's claim is still running: an error result saying so (not the tool's answer).
        const text = (result.content as Array<{ text?: string }>)[0]?.text;
        expect(text).toContain(`The call with callId "${callId}" is still running`);
        return 'in_progress';
      }
      return { content: result.content, replayed: result._meta?.[META_REPLAYED] };
    } finally {
      await agent.close();
    }
  };

  it('an agent created on A: its same stateless callId through A and B at once runs once', async () => {
    const onA = await BridgeClient.connect(a.port, { token: OPS });
    const onB = await BridgeClient.connect(b.port, { token: OPS });
    try {
      const created = await onA.call('agents.create', {
        name: 'Team agent',
        visibility: { allServers: true, serverIds: [], localTools: false },
      });
      if (!created.ok) throw new Error(JSON.stringify(created));
      const { agent, token } = created.result as { agent: { id: string }; token: string };
      // B is told by PostgreSQL (mh_agents): its Agents view event lists the agent, no restart.
      await waitFor(
        () =>
          onB.events.some(
            (e) => e.event === 'agents.changed' && (e.payload as AgentsView).agents.some((x) => x.id === agent.id),
          ),
        30_000,
      );
      const urls = await Promise.all(
        [onA, onB].map(async (client) => {
          const reply = await client.call('agents.list', {});
          if (!reply.ok) throw new Error(JSON.stringify(reply));
          return (reply.result as AgentsView).gateway.url;
        }),
      );
      const callId = 'agent-both-at-once';
      const answers = await Promise.all(urls.map((url) => agentCall(url, token, callId)));
      expect(effectLines(callId)).toBe(1);
      const results: AgentAnswer[] = [];
      for (const [i, answer] of answers.entries())
        results.push(answer === 'in_progress' ? await agentCall(urls[i] as string, token, callId) : answer);
      const [first, second] = results as [Exclude<AgentAnswer, 'in_progress'>, Exclude<AgentAnswer, 'in_progress'>];
      expect(first).not.toBe('in_progress');
      expect(second).not.toBe('in_progress');
      expect(second.content).toEqual(first.content);
      // One ran, the other's answer (or retry) replayed the stored result.
      expect([first.replayed, second.replayed].sort()).toEqual([false, true]);
      expect(effectLines(callId)).toBe(1);
    } finally {
      onA.close();
      onB.close();
    }
  }, 120_000);
});
