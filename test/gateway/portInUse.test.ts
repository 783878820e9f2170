/**
 * The gateway's port already taken by another program: a state and a warning, not a crash; the
 * app keeps serving its GUI, and moving the gateway to a free port in Settings brings it up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:net';
import type { AgentsView } from '../../shared/agents.js';
import type { AppInfo, ServerView } from '../../shared/contract.js';
import { scratchDir } from '../helpers/fixtures.js';
import { freePort, holdPort, portOf } from './ports.js';
import type { GatewayApp } from './support.js';
import { connectAgent, startGatewayApp } from './support.js';

describe('the gateway on a port in use', () => {
  const scratch = scratchDir('mh-gateway-port-');
  let busy: Server;
  let app: GatewayApp;

  beforeAll(async () => {
    busy = await holdPort();
    app = await startGatewayApp(scratch.dir, { gatewayPort: portOf(busy), allowNotListening: true });
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    await new Promise<void>((resolve) => busy.close(() => resolve()));
    scratch.cleanup();
  });

  it('reports port_in_use in agents.list and a warning naming the port; the app keeps running', async () => {
    const port = portOf(busy);
    const view = await app.call<AgentsView>('agents.list');
    expect(view.gateway).toMatchObject({ state: 'port_in_use', port, url: `http://127.0.0.1:${port}/mcp` });
    const info = await app.call<AppInfo>('app.info');
    expect(info.warnings).toContainEqual({
      code: 'notice',
      message: expect.stringContaining(`port ${port} is in use`),
    });
    // The rest of the app answers as usual.
    expect(await app.call<ServerView[]>('servers.list')).toEqual([]);
    const agent = await app.createAgent('Waiting agent');
    expect(agent.token).toMatch(/^mhg_/);
  });

  it('settings.setGateway to a free port: listening, and an agent connects there', async () => {
    const port = await freePort();
    const listening = app.nextEvent<AgentsView>('agents.changed', (v) => v.gateway.state === 'listening');
    await app.call('settings.setGateway', { enabled: true, port });
    const view = await listening;
    expect(view.gateway).toMatchObject({ state: 'listening', port, url: `http://127.0.0.1:${port}/mcp` });

    const { token } = await app.createAgent('Connected agent');
    const client = await connectAgent(new URL(view.gateway.url), token);
    try {
      expect((await client.listTools()).tools).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
