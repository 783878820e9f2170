/**
 * A call with a large result, end to end: the History list row carries only a preview (with the
 * size shown), and opening the row loads the whole record through history.get.
 *
 * Run: npx playwright test test/e2e/largeResults.spec.ts
 */
import { randomUUID } from 'node:crypto';
import { expect, test } from '@playwright/test';
import type { CallOutcome, ServerView } from '../../shared/contract.js';
import { BUILT_STDIO_FIXTURE, waitFor } from '../helpers/fixtures.js';
import { hostPerTest } from './support/hostPerTest.js';

test.describe.configure({ timeout: 90_000 });

const e2e = hostPerTest('mh-e2e-large-');

test.beforeEach(async () => {
  const bridge = e2e.bridge;
  await bridge.ok('servers.save', {
    mode: 'create',
    config: {
      id: 'fx',
      name: 'Fixture',
      transport: 'stdio',
      command: process.execPath,
      args: [BUILT_STDIO_FIXTURE],
      env: { FIXTURE_TOOLS: 'echo,big' },
    },
  });
  await waitFor(
    async () =>
      ((await e2e.bridge.ok<ServerView[]>('servers.list', {})).find((s) => s.config.id === 'fx')?.toolCount ?? 0) > 0,
    20_000,
  );
  await bridge.ok('permissions.setToolLevel', { serverId: 'fx', toolName: 'big', level: 'ALLOW' });
});

test('a large result shows as a preview in the list and loads whole when opened', async ({ page }) => {
  const callId = `gui-${randomUUID()}`;
  // 40 KB of text: well over what a list row carries whole (4 KB).
  await e2e.bridge.ok<CallOutcome>('tools.call', { name: 'big', serverId: 'fx', args: { mb: 40 / 1024 }, callId });

  await page.goto(e2e.host.url);
  await expect(page.getByRole('heading', { name: 'Servers', level: 1 })).toBeVisible();
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^History/ })
    .click();
  const row = page.locator(`[data-history-row][data-call-id="${callId}"]`);
  await expect(row.getByTestId('history-row-size')).toHaveText(/40\.\d KB/);

  await row.click();
  const detail = page.getByRole('region', { name: 'Call big' });
  // The whole result replaces the preview once history.get answered.
  await expect(detail.locator('.result-content-text')).toHaveText('x'.repeat(40 * 1024));
  await expect(detail.getByTestId('record-preview')).toHaveCount(0);
});
