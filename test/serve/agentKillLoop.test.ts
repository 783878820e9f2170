/**
 * kill -9 of the instance that owns an agent's call, in a loop (issue 36): two `miniharness serve`
 * processes on one PostgreSQL behind Debian's nginx; real SDK agents talk to the balancer's one
 * gateway address — the v2 SDK's Client in the 2026-07-28 era (either instance answers) and the
 * v1 SDK's Client in the 2025 era (its sessions stay on one instance). Each round, one agent in one
 * era: a call that completes, then a call that acts (its line is in the side-effect file) and
 * never answers; the instance that runs it (the line's tag) is killed with SIGKILL; the agent
 * retries the same callId through the balancer and is told "still running, or its result is
 * unknown" (in_progress) by the other instance, which runs nothing; every earlier callId of the
 * agent, sent again, replays its one result or is still in_progress; the killed instance is
 * started again on its data folder and ports.
 *
 * Then each cut call's lease has expired (nobody renews it: its owner died); the agents' retries
 * still get in_progress; a person resolves each in History (on either instance) and the agents'
 * retries get that stored outcome. The side-effect file's lines per callId: none ran twice. The
 * figures are printed for the note.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import pg from 'pg';
import { META_CALL_ID, META_REPLAYED } from '../../shared/agents.js';
import { META_ERROR } from '../../electron/gateway/agentResults.js';
import { connectAgent, connectModernAgent } from '../gateway/support.js';
import { waitFor } from '../helpers/fixtures.js';
import { SERVER_ID, ok } from '../restart/restartSoak.js';
import { describeBalanced } from './nginx.js';
import type { Instance } from './serveHarness.js';
import { TeamCluster, duplicatesIn } from './serveHarness.js';

const ROUNDS = 10;
/** Only a wrong answer (a cut-off call run again: it never answers) waits this long. */
const RESEND_TIMEOUT_MS = 10_000;

type Era = '2026-07-28' | '2025';
type ModernClient = Awaited<ReturnType<typeof connectModernAgent>>;
interface Agent {
  id: string;
  token: string;
  /** The instance its 2025 sessions stay on (the balancer hashes its Authorization). */
  home: Instance['name'];
}
interface AgentCall {
  agent: Agent;
  key: string;
  /** What the first answer held; `undefined` while the call was cut off and not yet resolved. */
  result?: unknown;
}
interface Answer {
  isError?: boolean;
  structuredContent?: unknown;
  content?: unknown;
  _meta?: Record<string, unknown>;
}

/** An agent's client through the balancer, in one era. */
async function connect(cluster: TeamCluster, agent: Agent, era: Era): Promise<ModernClient | Client> {
  return era === '2025' ? connectAgent(cluster.gateway, agent.token) : connectModernAgent(cluster.gateway, agent.token);
}

/** Calls the side-effect tool under its own callId (`key`), as an agent that retries would. */
function effect(client: ModernClient | Client, key: string, hold = false): Promise<Answer> {
  const params = {
    name: `${SERVER_ID}__effect`,
    arguments: { key, ...(hold ? { hold: true } : {}) },
    _meta: { [META_CALL_ID]: key },
  };
  const options = { timeout: RESEND_TIMEOUT_MS };
  // The v2 Client takes the options second; the v1 Client third (after a result schema).
  return (
    client instanceof Client ? client.callTool(params, undefined, options) : client.callTool(params, options)
  ) as Promise<Answer>;
}

const errorCode = (answer: Answer): unknown => (answer.isError ? answer._meta?.[META_ERROR] : 'a result');
describeBalanced('kill -9 of the instance owning an agent’s call, in a loop, behind nginx', () => {
  let cluster: TeamCluster;
  const agents: Agent[] = [];

  beforeAll(async () => {
    cluster = await TeamCluster.start('agentkill');
    // Agents until one's 2025 sessions stay on A and another's on B, so the 2025 rounds kill both.
    for (let i = 0; i < 8 && new Set(agents.map((a) => a.home)).size < 2; i++) {
      const created = await cluster.createAgent(`Agent ${i}`);
      const probe = await connectAgent(cluster.gateway, created.token);
      const key = `home-probe-${i}`;
      try {
        expect(errorCode(await effect(probe, key))).toBe('a result');
      } finally {
        await probe.close().catch(() => undefined);
      }
      const home = cluster.lines(key)[0]?.tag as Agent['home'];
      if (!agents.some((a) => a.home === home)) agents.push({ ...created, home });
    }
    expect(agents.map((a) => a.home).sort()).toEqual(['A', 'B']);
  }, 300_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it(`no callId runs twice over ${ROUNDS} kills of the owner; the agent's retry says in progress, then gets the stored outcome`, async () => {
    const calls: AgentCall[] = [];
    const figures = { kills: { A: 0, B: 0 }, eras: { '2026-07-28': 0, '2025': 0 }, inProgress: 0, replays: 0 };
    const expectStillRunning = (answer: Answer, key: string): void => {
      expect(errorCode(answer), `${key}: ${JSON.stringify(answer)}`).toBe('in_progress');
      figures.inProgress += 1;
    };

    /** Every call of `agent` sent again through the balancer: a completed one replays, a cut one is in_progress. */
    const resendAll = async (agent: Agent, era: Era): Promise<void> => {
      const client = await connect(cluster, agent, era);
      try {
        for (const call of calls.filter((c) => c.agent === agent)) {
          const again = await effect(client, call.key, call.result === undefined);
          if (call.result === undefined) {
            expectStillRunning(again, call.key);
          } else {
            expect(again._meta?.[META_REPLAYED], `${call.key}: ${JSON.stringify(again)}`).toBe(true);
            expect(again.structuredContent ?? again.content).toEqual(call.result);
            figures.replays += 1;
          }
        }
      } finally {
        await client.close().catch(() => undefined);
      }
    };

    for (let round = 0; round < ROUNDS; round++) {
      // By turns the 2026-07-28 era and the 2025 era; the 2025 rounds' agents by turns at home on A and B.
      const era: Era = round % 2 === 0 ? '2026-07-28' : '2025';
      const agent = agents[Math.floor(round / 2) % 2] as Agent;
      figures.eras[era] += 1;
      const client = await connect(cluster, agent, era);
      const done = `r${round}-done`;
      const answer = await effect(client, done);
      expect(errorCode(answer), JSON.stringify(answer)).toBe('a result');
      calls.push({ agent, key: done, result: answer.structuredContent ?? answer.content });

      const held = `r${round}-held`;
      const cutAnswer = effect(client, held, true).then(
        (a) => `answered: ${JSON.stringify(a)}`,
        (error: unknown) => `failed: ${String(error)}`,
      );
      await waitFor(() => cluster.lines(held).length > 0, 60_000);
      const owner = cluster.instance(cluster.lines(held)[0]?.tag);
      if (era === '2025') expect(owner.name).toBe(agent.home);
      expect((await owner.process.stop('SIGKILL')).signal).toBe('SIGKILL');
      figures.kills[owner.name] += 1;
      calls.push({ agent, key: held });
      // The balancer does not send the cut request to the other instance (the agent's retry does, with its
      // callId): a stateless request's answer was not begun, so nginx says 502.
      if (era === '2026-07-28') expect(await cutAnswer).toMatch(/^failed: [\s\S]*502 Bad Gateway/);
      await client.close().catch(() => undefined);

      // The agent retries through the balancer, in the same era (a 2025 agent in a new session: its
      // instance is gone): the other instance answers in_progress and runs nothing.
      const retry = await connect(cluster, agent, era);
      try {
        const again = await effect(retry, held, true);
        expectStillRunning(again, held);
      } finally {
        await retry.close().catch(() => undefined);
      }
      for (const each of agents) await resendAll(each, '2026-07-28');
      await cluster.start(owner);
    }

    // The cut calls' leases expire (their owners died; nothing renews them): still "in progress or
    // unknown" to the agent — nothing will finish them, and nothing runs them again.
    const cut = calls.filter((c) => c.result === undefined);
    await leasesExpired(
      cluster.database.url,
      cut.map((c) => c.key),
    );
    for (const each of agents) await resendAll(each, '2025');

    // A person resolves each in History, on either instance; the agents' retries get that stored outcome.
    let stored = 0;
    for (const [i, call] of cut.entries()) {
      const bridge = await cluster.bridge(cluster.instances[i % 2]?.webPort);
      const resultText = `checked on the remote side: ${call.key} written once`;
      try {
        await ok(bridge, 'history.resolve', {
          sessionId: `agent:${call.agent.id}:default`,
          callId: call.key,
          resolution: { status: 'completed', resultText },
        });
      } finally {
        bridge.close();
      }
      const client = await connect(cluster, call.agent, i % 2 === 0 ? '2026-07-28' : '2025');
      try {
        const outcome = await effect(client, call.key, true);
        expect(outcome._meta?.[META_REPLAYED], JSON.stringify(outcome)).toBe(true);
        expect(JSON.stringify(outcome.content)).toContain(resultText);
        stored += 1;
      } finally {
        await client.close().catch(() => undefined);
      }
    }

    const lines = cluster.lines('r');
    const duplicates = duplicatesIn(lines);
    console.log(
      `agent kill loop: rounds ${ROUNDS} (2026-07-28 ${figures.eras['2026-07-28']}, 2025 ${figures.eras['2025']}), ` +
        `kills ${figures.kills.A + figures.kills.B} (A ${figures.kills.A}, B ${figures.kills.B}), ` +
        `calls ${calls.length} (completed ${calls.length - cut.length}, cut off ${cut.length}), ` +
        `in-progress answers ${figures.inProgress}, replays of completed calls ${figures.replays}, ` +
        `stored outcomes after resolution ${stored}, executions ${lines.length}, duplicates ${duplicates}`,
    );
    expect(duplicates).toBe(0);
    expect(lines).toHaveLength(calls.length);
    expect(stored).toBe(cut.length);
    expect(figures.kills.A > 0 && figures.kills.B > 0, JSON.stringify(figures.kills)).toBe(true);
  }, 900_000);
});

/** Resolves once no lease of these callIds is still valid (read from PostgreSQL, by its own clock). */
async function leasesExpired(url: string, callIds: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await waitFor(
      async () => {
        const { rows } = await client.query<{ live: string }>(
          `SELECT count(*) AS live FROM checkpoints WHERE call_id = ANY($1) AND status = 'started'
             AND lease_expires_at > (extract(epoch from statement_timestamp()) * 1000)::bigint`,
          [callIds],
        );
        return rows[0]?.live === '0';
      },
      90_000,
      500,
    );
    const { rows } = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM checkpoints WHERE call_id = ANY($1) AND status = 'started'`,
      [callIds],
    );
    expect(Number(rows[0]?.n)).toBe(callIds.length);
  } finally {
    await client.end();
  }
}
