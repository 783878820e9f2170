/**
 * `x-mcp-header` parameters through the product's own client (SEP-2243): over loopback HTTP to a
 * v2 server that checks every `Mcp-Param-*` header against the body (paramHeaderServer.ts), a
 * value that cannot travel as a plain header (non-ASCII, a line break, leading or trailing
 * space, an empty string) goes Base64-wrapped (`=?base64?…?=`) and decodes to the argument; a
 * plain value goes as it is; an optional parameter left out, or null, sends no header; and the
 * server accepts the call (a wrong header would be refused, -32020). The conformance suite's
 * `http-custom-headers` covers the same through the runner (which sent only sample values
 * before, so it never reached the Base64 path).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MCPClient } from '../../electron/mcp/client.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { HttpServerConfigSchema } from '../../shared/serverConfig.js';
import type { ParamHeaderServer } from '../doubles/servers/paramHeaderServer.js';
import { startParamHeaderServer } from '../doubles/servers/paramHeaderServer.js';
import { testSandboxes } from '../helpers/sandboxes.js';

let server: ParamHeaderServer;
let client: MCPClient;

beforeEach(async () => {
  server = await startParamHeaderServer();
  client = new MCPClient(
    HttpServerConfigSchema.parse({
      id: 'headers',
      name: 'Headers',
      transport: 'streamable_http',
      url: server.url,
      timeoutMs: 10_000,
      protocolEra: 'modern',
    }),
    { secrets: new DefaultSecretResolver(), sandboxes: testSandboxes() },
  );
  await client.initialize();
  await client.listTools();
});

afterEach(async () => {
  await client.close();
  await server.close();
});

/** A header value as the server reads it: Base64-wrapped values decoded. */
function decoded(value: string | undefined): string | undefined {
  const wrapped = value === undefined ? undefined : /^=\?base64\?(.*)\?=$/.exec(value);
  return wrapped ? Buffer.from(wrapped[1]!, 'base64').toString('utf8') : value;
}

describe('Mcp-Param headers from the product’s client', () => {
  it.each([
    ['non-ASCII', 'Zürich, 世界'],
    ['a line break', 'line1\r\nline2'],
    ['a leading and a trailing space', ' padded '],
    ['an empty string', ''],
  ])('a value with %s goes Base64-wrapped and decodes to the argument', async (_what, label) => {
    const result = await client.callTool('search', { region: 'us-west1', label, query: 'q' });
    expect(result.isError).toBeFalsy();
    const headers = server.calls.at(-1)!;
    expect(headers['mcp-param-label']).toMatch(/^=\?base64\?[A-Za-z0-9+/=]*\?=$/);
    expect(decoded(headers['mcp-param-label'])).toBe(label);
    expect(headers['mcp-param-region']).toBe('us-west1'); // plain ASCII: as it is
  });

  it('an optional parameter left out, or null, sends no header; an integer and a boolean go as text', async () => {
    await client.callTool('search', { region: 'eu', query: 'q', verbose: null });
    expect(server.calls.at(-1)).toEqual({ 'mcp-param-region': 'eu' });
    await client.callTool('search', { region: 'eu', query: 'q', priority: 42, verbose: false });
    expect(server.calls.at(-1)).toEqual({
      'mcp-param-region': 'eu',
      'mcp-param-priority': '42',
      'mcp-param-verbose': 'false',
    });
  });
});
