import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileDamagedWarning } from '../../shared/contract.js';
import type { RegistryEvent } from '../../electron/mcp/registry.js';
import { MCPToolRegistry } from '../../electron/mcp/registry.js';
import { ToolSchemaCache } from '../../electron/mcp/schemaCache.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { countEvents, scratchDir, stdioFixtureConfig, waitFor } from '../helpers/fixtures.js';
import { callByName } from '../helpers/callByName.js';
import { testSandboxes } from '../helpers/sandboxes.js';

const HOUR = 60 * 60 * 1000;

describe('ToolSchemaCache with a registry and real servers (tools/list counted on the server side)', () => {
  let scratch: ReturnType<typeof scratchDir>;
  let cacheDir: string;
  let events: string;
  let clock: number;
  const registries: MCPToolRegistry[] = [];
  const warnings: string[] = [];
  const damaged: FileDamagedWarning[] = [];

  /** A fresh registry and cache over the same folder: what an app restart looks like. */
  function restartApp(): MCPToolRegistry {
    const cache = new ToolSchemaCache({
      dir: cacheDir,
      ttlMs: HOUR,
      now: () => clock,
      onWarning: (m) => warnings.push(m),
      onDamaged: (w) => damaged.push(w),
    });
    const registry = new MCPToolRegistry({ secrets: new DefaultSecretResolver(), sandboxes: testSandboxes(), cache });
    registries.push(registry);
    registry.addServer(stdioFixtureConfig('cached', { FIXTURE_EVENTS: events, FIXTURE_TOOLS: 'echo,append' }));
    return registry;
  }

  beforeEach(() => {
    scratch = scratchDir();
    cacheDir = join(scratch.dir, 'cache');
    events = join(scratch.dir, 'events.jsonl');
    clock = 1_000_000;
    warnings.length = 0;
    damaged.length = 0;
  });
  afterEach(async () => {
    await Promise.all(registries.splice(0).map((r) => r.close()));
    scratch.cleanup();
  });

  it('a cache hit makes no tools/list, and the tools are callable once connected', async () => {
    const cold = restartApp();
    const first = await cold.discover();
    expect(first.servers.cached?.source).toBe('live');
    expect(countEvents(events, 'tools/list')).toBe(1);
    await cold.close();

    const warm = restartApp();
    const second = await warm.discover();
    expect(second.servers.cached?.source).toBe('cache');
    expect(warm.tools().map((t) => t.name)).toEqual(['append', 'echo']);
    // Listed from the cache while the server is still connecting: the GUI marks these "cached".
    expect(warm.status('cached')).toEqual({ state: 'connecting' });
    expect(warm.toolsFromCache('cached')).toBe(true);
    // The connection comes up in the background; calls wait for it.
    expect(await callByName(warm, 'echo', { text: 'warm' })).toMatchObject({ content: [{ text: 'warm' }] });
    expect(warm.status('cached')).toEqual({ state: 'ready' });
    expect(warm.toolsFromCache('cached')).toBe(false);
    expect(countEvents(events, 'tools/list')).toBe(1);
    expect(countEvents(events, 'initialize')).toBe(2);
  });

  it('refetches after the TTL expires', async () => {
    await restartApp().discover();
    clock += HOUR - 1;
    await restartApp().discover();
    expect(countEvents(events, 'tools/list')).toBe(1);
    clock += 2;
    const result = await restartApp().discover();
    expect(result.servers.cached?.source).toBe('live');
    expect(countEvents(events, 'tools/list')).toBe(2);
  });

  it('an explicit refresh bypasses the cache', async () => {
    const registry = restartApp();
    await registry.discover();
    await registry.discover({ refresh: true });
    expect(countEvents(events, 'tools/list')).toBe(2);
  });

  it('an edited server is not served stale tools', async () => {
    await restartApp().discover();
    const registry = restartApp();
    await registry.updateServer({
      ...registry.server('cached'),
      env: { FIXTURE_EVENTS: events, FIXTURE_TOOLS: 'echo' },
    });
    const result = await registry.discover();
    expect(result.servers.cached?.source).toBe('live');
    expect(registry.tools().map((t) => t.name)).toEqual(['echo']);
  });

  it('a corrupt cache file is ignored, reported and rewritten', async () => {
    await restartApp().discover();
    const [file] = readdirSync(cacheDir);
    expect(file).toBe('cached.tools.json');
    writeFileSync(join(cacheDir, file ?? ''), '{"format":1, "tools": [truncated');
    const registry = restartApp();
    const result = await registry.discover();
    expect(result.servers.cached?.source).toBe('live');
    expect(registry.tools().map((t) => t.name)).toEqual(['append', 'echo']);
    expect(damaged).toEqual([
      {
        code: 'file_damaged',
        file: join(cacheDir, 'cached.tools.json'),
        movedTo: expect.stringMatching(/cached\.tools\.json\.corrupt-/),
        lost: 'tool_cache',
        problem: 'not_json',
      },
    ]);
    // The damaged bytes are kept beside the new file, never silently overwritten.
    expect(readFileSync(damaged[0]?.movedTo ?? '', 'utf8')).toBe('{"format":1, "tools": [truncated');
    const rewritten = JSON.parse(readFileSync(join(cacheDir, file ?? ''), 'utf8')) as { tools: unknown[] };
    expect(rewritten.tools).toHaveLength(2);
    // And the rewritten file serves the next start.
    await restartApp().discover();
    expect(countEvents(events, 'tools/list')).toBe(2);
  });

  it('a cache file of the wrong shape is a miss, not a crash', async () => {
    const cache = new ToolSchemaCache({ dir: cacheDir, onWarning: (m) => warnings.push(m) });
    await cache.set('x', 'fp', [{ name: 'a', inputSchema: { type: 'object' } }]);
    writeFileSync(
      join(cacheDir, 'x.tools.json'),
      JSON.stringify({ format: 1, serverId: 'x', fingerprint: 'fp', fetchedAt: 1, tools: [{ nope: true }] }),
    );
    const fresh = new ToolSchemaCache({
      dir: cacheDir,
      onWarning: (m) => warnings.push(m),
      onDamaged: (w) => damaged.push(w),
    });
    expect(await fresh.get('x', 'fp')).toBeUndefined();
    expect(damaged).toMatchObject([
      { code: 'file_damaged', file: join(cacheDir, 'x.tools.json'), lost: 'tool_cache', problem: 'invalid_content' },
    ]);
    expect(await fresh.get('missing', 'fp')).toBeUndefined();
  });

  it('a warm-started server whose connection fails loses its cached tools', async () => {
    const toolsFile = join(scratch.dir, 'tools.txt');
    writeFileSync(toolsFile, 'echo');
    const config = stdioFixtureConfig('flaky', { FIXTURE_EVENTS: events, FIXTURE_TOOLS_FILE: toolsFile });
    const start = (): MCPToolRegistry => {
      const registry = new MCPToolRegistry({
        secrets: new DefaultSecretResolver(),
        sandboxes: testSandboxes(),
        cache: new ToolSchemaCache({ dir: cacheDir, ttlMs: HOUR, now: () => clock }),
      });
      registries.push(registry);
      registry.addServer(config);
      return registry;
    };
    await start().discover();
    // Same settings, so the cache hits, but the server now fails at startup (its file is gone).
    rmSync(toolsFile);
    const registry = start();
    const seen: RegistryEvent[] = [];
    registry.subscribe((e) => seen.push(e));
    const result = await registry.discover();
    expect(result.servers.flaky?.source).toBe('cache');
    expect(registry.tools().map((t) => t.name)).toEqual(['echo']);
    await waitFor(() => registry.status('flaky')?.state === 'error');
    expect(registry.status('flaky')).toMatchObject({ code: 'server_exited' });
    expect(registry.tools()).toEqual([]);
    expect(seen.filter((e) => e.type === 'tools').at(-1)).toMatchObject({ tools: [] });
  });
});
