/**
 * An agent's idempotency key survives the app being killed: the real browser-mode host
 * (`electron/web/cli.ts` in its own process) on a fixed gateway port, the side-effect fixture
 * server behind it, and the agent as the SDK Client over HTTP. The host is killed with SIGKILL
 * and started again on the same data folder and port; the agent repeats its calls with the same
 * `_meta` callId. A completed call is replayed (no second side effect); a call cut off mid-way
 * answers "still running, or its result is unknown" (in_progress), and does not run again. Both
 * eras: a v1 Client (2025, a session) and a v2 Client negotiating (it ends on 2026-07-28,
 * stateless) each repeat their own calls, and the modern agent also repeats a legacy call's key.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { META_ERROR } from '../../electron/gateway/agentResults.js';
import type { AgentsView } from '../../shared/agents.js';
import { META_CALL_ID, META_REPLAYED, META_SESSION } from '../../shared/agents.js';
import { scratchDir, waitFor } from '../helpers/fixtures.js';
import {
  HostProcess,
  SERVER_ID,
  buildSideEffectServer,
  effectLines,
  ok,
  serverReady,
  sideEffectServer,
} from '../restart/restartSoak.js';
import { BridgeClient } from '../web/host.js';
import { freePort } from './ports.js';
import { connectAgent } from './support.js';

/** Host starts compile TypeScript (tsx) on a busy machine. */
const HOST_WAIT_MS = 60_000;

/** A v2 Client negotiating over HTTP with the agent's token; it must end modern. */
async function connectModernAgent(url: URL, token: string): Promise<ModernClient> {
  const client = new ModernClient({ name: 'modern-agent', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new ModernHttp(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  if (client.getProtocolEra() !== 'modern') throw new Error(`the v2 client ended ${client.getProtocolEra()}`);
  return client;
}

describe('an agent repeats its calls after the app was killed (kill -9) and restarted', () => {
  const scratch = scratchDir('mh-gateway-replay-');
  const dataDir = join(scratch.dir, 'data');
  const effects = join(scratch.dir, 'side-effects.jsonl');
  const bridgeToken = randomBytes(24).toString('base64url');
  let gatewayPort: number;
  let hostArgs: string[];
  let host: HostProcess | undefined;
  let bridge: BridgeClient | undefined;
  const agents: Array<Client | ModernClient> = [];

  /** Starts the host on the same data folder and gateway port; resolves when the fixture server's tool is listed. */
  async function startHost(): Promise<{ host: HostProcess; bridge: BridgeClient }> {
    host = await HostProcess.start(dataDir, bridgeToken, hostArgs);
    bridge = await BridgeClient.connect(host.port, { token: bridgeToken });
    return { host, bridge };
  }

  const countOf = (key: string): number => effectLines(effects).filter((l) => l.key === key).length;

  beforeAll(async () => {
    await buildSideEffectServer();
    gatewayPort = await freePort();
    hostArgs = ['--gateway-port', String(gatewayPort), '--workspace', join(scratch.dir, 'workspace')];
  }, HOST_WAIT_MS);

  afterAll(async () => {
    await Promise.all(agents.map((a) => a.close().catch(() => undefined)));
    bridge?.close();
    await host?.stop('SIGTERM');
    scratch.cleanup();
  });

  it('replays the completed call and answers in_progress for the one cut off; neither runs again', async () => {
    // ── first run: the server, its ALLOW rule, the agent ──
    let run = await startHost();
    await ok(run.bridge, 'servers.save', { mode: 'create', config: sideEffectServer(effects) });
    await serverReady(run.bridge);
    await ok(run.bridge, 'permissions.setToolLevel', { serverId: SERVER_ID, toolName: 'effect', level: 'ALLOW' });
    const { token } = await ok<{ token: string }>(run.bridge, 'agents.create', {
      name: 'Retrying agent',
      visibility: { allServers: true, serverIds: [], localTools: false },
    });
    const gateway = (await ok<AgentsView>(run.bridge, 'agents.list', {})).gateway;
    expect(gateway).toMatchObject({ state: 'listening', port: gatewayPort });
    const url = new URL(gateway.url);

    const first = await connectAgent(url, token);
    agents.push(first);
    const doneMeta = { [META_CALL_ID]: 'write-report-1', [META_SESSION]: 'task-9' };
    const done = (await first.callTool({
      name: 'fx__effect',
      arguments: { key: 'done' },
      _meta: doneMeta,
    })) as CallToolResult;
    expect(done.isError).toBeFalsy();
    expect((done._meta as Record<string, unknown>)[META_REPLAYED]).toBe(false);
    expect(countOf('done')).toBe(1);

    const modern = await connectModernAgent(url, token);
    agents.push(modern);
    const modernDoneMeta = { [META_CALL_ID]: 'modern-report-1' };
    const modernDone = await modern.callTool({
      name: 'fx__effect',
      arguments: { key: 'modern-done' },
      _meta: modernDoneMeta,
    });
    expect(modernDone.isError).toBeFalsy();
    expect(countOf('modern-done')).toBe(1);

    // Calls that act and then never answer: kill the host once their side effects are written.
    const heldMeta = { [META_CALL_ID]: 'write-report-2', [META_SESSION]: 'task-9' };
    const cutOff = first.callTool({ name: 'fx__effect', arguments: { key: 'held', hold: true }, _meta: heldMeta }).then(
      () => 'answered',
      () => 'failed',
    );
    const modernHeldMeta = { [META_CALL_ID]: 'modern-report-2' };
    const modernCutOff = modern
      .callTool({ name: 'fx__effect', arguments: { key: 'modern-held', hold: true }, _meta: modernHeldMeta })
      .then(
        () => 'answered',
        () => 'failed',
      );
    await waitFor(() => countOf('held') === 1 && countOf('modern-held') === 1, HOST_WAIT_MS);
    run.bridge.close();
    expect((await run.host.stop('SIGKILL')).signal).toBe('SIGKILL');
    expect(await cutOff).toBe('failed');
    expect(await modernCutOff).toBe('failed');

    // ── second run: same data folder, same gateway port ──
    run = await startHost();
    await serverReady(run.bridge);
    expect((await ok<AgentsView>(run.bridge, 'agents.list', {})).gateway).toMatchObject({
      state: 'listening',
      url: url.href,
    });
    const again = await connectAgent(url, token);
    agents.push(again);

    const replay = (await again.callTool({
      name: 'fx__effect',
      arguments: { key: 'done' },
      _meta: doneMeta,
    })) as CallToolResult;
    expect(replay.isError).toBeFalsy();
    expect(replay.content).toEqual(done.content);
    expect(replay.structuredContent).toEqual(done.structuredContent);
    expect((replay._meta as Record<string, unknown>)[META_REPLAYED]).toBe(true);
    expect(countOf('done')).toBe(1);

    // Were it run again, `hold` would never answer: the deadline turns that into a failure here.
    const unknown = (await again.callTool(
      { name: 'fx__effect', arguments: { key: 'held', hold: true }, _meta: heldMeta },
      undefined,
      { timeout: 20_000 },
    )) as CallToolResult;
    expect(unknown.isError).toBe(true);
    expect((unknown.content[0] as { text: string }).text).toMatch(
      /^The call with callId "write-report-2" is still running, or its result is unknown/,
    );
    expect((unknown._meta as Record<string, unknown>)[META_ERROR]).toBe('in_progress');
    expect(countOf('held')).toBe(1);

    // The modern agent, after the restart: its own completed call replayed, its cut-off one unknown, and the legacy key replayed to it too.
    const modernAgain = await connectModernAgent(url, token);
    agents.push(modernAgain);
    const modernReplay = await modernAgain.callTool({
      name: 'fx__effect',
      arguments: { key: 'modern-done' },
      _meta: modernDoneMeta,
    });
    expect(modernReplay.content).toEqual(modernDone.content);
    expect(modernReplay._meta?.[META_REPLAYED]).toBe(true);
    expect(countOf('modern-done')).toBe(1);
    const modernUnknown = await modernAgain.callTool(
      { name: 'fx__effect', arguments: { key: 'modern-held', hold: true }, _meta: modernHeldMeta },
      { timeout: 20_000 },
    );
    expect(modernUnknown.isError).toBe(true);
    expect(modernUnknown._meta?.[META_ERROR]).toBe('in_progress');
    expect(countOf('modern-held')).toBe(1);
    const crossEra = await modernAgain.callTool({ name: 'fx__effect', arguments: { key: 'done' }, _meta: doneMeta });
    expect(crossEra._meta?.[META_REPLAYED]).toBe(true);
    expect(countOf('done')).toBe(1);
  }, 240_000);
});
