/**
 * Every contract event leaves the core with known secret values replaced, whatever carries them
 * (a tool's progress message, a server's name, …): the emit path itself redacts.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { buildCore } from '../../electron/core/core.js';
import { FileSecretStore } from '../../electron/secrets/fileSecretStore.js';
import { openConfConfigStore } from '../../electron/web/confConfigStore.js';
import { scratchDir } from '../helpers/fixtures.js';

it('a secret the person entered never leaves the core in an event, even where it was not expected', async () => {
  const scratch = scratchDir();
  const dataDir = join(scratch.dir, 'data');
  const SECRET = 'sk-typed-by-the-person-42';
  const core = await buildCore({
    mode: 'browser',
    dataDir,
    workspaceDir: join(scratch.dir, 'workspace'),
    secrets: new FileSecretStore(join(dataDir, 'secrets.json')),
    config: openConfConfigStore(dataDir),
    version: '0.0.0-test',
    gateway: { port: 0 },
  });
  const sent: Array<{ event: string; payload: unknown }> = [];
  core.onEvent((event, payload) => sent.push({ event, payload }));
  try {
    await core.start();
    // The token is registered as a secret when saved; then the same text turns up in the name.
    const saved = await core.dispatch('servers.save', {
      mode: 'create',
      config: {
        id: 'odd',
        name: `Copy of ${SECRET}`,
        transport: 'http',
        url: 'http://127.0.0.1:9/mcp',
        auth: { kind: 'bearer', token: { source: 'store', key: 'auth.token' } },
      },
      secrets: { 'auth.token': SECRET },
    });
    expect(saved.ok).toBe(true);
    type Changed = { servers: Array<{ config: { name: string } }> };
    const withServer = () =>
      sent.find((e) => e.event === 'servers.changed' && (e.payload as Changed).servers.length > 0);
    await new Promise<void>((resolve) => {
      const check = () => (withServer() ? resolve() : setImmediate(check));
      check();
    });
    const changed = withServer()?.payload as Changed;
    expect(changed.servers[0]?.config.name).toBe('Copy of [redacted]');
    expect(JSON.stringify(sent)).not.toContain(SECRET);
  } finally {
    await core.close();
    scratch.cleanup();
  }
});
