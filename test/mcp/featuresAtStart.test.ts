/**
 * A resource read made at start (issue 28.4: an agent's `resources/read` through the gateway, or an
 * app's `ui://` page opened from History right after the app starts), while its server is still
 * `idle` — discovery has not opened its connection yet — waits for the connection instead of
 * failing "it is not connected; connect it first". The same for a tool call naming its server
 * (an app's call, a GUI call, a resumed run's call) on a cold start: it waits for the server's
 * tools to be listed instead of failing as an unknown tool. Real stdio fixture server, real registry.
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

  it('a tool call naming its server before its tools are listed (cold start) waits for them and runs', async () => {
    const cold = await buildHarness({ dir: scratch.dir, rules: [{ level: 'ALLOW', match: { serverId: 'fx2' } }] });
    try {
      cold.registry.addServer(stdioFixtureConfig('fx2', {}));
      const called = cold.harness.executeTool(
        'echo',
        { text: 'early' },
        { userId: 'start-test', sessionId: 's', callId: 'early-1', serverId: 'fx2' },
      );
      void cold.registry.discover();
      const done = await called;
      expect(JSON.stringify(done.result.content)).toContain('early');
    } finally {
      await cold.close();
    }
  }, 30_000);
});
