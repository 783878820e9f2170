/**
 * An MCP App's calls are rate-limited per app instance (issue 28.8). The bucket itself, on a clock
 * the test moves: 20 at once, then 5 per second, each instance on its own. Then through the whole
 * app core with the real apps fixture server: a burst of 60 `apps.callTool` from one frame — before
 * the limit all 60 ran — now most are refused with `app_rate_limited` before anything runs, each
 * call let through ran once on the server, and another frame of the same app still calls.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_CALL_BURST, APP_CALLS_PER_SECOND, AppCallRate } from '../../electron/apps/appCallRate.js';
import { MAX_JSON_VALUES } from '../../shared/jsonBounds.js';
import { scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from '../gateway/support.js';
import { saveServerListed, startGatewayApp } from '../gateway/support.js';
import { appsCalls, appsServerConfig, buildAppsFixture } from '../doubles/servers/appsPeer.js';

describe('AppCallRate', () => {
  it('lets a burst through, then the rate; each instance has its own bucket', () => {
    let now = 1_000;
    const rate = new AppCallRate(() => now);
    const taken = Array.from({ length: APP_CALL_BURST + 5 }, () => rate.take('a'));
    expect(taken.filter(Boolean)).toHaveLength(APP_CALL_BURST);
    expect(rate.take('b')).toBe(true);
    now += 1_000;
    const next = Array.from({ length: APP_CALLS_PER_SECOND + 3 }, () => rate.take('a'));
    expect(next.filter(Boolean)).toHaveLength(APP_CALLS_PER_SECOND);
    expect(rate.sentence()).toContain(`${APP_CALLS_PER_SECOND} per second`);
  });
});

describe('an app’s burst of calls through the app core', () => {
  const scratch = scratchDir('mh-app-rate-');
  const events = join(scratch.dir, 'apps.jsonl');
  let app: GatewayApp;

  beforeAll(async () => {
    await buildAppsFixture();
    app = await startGatewayApp(scratch.dir);
    await saveServerListed(app, appsServerConfig('apps', events));
    await app.call('permissions.setToolLevel', { serverId: 'apps', toolName: 'bump', level: 'ALLOW' });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    scratch.cleanup();
  });

  const call = (instanceId: string, callId: string, args: Record<string, unknown> = {}): Promise<string> =>
    app
      .call('apps.callTool', { serverId: 'apps', toolName: 'show_counter', name: 'bump', args, callId, instanceId })
      .then(
        () => 'ran',
        (error: { shape?: { code: string } }) => error.shape?.code ?? String(error),
      );

  it('a burst of 60 from one frame: most are app_rate_limited, the rest ran once each; another frame still calls', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 60 }, (_, i) => call('frame-a', `app-rate-${String(i).padStart(4, '0')}`)),
    );
    const ran = outcomes.filter((o) => o === 'ran').length;
    expect(outcomes.filter((o) => o !== 'ran').every((o) => o === 'app_rate_limited')).toBe(true);
    expect(ran).toBeGreaterThanOrEqual(APP_CALL_BURST);
    expect(ran).toBeLessThan(40);
    expect(appsCalls(events).filter((name) => name === 'bump')).toHaveLength(ran);
    expect(await call('frame-b', 'app-rate-other')).toBe('ran');
  });

  it('arguments of more values than a request may hold are request_too_large; nothing runs', async () => {
    const before = appsCalls(events).length;
    const args = Object.fromEntries(Array.from({ length: MAX_JSON_VALUES + 1 }, (_, i) => [`k${i}`, 1]));
    expect(await call('frame-c', 'app-rate-big', args)).toBe('request_too_large');
    expect(appsCalls(events)).toHaveLength(before);
  });
});
