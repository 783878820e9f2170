/**
 * SIGTERM drains the agent gateway too (issue 36): a real `miniharness serve` process, an agent
 * (the SDK's Client) with a call in flight on a slow tool (the side-effect fixture with
 * `release`: it acts, then answers when the test says so). On SIGTERM the instance stops being
 * ready, refuses a new agent request with 503 + Retry-After, lets the call in flight finish with
 * its result, and exits 0. Started again on the same data folder, the call's claim is completed:
 * the same callId replays, and the tool ran once. (Before, the shutdown waited only for the web's
 * requests and closed the gateway under the call: the agent got no result.)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgentsView } from '../../shared/agents.js';
import { META_CALL_ID, META_REPLAYED } from '../../shared/agents.js';
import { connectAgent } from '../gateway/support.js';
import { freePort } from '../gateway/ports.js';
import { scratchDir, waitFor } from '../helpers/fixtures.js';
import { SERVER_ID, buildSideEffectServer, effectLines, ok, serverReady } from '../restart/restartSoak.js';
import { BridgeClient } from '../web/host.js';
import { ServeChild } from './serveChild.js';
import { opsToken, postInitialize, sideEffectServerConfig } from './serveHarness.js';

const OPS = opsToken();

describe('SIGTERM drains the agent gateway’s calls', () => {
  const scratch = scratchDir('mh-serve-drain-');
  // In a folder of its own: the fixture's sandbox may write there, and nowhere near the data folder.
  const effects = join(scratch.dir, 'fx', 'effects.jsonl');
  let config: object;
  let serve: ServeChild | undefined;

  beforeAll(async () => {
    await buildSideEffectServer();
    mkdirSync(join(scratch.dir, 'fx'));
    config = {
      dataDir: join(scratch.dir, 'data'),
      workspaceDir: join(scratch.dir, 'workspace'),
      listen: { host: '127.0.0.1', port: await freePort() },
      gateway: { port: await freePort() },
      apiTokens: [{ name: 'ops', role: 'admin', sha256: OPS.sha256 }],
      ...sideEffectServerConfig(effects),
    };
  }, 60_000);
  afterAll(async () => {
    await serve?.stop('SIGKILL');
    scratch.cleanup();
  });

  const webUrl = () => `http://127.0.0.1:${(config as { listen: { port: number } }).listen.port}`;

  async function startAndConnect(): Promise<{ bridge: BridgeClient; url: URL }> {
    serve = await ServeChild.start(config, scratch.dir);
    const bridge = await BridgeClient.connect((config as { listen: { port: number } }).listen.port, {
      token: OPS.token,
    });
    await serverReady(bridge);
    const { gateway } = await ok<AgentsView>(bridge, 'agents.list', {});
    return { bridge, url: new URL(gateway.url) };
  }

  it('refuses new agent requests (503 + Retry-After), finishes the call in flight, exits 0; the claim is completed', async () => {
    let run = await startAndConnect();
    const { token } = await ok<{ token: string }>(run.bridge, 'agents.create', {
      name: 'Draining agent',
      visibility: { allServers: true, serverIds: [], localTools: false },
    });
    run.bridge.close();
    const agent = await connectAgent(run.url, token);
    const meta = { [META_CALL_ID]: 'slow-report-1' };
    const inFlight = agent.callTool({
      name: `${SERVER_ID}__effect`,
      arguments: { key: 'slow', release: true },
      _meta: meta,
    });
    await waitFor(() => effectLines(effects).some((l) => l.key === 'slow'), 60_000);

    serve!.signal('SIGTERM');
    await waitFor(async () => (await fetch(`${webUrl()}/readyz`)).status === 503, 15_000);
    const refused = await postInitialize(run.url, token, 'late');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/shutting down/);

    writeFileSync(`${effects}.release`, '');
    const result = (await inFlight) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ key: 'slow' });
    expect(await serve!.exit).toEqual({ code: 0, signal: null });
    await agent.close().catch(() => undefined);

    // Started again: the call's claim is completed — the same callId replays its result without running.
    run = await startAndConnect();
    run.bridge.close();
    const again = await connectAgent(run.url, token);
    try {
      const replay = (await again.callTool({
        name: `${SERVER_ID}__effect`,
        arguments: { key: 'slow', release: true },
        _meta: meta,
      })) as CallToolResult;
      expect(replay.structuredContent).toEqual(result.structuredContent);
      expect((replay._meta as Record<string, unknown>)[META_REPLAYED]).toBe(true);
      expect(effectLines(effects).filter((l) => l.key === 'slow')).toHaveLength(1);
    } finally {
      await again.close().catch(() => undefined);
    }
  }, 240_000);
});
