/**
 * One browser-mode host per test, in a fresh scratch folder, with a bridge client connected as
 * the page would be; both stopped and the folder removed after the test. A spec calls it once at
 * its top level and reads (or, to restart the host, replaces) `host` and `bridge` in its tests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from '@playwright/test';
import { buildFixtureServers } from '../../helpers/buildFixtures.js';
import { Bridge } from './bridge.js';
import type { WebHostProcess } from './webHost.js';
import { buildAppOnce, startWebHost } from './webHost.js';

export interface HostPerTest {
  /** The test's scratch folder; the host's data folder is `<scratch>/data`. */
  scratch: string;
  host: WebHostProcess;
  bridge: Bridge;
}

export function hostPerTest(prefix: string): HostPerTest {
  const context = {} as HostPerTest;

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    buildAppOnce();
    await buildFixtureServers();
  });

  test.beforeEach(async () => {
    context.scratch = mkdtempSync(join(tmpdir(), prefix));
    context.host = await startWebHost({ dataDir: join(context.scratch, 'data') });
    context.bridge = await Bridge.connect(context.host);
  });

  test.afterEach(async () => {
    // The test may have restarted the host (replacing `host` and `bridge`): stop the current ones.
    context.bridge?.close();
    await context.host?.stop();
    rmSync(context.scratch, { recursive: true, force: true });
  });

  return context;
}
