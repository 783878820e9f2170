/**
 * A server removed and at once saved again under the same id (the GUI's Remove, then Add with the
 * same settings): the removal finishes first — its secrets, its sign-in, the file — so the new
 * server keeps the secret it was saved with, and both end in the configuration as one server.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerView } from '../../shared/contract.js';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from '../gateway/support.js';
import { saveServerListed, startGatewayApp } from '../gateway/support.js';

const CONFIG = {
  id: 'twin',
  name: 'Twin',
  transport: 'stdio',
  command: process.execPath,
  args: [BUILT_STDIO_FIXTURE],
  cwd: PROJECT_ROOT,
  env: { FIXTURE_TOOLS: 'echo', TWIN_TOKEN: { secret: { source: 'store', key: 'env.TWIN_TOKEN' } } },
};

describe('remove, then save again under the same id', () => {
  const scratch = scratchDir('mh-remove-save-');
  let app: GatewayApp;

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir);
    await saveServerListed(app, CONFIG, { 'env.TWIN_TOKEN': 'first-token-value' });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    scratch.cleanup();
  });

  it('the new server keeps the secret it was saved with: the removal does not delete it after the save', async () => {
    // Sent together: the save arrives while the removal is still closing the old connection.
    const removed = app.call<{ removed: boolean }>('servers.remove', { id: 'twin' });
    const saved = app.call<ServerView>('servers.save', {
      mode: 'create',
      config: CONFIG,
      secrets: { 'env.TWIN_TOKEN': 'second-token-value' },
    });
    expect(await removed).toMatchObject({ removed: true });
    expect((await saved).secrets).toEqual({ 'env.TWIN_TOKEN': 'set' });
    const listed = await app.call<ServerView[]>('servers.list', {});
    expect(listed.filter((s) => s.config.id === 'twin').map((s) => s.secrets)).toEqual([{ 'env.TWIN_TOKEN': 'set' }]);
    // And it is the new value: the old server's secret went with it (the file store of this core).
    const stored = readFileSync(join(app.dataDir, 'secrets.json'), 'utf8');
    expect(stored).toContain('second-token-value');
    expect(stored).not.toContain('first-token-value');
  }, 60_000);
});
