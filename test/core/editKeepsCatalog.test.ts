/**
 * A server installed from the catalog, then edited in the server form: the form knows nothing of
 * where the server came from (its `catalog` record: registry, name, version, install history), so
 * an update without it keeps the stored one — else "update available" and the install history
 * vanish at the first rename.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerView } from '../../shared/contract.js';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from '../gateway/support.js';
import { saveServerListed, startGatewayApp } from '../gateway/support.js';

const ORIGIN = {
  registry: 'https://registry.example.test',
  name: 'io.github.example/echo',
  version: '1.2.3',
  option: { kind: 'package', index: 0 },
  inputs: {},
  history: [{ at: 1_700_000_000_000, by: 'person (app window)', action: 'installed', version: '1.2.3' }],
};

const CONFIG = {
  id: 'installed',
  name: 'Installed',
  transport: 'stdio',
  command: process.execPath,
  args: [BUILT_STDIO_FIXTURE],
  cwd: PROJECT_ROOT,
  env: { FIXTURE_TOOLS: 'echo' },
};

describe('editing a server installed from the catalog', () => {
  const scratch = scratchDir('mh-edit-catalog-');
  let app: GatewayApp;

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir);
    await saveServerListed(app, { ...CONFIG, catalog: ORIGIN });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    scratch.cleanup();
  });

  it('an update from the form (no catalog field) keeps where the server came from', async () => {
    const saved = await app.call<ServerView>('servers.save', {
      mode: 'update',
      config: { ...CONFIG, name: 'Renamed' },
    });
    expect(saved.config).toMatchObject({ name: 'Renamed', catalog: { name: ORIGIN.name, version: '1.2.3' } });
    const listed = await app.call<ServerView[]>('servers.list', {});
    expect(listed.find((s) => s.config.id === 'installed')?.config).toMatchObject({
      catalog: { history: [{ action: 'installed', version: '1.2.3' }] },
    });
  }, 60_000);
});
