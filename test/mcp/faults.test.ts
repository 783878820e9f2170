import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MCPClient } from '../../electron/mcp/client.js';
import {
  MCPCommandNotFoundError,
  MCPProtocolError,
  MCPRequestTimeout,
  MCPServerExitedError,
  MCPServerUnavailableError,
} from '../../electron/mcp/errors.js';
import type { RegistryEvent } from '../../electron/mcp/registry.js';
import { MCPToolRegistry } from '../../electron/mcp/registry.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { scratchDir, stdioFixtureConfig, waitFor } from '../helpers/fixtures.js';
import { callByName } from '../helpers/callByName.js';
import { testSandboxes } from '../helpers/sandboxes.js';

/**
 * Generous, so a loaded machine never turns "exited" or "garbage" into a timeout: each test
 * asserts the error's kind, which proves it came from the fault and not from the deadline. The
 * server that never answers has a short deadline of its own. How long each takes (process start-up
 * included) is measured by bench/discovery.ts, not asserted here.
 */
const DEADLINE = 8_000;
const SILENT_DEADLINE = 1_500;

describe('faults give a clear error within the deadline and leave other servers alone', () => {
  let scratch: ReturnType<typeof scratchDir>;
  let registry: MCPToolRegistry;

  beforeEach(() => {
    scratch = scratchDir();
    registry = new MCPToolRegistry({ secrets: new DefaultSecretResolver(), sandboxes: testSandboxes() });
  });
  afterEach(async () => {
    await registry.close();
    scratch.cleanup();
  });

  function fixture(id: string, env: Record<string, string> = {}) {
    const timeoutMs = env.FIXTURE_MODE === 'silent' ? SILENT_DEADLINE : DEADLINE;
    return stdioFixtureConfig(id, { FIXTURE_EVENTS: join(scratch.dir, `${id}.jsonl`), ...env }, { timeoutMs });
  }

  async function initializeError(config: ReturnType<typeof fixture>): Promise<{ error: unknown }> {
    const client = new MCPClient(config, { secrets: new DefaultSecretResolver(), sandboxes: testSandboxes() });
    const error = await client.initialize().catch((e: unknown) => e);
    await client.close();
    return { error };
  }

  it('command not found', async () => {
    const { error } = await initializeError({ ...fixture('missing'), command: '/nonexistent/bin/mcp-server' });
    expect(error).toBeInstanceOf(MCPCommandNotFoundError);
    expect((error as Error).message).toContain('/nonexistent/bin/mcp-server');
  });

  it('server exits during initialize: exit code and last stderr lines', async () => {
    const { error } = await initializeError(fixture('exits', { FIXTURE_MODE: 'exit-during-init' }));
    expect(error).toBeInstanceOf(MCPServerExitedError);
    const exited = error as MCPServerExitedError;
    expect(exited.exit.exitCode).toBe(3);
    expect(exited.exit.stderrTail).toContain('fatal: could not open the database');
    expect(exited.message).toMatch(/exited with code 3 during initialize/);
  });

  it('garbage on stdout fails the handshake at once as a protocol error', async () => {
    const { error } = await initializeError(fixture('garbage', { FIXTURE_MODE: 'garbage' }));
    expect(error).toBeInstanceOf(MCPProtocolError);
    expect((error as Error).message).toMatch(/not JSON-RPC on its stdout/);
  });

  it('initialize never answered: a timeout at the deadline', async () => {
    const { error } = await initializeError(fixture('silent', { FIXTURE_MODE: 'silent' }));
    expect(error).toBeInstanceOf(MCPRequestTimeout);
    expect((error as MCPRequestTimeout).operation).toBe('initialize');
    expect((error as MCPRequestTimeout).timeoutMs).toBe(SILENT_DEADLINE);
  });

  it('in one registry: each broken server gets its error status, the healthy one works, then a crash mid-call', async () => {
    registry.addServer(fixture('healthy', { FIXTURE_TOOLS: 'echo' }));
    registry.addServer({ ...fixture('missing'), command: '/nonexistent/bin/mcp-server' });
    registry.addServer(fixture('exits', { FIXTURE_MODE: 'exit-during-init' }));
    registry.addServer(fixture('garbage', { FIXTURE_MODE: 'garbage' }));
    registry.addServer(fixture('silent', { FIXTURE_MODE: 'silent' }));
    registry.addServer(fixture('crashy', { FIXTURE_TOOLS: 'crash', FIXTURE_PREFIX: 'c_' }));
    const events: RegistryEvent[] = [];
    registry.subscribe((e) => events.push(e));

    const result = await registry.discover();
    const state = (id: string) => result.servers[id]?.status;
    expect(state('healthy')).toEqual({ state: 'ready' });
    expect(state('crashy')).toEqual({ state: 'ready' });
    expect(state('missing')).toMatchObject({ state: 'error', code: 'command_not_found' });
    expect(state('exits')).toMatchObject({ state: 'error', code: 'server_exited' });
    expect(state('garbage')).toMatchObject({ state: 'error', code: 'protocol' });
    expect(state('silent')).toMatchObject({ state: 'error', code: 'timeout' });
    expect(registry.tools().map((t) => `${t.serverId}/${t.name}`)).toEqual(['crashy/c_crash', 'healthy/echo']);
    // connecting → ready/error was published for each server.
    for (const id of ['healthy', 'missing', 'exits', 'garbage', 'silent']) {
      const states = events
        .filter((e) => e.type === 'status' && e.serverId === id)
        .map((e) => (e.type === 'status' ? e.status.state : ''));
      expect(states[0]).toBe('connecting');
      expect(states.at(-1)).toBe(id === 'healthy' ? 'ready' : 'error');
    }

    // The server is killed mid-call: the call fails with the exit (not a timeout), the server
    // starts reconnecting by itself (its tools stay listed meanwhile; a call is refused as not connected).
    const error = await callByName(registry, 'c_crash', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MCPServerExitedError);
    expect((error as MCPServerExitedError).exit.signal).toBe('SIGKILL');
    await waitFor(() => registry.status('crashy')?.state === 'reconnecting');
    expect(registry.status('crashy')).toMatchObject({ code: 'server_exited', attempt: 1 });
    expect(registry.tools().map((t) => t.name)).toEqual(['c_crash', 'echo']);
    await expect(registry.callServerTool('crashy', 'c_crash', {})).rejects.toBeInstanceOf(MCPServerUnavailableError);

    // The healthy server was not affected.
    expect(await callByName(registry, 'echo', { text: 'fine' })).toMatchObject({
      content: [{ type: 'text', text: 'fine' }],
    });
    expect(registry.status('healthy')).toEqual({ state: 'ready' });
  });

  it('a server lost after initialize is reported unavailable to callers', async () => {
    registry.addServer(fixture('crashy', { FIXTURE_TOOLS: 'crash,echo' }));
    await registry.discover();
    await callByName(registry, 'crash', {}).catch(() => undefined);
    await waitFor(() => registry.status('crashy')?.state === 'reconnecting');
    const error = await registry.callServerTool('crashy', 'echo', { text: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MCPServerUnavailableError);
    expect((error as Error).message).toMatch(/killed by SIGKILL/);
  });
});
