/**
 * Protocol fixes seen on the wire, against real servers (a stdio subprocess that records what it
 * received, a loopback Streamable HTTP server that counts requests):
 * initialize is never cancelled; a forgotten HTTP session is renewed once; close() ends the
 * session with DELETE; progress extends a call's deadline up to the maximum total; a 401 with an
 * OAuth challenge and a non-JSON-RPC HTTP answer are worded for what they are.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MCPClient } from '../../electron/mcp/client.js';
import type { MCPError } from '../../electron/mcp/errors.js';
import {
  MCPAuthError,
  MCPNotAnMCPServerError,
  MCPRequestTimeout,
  MCPServerUnavailableError,
} from '../../electron/mcp/errors.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import type { HttpServerConfig } from '../../shared/serverConfig.js';
import { HttpServerConfigSchema } from '../../shared/serverConfig.js';
import type { HttpFixture, HttpFixtureOptions } from '../doubles/servers/http-server.js';
import { startHttpFixture } from '../doubles/servers/http-server.js';
import { readEvents, scratchDir, stdioFixtureConfig, waitFor } from '../helpers/fixtures.js';
import { testSandboxes } from '../helpers/sandboxes.js';

function httpConfig(url: string, overrides: Partial<HttpServerConfig> = {}): HttpServerConfig {
  return HttpServerConfigSchema.parse({
    id: 'remote',
    name: 'Remote',
    transport: 'streamable_http',
    url,
    timeoutMs: 5_000,
    ...overrides,
  });
}

describe('on the wire', () => {
  let scratch: ReturnType<typeof scratchDir>;
  let events: string;
  let http: HttpFixture | undefined;
  const clients: MCPClient[] = [];
  const closers: Array<() => Promise<void>> = [];

  function track(client: MCPClient): MCPClient {
    clients.push(client);
    return client;
  }
  function stdioClient(
    env: Record<string, string>,
    overrides: Parameters<typeof stdioFixtureConfig>[2] = {},
  ): MCPClient {
    return track(
      new MCPClient(stdioFixtureConfig('fx', { FIXTURE_EVENTS: events, ...env }, overrides), {
        secrets: new DefaultSecretResolver(),
        sandboxes: testSandboxes(),
      }),
    );
  }
  /** A client of a loopback endpoint that answers every request with `body` as `contentType`: not an MCP server. */
  async function clientOfEndpoint(contentType: string, body: string): Promise<MCPClient> {
    const endpoint = createServer((_req, res) => res.writeHead(200, { 'Content-Type': contentType }).end(body));
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => endpoint.close(() => resolve())));
    return track(
      new MCPClient(httpConfig(`http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/`), {
        secrets: new DefaultSecretResolver(),
        sandboxes: testSandboxes(),
      }),
    );
  }
  async function httpClient(
    options: HttpFixtureOptions = {},
    overrides: Partial<HttpServerConfig> = {},
  ): Promise<{ client: MCPClient; server: HttpFixture }> {
    http = await startHttpFixture(options);
    return {
      client: track(
        new MCPClient(httpConfig(http.url, overrides), {
          secrets: new DefaultSecretResolver(),
          sandboxes: testSandboxes(),
        }),
      ),
      server: http,
    };
  }

  beforeEach(() => {
    scratch = scratchDir();
    events = join(scratch.dir, 'events.jsonl');
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    for (const close of closers.splice(0)) await close();
    await http?.close();
    http = undefined;
    scratch.cleanup();
  });

  describe('initialize is never cancelled', () => {
    it('stdio: at its deadline the transport is closed, and the server never receives notifications/cancelled', async () => {
      // The gate file never appears: the server holds initialize forever. (The deadline leaves a
      // loaded machine time to start the server and let it read the request.)
      const c = stdioClient({ FIXTURE_INIT_GATE: join(scratch.dir, 'never') }, { timeoutMs: 2_000 });
      const error = await c.initialize().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MCPRequestTimeout);
      expect((error as MCPRequestTimeout).timeoutMs).toBe(2_000);
      expect(c.state).toBe('closed');
      // initialize() settles after the process has exited: everything it read is recorded.
      const seen = readEvents(events).map((e) => e.event);
      expect(seen).toContain('initialize');
      expect(seen).not.toContain('notifications/cancelled');
    });

    it('stdio: an abort by the caller also closes instead of cancelling', async () => {
      const c = stdioClient({ FIXTURE_INIT_GATE: join(scratch.dir, 'never') });
      const controller = new AbortController();
      const pending = c.initialize({ signal: controller.signal });
      await waitFor(() => readEvents(events).some((e) => e.event === 'initialize'));
      controller.abort();
      await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
      expect(readEvents(events).map((e) => e.event)).not.toContain('notifications/cancelled');
    });

    it('HTTP: a held initialize times out, the request is dropped and nothing is cancelled', async () => {
      // The test says something only once the server has read the request before the deadline; a
      // loaded machine may take longer than that, and the server then has seen none: it is run
      // again with a deadline twice as long (the server's count decides, not a clock).
      for (let timeoutMs = 1_000; ; timeoutMs *= 2) {
        const { client, server } = await httpClient({ holdInitialize: true }, { timeoutMs });
        await expect(client.initialize()).rejects.toBeInstanceOf(MCPRequestTimeout);
        const seen = server.methodCounts.get('initialize');
        if (seen === undefined && timeoutMs < 16_000) {
          await server.close();
          continue;
        }
        expect(seen).toBe(1);
        expect(server.methodCounts.get('notifications/cancelled')).toBeUndefined();
        return;
      }
    });

    it('a timed-out tool call is still cancelled on the wire (only initialize is spared)', async () => {
      const c = stdioClient({});
      await c.initialize();
      await expect(c.callTool('slow', { ms: 10_000 }, { timeoutMs: 200 })).rejects.toBeInstanceOf(MCPRequestTimeout);
      await waitFor(() => readEvents(events).some((e) => e.event === 'notifications/cancelled'));
      const cancelled = readEvents(events).filter((e) => e.event === 'notifications/cancelled') as Array<{
        requestId?: unknown;
      }>;
      expect(cancelled).toHaveLength(1);
      expect(cancelled[0]?.requestId).not.toBe(0); // request 0 is initialize
    });
  });

  describe('HTTP sessions', () => {
    it('a 404 for a known session starts one new session, and the request is sent again on it', async () => {
      const { client, server } = await httpClient();
      await client.initialize();
      await server.expireSessions();
      expect(await client.callTool('echo', { text: 'after expiry' })).toMatchObject({
        content: [{ type: 'text', text: 'after expiry' }],
        isError: false,
      });
      expect(server.methodCounts.get('initialize')).toBe(2);
      expect(client.state).toBe('ready');
      expect(client.log.all().map((l) => l.text)).toContain(
        'the server no longer knows this session (HTTP 404); starting a new session',
      );
      // The new session serves what follows, without another initialize.
      expect((await client.listTools()).map((t) => t.name)).toContain('echo');
      expect(server.methodCounts.get('initialize')).toBe(2);
    });

    it('renews only once: a server that forgets every session fails the request and the connection is lost', async () => {
      const { client, server } = await httpClient();
      await client.initialize();
      const lost = new Promise<Error>((resolve) => client.onDisconnect(({ error }) => resolve(error)));
      await server.expireSessions({ always: true });
      const error = await client.callTool('append', { line: 'never' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MCPServerUnavailableError);
      expect(await lost).toBeInstanceOf(MCPServerUnavailableError);
      expect(server.methodCounts.get('initialize')).toBe(2);
      expect(server.sideEffects).toEqual([]);
    });

    it('close() ends the session with DELETE', async () => {
      const { client, server } = await httpClient();
      await client.initialize();
      expect(server.openSessions()).toBe(1);
      await client.close();
      expect(server.deletes).toBe(1);
      expect(server.openSessions()).toBe(0);
      await client.close(); // idempotent: no second DELETE
      expect(server.deletes).toBe(1);
    });
  });

  describe('progress extends a call’s deadline', () => {
    it('a call that reports progress runs past its timeout and succeeds', async () => {
      const c = stdioClient({ FIXTURE_TOOLS: 'progress' }, { timeoutMs: 1_000 });
      await c.initialize({ timeoutMs: 10_000 });
      const updates: number[] = [];
      // 10 steps of 200 ms: twice the timeout in all, never the timeout without a report.
      const result = await c.callTool(
        'progress',
        { steps: 10, everyMs: 200 },
        { onProgress: (u) => updates.push(u.progress) },
      );
      expect(result).toMatchObject({ content: [{ type: 'text', text: 'done after 10 steps' }], isError: false });
      expect(updates).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    });

    it('…up to the maximum total the server config sets: then it is cancelled as a timeout', async () => {
      const c = stdioClient({ FIXTURE_TOOLS: 'progress' }, { timeoutMs: 1_000, maxTotalTimeoutMs: 1_500 });
      await c.initialize({ timeoutMs: 10_000 });
      const updates: number[] = [];
      const error = await c
        .callTool('progress', { steps: 50, everyMs: 100 }, { onProgress: (u) => updates.push(u.progress) })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MCPRequestTimeout);
      expect((error as MCPRequestTimeout).timeoutMs).toBe(1_500);
      expect(updates.length).toBeGreaterThan(0);
      expect(updates.length).toBeLessThan(50);
      // The server was told (notifications/cancelled) and its handler observed the abort.
      await waitFor(() => readEvents(events).some((e) => e.event === 'cancelled' && e.tool === 'progress'));
    });

    it('without progress the timeout still applies', async () => {
      const c = stdioClient({}, { timeoutMs: 300, maxTotalTimeoutMs: 60_000 });
      await c.initialize({ timeoutMs: 10_000 });
      const error = await c.callTool('slow', { ms: 10_000 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MCPRequestTimeout);
      expect((error as MCPRequestTimeout).timeoutMs).toBe(300);
    });
  });

  describe('wording', () => {
    it('a 401 with an OAuth challenge asks to sign in, typed as such', async () => {
      const challenge =
        'Bearer error="invalid_token", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"';
      const { client } = await httpClient({ token: 'required', challenge });
      const error = (await client.initialize().catch((e: unknown) => e)) as MCPError;
      // Not configured for OAuth, and the server asks for it: "sign in", with its own code (the OAuth layer's).
      expect(error.code).toBe('sign_in_required');
      expect(error.message).toMatch(/sign in/i);
      expect(error.message).not.toMatch(/replace its token/i);
    });

    it('a 401 with a plain bearer challenge still asks for a token', async () => {
      const { client } = await httpClient({ token: 'required' });
      const error = (await client.initialize().catch((e: unknown) => e)) as MCPError;
      expect(error).toBeInstanceOf(MCPAuthError);
      expect(error.message).toMatch(/replace its token/i);
      expect(error.details.cause).toBeUndefined();
    });

    it('an HTTP endpoint that answers a web page is not an MCP server, and stdout is not mentioned', async () => {
      const client = await clientOfEndpoint('text/html', '<html><body>Welcome</body></html>');
      const error = (await client.initialize().catch((e: unknown) => e)) as MCPError;
      expect(error).toBeInstanceOf(MCPNotAnMCPServerError);
      expect(error.message).not.toMatch(/stdout/);
    });

    it('an HTTP endpoint that answers JSON that is not JSON-RPC is a protocol error about the URL, not stdout', async () => {
      const client = await clientOfEndpoint('application/json', '{"status":"ok"}');
      const error = (await client.initialize().catch((e: unknown) => e)) as MCPError;
      expect(error.code).toBe('protocol');
      expect(error.message).toMatch(/not JSON-RPC/);
      expect(error.message).toMatch(/URL/);
      expect(error.message).not.toMatch(/stdout/);
      expect(
        client.log
          .all()
          .map((l) => l.text)
          .join('\n'),
      ).not.toMatch(/stdout/);
    });
  });
});
