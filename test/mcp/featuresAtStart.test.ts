/**
 * A resource read made at start (issue 28.4: an agent's `resources/read` through the gateway, or an
 * app's `ui://` page opened from History right after the app starts), while its server is still
 * `idle` — discovery has not opened its connection yet — waits for the connection instead of
 * failing "it is not connected; connect it first". Real stdio fixture server, real registry.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { scratchDir, stdioFixtureConfig } from '../helpers/fixtures.js';
import type { TestHarness } from '../harness/harness.js';
import { buildHarness } from '../harness/harness.js';

describe('server features asked for while the server is still idle at start', () => {
  const scratch = scratchDir('mh-features-start-');
  let h: TestHarness | undefined;

  afterAll(async () => {
    await h?.close();
    scratch.cleanup();
  });

  it('a resource listing asked before discovery opens the connection waits for it', async () => {
    h = await buildHarness({ dir: scratch.dir, rules: [] });
    h.registry.addServer(stdioFixtureConfig('fx', { FIXTURE_FEATURES: '1' }));
    expect(h.registry.status('fx')?.state).toBe('idle');
    const listed = h.registry.features.resources('fx');
    void h.registry.discover();
    const catalog = await listed;
    expect(catalog.resources.items.length).toBeGreaterThan(0);
  }, 30_000);
});
