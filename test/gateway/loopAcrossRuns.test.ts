/**
 * A loop through a second MiniHarness run: A lists B's gateway and B lists A's. Each run's mark
 * differs, so neither handshake alone shows a loop; the gateway relays the marks of the gateways
 * it is itself connected to, so the second link of the ring meets its own run's mark and is refused
 * (gateway_loop), and neither tool list grows. Real processes: two app cores with their gateways
 * on loopback, each with a real stdio fixture server.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import { addFixtureServer, startGatewayApp } from './support.js';

type Status = { serverId: string; status: { state: string; code?: string } };
const toolCount = async (app: GatewayApp): Promise<number> =>
  (await app.call<{ tools: unknown[] }>('tools.list')).tools.length;
const listed = (app: GatewayApp, serverId: string): Promise<unknown> =>
  app.nextEvent<{ tools: Array<{ serverId: string }> }>('tools.changed', (p) =>
    p.tools.some((t) => t.serverId === serverId),
  );

describe('a ring of two MiniHarness runs', () => {
  const scratch = scratchDir('mh-loop-ring-');
  let a: GatewayApp;
  let b: GatewayApp;

  beforeAll(async () => {
    a = await startGatewayApp(join(scratch.dir, 'a'));
    b = await startGatewayApp(join(scratch.dir, 'b'));
    await addFixtureServer(a, 'fxa', { FIXTURE_TOOLS: 'echo' });
    await addFixtureServer(b, 'fxb', { FIXTURE_TOOLS: 'echo' });
    await Promise.all([listed(a, 'fxa'), listed(b, 'fxb')]);
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    scratch.cleanup();
  });

  it('the link that closes the ring is refused with gateway_loop; neither tool list grows', async () => {
    process.env.MH_TEST_RING_TO_B = (await b.createAgent('From A')).token;
    process.env.MH_TEST_RING_TO_A = (await a.createAgent('From B')).token;
    // A → B: another run's gateway, not a loop.
    const aToB = a.nextEvent<Status>(
      'server.status',
      (p) => p.serverId === 'to-b' && (p.status.state === 'ready' || p.status.state === 'error'),
    );
    await a.call('servers.save', {
      mode: 'create',
      config: {
        id: 'to-b',
        name: 'B',
        transport: 'streamable_http',
        url: b.url.href,
        auth: { kind: 'bearer', token: { source: 'env', name: 'MH_TEST_RING_TO_B' } },
      },
    });
    expect((await aToB).status.state).toBe('ready');
    await listed(a, 'to-b');
    const aTools = await toolCount(a);
    const bTools = await toolCount(b);
    // B → A closes the ring: A's gateway relays B's mark (A is connected to B).
    const bToA = b.nextEvent<Status>(
      'server.status',
      (p) => p.serverId === 'to-a' && (p.status.state === 'ready' || p.status.state === 'error'),
    );
    await b.call('servers.save', {
      mode: 'create',
      config: {
        id: 'to-a',
        name: 'A',
        transport: 'streamable_http',
        url: a.url.href,
        auth: { kind: 'bearer', token: { source: 'env', name: 'MH_TEST_RING_TO_A' } },
      },
    });
    expect((await bToA).status).toMatchObject({ state: 'error', code: 'gateway_loop' });
    expect(await toolCount(b)).toBe(bTools);
    expect(await toolCount(a)).toBe(aTools);
  }, 60_000);
});
