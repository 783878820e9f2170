/**
 * The peers of the MCP Apps tests: the apps fixture (doubles/servers/apps-server.ts), bundled
 * once into plain JS and spawned over stdio, and the published MCP Apps example server
 * `@modelcontextprotocol/server-basic-vanillajs` (`dist/index.js --stdio`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT, sandboxWritingTo } from '../../helpers/fixtures.js';
import { bundledOnce } from '../../helpers/buildFixtures.js';

const APPS_SOURCE = join(PROJECT_ROOT, 'test', 'doubles', 'servers', 'apps-server.ts');
export const BUILT_APPS_FIXTURE = join(PROJECT_ROOT, '.cache', 'fixtures', 'apps-server.mjs');
export const BASIC_VANILLAJS = join(
  PROJECT_ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-basic-vanillajs',
  'dist',
  'index.js',
);
/** The example server's one app tool and its page. */
export const BASIC_TOOL = 'get-time';
export const BASIC_APP_URI = 'ui://get-time/mcp-app.html';

export const buildAppsFixture = bundledOnce(APPS_SOURCE, BUILT_APPS_FIXTURE);

/** The apps fixture as a server config (the shape `servers.save` and `ServerConfigSchema` take). */
export function appsServerConfig(id: string, eventsFile: string, protocolEra: 'auto' | 'legacy' | 'modern' = 'auto') {
  return {
    id,
    name: id === 'apps' ? 'Counter' : id,
    transport: 'stdio' as const,
    command: process.execPath,
    args: [BUILT_APPS_FIXTURE],
    cwd: PROJECT_ROOT,
    env: { APPS_EVENTS: eventsFile },
    sandbox: sandboxWritingTo({ APPS_EVENTS: eventsFile }),
    timeoutMs: 10_000,
    protocolEra,
  };
}

/** The tools the fixture ran, in order. */
export function appsCalls(eventsFile: string): string[] {
  if (!existsSync(eventsFile)) return [];
  return readFileSync(eventsFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { name: string }).name);
}
