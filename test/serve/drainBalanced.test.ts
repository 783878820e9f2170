/**
 * SIGTERM of one instance behind nginx while agents keep calling (issue 36): two `miniharness
 * serve` processes on one PostgreSQL, the balancer of examples/team/nginx-two-instances.conf
 * (gatewayBalancerConf). The draining instance answers new agent requests 503 + Retry-After before
 * it reads them; the balancer sends those to the other instance. So no call fails: the calls in
 * flight on the draining instance finish there (their lines name it), the new ones — 2026-07-28
 * calls, a 2025 agent's new session (whose Authorization would send it to the draining one) and the
 * command line's new bridge connections — run on the other, the draining instance exits 0, and no
 * callId ran twice. (Before, nginx handed the gateway's 503 to the agent, so new calls sent to the
 * draining instance failed; and the draining instance accepted new bridge connections, whose calls
 * ran there while it was closing.)
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { META_CALL_ID } from '../../shared/agents.js';
import { connectAgent, connectModernAgent } from '../gateway/support.js';
import { waitFor } from '../helpers/fixtures.js';
import { SERVER_ID, ok } from '../restart/restartSoak.js';
import { describeBalanced } from './nginx.js';
import { TeamCluster, duplicatesIn } from './serveHarness.js';

type ModernClient = Awaited<ReturnType<typeof connectModernAgent>>;

const effect = (client: ModernClient | Client, key: string, release = false): Promise<CallToolResult> =>
  client.callTool({
    name: `${SERVER_ID}__effect`,
    arguments: { key, ...(release ? { release: true } : {}) },
    _meta: { [META_CALL_ID]: key },
  }) as Promise<CallToolResult>;

/** Where a call ran, from its answer (the fixture's line: the instance's tag); the error text if it failed. */
const ranOn = (result: CallToolResult): string =>
  result.isError
    ? `failed: ${JSON.stringify(result.content)}`
    : String((result.structuredContent as { tag?: string }).tag);

describeBalanced('SIGTERM of one instance behind nginx while agents keep calling', () => {
  let cluster: TeamCluster;
  const clients: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    cluster = await TeamCluster.start('drainlb');
  }, 300_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await cluster?.stop();
  });

  it('no call fails: in-flight calls finish on the draining instance, new ones run on the other, none twice', async () => {
    const { token } = await cluster.createAgent('Busy agent');
    // The agent's 2025 sessions stay on one instance (the balancer hashes its Authorization): that one drains.
    const legacy = await connectAgent(cluster.gateway, token);
    const modern = await connectModernAgent(cluster.gateway, token);
    clients.push(legacy, modern);
    expect((await effect(legacy, 'probe')).isError).toBeFalsy();
    const draining = cluster.instance(cluster.lines('probe')[0]?.tag);
    const other = cluster.instances.find((i) => i !== draining)?.name;

    // Slow calls in flight: the 2025 session's on the draining instance, 2026-07-28 ones on either.
    const inFlight = [
      ...[0, 1, 2].map((i) => effect(legacy, `inflight-2025-${i}`, true)),
      ...[0, 1, 2, 3].map((i) => effect(modern, `inflight-2026-${i}`, true)),
    ].map((answer) =>
      answer.catch((error: unknown) => ({ isError: true, content: [{ type: 'text' as const, text: String(error) }] })),
    );
    await waitFor(() => cluster.lines('inflight-').length === inFlight.length, 60_000);

    draining.process.signal('SIGTERM');
    // Refusing: its gateway answers a new request 503 + Retry-After without reading it.
    await waitFor(async () => {
      const direct = await fetch(`http://127.0.0.1:${draining.gatewayPort}/mcp`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: '{}',
      }).catch(() => undefined);
      return direct?.status === 503 && direct.headers.get('retry-after') === '1';
    }, 15_000);

    // The agent keeps calling through the balancer: every new call runs, on the other instance.
    const fresh: string[] = [];
    for (let i = 0; i < 12; i++) fresh.push(ranOn(await effect(modern, `new-2026-${i}`)));
    const late = await connectAgent(cluster.gateway, token);
    clients.push(late);
    for (let i = 0; i < 4; i++) fresh.push(ranOn(await effect(late, `new-2025-${i}`)));
    // The command line and the pages too: the draining instance refuses a new bridge connection (503)
    // before reading it, and the web balancer connects it to the other, where its calls run.
    await expect(cluster.bridge(draining.webPort)).rejects.toThrow(/refused with HTTP 503/);
    for (let i = 0; i < 2; i++) {
      const bridge = await cluster.bridge();
      try {
        const key = `new-cli-${i}`;
        await ok(bridge, 'tools.call', { name: 'effect', serverId: SERVER_ID, args: { key }, callId: key });
        fresh.push(String(cluster.lines(key)[0]?.tag));
      } finally {
        bridge.close();
      }
    }
    expect(fresh).toEqual(fresh.map(() => other));

    // The calls in flight finish where they run, the draining instance among them; then it exits 0.
    writeFileSync(`${cluster.effects}.release`, '');
    const finished = (await Promise.all(inFlight)).map(ranOn);
    expect(finished.slice(0, 3)).toEqual([draining.name, draining.name, draining.name]);
    expect(
      finished.every((where) => where === 'A' || where === 'B'),
      JSON.stringify(finished),
    ).toBe(true);
    expect(await draining.process.exit).toEqual({ code: 0, signal: null });

    const lines = cluster.lines();
    const onDraining = finished.filter((w) => w === draining.name).length;
    console.log(
      `drain behind nginx: in flight ${inFlight.length} (finished on the draining instance ${onDraining}, on the other ${inFlight.length - onDraining}), ` +
        `new calls ${fresh.length} (on the other instance ${fresh.filter((w) => w === other).length}), failed 0, ` +
        `executions ${lines.length}, duplicates ${duplicatesIn(lines)}`,
    );
    expect(duplicatesIn(lines)).toBe(0);
    expect(lines).toHaveLength(1 + inFlight.length + fresh.length);
  }, 300_000);
});
