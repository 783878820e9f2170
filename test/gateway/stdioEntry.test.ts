/**
 * The stdio entry as agents run it: a real `node bin/miniharness-gateway.mjs` process spawned by
 * the SDK's StdioClientTransport (as Claude Desktop spawns servers) from another working folder,
 * running the built entry (out/main/gatewayStdio.js, built here as `npm run build` builds it) and
 * relaying to the app's gateway in this process; the same entry when the token is wrong or the
 * app is not running; and the bin when the build is missing. The entry relays both eras: a v1
 * client (2025: `initialize`, a session at the gateway) and a v2 client negotiating in `auto`
 * mode (it ends modern, 2026-07-28, its probe spawning a sibling entry as the SDK does on stdio).
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { AgentsView } from '../../shared/agents.js';
import { GATEWAY_TOKEN_ENV, META_TRACE_ID } from '../../shared/agents.js';
import type { TraceSummary } from '../../shared/traces.js';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';
import { GATEWAY_STDIO_BUILD, buildGatewayStdio } from '../../scripts/buildGatewayStdio.js';
import { freePort } from './ports.js';
import type { GatewayApp } from './support.js';
import { addFixtureServer, startGatewayApp } from './support.js';

const BIN = join(PROJECT_ROOT, 'bin', 'miniharness-gateway.mjs');

interface StdioAgent {
  client: Client;
  transport: StdioClientTransport;
  /** Everything the entry wrote to stderr so far. */
  stderr(): string;
  /** Resolves when the entry process has ended. */
  closed: Promise<void>;
}

/** The entry spawned as an agent would: `node bin/miniharness-gateway.mjs --client <name> --url <url>`, the token in the env. */
function stdioAgent(url: URL, token: string, client = 'Claude Desktop'): StdioAgent {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, '--client', client, '--url', url.href],
    env: { ...getDefaultEnvironment(), [GATEWAY_TOKEN_ENV]: token },
    // Not the project: the bin finds its build next to itself, as an agent starts it from anywhere.
    cwd: tmpdir(),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const mcp = new Client({ name: 'stdio-agent', version: '1.0.0' });
  const closed = new Promise<void>((resolve) => (mcp.onclose = () => resolve()));
  return { client: mcp, transport, stderr: () => stderr, closed };
}

/** The entry spawned for a v2 client in auto mode; `stderr` collects what the session's entry wrote. */
function modernStdioAgent(url: URL, token: string): { client: ModernClient; transport: ModernStdio; stderr(): string } {
  const transport = new ModernStdio({
    command: process.execPath,
    args: [BIN, '--client', 'Modern Desktop', '--url', url.href],
    env: { ...getDefaultEnvironment(), [GATEWAY_TOKEN_ENV]: token },
    cwd: tmpdir(),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return {
    client: new ModernClient(
      { name: 'modern-stdio-agent', version: '2.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    ),
    transport,
    stderr: () => stderr,
  };
}

// Once for the file: the bin runs the build (a few hundred milliseconds with esbuild).
beforeAll(() => buildGatewayStdio());

describe('the stdio entry (bin/miniharness-gateway.mjs) as a real process', () => {
  const scratch = scratchDir('mh-gateway-stdio-');
  let app: GatewayApp;
  let agent: { id: string; token: string };

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir);
    await addFixtureServer(app, 'fx', { FIXTURE_TOOLS: 'echo' }, ['echo']);
    agent = await app.createAgent('Claude Desktop');
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    scratch.cleanup();
  });

  it('lists and calls tools, gets list_changed when a server is added, and its session ends when stdin closes', async () => {
    const entry = stdioAgent(app.url, agent.token);
    await entry.client.connect(entry.transport);
    try {
      expect(entry.client.getServerVersion()?.name).toBe('MiniHarness');
      const { tools } = await entry.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['fx__echo']);

      const result = (await entry.client.callTool({
        name: 'fx__echo',
        arguments: { text: 'through stdio' },
      })) as CallToolResult;
      expect(result.content).toEqual([{ type: 'text', text: 'through stdio' }]);
      const traceId = (result._meta as Record<string, unknown>)[META_TRACE_ID] as string;
      const { trace } = await app.call<{ trace: TraceSummary }>('traces.get', { traceId });
      expect(trace).toMatchObject({ userId: 'Claude Desktop', toolName: 'echo', status: 'ok' });

      const view = await app.call<AgentsView>('agents.list');
      expect(view.agents.find((a) => a.id === agent.id)?.sessions.map((s) => s.clientName)).toEqual(['stdio-agent']);

      const changed = new Promise<void>((resolve) =>
        entry.client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
      );
      await app.call('servers.save', {
        mode: 'create',
        config: {
          id: 'fy',
          name: 'Second',
          transport: 'stdio',
          command: process.execPath,
          args: [BUILT_STDIO_FIXTURE],
          cwd: PROJECT_ROOT,
          env: { FIXTURE_TOOLS: 'echo' },
        },
      });
      await changed;
      expect((await entry.client.listTools()).tools.map((t) => t.name)).toEqual(['fx__echo', 'fy__echo']);
    } finally {
      // Ends the entry's stdin, as an agent does when it stops a server; resolves once the process is gone.
      await entry.client.close();
    }
    // The entry ended its app-side session on its way out (DELETE), before the process exited.
    const after = await app.call<AgentsView>('agents.list');
    expect(after.agents.find((a) => a.id === agent.id)?.sessions).toEqual([]);
    expect(entry.stderr()).toBe('');
  });

  it('relays a v2 client in auto mode as a modern agent: lists, calls, hears list changes on its listen stream, cancels', async () => {
    const entry = modernStdioAgent(app.url, agent.token);
    await entry.client.connect(entry.transport);
    try {
      expect(entry.client.getProtocolEra()).toBe('modern');
      expect(entry.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const names = (await entry.client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('fx__echo');
      const result = await entry.client.callTool({ name: 'fx__echo', arguments: { text: 'modern through stdio' } });
      expect(result.content).toEqual([{ type: 'text', text: 'modern through stdio' }]);
      const { trace } = await app.call<{ trace: TraceSummary }>('traces.get', {
        traceId: result._meta?.[META_TRACE_ID] as string,
      });
      expect(trace).toMatchObject({ userId: 'Claude Desktop', toolName: 'echo', status: 'ok' });

      const changed = new Promise<void>((resolve) =>
        entry.client.setNotificationHandler('notifications/tools/list_changed', () => resolve()),
      );
      await entry.client.listen({ toolsListChanged: true });
      await app.call('servers.save', {
        mode: 'create',
        config: {
          id: 'fz',
          name: 'Third',
          transport: 'stdio',
          command: process.execPath,
          args: [BUILT_STDIO_FIXTURE],
          cwd: PROJECT_ROOT,
          env: { FIXTURE_TOOLS: 'echo' },
        },
      });
      await changed;
      expect((await entry.client.listTools()).tools.map((t) => t.name)).toContain('fz__echo');

      // A modern request is cancelled by closing its stream: the entry does that for the agent's cancel.
      await app.call('permissions.setToolLevel', { serverId: 'fx', toolName: 'echo', level: 'ASK' });
      const asked = app.nextEvent<{ requestId: string; toolName: string }>(
        'approval.requested',
        (a) => a.toolName === 'echo',
      );
      const controller = new AbortController();
      const pending = entry.client.callTool(
        { name: 'fx__echo', arguments: { text: 'cancel me' } },
        { signal: controller.signal },
      );
      const approval = await asked;
      const closed = app.nextEvent<{ requestId: string; outcome: string }>(
        'approval.closed',
        (r) => r.requestId === approval.requestId,
      );
      controller.abort();
      await expect(pending).rejects.toThrow();
      expect((await closed).outcome).toBe('cancelled');
      await app.call('permissions.setToolLevel', { serverId: 'fx', toolName: 'echo', level: 'ALLOW' });
    } finally {
      await entry.client.close();
    }
    expect(entry.stderr()).toBe('');
  });

  it('a wrong token: initialize fails and stderr says what to do', async () => {
    const entry = stdioAgent(app.url, 'mhg_not-the-token', 'Cursor');
    await expect(entry.client.connect(entry.transport)).rejects.toThrow(
      /MiniHarness refused the token of agent "Cursor"/,
    );
    await entry.closed;
    expect(entry.stderr()).toBe(
      `MiniHarness refused the token of agent "Cursor": create the agent (or a new token) in MiniHarness → Agents and set ${GATEWAY_TOKEN_ENV}.\n`,
    );
  });

  it('the app not running: initialize fails and stderr has exactly the one sentence', async () => {
    const url = new URL(`http://127.0.0.1:${await freePort()}/mcp`);
    const entry = stdioAgent(url, agent.token);
    await expect(entry.client.connect(entry.transport)).rejects.toThrow(/MiniHarness is not running/);
    await entry.closed;
    expect(entry.stderr()).toBe('MiniHarness is not running: start it with npm start.\n');
  });
});

describe('the built stdio entry', () => {
  it("imports only node: built-ins and the package's runtime dependencies (no tsx, no sources)", async () => {
    const built = readFileSync(GATEWAY_STDIO_BUILD, 'utf8');
    const specifiers = [
      ...built.matchAll(
        /^\s*import\s[^'"]*?from\s*["']([^"']+)["']|^\s*import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']/gm,
      ),
    ].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
    expect(specifiers.length).toBeGreaterThan(0);
    const { dependencies } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    for (const specifier of specifiers) {
      if (specifier.startsWith('node:')) continue;
      const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
      expect(Object.keys(dependencies), specifier).toContain(name);
    }
  });

  it('the bin without its build: one sentence naming npm run build, exit 2', async () => {
    // The bin copied alone into a folder: its ../out/main/gatewayStdio.js does not exist.
    const scratch = scratchDir('mh-gateway-bin-');
    try {
      mkdirSync(join(scratch.dir, 'bin'));
      const bin = join(scratch.dir, 'bin', 'miniharness-gateway.mjs');
      copyFileSync(BIN, bin);
      const run = promisify(execFile)(process.execPath, [bin, '--client', 'x'], {
        cwd: tmpdir(),
        env: { ...process.env, [GATEWAY_TOKEN_ENV]: 't' },
      });
      const failure = (await run.then(
        () => undefined,
        (error: unknown) => error,
      )) as { code: number; stderr: string; stdout: string };
      expect(failure.code).toBe(2);
      expect(failure.stdout).toBe('');
      expect(failure.stderr).toBe(
        `miniharness-gateway: the stdio entry is not built (${join(scratch.dir, 'out', 'main', 'gatewayStdio.js')} is missing): run npm run build in the MiniHarness folder.\n`,
      );
    } finally {
      scratch.cleanup();
    }
  });

  it('a usage error says the same sentence as before, exit 2', async () => {
    const run = promisify(execFile)(process.execPath, [BIN, '--nope'], {
      cwd: tmpdir(),
      env: { ...process.env, [GATEWAY_TOKEN_ENV]: 't' },
    });
    const failure = (await run.then(
      () => undefined,
      (error: unknown) => error,
    )) as { code: number; stderr: string };
    expect(failure.code).toBe(2);
    expect(failure.stderr).toBe(
      "miniharness-gateway: Unknown option '--nope'. Usage: miniharness-gateway --client <name> [--url http://127.0.0.1:47813/mcp]\n",
    );
  });
});
