/**
 * The peers of the dual-era tests: the v2 dual-era fixture (modern-server.ts) over stdio (bundled
 * once into plain JS, spawned per test) and over HTTP (in this process), and the v1 stdio fixture
 * as the legacy-era peer. Each returns the server's config for `MCPClient`, with the era setting
 * the test asks for.
 */
import { join } from 'node:path';
import type { ProtocolEraSetting, ServerConfig } from '../../../shared/serverConfig.js';
import { ServerConfigSchema } from '../../../shared/serverConfig.js';
import type { ModernHttpFixture } from './modern-http.js';
import { startModernHttp } from './modern-http.js';
import { PROJECT_ROOT, stdioFixtureConfig, sandboxWritingTo } from '../../helpers/fixtures.js';
import { bundledOnce } from '../../helpers/buildFixtures.js';

const MODERN_SOURCE = join(PROJECT_ROOT, 'test', 'doubles', 'servers', 'modern-server.ts');
export const BUILT_MODERN_FIXTURE = join(PROJECT_ROOT, '.cache', 'fixtures', 'modern-server.mjs');

/** Bundles the modern stdio fixture once per test file (plain Node starts it in ~0.2 s). */
export const buildModernFixture = bundledOnce(MODERN_SOURCE, BUILT_MODERN_FIXTURE);

export function modernStdioConfig(
  id: string,
  protocolEra: ProtocolEraSetting,
  env: Record<string, string> = {},
  overrides: Record<string, unknown> = {},
): ServerConfig {
  return ServerConfigSchema.parse({
    id,
    name: id,
    transport: 'stdio',
    command: process.execPath,
    args: [BUILT_MODERN_FIXTURE],
    env,
    sandbox: sandboxWritingTo(env),
    cwd: PROJECT_ROOT,
    timeoutMs: 10_000,
    protocolEra,
    ...overrides,
  });
}

export function modernHttpConfig(
  id: string,
  fixture: ModernHttpFixture,
  protocolEra: ProtocolEraSetting,
  overrides: Record<string, unknown> = {},
): ServerConfig {
  return ServerConfigSchema.parse({
    id,
    name: id,
    transport: 'streamable_http',
    url: fixture.url,
    timeoutMs: 10_000,
    protocolEra,
    ...overrides,
  });
}

/** The v1 stdio fixture: a legacy-era peer (2025 revisions only). */
export function legacyStdioConfig(
  id: string,
  protocolEra: ProtocolEraSetting,
  env: Record<string, string> = {},
): ServerConfig {
  return { ...stdioFixtureConfig(id, env), protocolEra };
}

export { startModernHttp };
export type { ModernHttpFixture };
