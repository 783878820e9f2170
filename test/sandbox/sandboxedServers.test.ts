/**
 * Stdio servers run inside sandbox-runtime (issue 29, stage 2), through the real client: stdin
 * and stdout stay the MCP channel, stderr and exit codes keep working, real servers work, and a
 * hostile server (test/doubles/servers/hostile-server.ts) installed under a home-like folder runs
 * but is refused each thing it tries outside its profile. The same server unsandboxed succeeds at
 * each, so every refusal here is the sandbox's.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createSocket } from 'node:dgram';
import type { Socket } from 'node:dgram';
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCPClient } from '../../electron/mcp/client.js';
import {
  MCPCommandNotFoundError,
  MCPSandboxUnavailableError,
  MCPServerExitedError,
} from '../../electron/mcp/errors.js';
import { MCPToolRegistry } from '../../electron/mcp/registry.js';
import { statusView } from '../../electron/core/views.js';
import { ownFolderOf, ServerSandboxes } from '../../electron/sandbox/serverSandbox.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import type { StdioServerConfig } from '../../shared/serverConfig.js';
import { sandboxEnabled, StdioServerConfigSchema } from '../../shared/serverConfig.js';
import { bundleServer } from '../helpers/buildFixtures.js';
import { PROJECT_ROOT, scratchDir, stdioFixtureConfig, waitFor } from '../helpers/fixtures.js';

const HOSTILE_SOURCE = join(PROJECT_ROOT, 'test', 'doubles', 'servers', 'hostile-server.ts');
const EVERYTHING = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

type Outcome = { ok: boolean; detail: string };

/** A loopback UDP socket on the host that counts the datagrams it got (a UDP or DNS exfiltration). */
async function datagrams(): Promise<{ socket: Socket; port: number; received: () => number }> {
  let count = 0;
  const socket = createSocket('udp4');
  socket.on('message', () => (count += 1));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { socket, port: socket.address().port, received: () => count };
}

/** A loopback TCP server on the host that counts who connected. */
async function listener(): Promise<{ server: Server; port: number; connections: () => number }> {
  let count = 0;
  const server = createServer((socket) => {
    count += 1;
    socket.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, connections: () => count };
}

describe.runIf(process.platform === 'linux')('stdio servers in sandbox-runtime', () => {
  const scratch = scratchDir('mh-sandboxed-');
  const home = join(scratch.dir, 'home');
  const dataDir = join(scratch.dir, 'data');
  const root = join(scratch.dir, 'project');
  const outside = join(scratch.dir, 'outside');
  /** The hostile server, installed the way a person installs one under their home folder. */
  const installed = join(home, 'servers', 'hostile', 'index.mjs');
  const violations: { serverId: string; line: string }[] = [];
  const sandboxes = new ServerSandboxes({
    dataDir,
    home,
    onViolation: (serverId, line) => violations.push({ serverId, line }),
  });
  let forbidden: Awaited<ReturnType<typeof listener>>;
  let allowed: Awaited<ReturnType<typeof listener>>;
  let udpSink: Awaited<ReturnType<typeof datagrams>>;
  /** A stand-in for docker's socket (outside the home folder, readable): whoever reaches docker's is root. */
  const dockerSocket = join(outside, 'docker.sock');
  let docker: Server;
  let dockerConnections = 0;
  const clients: MCPClient[] = [];

  beforeAll(async () => {
    for (const folder of [join(home, '.ssh'), dataDir, root, outside, join(home, 'servers', 'hostile')])
      mkdirSync(folder, { recursive: true });
    writeFileSync(join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY\n');
    writeFileSync(join(dataDir, 'secrets.json'), '{"token":"s3cret"}\n');
    writeFileSync(join(dataDir, 'miniharness.db'), 'SQLite format 3\0');
    writeFileSync(join(dataDir, 'config.json'), '{}\n');
    const built = join(PROJECT_ROOT, '.cache', 'fixtures', 'hostile-server.mjs');
    await bundleServer(HOSTILE_SOURCE, built);
    copyFileSync(built, installed);
    writeFileSync(join(home, 'servers', 'hostile', 'package.json'), '{"name":"hostile","type":"module"}\n');
    forbidden = await listener();
    allowed = await listener();
    udpSink = await datagrams();
    docker = createServer((socket) => {
      dockerConnections += 1;
      socket.end();
    });
    await new Promise<void>((resolve) => docker.listen(dockerSocket, resolve));
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    forbidden.server.close();
    allowed.server.close();
    udpSink.socket.close();
    docker.close();
    scratch.cleanup();
  });

  function client(config: StdioServerConfig, using: ServerSandboxes = sandboxes): MCPClient {
    const made = new MCPClient(config, { secrets: new DefaultSecretResolver(), sandboxes: using });
    clients.push(made);
    return made;
  }

  function hostile(id: string, sandbox: boolean): StdioServerConfig {
    return StdioServerConfigSchema.parse({
      id,
      name: id,
      transport: 'stdio',
      command: process.execPath,
      args: [installed],
      roots: [root],
      timeoutMs: 20_000,
      sandbox: { enabled: sandbox, hosts: [`127.0.0.1:${allowed.port}`] },
    });
  }

  async function attempt(c: MCPClient, kind: string, target: string, port?: number): Promise<Outcome> {
    const result = await c.callTool('attempt', { kind, target, ...(port !== undefined ? { port } : {}) });
    if (!result.structuredContent) throw new Error(JSON.stringify(result.content));
    return result.structuredContent as Outcome;
  }

  it('server-everything works sandboxed: tools listed and called over stdin/stdout', async () => {
    const everything = client(
      StdioServerConfigSchema.parse({
        id: 'everything',
        name: 'Everything',
        transport: 'stdio',
        command: process.execPath,
        args: [EVERYTHING, 'stdio'],
        timeoutMs: 20_000,
        sandbox: { enabled: true },
      }),
    );
    await everything.initialize();
    expect((await everything.listTools()).map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'get-sum']));
    expect((await everything.callTool('get-sum', { a: 2, b: 3 })).content).toEqual([
      { type: 'text', text: 'The sum of 2 and 3 is 5.' },
    ]);
    await everything.close();
  });

  it('the hostile server unsandboxed does everything it tries (the control)', async () => {
    const free = client(hostile('free', false));
    await free.initialize();
    expect(await attempt(free, 'read', join(home, '.ssh', 'id_ed25519'))).toEqual({
      ok: true,
      detail: 'PRIVATE KEY\n',
    });
    expect((await attempt(free, 'read', join(dataDir, 'secrets.json'))).ok).toBe(true);
    expect((await attempt(free, 'write', join(outside, 'free.txt'))).ok).toBe(true);
    expect(await attempt(free, 'child-read', join(home, '.ssh', 'id_ed25519'))).toEqual({
      ok: true,
      detail: 'PRIVATE KEY\n',
    });
    expect((await attempt(free, 'read', `/proc/${process.pid}/environ`)).ok).toBe(true);
    expect(await attempt(free, 'connect', '127.0.0.1', forbidden.port)).toEqual({ ok: true, detail: 'connected' });
    expect(await attempt(free, 'child-connect', '127.0.0.1', forbidden.port)).toEqual({
      ok: true,
      detail: 'connected',
    });
    expect(await attempt(free, 'udp', '127.0.0.1', udpSink.port)).toEqual({ ok: true, detail: 'sent' });
    await waitFor(() => udpSink.received() >= 1);
    await attempt(free, 'dns', '127.0.0.1', udpSink.port);
    await waitFor(() => udpSink.received() >= 2);
    expect((await attempt(free, 'raw-socket', '')).ok).toBe(process.getuid?.() === 0);
    expect(await attempt(free, 'ptrace', '', process.pid)).toMatchObject({ ok: true });
    expect(await attempt(free, 'unix', dockerSocket)).toEqual({ ok: true, detail: 'connected' });
    await free.close();
  });

  describe('the hostile server sandboxed, installed under the home folder', () => {
    let caged: MCPClient;
    beforeAll(async () => {
      caged = client(hostile('caged', true));
      await caged.initialize();
    });

    it('starts (its own folder is readable) and runs with its TMPDIR in its own folder', async () => {
      const me = (await caged.callTool('whoami', {})).structuredContent as { tmpdir: string };
      expect(me.tmpdir).toBe(join(ownFolderOf(dataDir, 'caged'), 'tmp'));
    });

    it('runs with a Node installed under the home folder (nvm-style), the rest of home still hidden', async () => {
      const nvmBin = join(home, '.nvm', 'versions', 'node', 'v24', 'bin');
      mkdirSync(nvmBin, { recursive: true });
      const node = join(nvmBin, 'node');
      if (!existsSync(node)) copyFileSync(process.execPath, node);
      chmodSync(node, 0o755);
      // By name, found on the PATH the server is given (as nvm puts it first), and by path.
      for (const [id, command, env] of [
        ['nvm-name', 'node', { PATH: `${nvmBin}:/usr/bin:/bin` }],
        ['nvm-path', node, {}],
      ] as const) {
        const homeNode = client({ ...hostile(id, true), command, env });
        await homeNode.initialize();
        expect(await attempt(homeNode, 'read', join(home, '.ssh', 'id_ed25519'))).toEqual({
          ok: false,
          detail: 'ENOENT',
        });
        await homeNode.close();
      }
    });

    it("cannot read the person's SSH key, nor the app's secrets, database or config", async () => {
      for (const file of [
        join(home, '.ssh', 'id_ed25519'),
        join(dataDir, 'secrets.json'),
        join(dataDir, 'miniharness.db'),
        join(dataDir, 'config.json'),
      ]) {
        const outcome = await attempt(caged, 'read', file);
        expect(outcome, file).toEqual({ ok: false, detail: 'ENOENT' });
      }
    });

    it("a child it spawns cannot read the key either; another process's environment is not there", async () => {
      expect(await attempt(caged, 'child-read', join(home, '.ssh', 'id_ed25519'))).toEqual({
        ok: false,
        detail: 'ENOENT',
      });
      // Its own PID namespace and /proc: the host's processes (this test's included) do not exist for it.
      expect(await attempt(caged, 'read', `/proc/${process.pid}/environ`)).toEqual({ ok: false, detail: 'ENOENT' });
    });

    it('no UDP or DNS query reaches the host, no raw socket, no ptrace, no Unix socket, and a child cannot connect either', async () => {
      const before = { datagrams: udpSink.received(), connections: forbidden.connections() };
      expect((await attempt(caged, 'udp', '127.0.0.1', udpSink.port)).detail).not.toBe('');
      expect((await attempt(caged, 'dns', '127.0.0.1', udpSink.port)).ok).toBe(false);
      expect((await attempt(caged, 'child-connect', '127.0.0.1', forbidden.port)).ok).toBe(false);
      expect(await attempt(caged, 'raw-socket', '')).toMatchObject({
        ok: false,
        detail: expect.stringMatching(/PermissionError|not permitted/) as string,
      });
      // The host's processes are not in its PID namespace: nothing to attach to.
      expect(await attempt(caged, 'ptrace', '', process.pid)).toMatchObject({
        ok: false,
        detail: expect.stringMatching(/ESRCH|EPERM/) as string,
      });
      // A Unix socket on the host (docker's stand-in) cannot be reached: the library's seccomp
      // filter refuses new Unix sockets in every sandbox.
      const dockerBefore = dockerConnections;
      expect((await attempt(caged, 'unix', dockerSocket)).ok).toBe(false);
      expect(dockerConnections).toBe(dockerBefore);
      // The control above shows each one arrives within its call when unsandboxed.
      expect({ datagrams: udpSink.received(), connections: forbidden.connections() }).toEqual(before);
    });

    it('writes its own folder and its roots, nothing else', async () => {
      const own = join(ownFolderOf(dataDir, 'caged'), 'note.txt');
      expect(await attempt(caged, 'write', own)).toEqual({ ok: true, detail: 'written' });
      expect(readFileSync(own, 'utf8')).toContain('hostile');
      expect(await attempt(caged, 'write', join(root, 'result.txt'))).toEqual({ ok: true, detail: 'written' });
      const escaped = join(outside, 'escaped.txt');
      expect(await attempt(caged, 'write', escaped)).toEqual({ ok: false, detail: 'EROFS' });
      expect(existsSync(escaped)).toBe(false);
      // The data folder beside its own folder is hidden behind an empty tmpfs (sandbox-runtime's
      // read deny on Linux): a write there lands in that tmpfs and never on the host.
      await attempt(caged, 'write', join(dataDir, 'secrets.json'));
      expect(readFileSync(join(dataDir, 'secrets.json'), 'utf8')).toBe('{"token":"s3cret"}\n');
      expect((await attempt(caged, 'write', join(home, '.bashrc'))).ok).toBe(true);
      expect(existsSync(join(home, '.bashrc'))).toBe(false);
    });

    it("cannot connect to the host's loopback directly; through the proxy only to its listed host:port", async () => {
      expect(await attempt(caged, 'connect', '127.0.0.1', forbidden.port)).toEqual({
        ok: false,
        detail: 'ECONNREFUSED',
      });
      const before = forbidden.connections();
      expect(await attempt(caged, 'proxy', '127.0.0.1', forbidden.port)).toEqual({ ok: false, detail: '403' });
      expect(forbidden.connections()).toBe(before);
      // The refusal is recorded, attributed to this server.
      expect(violations).toContainEqual({
        serverId: 'caged',
        line: expect.stringContaining(`deny network-outbound 127.0.0.1:${forbidden.port}`) as string,
      });

      expect(await attempt(caged, 'proxy', '127.0.0.1', allowed.port)).toEqual({ ok: true, detail: '200' });
    });
  });

  it('in a registry: turning the sandbox on restarts the server inside it', async () => {
    const registry = new MCPToolRegistry({ secrets: new DefaultSecretResolver(), sandboxes });
    try {
      registry.addServer(hostile('switch', false));
      await registry.connect('switch');
      const key = join(home, '.ssh', 'id_ed25519');
      const read = async (): Promise<Outcome> =>
        (await registry.callServerTool('switch', 'attempt', { kind: 'read', target: key }))
          .structuredContent as Outcome;
      expect((await read()).ok).toBe(true);
      await registry.updateServer(hostile('switch', true));
      // The old process was closed with the old profile: the next connection is sandboxed.
      expect(registry.status('switch')?.state).not.toBe('ready');
      await registry.connect('switch');
      expect(await read()).toEqual({ ok: false, detail: 'ENOENT' });
    } finally {
      await registry.close();
    }
  });

  it('stderr and the exit code come through the sandbox', async () => {
    const exits = client({
      ...stdioFixtureConfig('exits', { FIXTURE_MODE: 'exit-during-init' }, { timeoutMs: 20_000 }),
      sandbox: { enabled: true, read: [], denyRead: [], write: [], hosts: [] },
    });
    const error = await exits.initialize().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MCPServerExitedError);
    expect((error as MCPServerExitedError).exit.exitCode).toBe(3);
    expect((error as MCPServerExitedError).exit.stderrTail).toContain('fatal: could not open the database');
  });

  it('a server that dies at start reading a hidden file: the error offers reading its folder, as data', async () => {
    const settings = join(home, '.config', 'foo', 'settings.json');
    mkdirSync(join(home, '.config', 'foo'), { recursive: true });
    writeFileSync(settings, '{}\n');
    const dies = client({
      ...stdioFixtureConfig('dies', {}, { timeoutMs: 20_000 }),
      args: ['-e', `require('node:fs').readFileSync(${JSON.stringify(settings)})`],
      sandbox: { enabled: true, read: [], denyRead: [], write: [], hosts: [] },
    });
    const error = await dies.initialize().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MCPServerExitedError);
    expect((error as MCPServerExitedError).details).toMatchObject({
      sandboxDenied: { read: join(home, '.config', 'foo') },
    });
    // Listed as the error offers, the same server reads it.
    const reads = client({
      ...stdioFixtureConfig('reads', {}, { timeoutMs: 20_000 }),
      args: ['-e', `require('node:fs').readFileSync(${JSON.stringify(settings)}); process.exit(7)`],
      sandbox: { enabled: true, read: [join(home, '.config', 'foo')], denyRead: [], write: [], hosts: [] },
    });
    const exited = await reads.initialize().catch((e: unknown) => e);
    expect((exited as MCPServerExitedError).exit.exitCode).toBe(7);
    expect((exited as MCPServerExitedError).details.sandboxDenied).toBeUndefined();
  });

  it('a command that is nowhere is "command not found", as unsandboxed', async () => {
    const missing = client({
      ...stdioFixtureConfig('missing'),
      command: '/nonexistent/bin/mcp-server',
      sandbox: { enabled: true, read: [], denyRead: [], write: [], hosts: [] },
    });
    expect(await missing.initialize().catch((e: unknown) => e)).toBeInstanceOf(MCPCommandNotFoundError);
  });

  it('where the platform cannot sandbox, a server is refused (reason as data) until the person turns its sandbox off', async () => {
    // The app's default: a stdio server with no sandbox section is sandboxed.
    const { sandbox: _none, ...unsaid } = hostile('nosandbox', true);
    expect(sandboxEnabled({ sandbox: undefined })).toBe(true);
    const windows = new ServerSandboxes({ dataDir, home, platform: 'win32' });
    const refused = client(unsaid, windows);
    const error = await refused.initialize().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MCPSandboxUnavailableError);
    expect((error as MCPSandboxUnavailableError).details).toMatchObject({
      retryable: false,
      sandbox: { reason: 'windows_per_server_grants' },
    });
    // In a registry the server's status carries the reason as data too, as the GUI gets it.
    const registry = new MCPToolRegistry({ secrets: new DefaultSecretResolver(), sandboxes: windows });
    try {
      registry.addServer(unsaid);
      await registry.connect('nosandbox').catch(() => undefined);
      const status = registry.status('nosandbox');
      expect(status).toMatchObject({ state: 'error', code: 'sandbox_unavailable' });
      expect(status && statusView(status)).toMatchObject({ sandbox: { reason: 'windows_per_server_grants' } });
    } finally {
      await registry.close();
    }
    // The person's choice, remembered in its config: then it runs, unconfined and saying so.
    const chosen = client(hostile('nosandbox', false), windows);
    await chosen.initialize();
    expect(await attempt(chosen, 'read', join(home, '.ssh', 'id_ed25519'))).toMatchObject({ ok: true });
  });
});
