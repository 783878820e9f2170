/**
 * The kept era verdict: negotiated once, dated and stored beside the schema cache, given to the
 * SDK as `prior` on the next start (no `server/discover` probe), not given past its horizon, and
 * dropped and re-probed when it no longer holds. Real peers: the v2 dual-era fixture over HTTP
 * (each request counted on the server) and the v1 stdio fixture (a legacy-only server).
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectionFingerprint } from '../../electron/mcp/fingerprint.js';
import { MCPToolRegistry } from '../../electron/mcp/registry.js';
import { LEGACY_VERDICT_HORIZON_MS, VerdictStore } from '../../electron/mcp/verdictStore.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import type { ServerConfig } from '../../shared/serverConfig.js';
import { scratchDir, waitFor } from '../helpers/fixtures.js';
import type { ModernHttpFixture } from '../doubles/servers/eraPeers.js';
import { legacyStdioConfig, modernHttpConfig, startModernHttp } from '../doubles/servers/eraPeers.js';
import { testSandboxes } from '../helpers/sandboxes.js';

let scratch: ReturnType<typeof scratchDir>;
let http: ModernHttpFixture;
let now = Date.now();
const registries: MCPToolRegistry[] = [];

function store(): VerdictStore {
  return new VerdictStore({ dir: join(scratch.dir, 'tool-cache'), now: () => now });
}

/** A fresh registry over the same verdict folder: what a restart of the app looks like. */
async function start(config: ServerConfig, verdicts = store()): Promise<MCPToolRegistry> {
  const registry = new MCPToolRegistry({ secrets: new DefaultSecretResolver(), sandboxes: testSandboxes(), verdicts });
  registries.push(registry);
  registry.addServer(config);
  await registry.connect(config.id);
  return registry;
}

beforeEach(async () => {
  scratch = scratchDir();
  http = await startModernHttp();
  now = Date.now();
});
afterEach(async () => {
  await Promise.all(registries.splice(0).map((r) => r.close()));
  await http.close();
  scratch.cleanup();
});

describe('the kept era verdict', () => {
  it('a modern verdict is kept, and the next start connects with it and sends no probe', async () => {
    const config = modernHttpConfig('modern', http, 'auto');
    const first = await start(config);
    expect(first.negotiated('modern')).toMatchObject({ era: 'modern', verdictSource: 'probe' });
    // Kept as the connection became ready (written in the background).
    await waitFor(async () => (await store().get('modern', connectionFingerprint(config)))?.verdict.kind === 'modern');
    await first.close();

    const before = http.methods.filter((m) => m === 'server/discover').length;
    const second = await start(config);
    expect(second.negotiated('modern')).toMatchObject({
      era: 'modern',
      verdictSource: 'prior',
      protocolVersion: '2026-07-28',
    });
    expect(http.methods.filter((m) => m === 'server/discover').length).toBe(before);
    expect((await second.callServerTool('modern', 'echo', { text: 'warm' })).content).toEqual([
      { type: 'text', text: 'warm' },
    ]);
  });

  it('a legacy verdict is used within its horizon and re-probed after it', async () => {
    const config = legacyStdioConfig('legacy', 'auto');
    await (await start(config)).close();
    await waitFor(async () => (await store().get('legacy', connectionFingerprint(config)))?.verdict.kind === 'legacy');

    const warm = await start(config);
    expect(warm.negotiated('legacy')).toMatchObject({ era: 'legacy', verdictSource: 'prior' });
    await warm.close();

    now += LEGACY_VERDICT_HORIZON_MS + 1;
    const late = await start(config);
    expect(late.negotiated('legacy')).toMatchObject({ era: 'legacy', verdictSource: 'probe' });
  });

  it('a kept modern verdict for a server that now speaks only 2025 is dropped, and the server is probed', async () => {
    const config = legacyStdioConfig('downgraded', 'auto');
    const verdicts = store();
    // What an earlier connection to a modern server at this configuration kept.
    const modern = modernHttpConfig('scratch', http, 'auto');
    const registry = await start(modern, verdicts);
    await waitFor(async () => (await verdicts.get('scratch', connectionFingerprint(modern))) !== undefined);
    const kept = await verdicts.get('scratch', connectionFingerprint(modern));
    await registry.close();
    expect(kept?.verdict.kind).toBe('modern');
    await verdicts.set('downgraded', connectionFingerprint(config), kept!.verdict);

    const again = await start(config, verdicts);
    // The first request on the connection made from it failed: dropped, negotiated afresh, sent again.
    expect(again.negotiated('downgraded')).toMatchObject({ era: 'legacy', verdictSource: 'probe' });
    expect(again.status('downgraded')?.state).toBe('ready');
    await waitFor(
      async () => (await verdicts.get('downgraded', connectionFingerprint(config)))?.verdict.kind === 'legacy',
    );
  });

  it('a pinned era is never second-guessed by a kept verdict', async () => {
    const config = modernHttpConfig('pinned', http, 'legacy');
    const verdicts = store();
    const registry = await start(config, verdicts);
    expect(registry.negotiated('pinned')).toMatchObject({ era: 'legacy', verdictSource: 'pinned' });
  });
});
