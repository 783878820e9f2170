/**
 * A call with a large result, end to end: the History list row carries only a preview (with the
 * size shown), and opening the row loads the whole record through history.get.
 *
 * Run: npx playwright test test/e2e/largeResults.spec.ts
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { CallOutcome, ServerView } from '../../shared/contract.js';
import { buildFixtureServers } from '../helpers/buildFixtures.js';
import { BUILT_STDIO_FIXTURE, waitFor } from '../helpers/fixtures.js';
import { Bridge } from './support/bridge.js';
import type { WebHostProcess } from './support/webHost.js';
import { buildAppOnce, startWebHost } from './support/webHost.js';

test.describe.configure({ timeout: 90_000 });

let scratch: string;
let host: WebHostProcess | undefined;
let bridge: Bridge | undefined;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  buildAppOnce();
  await buildFixtureServers();
});

test.beforeEach(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'mh-e2e-large-'));
  host = await startWebHost({ dataDir: join(scratch, 'data') });
  bridge = await Bridge.connect(host);
  await bridge.ok('servers.save', {
    mode: 'create',
    config: { id: 'fx', name: 'Fixture', transport: 'stdio', command: process.execPath, args: [BUILT_STDIO_FIXTURE], env: { FIXTURE_TOOLS: 'echo,big' } },
  });
  await waitFor(async () => ((await bridge!.ok<ServerView[]>('servers.list', {})).find((s) => s.config.id === 'fx')?.toolCount ?? 0) > 0, 20_000);
  await bridge.ok('permissions.setToolLevel', { serverId: 'fx', toolName: 'big', level: 'ALLOW' });
});

test.afterEach(async () => {
  bridge?.close();
  await host?.stop();
  bridge = undefined;
  host = undefined;
  rmSync(scratch, { recursive: true, force: true });
});

test('a large result shows as a preview in the list and loads whole when opened', async ({ page }) => {
  const callId = `gui-${randomUUID()}`;
  // 40 KB of text: well over what a list row carries whole (4 KB).
  await bridge!.ok<CallOutcome>('tools.call', { name: 'big', serverId: 'fx', args: { mb: 40 / 1024 }, callId });

  await page.goto(host!.url);
  await expect(page.getByRole('heading', { name: 'Servers', level: 1 })).toBeVisible();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /^History/ }).click();
  const row = page.locator(`[data-history-row][data-call-id="${callId}"]`);
  await expect(row.getByTestId('history-row-size')).toHaveText(/40\.\d KB/);

  await row.click();
  const detail = page.getByRole('region', { name: 'Call big' });
  // The whole result replaces the preview once history.get answered.
  await expect(detail.locator('.result-content-text')).toHaveText('x'.repeat(40 * 1024));
  await expect(detail.getByTestId('record-preview')).toHaveCount(0);
});
