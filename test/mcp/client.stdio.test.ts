import { join } from 'node:path';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MCPClient } from '../../electron/mcp/client.js';
import {
  MCPClientClosedError,
  MCPNotInitializedError,
  MCPRequestCancelled,
  MCPRequestTimeout,
} from '../../electron/mcp/errors.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { countEvents, readEvents, readLines, scratchDir, stdioFixtureConfig, waitFor } from '../helpers/fixtures.js';
import { testSandboxes } from '../helpers/sandboxes.js';

describe('MCPClient over stdio (real subprocess server)', () => {
  let scratch: ReturnType<typeof scratchDir>;
  let events: string;
  let counter: string;
  const clients: MCPClient[] = [];

  function client(env: Record<string, string> = {}, overrides = {}): MCPClient {
    const c = new MCPClient(
      stdioFixtureConfig('fx', { FIXTURE_EVENTS: events, FIXTURE_COUNTER: counter, ...env }, overrides),
      {
        secrets: new DefaultSecretResolver(),
        sandboxes: testSandboxes(),
      },
    );
    clients.push(c);
    return c;
  }

  beforeEach(() => {
    scratch = scratchDir();
    events = join(scratch.dir, 'events.jsonl');
    counter = join(scratch.dir, 'counter.txt');
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    scratch.cleanup();
  });

  it('refuses every request before initialize, and nothing reaches a server', async () => {
    const c = client();
    await expect(c.listTools()).rejects.toBeInstanceOf(MCPNotInitializedError);
    await expect(c.callTool('append', { line: 'x' })).rejects.toBeInstanceOf(MCPNotInitializedError);
    expect(c.state).toBe('new');
    expect(readEvents(events)).toEqual([]);
    expect(readLines(counter)).toEqual([]);
  });

  it('returns the negotiated metadata exactly as the server sent it', async () => {
    const c = client({ FIXTURE_NAME: 'negotiation-check', FIXTURE_INSTRUCTIONS: 'Use echo for tests.' });
    const info = await c.initialize();
    expect(info.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    expect(info.serverInfo).toEqual({ name: 'negotiation-check', version: '1.2.3' });
    // The fixture declares tools + logging; the SDK's McpServer adds listChanged for tools.
    expect(info.capabilities).toEqual({ tools: { listChanged: true }, logging: {} });
    expect(info.instructions).toBe('Use echo for tests.');
    expect(info.timings.initializeMs).toBeGreaterThan(0);
    expect(c.negotiated).toEqual(info);
    expect(c.state).toBe('ready');
    expect(countEvents(events, 'initialize')).toBe(1);
  });

  it('discovers tools with schemas and annotations, and calls them with normalized results', async () => {
    const c = client();
    await c.initialize();
    const tools = await c.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['append', 'crash', 'echo', 'slow', 'slow_append']);
    const echo = tools.find((t) => t.name === 'echo');
    expect(echo?.inputSchema).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
    });
    expect(echo?.annotations).toEqual({ readOnlyHint: true });

    expect(await c.callTool('echo', { text: 'hello' })).toEqual({
      content: [{ type: 'text', text: 'hello' }],
      structuredContent: undefined,
      isError: false,
    });
    const appended = await c.callTool('append', { line: 'one' });
    expect(appended.structuredContent).toEqual({ appended: 'one' });
    expect(readLines(counter)).toEqual(['one']);

    // A tool error is a result with isError, not an exception.
    const bad = await c.callTool('echo', { text: 42 });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]).toMatchObject({ type: 'text' });
  });

  it('times out a slow tool near its deadline, tells the server, and still closes cleanly', async () => {
    const c = client();
    await c.initialize();
    const started = performance.now();
    const error = await c.callTool('slow', { ms: 10_000 }, { timeoutMs: 300 }).catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(MCPRequestTimeout);
    expect((error as MCPRequestTimeout).timeoutMs).toBe(300);
    expect(elapsed).toBeGreaterThanOrEqual(290);
    // The SDK sent notifications/cancelled; the server's handler observed the abort.
    await waitFor(() => countEvents(events, 'cancelled') === 1);
    // The connection is still usable after a timeout, and close still works.
    expect(await c.callTool('echo', { text: 'still here' })).toMatchObject({ isError: false });
    await c.close();
    expect(c.state).toBe('closed');
  });

  it("distinguishes the caller's cancellation from a deadline", async () => {
    const c = client();
    await c.initialize();
    const controller = new AbortController();
    const pending = c.callTool('slow', { ms: 10_000 }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await expect(pending).rejects.toBeInstanceOf(MCPRequestCancelled);
    await waitFor(() => countEvents(events, 'cancelled') === 1);
  });

  it('closes idempotently and refuses requests after close', async () => {
    const c = client();
    await c.initialize();
    await Promise.all([c.close(), c.close()]);
    await c.close();
    await expect(c.listTools()).rejects.toBeInstanceOf(MCPClientClosedError);
    await expect(c.callTool('append', { line: 'late' })).rejects.toBeInstanceOf(MCPClientClosedError);
    await expect(c.initialize()).rejects.toBeInstanceOf(MCPClientClosedError);
    expect(readLines(counter)).toEqual([]);
    expect(countEvents(events, 'tools/call')).toBe(0);
  });

  it("keeps the server's stderr in a bounded log", async () => {
    const c = client();
    await c.initialize();
    await waitFor(() => c.log.tail(5).some((l) => l.includes('fixture server starting')));
    expect(c.log.all().some((l) => l.stream === 'client' && l.text.startsWith('ready: fixture-stdio'))).toBe(true);
  });

  it('spawns with an allow-listed environment plus only its own variables', async () => {
    process.env.MH_TEST_LEAK = 'must-not-reach-the-server';
    try {
      // Unsandboxed (the person's choice): its pid on the host is the one it logs.
      const c = client(
        { FIXTURE_TOOLS: 'echo' },
        { sandbox: { enabled: false, read: [], denyRead: [], write: [], hosts: [] } },
      );
      await c.initialize();
      // The fixture cannot print its env to us, so check through /proc of the child.
      const pid = readEvents(events).find((e) => e.event === 'initialize')?.pid;
      expect(pid).toBeDefined();
      const { readFileSync } = await import('node:fs');
      const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      expect(env.some((v) => v.startsWith('MH_TEST_LEAK='))).toBe(false);
      expect(env.some((v) => v.startsWith('FIXTURE_TOOLS=echo'))).toBe(true);
      expect(env.some((v) => v.startsWith('PATH='))).toBe(true);
    } finally {
      delete process.env.MH_TEST_LEAK;
    }
  });
});
