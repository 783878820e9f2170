/**
 * The `sandbox.*` channels through the real core and its config store (issue 29): the hosts a
 * server's profile lists show as host rules and are revoked from it; "Run unsandboxed" saves
 * `sandbox.enabled: false` for that server, keeping the rest of its section, across a restart;
 * an HTTP server has no sandbox to turn off.
 */
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import type { ServerView } from '../../shared/contract.js';
import { buildCore } from '../../electron/core/core.js';
import type { Core } from '../../electron/core/types.js';
import { FileSecretStore } from '../../electron/secrets/fileSecretStore.js';
import { openConfConfigStore } from '../../electron/web/confConfigStore.js';
import { scratchDir } from '../helpers/fixtures.js';

const scratch = scratchDir('mh-sandbox-channels-');
const cores: Core[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.close();
});
afterAll(() => scratch.cleanup());

async function openCore(): Promise<Core> {
  const dataDir = join(scratch.dir, 'data');
  const core = await buildCore({
    mode: 'browser',
    dataDir,
    workspaceDir: join(scratch.dir, 'workspace'),
    secrets: new FileSecretStore(join(dataDir, 'secrets.json'), 'test'),
    config: openConfConfigStore(dataDir),
    version: '0.0.0-test',
    gateway: { port: 0 },
  });
  cores.push(core);
  return core;
}

async function ok<T>(core: Core, channel: string, payload: unknown): Promise<T> {
  const answer = await core.dispatch(channel as never, payload as never);
  if (!answer.ok) throw new Error(`${answer.error.code}: ${answer.error.message}`);
  return answer.result as T;
}

function sandboxOf(views: ServerView[], id: string): unknown {
  const config = views.find((v) => v.config.id === id)?.config;
  return config?.transport === 'stdio' ? config.sandbox : undefined;
}

it('lists profile hosts as host rules, revokes one, and runs a server unsandboxed for good', async () => {
  const core = await openCore();
  await core.start();
  // Disabled: nothing is started, only the configuration changes.
  await ok(core, 'servers.save', {
    mode: 'create',
    config: {
      id: 'tool',
      name: 'Tool',
      transport: 'stdio',
      command: '/bin/true',
      enabled: false,
      sandbox: { enabled: true, read: ['/opt/data'], hosts: ['api.example.com:443', '127.0.0.1:8080'] },
    },
  });
  await ok(core, 'servers.save', {
    mode: 'create',
    config: {
      id: 'web',
      name: 'Web',
      transport: 'streamable_http',
      url: 'https://mcp.example.com/mcp',
      enabled: false,
    },
  });
  expect(await ok(core, 'sandbox.hostRules', {})).toEqual([
    { serverId: 'tool', host: 'api.example.com:443', source: 'profile' },
    { serverId: 'tool', host: '127.0.0.1:8080', source: 'profile' },
  ]);

  expect(await ok(core, 'sandbox.revokeHost', { serverId: 'tool', host: '127.0.0.1:8080', source: 'profile' })).toEqual(
    { revoked: true },
  );
  // Not there (any more), or only for this session: nothing to revoke.
  expect(await ok(core, 'sandbox.revokeHost', { serverId: 'tool', host: '127.0.0.1:8080', source: 'profile' })).toEqual(
    { revoked: false },
  );
  expect(await ok(core, 'sandbox.revokeHost', { serverId: 'tool', host: 'x.test', source: 'session' })).toEqual({
    revoked: false,
  });

  await ok(core, 'sandbox.runUnsandboxed', { serverId: 'tool' });
  const refused = await core.dispatch('sandbox.runUnsandboxed', { serverId: 'web' });
  expect(refused).toMatchObject({ ok: false, error: { code: 'validation' } });
  await core.close();

  // Saved: the next start has the choice and the rest of the section as they were.
  const again = await openCore();
  await again.start();
  expect(sandboxOf(await ok<ServerView[]>(again, 'servers.list', {}), 'tool')).toEqual({
    enabled: false,
    read: ['/opt/data'],
    denyRead: [],
    write: [],
    hosts: ['api.example.com:443'],
  });
});
