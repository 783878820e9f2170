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
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgentsView } from '../../shared/agents.js';
import { GATEWAY_PATH, META_CALL_ID } from '../../shared/agents.js';
import { META_ERROR } from '../../electron/gateway/agentResults.js';
import { freePort } from '../gateway/ports.js';
import { connectAgent, connectModernAgent } from '../gateway/support.js';
import { PROJECT_ROOT, sandboxWritingTo, scratchDir, waitFor } from '../helpers/fixtures.js';
import {
  BUILT_SIDE_EFFECT_FIXTURE,
  SERVER_ID,
  buildSideEffectServer,
  ok,
  serverReady,
} from '../restart/restartSoak.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase } from '../storage/postgres.js';
import { BridgeClient } from '../web/host.js';
import type { Nginx } from './nginx.js';
import { describeBalanced, gatewayBalancerConf, startNginx, webBalancerConf } from './nginx.js';
import { ServeChild } from './serveChild.js';

const OPS = randomBytes(24).toString('base64url');
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

describeBalanced('agents of both eras through nginx in front of two serve instances', () => {
  const scratch = scratchDir('mh-serve-agents-lb-');
  const effects = join(scratch.dir, 'fx', 'effects.jsonl');
  let database: TestDatabase;
  const nginx: Nginx[] = [];
  let web: URL;
  let gateway: URL;
  let webPorts: number[] = [];
  const instances: Array<{ name: 'A' | 'B'; process: ServeChild; config: object; dir: string; webPort: number }> = [];
  const agents: Array<{ close(): Promise<void> }> = [];

  const tagsOf = (prefix: string): string[] =>
    existsSync(effects)
      ? readFileSync(effects, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { key: string; tag: string })
          .filter((l) => l.key.startsWith(prefix))
          .map((l) => l.tag)
      : [];

  beforeAll(async () => {
    await buildSideEffectServer();
    mkdirSync(join(scratch.dir, 'fx'));
    database = await createTestDatabase('agentslb');
    web = new URL(`http://127.0.0.1:${await freePort()}`);
    webPorts = [await freePort(), await freePort()];
    const gatewayPorts: [number, number] = [await freePort(), await freePort()];
    gateway = new URL(`http://127.0.0.1:${await freePort()}${GATEWAY_PATH}`);
    for (const [i, name] of (['A', 'B'] as const).entries()) {
      const dir = join(scratch.dir, name);
      mkdirSync(dir);
      const config = {
        dataDir: join(dir, 'data'),
        workspaceDir: join(dir, 'workspace'),
        listen: { host: '127.0.0.1', port: webPorts[i] },
        gateway: { port: gatewayPorts[i] },
        publicUrl: web.origin,
        trustedProxies: ['127.0.0.1'],
        apiTokens: [{ name: 'ops', role: 'admin', sha256: sha256(OPS) }],
        servers: [
          {
            mode: 'create',
            config: {
              id: SERVER_ID,
              name: 'Side effects',
              transport: 'stdio',
              command: process.execPath,
              args: [BUILT_SIDE_EFFECT_FIXTURE],
              cwd: PROJECT_ROOT,
              env: { SIDE_EFFECT_FILE: effects, SIDE_EFFECT_TAG: name },
              sandbox: sandboxWritingTo({ SIDE_EFFECT_FILE: effects }),
            },
          },
        ],
        rules: [{ serverId: SERVER_ID, toolName: 'effect', level: 'ALLOW' }],
      };
      instances.push(await start({ name, config, dir, webPort: webPorts[i] as number }));
    }
    nginx.push(
      startNginx(
        join(scratch.dir, 'nginx-web'),
        webBalancerConf(join(scratch.dir, 'nginx-web'), Number(web.port), webPorts),
      ),
    );
    nginx.push(
      startNginx(
        join(scratch.dir, 'nginx-gw'),
        gatewayBalancerConf(join(scratch.dir, 'nginx-gw'), Number(gateway.port), gatewayPorts),
      ),
    );
    await waitFor(async () => (await fetch(new URL('/healthz', web)).catch(() => undefined))?.ok === true, 15_000);
  }, 240_000);
  afterAll(async () => {
    await Promise.all(agents.map((a) => a.close().catch(() => undefined)));
    for (const n of nginx) n.stop();
    for (const instance of instances) await instance.process.stop('SIGKILL');
    await database?.drop();
    scratch.cleanup();
  });

  /** Starts (or starts again) an instance; resolves once its copy of the fixture server is ready. */
  async function start<T extends { config: object; dir: string; webPort: number }>(
    instance: T,
  ): Promise<T & { process: ServeChild }> {
    const process = await ServeChild.start(instance.config, instance.dir, { MINIHARNESS_DATABASE_URL: database.url });
    const direct = await BridgeClient.connect(instance.webPort, { token: OPS, host: web.host, origin: web.origin });
    try {
      await serverReady(direct);
    } finally {
      direct.close();
    }
    return Object.assign(instance, { process });
  }

  const effect = async (agent: Client | Awaited<ReturnType<typeof connectModernAgent>>, key: string) => {
    const result = (await agent.callTool({ name: `${SERVER_ID}__effect`, arguments: { key } })) as CallToolResult;
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
  };

  it('2026 calls spread over both; a 2025 session stays on one, and is started again on the other when its instance dies', async () => {
    const bridge = await BridgeClient.connect(Number(web.port), { token: OPS, host: web.host, origin: web.origin });
    const { token } = await ok<{ token: string }>(bridge, 'agents.create', {
      name: 'Team agent',
      visibility: { allServers: true, serverIds: [], localTools: false },
    });
    // Created on one instance, known to the other through PostgreSQL: both list it.
    bridge.close();
    for (const port of webPorts) {
      const direct = await BridgeClient.connect(port, { token: OPS, host: web.host, origin: web.origin });
      try {
        await waitFor(async () => (await ok<AgentsView>(direct, 'agents.list', {})).agents.length === 1, 30_000);
      } finally {
        direct.close();
      }
    }

    const modern = await connectModernAgent(gateway, token);
    agents.push(modern);
    for (let i = 0; i < 8; i++) await effect(modern, `modern-${i}`);
    expect(new Set(tagsOf('modern-'))).toEqual(new Set(['A', 'B']));

    let legacy = await connectAgent(gateway, token);
    agents.push(legacy);
    for (let i = 0; i < 6; i++) await effect(legacy, `legacy-${i}`);
    const home = new Set(tagsOf('legacy-'));
    expect(home.size, JSON.stringify([...home])).toBe(1);
    const [homeName] = [...home];

    const dying = instances.find((i) => i.name === homeName);
    expect((await dying?.process.stop('SIGKILL'))?.signal).toBe('SIGKILL');

    // The session is unknown on the other instance: a clear 404, then a new session through the same address.
    const lost = await effect(legacy, 'legacy-after-kill').then(
      () => 'answered',
      (error: unknown) => ({ status: (error as { code?: unknown }).code, message: String(error) }),
    );
    expect(lost).toEqual({
      status: 404,
      message: expect.stringMatching(/Session not found: initialize a new session/),
    });
    legacy = await connectAgent(gateway, token);
    agents.push(legacy);
    for (let i = 0; i < 3; i++) await effect(legacy, `again-${i}`);
    const survivor = homeName === 'A' ? 'B' : 'A';
    expect(new Set(tagsOf('again-'))).toEqual(new Set([survivor]));
    for (let i = 0; i < 3; i++) await effect(modern, `modern-after-${i}`);
    expect(new Set(tagsOf('modern-after-'))).toEqual(new Set([survivor]));

    // Both up again; a 2026 call acts and is cut off by kill -9 of the instance running it. The agent
    // retries the same callId through the balancer: the other instance says "still running, or its
    // result is unknown" and does not run it.
    if (dying) await start(dying);
    const meta = { [META_CALL_ID]: 'modern-held-1' };
    void modern
      .callTool({ name: `${SERVER_ID}__effect`, arguments: { key: 'held-1', hold: true }, _meta: meta })
      .catch(() => undefined);
    await waitFor(() => tagsOf('held-1').length === 1, 60_000);
    const owner = instances.find((i) => i.name === tagsOf('held-1')[0]);
    expect((await owner?.process.stop('SIGKILL'))?.signal).toBe('SIGKILL');
    const retried = await connectModernAgent(gateway, token);
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
