/**
 * What a pinned protocol era says when the server does not speak it (issue 34.4), against real
 * peers: the v1 stdio fixture (legacy only) pinned Modern, and the v2 HTTP fixture with legacy
 * requests rejected (modern only) pinned Legacy. The advice is to lift the pin — never "pin the
 * era" — and the versions the server offers are named, not its raw JSON-RPC body. A pinned
 * connection keeps no era verdict (and drops one kept before), so unpinning negotiates afresh.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MCPClient } from '../../electron/mcp/client.js';
import type { MCPError } from '../../electron/mcp/errors.js';
import { MCPConfigError } from '../../electron/mcp/errors.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import type { PriorDiscovery } from '@modelcontextprotocol/client';
import type { ServerConfig } from '../../shared/serverConfig.js';
import type { ModernHttpFixture } from '../doubles/servers/eraPeers.js';
import {
  buildModernFixture,
  legacyStdioConfig,
  modernHttpConfig,
  startModernHttp,
} from '../doubles/servers/eraPeers.js';
import { testSandboxes } from '../helpers/sandboxes.js';

const clients: MCPClient[] = [];
let http: ModernHttpFixture | undefined;
function client(config: ServerConfig, onVerdict?: (verdict: PriorDiscovery | undefined) => void): MCPClient {
  const c = new MCPClient(config, {
    secrets: new DefaultSecretResolver(),
    sandboxes: testSandboxes(),
    ...(onVerdict ? { onVerdict } : {}),
  });
  clients.push(c);
  return c;
}
beforeAll(async () => {
  await buildModernFixture();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await http?.close();
  http = undefined;
});

describe('a pinned era the server does not speak', () => {
  it('Modern pinned on a legacy-only server: a configuration error that says to set Automatic, not to pin', async () => {
    const error = (await client(legacyStdioConfig('v1-modern', 'modern'))
      .initialize()
      .catch((e: unknown) => e)) as MCPError;
    expect(error).toBeInstanceOf(MCPConfigError);
    expect(error.message).toMatch(/settings pin the Modern protocol era/);
    expect(error.message).toMatch(/Set Protocol era to Automatic/);
    expect(error.message).not.toMatch(/pin the server’s protocol era/);
  });

  it('Legacy pinned on a modern-only server: the versions it offers, no raw JSON', async () => {
    http = await startModernHttp({ legacy: 'reject' });
    const error = (await client(modernHttpConfig('m-legacy', http, 'legacy'))
      .initialize()
      .catch((e: unknown) => e)) as MCPError;
    expect(error).toBeInstanceOf(MCPConfigError);
    expect(error.message).toMatch(/does not support protocol version 2025-11-25: it offers only 2026-07-28\./);
    expect(error.message).toMatch(/pin the Legacy protocol era.*Set Protocol era to Automatic/);
    expect(error.message).not.toMatch(/jsonrpc|-32022|\{/);
  });
});

describe('the kept era verdict', () => {
  it('Automatic keeps the verdict it negotiated; a pinned connection keeps none and drops the kept one', async () => {
    http = await startModernHttp();
    const verdicts: Array<PriorDiscovery | undefined> = [];
    await client(modernHttpConfig('m-auto', http, 'auto'), (v) => verdicts.push(v)).initialize();
    expect(verdicts.map((v) => v?.kind)).toEqual(['modern']);
    await client(modernHttpConfig('m-pin', http, 'legacy'), (v) => verdicts.push(v)).initialize();
    expect(verdicts.map((v) => v?.kind)).toEqual(['modern', undefined]);
  });
});
