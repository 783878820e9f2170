/**
 * No loops, by what answers (issue 19, attack finding 1): the gateway names itself with a mark
 * drawn for this run, and the app's client refuses a server that answers with it — whatever the
 * configuration looks like. Real processes: the app core with its gateway in this process; the
 * stdio entry run through a symlink with another name, and as `node --import tsx …/stdioCli.ts`
 * (neither is recognisable when saved); a URL server on the port the gateway is moved to in
 * Settings; a restart whose gateway port (MINIHARNESS_GATEWAY_PORT) is a saved server's. Each is
 * refused with gateway_loop once it answers (or when loaded), and the tool list does not grow.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_TOKEN_ENV } from '../../shared/agents.js';
import type { AppWarning } from '../../shared/contract.js';
import type { PriorDiscovery } from '@modelcontextprotocol/client';
import { toErrorShape } from '../../electron/core/errors.js';
import { AgentStore } from '../../electron/gateway/agentStore.js';
import { GatewayCatalog } from '../../electron/gateway/catalog.js';
import { Gateway } from '../../electron/gateway/gateway.js';
import type { MCPClientOptions } from '../../electron/mcp/client.js';
import { MCPClient } from '../../electron/mcp/client.js';
import { gatewayMarkOf } from '../../electron/mcp/ownGateway.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { openConfConfigStore } from '../../electron/web/confConfigStore.js';
import { HttpServerConfigSchema } from '../../shared/serverConfig.js';
import { buildGatewayStdio } from '../../scripts/buildGatewayStdio.js';
import { PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';
import { freePort } from './ports.js';
import type { GatewayApp } from './support.js';
import { addFixtureServer, startGatewayApp } from './support.js';
import { testSandboxes } from '../helpers/sandboxes.js';

beforeAll(() => buildGatewayStdio());

type Status = { serverId: string; status: { state: string; code?: string } };
const toolCount = async (app: GatewayApp): Promise<number> =>
  (await app.call<{ tools: unknown[] }>('tools.list')).tools.length;
/** The fixture's tools are in the list (its `ready` status may come before them). */
const fixtureListed = (app: GatewayApp, serverId: string): Promise<unknown> =>
  app.nextEvent<{ tools: Array<{ serverId: string }> }>('tools.changed', (p) =>
    p.tools.some((t) => t.serverId === serverId),
  );

describe('a server that is the app’s own gateway, recognised by its answer', () => {
  const scratch = scratchDir('mh-loop-mark-');
  let app: GatewayApp;
  let token: string;
  let tools: number;

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir);
    await addFixtureServer(app, 'fx', { FIXTURE_TOOLS: 'echo' });
    await fixtureListed(app, 'fx');
    token = (await app.createAgent('Looper')).token;
    tools = await toolCount(app);
    expect(tools).toBeGreaterThan(0);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    scratch.cleanup();
  });

  /** Saves a stdio server, which the saved-config check cannot recognise, and waits for its outcome. */
  async function saveStdio(id: string, command: string, args: string[], timeoutMs?: number): Promise<Status['status']> {
    const settled = app.nextEvent<Status>(
      'server.status',
      (p) => p.serverId === id && (p.status.state === 'error' || p.status.state === 'ready'),
    );
    await app.call('servers.save', {
      mode: 'create',
      config: {
        id,
        name: id,
        transport: 'stdio',
        command,
        args,
        cwd: PROJECT_ROOT,
        env: { [GATEWAY_TOKEN_ENV]: token },
        // Unsandboxed: sandboxed, it could not reach the app's gateway on loopback at all (refused
        // before any answer); what is tested here is the answer's mark.
        sandbox: { enabled: false },
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      },
    });
    return (await settled).status;
  }

  it('the stdio entry through a symlink of another name is saved, then refused once it answers; no tool is added', async () => {
    const dir = join(scratch.dir, 'innocent');
    mkdirSync(dir, { recursive: true });
    const link = join(dir, 'helpful-tools.mjs');
    symlinkSync(join(PROJECT_ROOT, 'bin', 'miniharness-gateway.mjs'), link);
    const status = await saveStdio('symlinked', process.execPath, [
      link,
      '--client',
      'innocent',
      '--url',
      app.url.href,
    ]);
    expect(status).toMatchObject({ state: 'error', code: 'gateway_loop' });
    expect(await toolCount(app)).toBe(tools);
  });

  // tsx compiles the entry's sources as it starts: on a loaded machine that alone took over 30 s
  // (the server's default deadline, and the test's). The outcome is an event (its status), so the
  // server and the test get minutes, not seconds: only a slow start uses them.
  it('`node --import tsx …/electron/gateway/stdioCli.ts --url …` is refused once it answers; no tool is added', async () => {
    const status = await saveStdio(
      'from-source',
      process.execPath,
      [
        '--import',
        'tsx',
        join(PROJECT_ROOT, 'electron', 'gateway', 'stdioCli.ts'),
        '--client',
        'src',
        '--url',
        app.url.href,
      ],
      300_000,
    );
    expect(status).toMatchObject({ state: 'error', code: 'gateway_loop' });
    expect(await toolCount(app)).toBe(tools);
    // A person connecting it again meets the same refusal.
    const again = await app.core.dispatch('servers.connect', { id: 'from-source' });
    expect(again.ok ? again.result : again.error).toMatchObject(
      again.ok ? { status: { state: 'error', code: 'gateway_loop' } } : { code: 'gateway_loop' },
    );
    expect(await toolCount(app)).toBe(tools);
  }, 300_000);

  it('another run’s gateway (another MiniHarness) is not refused: the mark is this run’s own', async () => {
    const other = await startGatewayApp(join(scratch.dir, 'other'));
    try {
      await addFixtureServer(other, 'theirs', { FIXTURE_TOOLS: 'echo' });
      const theirToken = (await other.createAgent('Neighbour')).token;
      const ready = app.nextEvent<Status>(
        'server.status',
        (p) => p.serverId === 'neighbour' && (p.status.state === 'ready' || p.status.state === 'error'),
      );
      process.env.MH_TEST_NEIGHBOUR_TOKEN = theirToken;
      await app.call('servers.save', {
        mode: 'create',
        config: {
          id: 'neighbour',
          name: 'Neighbour',
          transport: 'streamable_http',
          url: other.url.href,
          auth: { kind: 'bearer', token: { source: 'env', name: 'MH_TEST_NEIGHBOUR_TOKEN' } },
        },
      });
      expect((await ready).status.state).toBe('ready');
      await fixtureListed(app, 'neighbour');
      expect(await toolCount(app)).toBeGreaterThan(tools);
      await app.call('servers.remove', { id: 'neighbour' });
    } finally {
      await other.close();
    }
    expect(gatewayMarkOf({ experimental: { 'io.miniharness/gateway': { run: 'x' } } })).toBe('x');
    expect(gatewayMarkOf({ _meta: { 'io.miniharness/gateway': 'y' } })).toBe('y');
    expect(gatewayMarkOf({ tools: [] })).toBeUndefined();
  });
});

describe('a URL server on the port the gateway moves to', () => {
  const scratch = scratchDir('mh-loop-port-');
  let app: GatewayApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });
  afterAll(() => scratch.cleanup());

  it('is refused when the gateway moves onto its port in Settings; the tool list does not grow', async () => {
    app = await startGatewayApp(join(scratch.dir, 'move'));
    await addFixtureServer(app, 'fx', { FIXTURE_TOOLS: 'echo' });
    await fixtureListed(app, 'fx');
    const tools = await toolCount(app);
    const port = await freePort();
    // With an agent's token, as a loop needs (without one the gateway answers 401 and nothing loops).
    process.env.MH_TEST_LOOP_TOKEN = (await app.createAgent('Mover')).token;
    // Nothing listens there yet: saved (it is not the gateway's port now), and unreachable.
    const unreachable = app.nextEvent<Status>(
      'server.status',
      (p) => p.serverId === 'later' && p.status.state === 'error',
    );
    await app.call('servers.save', {
      mode: 'create',
      config: {
        id: 'later',
        name: 'Later',
        transport: 'streamable_http',
        url: `http://localhost:${port}/mcp`,
        auth: { kind: 'bearer', token: { source: 'env', name: 'MH_TEST_LOOP_TOKEN' } },
      },
    });
    expect((await unreachable).status.code).not.toBe('gateway_loop');
    // One without a token too (the gateway would answer it 401): the port alone makes it a loop.
    await app.call('servers.save', {
      mode: 'create',
      config: {
        id: 'bare',
        name: 'Bare',
        transport: 'streamable_http',
        url: `http://127.0.0.1:${port}/`,
        enabled: false,
      },
    });
    const refused = ['later', 'bare'].map((id) =>
      app!.nextEvent<Status>(
        'server.status',
        (p) => p.serverId === id && p.status.state === 'error' && p.status.code === 'gateway_loop',
      ),
    );
    await app.call('settings.setGateway', { enabled: true, port });
    for (const outcome of await Promise.all(refused)) expect(outcome.status.code).toBe('gateway_loop');
    expect(await toolCount(app)).toBe(tools);
    // Connecting it by hand meets the gateway's mark: refused again, nothing listed.
    const again = await app.core.dispatch('servers.connect', { id: 'later' });
    expect(again.ok ? again.result : again.error).toMatchObject(
      again.ok ? { status: { state: 'error', code: 'gateway_loop' } } : { code: 'gateway_loop' },
    );
    expect(await toolCount(app)).toBe(tools);
  });

  it('is not loaded when a restart’s gateway port (MINIHARNESS_GATEWAY_PORT) is its port: servers load before the gateway listens', async () => {
    const dir = join(scratch.dir, 'restart');
    const port = await freePort();
    const first = await startGatewayApp(dir);
    await first.call('servers.save', {
      mode: 'create',
      config: {
        id: 'saved',
        name: 'Saved',
        transport: 'streamable_http',
        url: `http://127.0.0.1:${port}/mcp`,
        enabled: false,
      },
    });
    await first.close();
    app = await startGatewayApp(dir, { gatewayPort: port });
    expect(app.url.port).toBe(String(port));
    const servers = await app.call<Array<{ config: { id: string } }>>('servers.list');
    expect(servers.map((s) => s.config.id)).not.toContain('saved');
    const info = await app.call<{ warnings: AppWarning[] }>('app.info');
    expect(
      info.warnings.some(
        (w) =>
          'message' in w &&
          w.message.includes('("saved") could not be loaded: This server points at MiniHarness’s own agent gateway'),
      ),
    ).toBe(true);
    const listed = await app.call<{ tools: Array<{ serverId: string }> }>('tools.list');
    expect(listed.tools.filter((t) => t.serverId === 'saved')).toEqual([]);
  });
});

describe('a kept 2026-07-28 verdict skips server/discover: the tools/list page carries the mark too', () => {
  const scratch = scratchDir('mh-loop-prior-');
  let gateway: Gateway;
  let url: URL;
  let token: string;
  const clients: MCPClient[] = [];

  beforeAll(async () => {
    const agents = new AgentStore(openConfConfigStore(join(scratch.dir, 'data')), () => undefined);
    token = agents.create('Prior', { allServers: true, serverIds: [], localTools: false }).token;
    gateway = new Gateway({
      agents,
      catalog: new GatewayCatalog(
        () => [{ name: 'echo', serverId: 'fx', description: 'echo', inputSchema: { type: 'object' } }] as never,
      ),
      calls: { call: () => Promise.reject(new Error('no call is expected')) },
      describe: (error) => toErrorShape(error),
      version: '0.0.0-test',
      stdio: { command: 'miniharness-gateway', args: [] },
      onChange: () => undefined,
      mark: 'this-run',
    });
    url = new URL((await gateway.start(0)).url);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await gateway?.stop();
    scratch.cleanup();
  });

  const client = (options: Partial<MCPClientOptions>): MCPClient => {
    const config = HttpServerConfigSchema.parse({
      id: 'was-elsewhere',
      name: 'Was elsewhere',
      transport: 'streamable_http',
      url: url.href,
      auth: { kind: 'bearer', token: { source: 'env', name: 'MH_LOOP_TOKEN' } },
      timeoutMs: 5_000,
    });
    const made = new MCPClient(config, {
      secrets: new DefaultSecretResolver(undefined, { MH_LOOP_TOKEN: token }),
      sandboxes: testSandboxes(),
      ...options,
    });
    clients.push(made);
    return made;
  };

  it('a connection from a kept verdict (of the server that used this port before) is refused at its first tools/list', async () => {
    let kept: PriorDiscovery | undefined;
    const first = client({ onVerdict: (verdict) => (kept = verdict) });
    const negotiated = await first.initialize();
    expect(negotiated.era).toBe('modern');
    expect(gatewayMarkOf(negotiated.capabilities)).toBe('this-run');
    // The verdict as another server on this port left it: no mark in its capabilities.
    const discover = (kept as { kind: 'modern'; discover: { capabilities: Record<string, unknown> } }).discover;
    const prior = {
      kind: 'modern',
      discover: { ...discover, capabilities: { tools: { listChanged: true } } },
    } as PriorDiscovery;

    const second = client({ ownGatewayMark: 'this-run', prior: () => Promise.resolve(prior) });
    const info = await second.initialize();
    expect(info.verdictSource).not.toBe('negotiated');
    await expect(second.listTools()).rejects.toMatchObject({ code: 'gateway_loop' });
    expect(second.state).toBe('closed');
    // Another run's mark is not this one.
    const other = client({ ownGatewayMark: 'another-run', prior: () => Promise.resolve(prior) });
    await other.initialize();
    await expect(other.listTools()).resolves.toHaveLength(1);
  });
});
