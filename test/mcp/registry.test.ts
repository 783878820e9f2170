import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MCPConfigError, MCPUnknownToolError } from '../../electron/mcp/errors.js';
import type { RegistryEvent } from '../../electron/mcp/registry.js';
import { MCPToolRegistry } from '../../electron/mcp/registry.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import type { HttpFixture } from '../doubles/servers/http-server.js';
import { startHttpFixture } from '../doubles/servers/http-server.js';
import { countEvents, readEvents, scratchDir, stdioFixtureConfig, waitFor } from '../helpers/fixtures.js';
import { callByName } from '../helpers/callByName.js';
import { testSandboxes } from '../helpers/sandboxes.js';

const TOKEN = 'registry-test-token-123456';

describe('MCPToolRegistry against real stdio and HTTP servers', () => {
  let scratch: ReturnType<typeof scratchDir>;
  let registry: MCPToolRegistry;
  let http: HttpFixture | undefined;
  const eventsOf = (id: string) => join(scratch.dir, `${id}.jsonl`);
  const fixture = (id: string, env: Record<string, string> = {}, overrides = {}) =>
    stdioFixtureConfig(id, { FIXTURE_EVENTS: eventsOf(id), FIXTURE_NAME: id, ...env }, overrides);

  beforeEach(() => {
    scratch = scratchDir();
    registry = new MCPToolRegistry({
      secrets: new DefaultSecretResolver(undefined, { MH_TOKEN: TOKEN }),
      sandboxes: testSandboxes(),
    });
  });
  afterEach(async () => {
    await registry.close();
    await http?.close();
    http = undefined;
    scratch.cleanup();
  });

  it('discovers stdio and HTTP servers in one run and routes calls to each', async () => {
    http = await startHttpFixture({ token: TOKEN, tools: ['append'] });
    registry.addServer(fixture('here', { FIXTURE_TOOLS: 'echo' }));
    registry.addServer({
      id: 'remote',
      name: 'Remote',
      transport: 'http', // alias of streamable_http
      url: http.url,
      auth: { kind: 'bearer', token: { source: 'env', name: 'MH_TOKEN' } },
    });
    const result = await registry.discover();
    expect(result.servers.here).toEqual({ status: { state: 'ready' }, source: 'live', toolCount: 1 });
    expect(result.servers.remote).toEqual({ status: { state: 'ready' }, source: 'live', toolCount: 1 });
    expect(registry.tools().map((t) => [t.name, t.serverId])).toEqual([
      ['append', 'remote'],
      ['echo', 'here'],
    ]);
    expect(registry.negotiated('remote')?.serverInfo.name).toBe('fixture-http');
    expect(await callByName(registry, 'echo', { text: 'hi' }, { agentId: 'gui' })).toMatchObject({
      content: [{ text: 'hi' }],
    });
    await callByName(registry, 'append', { line: 'remote-side-effect' });
    expect(http.sideEffects).toEqual(['remote-side-effect']);
    expect(() => callByName(registry, 'nope', {})).toThrow(MCPUnknownToolError);
  });

  it('runs one discovery at a time: concurrent callers share it', async () => {
    registry.addServer(fixture('a', { FIXTURE_TOOLS: 'echo', FIXTURE_INIT_DELAY_MS: '200' }));
    const [first, second, third] = [registry.discover(), registry.discover(), registry.discover()];
    expect(second).toBe(first);
    expect(third).toBe(first);
    await first;
    expect(countEvents(eventsOf('a'), 'initialize')).toBe(1);
    expect(countEvents(eventsOf('a'), 'tools/list')).toBe(1);
    // After it settles, a new call starts a new discovery (reusing the healthy connection).
    await registry.discover();
    expect(countEvents(eventsOf('a'), 'initialize')).toBe(1);
    expect(countEvents(eventsOf('a'), 'tools/list')).toBe(2);
  });

  it('discovers servers in parallel, not one after another', async () => {
    // A barrier: no server answers initialize until the gate file exists. Only discovery that
    // starts every server at once lets all four receive initialize while the gate is shut.
    const gate = join(scratch.dir, 'gate');
    const ids = ['p1', 'p2', 'p3', 'p4'];
    for (const id of ids)
      registry.addServer(fixture(id, { FIXTURE_TOOLS: 'echo', FIXTURE_PREFIX: `${id}_`, FIXTURE_INIT_GATE: gate }));
    const discovery = registry.discover();
    await waitFor(() => ids.every((id) => countEvents(eventsOf(id), 'initialize') === 1), 20_000);
    writeFileSync(gate, '');
    const result = await discovery;
    expect(Object.values(result.servers).map((s) => s.status.state)).toEqual(['ready', 'ready', 'ready', 'ready']);
    expect(registry.tools()).toHaveLength(4);
  });

  it('a stdio server restarted with fewer tools loses them on rediscovery', async () => {
    const toolsFile = join(scratch.dir, 'tools.txt');
    writeFileSync(toolsFile, 'echo,append,slow');
    registry.addServer(fixture('evolving', { FIXTURE_TOOLS_FILE: toolsFile }));
    await registry.discover();
    expect(registry.tools().map((t) => t.name)).toEqual(['append', 'echo', 'slow']);
    writeFileSync(toolsFile, 'echo');
    await registry.discover({ refresh: true });
    expect(registry.tools().map((t) => t.name)).toEqual(['echo']);
    expect(() => callByName(registry, 'append', { line: 'x' })).toThrow(MCPUnknownToolError);
    expect(new Set(readEvents(eventsOf('evolving')).map((e) => e.instance)).size).toBe(2);
  });

  it('an HTTP server restarted with fewer tools loses them on rediscovery', async () => {
    http = await startHttpFixture({ token: TOKEN });
    const port = http.port;
    registry.addServer({
      id: 'web',
      name: 'Web',
      transport: 'streamable_http',
      url: http.url,
      auth: { kind: 'bearer', token: { source: 'env', name: 'MH_TOKEN' } },
    });
    await registry.discover();
    expect(registry.tools().map((t) => t.name)).toEqual(['append', 'echo', 'slow']);
    await http.close();
    http = await startHttpFixture({ token: TOKEN, tools: ['echo'], port });
    await registry.discover({ refresh: true });
    expect(registry.status('web')).toEqual({ state: 'ready' });
    expect(registry.tools().map((t) => t.name)).toEqual(['echo']);
    expect(registry.status('web')).toEqual({ state: 'ready' });
  });

  it('routes a shared tool name to the highest priority and lists the conflict', async () => {
    registry.addServer(fixture('low', { FIXTURE_TOOLS: 'echo' }, { priority: 1 }));
    registry.addServer(fixture('high', { FIXTURE_TOOLS: 'echo' }, { priority: 5 }));
    await registry.discover();
    expect(registry.conflicts()).toEqual([
      {
        name: 'echo',
        winner: 'high',
        servers: [
          { serverId: 'high', priority: 5 },
          { serverId: 'low', priority: 1 },
        ],
      },
    ]);
    await callByName(registry, 'echo', { text: 'route me' });
    expect(countEvents(eventsOf('high'), 'tools/call')).toBe(1);
    expect(countEvents(eventsOf('low'), 'tools/call')).toBe(0);

    // Raising the other server's priority flips routing at once, without reconnecting.
    await registry.updateServer({ ...registry.server('low'), priority: 9 });
    expect(registry.conflicts()[0]?.winner).toBe('low');
    await callByName(registry, 'echo', { text: 'route me again' });
    expect(countEvents(eventsOf('low'), 'tools/call')).toBe(1);
    expect(countEvents(eventsOf('low'), 'initialize')).toBe(1);
    // The shadowed tool can still be called explicitly.
    await registry.callServerTool('high', 'echo', { text: 'explicit' });
    expect(countEvents(eventsOf('high'), 'tools/call')).toBe(2);
  });

  it('publishes status events and validates configurations with field errors', async () => {
    const events: RegistryEvent[] = [];
    registry.subscribe((e) => events.push(e));
    registry.addServer(fixture('s', { FIXTURE_TOOLS: 'echo' }));
    registry.addServer(fixture('off', {}, { enabled: false }));
    await registry.discover();
    const states = events.flatMap((e) => (e.type === 'status' && e.serverId === 's' ? [e.status.state] : []));
    expect(states).toEqual(['idle', 'connecting', 'ready']);
    expect(registry.status('off')).toEqual({ state: 'disabled' });
    expect(events.some((e) => e.type === 'tools' && e.tools.length === 1)).toBe(true);

    const error = (() => {
      try {
        registry.addServer({ id: 'Bad Id', name: '', transport: 'carrier-pigeon' });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(MCPConfigError);
    expect((error as Error).message).toMatch(/transport: unknown transport "carrier-pigeon"/);
    expect(() => registry.addServer(fixture('s'))).toThrow(/already exists/);
    expect(registry.servers().map((s) => s.id)).toEqual(['s', 'off']);
  });

  it('an edited server is reconnected; a removed one loses its tools and process', async () => {
    registry.addServer(fixture('edit', { FIXTURE_TOOLS: 'echo' }, HOST_PIDS));
    await registry.discover();
    const firstPid = readEvents(eventsOf('edit'))[0]?.pid;
    await registry.updateServer({
      ...registry.server('edit'),
      env: { FIXTURE_EVENTS: eventsOf('edit'), FIXTURE_NAME: 'edit', FIXTURE_TOOLS: 'echo,append' },
    });
    expect(registry.status('edit')).toEqual({ state: 'idle' });
    expect(registry.tools()).toEqual([]);
    await registry.discover();
    expect(registry.tools().map((t) => t.name)).toEqual(['append', 'echo']);
    const pids = new Set(readEvents(eventsOf('edit')).map((e) => e.pid));
    expect(pids.size).toBe(2);
    expect(isAlive(firstPid)).toBe(false);

    await registry.removeServer('edit');
    expect(registry.tools()).toEqual([]);
    expect(registry.servers()).toEqual([]);
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
  });

  it('connects, disconnects and reconnects a single server', async () => {
    registry.addServer(fixture('one', { FIXTURE_TOOLS: 'echo' }));
    registry.addServer(fixture('two', { FIXTURE_TOOLS: 'append' }));
    expect(await registry.connect('one')).toMatchObject({ status: { state: 'ready' }, toolCount: 1 });
    expect(registry.status('two')).toEqual({ state: 'idle' });
    await registry.disconnect('one');
    expect(registry.status('one')).toEqual({ state: 'closed' });
    expect(registry.tools()).toEqual([]);
    await registry.connect('one');
    expect(registry.tools().map((t) => t.name)).toEqual(['echo']);
  });

  it('closes every server, idempotently, and refuses work afterwards', async () => {
    registry.addServer(fixture('c1', { FIXTURE_TOOLS: 'echo' }, HOST_PIDS));
    registry.addServer(fixture('c2', { FIXTURE_TOOLS: 'append' }, HOST_PIDS));
    await registry.discover();
    const pids = readEvents(eventsOf('c1'))
      .concat(readEvents(eventsOf('c2')))
      .map((e) => e.pid);
    await Promise.all([registry.close(), registry.close()]);
    expect(registry.status('c1')).toEqual({ state: 'closed' });
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    expect(() => registry.discover()).toThrow(/closed/);
    await expect(registry.callServerTool('c1', 'echo', { text: 'x' })).rejects.toThrow(/closed/);
  });
});

/**
 * For the tests that check a server's process on the host by the pid it logs: unsandboxed (the
 * person's choice), since a sandboxed server's pid is its PID namespace's.
 */
const HOST_PIDS = { sandbox: { enabled: false, read: [], denyRead: [], write: [], hosts: [] } };

function isAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
