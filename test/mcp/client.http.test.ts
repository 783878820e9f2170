import { inspect } from 'node:util';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MCPClient } from '../../electron/mcp/client.js';
import {
  MCPAuthError,
  MCPClientClosedError,
  MCPRequestTimeout,
  MCPTransportError,
  MCPUnreachableError,
} from '../../electron/mcp/errors.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import type { HttpServerConfig } from '../../shared/serverConfig.js';
import { HttpServerConfigSchema } from '../../shared/serverConfig.js';
import type { HttpFixture } from '../doubles/servers/http-server.js';
import { startHttpFixture } from '../doubles/servers/http-server.js';
import { testSandboxes } from '../helpers/sandboxes.js';

const TOKEN = 'tok_9f8e7d6c5b4a-correct-horse';

function httpConfig(
  url: string,
  auth: HttpServerConfig['auth'] = { kind: 'bearer', token: { source: 'env', name: 'MH_TEST_TOKEN' } },
): HttpServerConfig {
  return HttpServerConfigSchema.parse({
    id: 'remote',
    name: 'Remote',
    transport: 'streamable_http',
    url,
    auth,
    timeoutMs: 5_000,
  });
}

function clientWith(config: HttpServerConfig, token: string | undefined): MCPClient {
  return new MCPClient(config, {
    secrets: new DefaultSecretResolver(undefined, token === undefined ? {} : { MH_TEST_TOKEN: token }),
    sandboxes: testSandboxes(),
  });
}

describe('MCPClient over Streamable HTTP (real loopback server with a bearer check)', () => {
  let server: HttpFixture;
  const clients: MCPClient[] = [];
  const track = (c: MCPClient): MCPClient => (clients.push(c), c);

  beforeEach(async () => {
    server = await startHttpFixture({ token: TOKEN });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await server.close();
  });

  it('accepts the token: negotiates, discovers and calls', async () => {
    const c = track(clientWith(httpConfig(server.url), TOKEN));
    const info = await c.initialize();
    expect(info.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    expect(info.serverInfo).toEqual({ name: 'fixture-http', version: '2.0.0' });
    expect(info.capabilities).toEqual({ tools: { listChanged: true } });
    expect((await c.listTools()).map((t) => t.name).sort()).toEqual(['append', 'echo', 'slow']);
    expect(await c.callTool('append', { line: 'via-http' })).toMatchObject({ isError: false });
    expect(server.sideEffects).toEqual(['via-http']);
    expect(server.authHeaders.every((h) => h === `Bearer ${TOKEN}`)).toBe(true);
    await c.close();
    await expect(c.callTool('echo', { text: 'x' })).rejects.toBeInstanceOf(MCPClientClosedError);
  });

  it('gets a 401 without a token, names the server, and reaches no tool', async () => {
    const c = track(clientWith(httpConfig(server.url, { kind: 'none' }), undefined));
    const error = await c.initialize().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MCPAuthError);
    expect((error as MCPAuthError).status).toBe(401);
    expect((error as Error).message).toContain('"remote"');
    expect(server.refused).toBeGreaterThan(0);
    expect(server.methodCounts.size).toBe(0);
  });

  it('gets a 401 with a wrong token, and the token appears in no error form', async () => {
    const wrong = 'tok_wrong-0123456789-secret';
    const c = track(clientWith(httpConfig(server.url), wrong));
    const error = await c.initialize().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MCPAuthError);
    for (const form of [
      String(error),
      (error as Error).message,
      (error as Error).stack ?? '',
      JSON.stringify(error),
      inspect(error, { depth: 5 }),
    ]) {
      expect(form).not.toContain(wrong);
    }
    expect(
      c.log
        .all()
        .map((l) => l.text)
        .join('\n'),
    ).not.toContain(wrong);
    expect(server.methodCounts.size).toBe(0);
  });

  it('times out a slow tool over HTTP and still closes', async () => {
    const c = track(clientWith(httpConfig(server.url), TOKEN));
    await c.initialize();
    const error = await c.callTool('slow', { ms: 10_000 }, { timeoutMs: 250 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MCPRequestTimeout);
    expect((error as MCPRequestTimeout).timeoutMs).toBe(250);
    await c.close();
    await c.close();
  });

  it('reports a refused connection clearly', async () => {
    const port = server.port;
    await server.close();
    const c = track(clientWith(httpConfig(`http://127.0.0.1:${port}/mcp`), TOKEN));
    const error = await c.initialize().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MCPUnreachableError);
    expect((error as MCPUnreachableError).failure).toMatchObject({
      kind: 'connection_refused',
      host: '127.0.0.1',
      port,
    });
    expect((error as Error).message).toContain(`127.0.0.1:${port}`);
    server = await startHttpFixture(); // so afterEach has something to close
  });

  it('reports an HTTP 503 as a transport error with its status', async () => {
    const failing = await startHttpFixture({ failWith: 503 });
    try {
      const c = track(clientWith(httpConfig(failing.url, { kind: 'none' }), undefined));
      const error = await c.initialize().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MCPTransportError);
      expect((error as MCPTransportError).httpStatus).toBe(503);
    } finally {
      await failing.close();
    }
  });
});
