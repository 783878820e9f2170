/**
 * The schema cache honours a modern server's cache hints for its tool list: `ttlMs` bounds how
 * long the kept list is served (0 — what a server that sends no hint gets — is stale at once, so
 * the next start lists live), and a `private` list of a server reached with credentials is not
 * written to disk. Unit rules on ToolSchemaCache, then the registry against real servers.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectionFingerprint } from '../../electron/mcp/fingerprint.js';
import { MCPToolRegistry } from '../../electron/mcp/registry.js';
import { ToolSchemaCache } from '../../electron/mcp/schemaCache.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { scratchDir } from '../helpers/fixtures.js';
import type { ModernHttpFixture } from '../doubles/servers/eraPeers.js';
import { legacyStdioConfig, modernHttpConfig, startModernHttp } from '../doubles/servers/eraPeers.js';
import { testSandboxes } from '../helpers/sandboxes.js';

let scratch: ReturnType<typeof scratchDir>;
let now = 1_000_000;
const tool = { name: 't', inputSchema: { type: 'object' as const } };

beforeEach(() => {
  scratch = scratchDir();
  now = 1_000_000;
});
afterEach(() => scratch.cleanup());

describe('ToolSchemaCache with server hints', () => {
  it('serves a list only within the ttlMs the server gave', async () => {
    const cache = new ToolSchemaCache({ dir: scratch.dir, now: () => now });
    await cache.set('s', 'fp', [tool], { ttlMs: 1_000 });
    expect(await cache.get('s', 'fp')).toEqual([tool]);
    now += 999;
    expect(await cache.get('s', 'fp')).toEqual([tool]);
    now += 1;
    expect(await cache.get('s', 'fp')).toBeUndefined();
  });

  it('a list kept in memory only leaves no file (and removes an older one)', async () => {
    const cache = new ToolSchemaCache({ dir: scratch.dir, now: () => now });
    await cache.set('s', 'fp', [tool]);
    expect(existsSync(join(scratch.dir, 's.tools.json'))).toBe(true);
    await cache.set('s', 'fp', [tool], { persist: false });
    expect(existsSync(join(scratch.dir, 's.tools.json'))).toBe(false);
    expect(await cache.get('s', 'fp')).toEqual([tool]);
  });
});

describe('the registry writes the hints it got', () => {
  let http: ModernHttpFixture;
  let registry: MCPToolRegistry;
  beforeEach(async () => {
    http = await startModernHttp();
  });
  afterEach(async () => {
    await registry.close();
    await http.close();
  });

  it('a modern server that gives no freshness (ttlMs 0) is listed live at the next start; a legacy one is served from the cache', async () => {
    const cache = new ToolSchemaCache({ dir: scratch.dir });
    registry = new MCPToolRegistry({ secrets: new DefaultSecretResolver(), sandboxes: testSandboxes(), cache });
    const modern = modernHttpConfig('modern', http, 'auto');
    const legacy = legacyStdioConfig('legacy', 'auto');
    registry.addServer(modern);
    registry.addServer(legacy);
    await registry.connect('modern');
    await registry.connect('legacy');
    expect(await cache.get('modern', connectionFingerprint(modern))).toBeUndefined();
    expect((await cache.get('legacy', connectionFingerprint(legacy)))?.length).toBeGreaterThan(0);
  });
});
