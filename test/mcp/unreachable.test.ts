/**
 * E5 and E12 against real endpoints: an HTTP server that cannot be reached says what failed
 * (refused, DNS, TLS) and where (host:port) as typed data; a program that is not an MCP server
 * (`/bin/cat`, which echoes the initialize request back) is reported as such, not as "-32601".
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { toErrorShape } from '../../electron/core/errors.js';
import { MCPClient } from '../../electron/mcp/client.js';
import { MCPNotAnMCPServerError, MCPUnreachableError } from '../../electron/mcp/errors.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { HttpServerConfigSchema, StdioServerConfigSchema } from '../../shared/serverConfig.js';
import { testSandboxes } from '../helpers/sandboxes.js';

const clients: MCPClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

function httpClient(url: string): MCPClient {
  const config = HttpServerConfigSchema.parse({
    id: 'remote',
    name: 'Remote',
    transport: 'streamable_http',
    url,
    auth: { kind: 'none' },
    timeoutMs: 10_000,
  });
  const client = new MCPClient(config, { secrets: new DefaultSecretResolver(), sandboxes: testSandboxes() });
  clients.push(client);
  return client;
}

/** A loopback port that was just free: nothing listens on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('an HTTP server that cannot be reached (E5)', () => {
  it('a closed loopback port: connection_refused at host:port, as data', async () => {
    const port = await closedPort();
    const error = await httpClient(`http://127.0.0.1:${port}/mcp`)
      .initialize()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MCPUnreachableError);
    const shape = toErrorShape(error);
    expect(shape.code).toBe('unreachable');
    expect(shape.details).toMatchObject({
      serverId: 'remote',
      retryable: true,
      cause: { kind: 'connection_refused', host: '127.0.0.1', port, errno: 'ECONNREFUSED' },
    });
    expect(shape.message).toContain(`127.0.0.1:${port}`);
    expect(shape.message).not.toContain('fetch failed');
  });

  it('a host name that does not resolve: dns, with the name', async () => {
    const error = await httpClient('http://nonexistent.invalid:8080/mcp')
      .initialize()
      .catch((e: unknown) => e);
    expect(toErrorShape(error)).toMatchObject({
      code: 'unreachable',
      details: { cause: { kind: 'dns', host: 'nonexistent.invalid', port: 8080 } },
    });
  });

  it('https to a server that speaks plain HTTP: tls', async () => {
    const plain = createServer((_req, res) => res.end('plain'));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const { port } = plain.address() as AddressInfo;
    try {
      const error = await httpClient(`https://127.0.0.1:${port}/mcp`)
        .initialize()
        .catch((e: unknown) => e);
      expect(toErrorShape(error)).toMatchObject({
        code: 'unreachable',
        details: { cause: { kind: 'tls', host: '127.0.0.1', port } },
      });
    } finally {
      plain.closeAllConnections();
      await new Promise<void>((resolve) => plain.close(() => resolve()));
    }
  });

  it('a port fetch refuses to use (1): blocked_port, not "fetch failed"', async () => {
    const error = await httpClient('http://127.0.0.1:1/mcp')
      .initialize()
      .catch((e: unknown) => e);
    expect(toErrorShape(error)).toMatchObject({
      code: 'unreachable',
      details: { cause: { kind: 'blocked_port', host: '127.0.0.1', port: 1 } },
    });
  });
});

describe('a program that is not an MCP server (E12)', () => {
  it('/bin/cat answers initialize with its own echo: not_an_mcp_server, and it is stopped', async () => {
    const config = StdioServerConfigSchema.parse({
      id: 'cat',
      name: 'Cat',
      transport: 'stdio',
      command: '/bin/cat',
      timeoutMs: 10_000,
    });
    const client = new MCPClient(config, { secrets: new DefaultSecretResolver(), sandboxes: testSandboxes() });
    clients.push(client);
    const error = await client.initialize().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MCPNotAnMCPServerError);
    const shape = toErrorShape(error);
    expect(shape).toMatchObject({
      code: 'not_an_mcp_server',
      details: { serverId: 'cat', rpcCode: -32601, cause: { kind: 'protocol' } },
    });
    expect(shape.message).toContain('did not answer as an MCP server');
    expect(client.state).toBe('closed');
  });
});
