/**
 * The registry client against the loopback registry double (test/doubles/registry/), serving the
 * registry's published server.json examples: every entry checked with zod (a malformed one is
 * reported beside the good ones), pages followed, a looping cursor stopped, garbage / slow /
 * oversized / unreachable answers turned into coded errors — never a hang.
 *
 * Run: npx vitest run test/catalog/registryClient.test.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CatalogService } from '../../electron/catalog/catalogService.js';
import { RegistryClient } from '../../electron/catalog/registryClient.js';
import type { RegistryDouble } from '../doubles/registry/registryDouble.js';
import { fixtureDocuments, startRegistryDouble } from '../doubles/registry/registryDouble.js';

let registry: RegistryDouble;

/** A loopback URL nothing listens on (a port just given up by the system). */
async function closedPortUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
const docs = fixtureDocuments();

beforeEach(async () => {
  registry = await startRegistryDouble(Object.values(docs).map((doc) => ({ doc })));
});
afterEach(() => registry.close());

describe('RegistryClient', () => {
  it('reads every published example, and the latest of two versions', async () => {
    const { entries, truncated } = await new RegistryClient(registry.url).list({ version: 'latest' });
    expect(truncated).toBe(false);
    expect(entries.every((e) => e.ok)).toBe(true);
    const names = entries.flatMap((e) => (e.ok ? [`${e.response.server.name}@${e.response.server.version}`] : []));
    expect(names).toContain('io.github.modelcontextprotocol/everything@2026.8.31');
    expect(names).not.toContain('io.github.modelcontextprotocol/everything@2026.8.18');
    expect(names).toContain('io.modelcontextprotocol/text-editor@1.0.2');
    expect(registry.requests[0]).toMatch(/^\/v0\.1\/servers\?limit=100&version=latest$/);
  });

  it('reports a malformed entry with its name and reason, and still shows the others', async () => {
    registry.extra = [
      {
        server: {
          name: 'com.example/bad-version',
          description: 'x',
          version: '1.0.0',
          packages: [{ registryType: 'npm', identifier: 'x', version: '^1.2.3', transport: { type: 'stdio' } }],
        },
      },
      { server: { description: 'no name' } },
      'not even an object',
    ];
    const { entries } = await new RegistryClient(registry.url).list({});
    const bad = entries.filter((e) => !e.ok);
    expect(bad).toHaveLength(3);
    expect(bad[0]).toMatchObject({ ok: false, name: 'com.example/bad-version' });
    expect(bad[0]!.ok === false && bad[0]!.problem).toMatch(/packages\.0\.version: must be one exact version/);
    expect(bad[1]!.ok === false && bad[1]!.problem).toMatch(/server\.name/);
    expect(entries.filter((e) => e.ok).length).toBe(Object.keys(docs).length);
  });

  it('follows cursors through every page', async () => {
    registry.pageSize = 3;
    const { entries } = await new RegistryClient(registry.url, { pageSize: 3 }).list({});
    expect(entries).toHaveLength(Object.keys(docs).length);
    expect(registry.requests.filter((r) => r.includes('cursor=')).length).toBe(Math.ceil(entries.length / 3) - 1);
  });

  it('stops a registry whose cursor loops, with a coded error', async () => {
    registry.pageSize = 3;
    registry.fault = 'loop';
    await expect(new RegistryClient(registry.url, { pageSize: 3 }).list({})).rejects.toMatchObject({
      code: 'registry_pagination_loop',
    });
    expect(registry.requests.length).toBeLessThanOrEqual(3);
  });

  it('turns garbage, an oversized answer, silence and a closed port into coded errors', async () => {
    const client = new RegistryClient(registry.url, { maxBytes: 1024 * 1024 });
    registry.fault = 'garbage';
    await expect(client.list({})).rejects.toMatchObject({ code: 'bad_response', message: /not JSON/ });
    registry.fault = 'huge';
    await expect(client.list({})).rejects.toMatchObject({ code: 'bad_response', message: /more than/ });
    // Silence ends at the deadline (the double never answers).
    registry.fault = 'hang';
    await expect(new RegistryClient(registry.url, { timeoutMs: 300 }).list({})).rejects.toMatchObject({
      code: 'timeout',
    });
    await expect(new RegistryClient(await closedPortUrl()).list({})).rejects.toMatchObject({
      code: 'unreachable',
      details: { cause: { kind: 'connection_refused' } },
    });
  });

  it('reads one version, the latest, and every version of a server; 404 is not_found', async () => {
    const client = new RegistryClient(registry.url);
    const name = 'io.github.modelcontextprotocol/everything';
    expect((await client.version(name)).server.version).toBe('2026.8.31');
    expect((await client.version(name, '2026.8.18')).server.version).toBe('2026.8.18');
    const all = await client.versions(name);
    expect(all.map((e) => e.ok && e.response.server.version)).toEqual(['2026.8.31', '2026.8.18']);
    await expect(client.version('com.example/none')).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('CatalogService search', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'mh-catalog-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  function service(config = new Map<string, unknown>(), now = () => Date.now()) {
    return new CatalogService({
      dataDir,
      config: { get: (k) => config.get(k), set: (k, v) => void config.set(k, v) },
      servers: () => [],
      save: () => Promise.reject(new Error('not in this test')),
      hasProgram: (c) => c === 'npx',
      client: { timeoutMs: 500 },
      now,
    });
  }

  it('uses the official registry by default and the settings in order', () => {
    const config = new Map<string, unknown>();
    expect(service(config).registries()).toEqual(['https://registry.modelcontextprotocol.io']);
    service(config).setRegistries(['http://a.example/', 'http://b.example']);
    expect(service(config).registries()).toEqual(['http://a.example', 'http://b.example']);
  });

  it('shows the cache, with its age and the failure, when a registry stops answering; refreshes with updated_since', async () => {
    const config = new Map<string, unknown>([['catalog.registries', [registry.url]]]);
    let now = Date.parse('2026-01-01T00:00:00Z');
    const catalog = service(config, () => now);
    const first = await catalog.search('', false);
    expect(first.registries[0]).toMatchObject({ url: registry.url, fromCache: false, fetchedAt: now });
    const count = first.entries.length;
    const everything = first.entries.find((e) => e.ok && e.server.name.endsWith('/everything'));
    expect(everything).toMatchObject({ ok: true, server: { version: '2026.8.31' } });
    // uvx and dnx are missing "here" (hasProgram): those entries say so before install.
    const weather = first.entries.find((e) => e.ok && e.server.name === 'io.github.example/weather-mcp');
    expect(weather?.ok && weather.options[0]).toMatchObject({
      installable: false,
      blocker: /uvx is not installed.*Install uv/,
    });

    registry.fault = 'hang';
    now += 11 * 60_000;
    const offline = await catalog.search('', false);
    expect(offline.entries).toHaveLength(count);
    expect(offline.registries[0]).toMatchObject({
      fromCache: true,
      fetchedAt: first.registries[0]!.fetchedAt,
      error: { code: 'timeout' },
    });

    registry.fault = 'none';
    await catalog.search('', true);
    expect(registry.requests.at(-1)).toContain(`updated_since=${encodeURIComponent('2025-12-31T23:55:00.000Z')}`);
  });

  it('says so when a registry cannot be reached and nothing is cached, and still shows the others', async () => {
    const config = new Map<string, unknown>([['catalog.registries', [await closedPortUrl(), registry.url]]]);
    const result = await service(config).search('brave', false);
    expect(result.registries[0]).toMatchObject({ error: { code: 'unreachable' } });
    expect(result.entries.map((e) => e.ok && e.server.name)).toEqual([
      'io.modelcontextprotocol.anonymous/brave-search',
    ]);
  });
});
