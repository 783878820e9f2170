/**
 * Agents of both eras through nginx in front of two `miniharness serve` processes on one
 * PostgreSQL (issue 36). The agent is created once (agents live in PostgreSQL: both instances
 * accept its token). Through the balancer's one gateway address:
 * - a 2026-07-28 agent (the v2 SDK's Client) is served statelessly by either instance — its calls
 *   run on both (each line of the side-effect file names the instance that ran it);
 * - a 2025 agent (the v1 SDK's Client) keeps its session on one instance (affinity at the balancer,
 *   on the agent's Authorization for the whole 2025 era, `initialize` included);
 * - that instance is killed (SIGKILL): the 2025 session's next request gets 404 from the other
 *   instance, the agent starts a new session through the same address and goes on there; the
 *   2026 agent goes on without noticing;
 * - with both up again, a 2026 call that has acted is cut off by kill -9 of the instance running
 *   it: the agent's retry of the same callId through the balancer gets in_progress from the other
 *   instance, which does not run it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { META_CALL_ID } from '../../shared/agents.js';
import { META_ERROR } from '../../electron/gateway/agentResults.js';
import { connectAgent, connectModernAgent } from '../gateway/support.js';
import { waitFor } from '../helpers/fixtures.js';
import { SERVER_ID } from '../restart/restartSoak.js';
import { describeBalanced } from './nginx.js';
import { TeamCluster } from './serveHarness.js';

describeBalanced('agents of both eras through nginx in front of two serve instances', () => {
  let cluster: TeamCluster;
  const agents: Array<{ close(): Promise<void> }> = [];
  const tagsOf = (prefix: string): Array<string | undefined> => cluster.lines(prefix).map((l) => l.tag);

  beforeAll(async () => {
    cluster = await TeamCluster.start('agentslb');
  }, 240_000);
  afterAll(async () => {
    await Promise.all(agents.map((a) => a.close().catch(() => undefined)));
    await cluster?.stop();
  });

  const effect = async (agent: Client | Awaited<ReturnType<typeof connectModernAgent>>, key: string) => {
    const result = (await agent.callTool({ name: `${SERVER_ID}__effect`, arguments: { key } })) as CallToolResult;
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
  };

  it('2026 calls spread over both; a 2025 session stays on one, and is started again on the other when its instance dies', async () => {
    // Created through the balancer on one instance, known to the other through PostgreSQL: both list it.
    const { token } = await cluster.createAgent('Team agent');

    const modern = await connectModernAgent(cluster.gateway, token);
    agents.push(modern);
    for (let i = 0; i < 8; i++) await effect(modern, `modern-${i}`);
    expect(new Set(tagsOf('modern-'))).toEqual(new Set(['A', 'B']));

    let legacy = await connectAgent(cluster.gateway, token);
    agents.push(legacy);
    for (let i = 0; i < 6; i++) await effect(legacy, `legacy-${i}`);
    const home = new Set(tagsOf('legacy-'));
    expect(home.size, JSON.stringify([...home])).toBe(1);
    const [homeName] = [...home];

    const dying = cluster.instance(homeName);
    expect((await dying.process.stop('SIGKILL')).signal).toBe('SIGKILL');

    // The session is unknown on the other instance: a clear 404, then a new session through the same address.
    const lost = await effect(legacy, 'legacy-after-kill').then(
      () => 'answered',
      (error: unknown) => ({ status: (error as { code?: unknown }).code, message: String(error) }),
    );
    expect(lost).toEqual({
      status: 404,
      message: expect.stringMatching(/Session not found: initialize a new session/),
    });
    legacy = await connectAgent(cluster.gateway, token);
    agents.push(legacy);
    for (let i = 0; i < 3; i++) await effect(legacy, `again-${i}`);
    const survivor = homeName === 'A' ? 'B' : 'A';
    expect(new Set(tagsOf('again-'))).toEqual(new Set([survivor]));
    for (let i = 0; i < 3; i++) await effect(modern, `modern-after-${i}`);
    expect(new Set(tagsOf('modern-after-'))).toEqual(new Set([survivor]));

    // Both up again; a 2026 call acts and is cut off by kill -9 of the instance running it. The agent
    // retries the same callId through the balancer: the other instance says "still running, or its
    // result is unknown" and does not run it.
    await cluster.start(dying);
    const meta = { [META_CALL_ID]: 'modern-held-1' };
    void modern
      .callTool({ name: `${SERVER_ID}__effect`, arguments: { key: 'held-1', hold: true }, _meta: meta })
      .catch(() => undefined);
    await waitFor(() => tagsOf('held-1').length === 1, 60_000);
    const owner = cluster.instance(tagsOf('held-1')[0]);
    expect((await owner.process.stop('SIGKILL')).signal).toBe('SIGKILL');
    const retried = await connectModernAgent(cluster.gateway, token);
    agents.push(retried);
    const unknown = await retried.callTool(
      { name: `${SERVER_ID}__effect`, arguments: { key: 'held-1', hold: true }, _meta: meta },
      { timeout: 20_000 },
    );
    expect(unknown.isError).toBe(true);
    expect(unknown._meta?.[META_ERROR]).toBe('in_progress');
    expect(tagsOf('held-1')).toHaveLength(1);
  }, 300_000);
});
