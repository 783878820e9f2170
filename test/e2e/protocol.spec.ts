/**
 * The protocol features a person sees, against the real browser-mode host and the stdio fixture:
 * - the Log tab's level selector sends `logging/setLevel`; the server's log messages show there
 *   with their level and logger, and the "Server messages" filter keeps only them;
 * - a tool's icon shows in the Tools view (inline images only: an https icon is not loaded);
 * - a tool the server adds (`notifications/tools/list_changed`) appears in the Tools view live.
 *
 * Run: npx playwright test test/e2e/protocol.spec.ts
 */
import { randomUUID } from 'node:crypto';
import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import type { ServerView } from '../../shared/contract.js';
import { BUILT_STDIO_FIXTURE, waitFor } from '../helpers/fixtures.js';
import { hostPerTest } from './support/hostPerTest.js';
import { serverDetail, serverRow } from './support/serverForm.js';

test.describe.configure({ timeout: 90_000 });

const e2e = hostPerTest('mh-e2e-protocol-');

const PIXEL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/** The fixture server as "Fixture" (id fx), connected, its `tools` allowed without approval. */
async function addFixture(env: Record<string, string>, allow: string[]): Promise<void> {
  await e2e.bridge.ok('servers.save', {
    mode: 'create',
    config: {
      id: 'fx',
      name: 'Fixture',
      transport: 'stdio',
      command: process.execPath,
      args: [BUILT_STDIO_FIXTURE],
      env,
    },
  });
  await waitFor(
    async () =>
      (await e2e.bridge.ok<ServerView[]>('servers.list', {})).find((s) => s.config.id === 'fx')?.status.state ===
      'ready',
    20_000,
  );
  for (const toolName of allow)
    await e2e.bridge.ok('permissions.setToolLevel', { serverId: 'fx', toolName, level: 'ALLOW' });
}

async function openView(page: Page, name: 'Servers' | 'Tools'): Promise<void> {
  await page.goto(e2e.host.url);
  await expect(page.getByRole('heading', { name: 'Servers', level: 1 })).toBeVisible();
  if (name === 'Servers') return;
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^Tools/ })
    .click();
  await expect(page.getByRole('heading', { name: 'Tools', level: 1 })).toBeVisible();
}

test('the Log tab sets the server’s log level and shows its messages with level and logger', async ({ page }) => {
  await addFixture({ FIXTURE_TOOLS: 'echo,log' }, ['log']);
  await openView(page, 'Servers');
  await serverRow(page, 'Fixture').click();
  const detail = serverDetail(page, 'Fixture');
  await detail.getByRole('tab', { name: 'Log' }).click();

  const level = detail.getByRole('combobox', { name: 'Message level' });
  await expect(level).toBeEnabled();
  await level.selectOption('error');
  await expect(level).toHaveValue('error');
  await expect(detail.getByRole('log', { name: 'Server log' })).toContainText('log level set to error');

  await e2e.bridge.ok('tools.call', {
    name: 'log',
    serverId: 'fx',
    args: { data: 'disk almost full' },
    callId: `e2e-${randomUUID()}`,
  });
  const messages = detail.locator('.log-message');
  await expect(messages).toHaveCount(4); // error, critical, alert, emergency: the server dropped the rest
  await expect(messages.first()).toHaveAttribute('data-level', 'error');
  await expect(messages.first().locator('.log-logger')).toHaveText('fixture');
  await expect(messages.first()).toContainText('disk almost full');
  await expect(detail.locator('.log-message[data-level="warning"]')).toHaveCount(0);

  await detail.getByRole('group', { name: 'Show lines from' }).getByRole('button', { name: 'Server messages' }).click();
  await expect(detail.locator('.log-line')).toHaveCount(4);
});

test('a tool’s icon shows, and a tool the server adds appears live', async ({ page }) => {
  const icons = JSON.stringify([{ src: 'https://icons.example/echo.png' }, { src: PIXEL, mimeType: 'image/png' }]);
  await addFixture({ FIXTURE_TOOLS: 'echo,change_tools', FIXTURE_ECHO_ICONS: icons }, ['change_tools']);
  await openView(page, 'Tools');

  const echo = page.locator('button.tool-item[data-tool="echo"]');
  await expect(echo.getByTestId('tool-icon')).toHaveAttribute('src', PIXEL);
  await expect(page.locator('img[src^="https:"]')).toHaveCount(0);

  const added = page.locator('button.tool-item[data-tool="added_live"]');
  await expect(added).toHaveCount(0);
  await e2e.bridge.ok('tools.call', {
    name: 'change_tools',
    serverId: 'fx',
    args: { add: 'added_live' },
    callId: `e2e-${randomUUID()}`,
  });
  await expect(added).toBeVisible(); // no reload: the tools.changed event brought it
});
