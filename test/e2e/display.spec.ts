/**
 * What a new user saw wrong in the GUI (issue 9, E6, E7, E10, E13), against the real browser-mode
 * host and the stdio fixture server:
 * - a call whose result has isError reads "Tool error" in History, and the filter finds it;
 * - after a restart with a new GUI session, History follows it without a reload;
 * - tool titles show (list, header, server detail), a read-only tool is only "read-only", counts
 *   say "1 tool";
 * - at 1024×640: every History column is reachable, notices take a row of their own (one shown,
 *   the rest collapsed, dismissable), dialogs share one validation banner, and the secret-storage
 *   banner can be dismissed while Settings keeps the warning.
 *
 * Run: npx playwright test test/e2e/display.spec.ts
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import type { CallOutcome, ServerView } from '../../shared/contract.js';
import { BUILT_STDIO_FIXTURE, waitFor } from '../helpers/fixtures.js';
import { Bridge } from './support/bridge.js';
import { openAddServer, serverDetail, serverRow } from './support/serverForm.js';
import { hostPerTest } from './support/hostPerTest.js';
import { startWebHost } from './support/webHost.js';

test.describe.configure({ timeout: 90_000 });

const e2e = hostPerTest('mh-e2e-display-');

/** The fixture server as "Fixture" (id fx), connected, offering `tools`; its `append` has no counter file, so it fails as a tool error. */
async function addFixture(env: Record<string, string>): Promise<void> {
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
      ((await e2e.bridge.ok<ServerView[]>('servers.list', {})).find((s) => s.config.id === 'fx')?.toolCount ?? 0) > 0,
    20_000,
  );
  await e2e.bridge.ok('permissions.setToolLevel', { serverId: 'fx', toolName: 'echo', level: 'ALLOW' }); // no approval dialog here
}

async function openApp(page: Page): Promise<void> {
  await page.goto(e2e.host.url);
  await expect(page.getByRole('heading', { name: 'Servers', level: 1 })).toBeVisible();
}

async function openView(page: Page, name: 'History' | 'Traces' | 'Tools' | 'Settings' | 'Servers'): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: new RegExp(`^${name}`) })
    .click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
}

const historyRow = (page: Page, callId: string) => page.locator(`[data-history-row][data-call-id="${callId}"]`);

test('a call whose result has isError reads "Tool error" in History, and the status filter finds it', async ({
  page,
}) => {
  await addFixture({ FIXTURE_TOOLS: 'echo,append' });
  await e2e.bridge.ok('permissions.setToolLevel', { serverId: 'fx', toolName: 'append', level: 'ALLOW' });
  const failing = `e2e-${randomUUID()}`;
  const ok = `e2e-${randomUUID()}`;
  const outcome = await e2e.bridge.ok<CallOutcome>('tools.call', {
    name: 'append',
    serverId: 'fx',
    args: { line: 'x' },
    callId: failing,
  });
  expect(outcome.result.isError).toBe(true); // the tool answered with an error result: the call itself completed
  await e2e.bridge.ok('tools.call', { name: 'echo', serverId: 'fx', args: { text: 'fine' }, callId: ok });

  await openApp(page);
  await openView(page, 'History');
  await expect(historyRow(page, failing).locator('[data-record-status]')).toHaveAttribute(
    'data-record-status',
    'tool_error',
  );
  await expect(historyRow(page, failing)).toContainText('Tool error');
  await expect(historyRow(page, ok).locator('[data-record-status]')).toHaveAttribute('data-record-status', 'completed');

  const status = page.getByRole('group', { name: 'Status' });
  await status.getByRole('button', { name: 'Tool error' }).click();
  await expect(page.locator('[data-history-row]')).toHaveCount(1);
  await expect(historyRow(page, failing)).toBeVisible();
  await status.getByRole('button', { name: 'Completed' }).click();
  await expect(page.locator('[data-history-row]')).toHaveCount(1);
  await expect(historyRow(page, ok)).toBeVisible();

  await historyRow(page, ok).click();
  await status.getByRole('button', { name: 'All' }).click();
  await historyRow(page, failing).click();
  await expect(page.getByRole('region', { name: 'Call append' }).locator('[data-record-status]')).toHaveText(
    'Tool error',
  );
});

test('after a restart with a new GUI session, History follows it without a reload', async ({ page }) => {
  await addFixture({ FIXTURE_TOOLS: 'echo' });
  const before = `e2e-${randomUUID()}`;
  await e2e.bridge.ok('tools.call', { name: 'echo', serverId: 'fx', args: { text: 'before' }, callId: before });
  await openApp(page);
  await openView(page, 'History');
  await expect(historyRow(page, before)).toBeVisible();

  // The host stops; its data folder forgets the GUI session (as a new data folder would start one),
  // and the host comes back on the same address.
  const port = Number(new URL(e2e.host.origin).port);
  const token = e2e.host.token;
  e2e.bridge.close();
  await e2e.host.stop();
  const db = new Database(join(e2e.scratch, 'data', 'miniharness.db'));
  expect(db.prepare(`DELETE FROM app_meta WHERE key = 'gui_session_id'`).run().changes).toBe(1);
  db.close();
  e2e.host = await startWebHost({ dataDir: join(e2e.scratch, 'data'), token, port });
  e2e.bridge = await Bridge.connect(e2e.host);
  await expect(page.getByRole('alert').filter({ hasText: 'Connection to MiniHarness lost' })).toBeHidden({
    timeout: 30_000,
  });

  // The page switched to the new current session: the old record is gone from the list, and a
  // call made now appears live.
  await expect(historyRow(page, before)).toBeHidden();
  await waitFor(
    async () =>
      ((await e2e.bridge.ok<ServerView[]>('servers.list', {})).find((s) => s.config.id === 'fx')?.toolCount ?? 0) > 0,
    20_000,
  );
  const after = `e2e-${randomUUID()}`;
  await e2e.bridge.ok('tools.call', { name: 'echo', serverId: 'fx', args: { text: 'after' }, callId: after });
  await expect(historyRow(page, after)).toBeVisible();
  // The session list was refreshed: the old session is still there to choose, no longer "this app session".
  await page.getByRole('button', { name: /^Session: This app session/ }).click();
  // "All sessions" and the two sessions.
  await expect(page.locator('.session-option')).toHaveCount(3);
  await page.locator('.session-option:not([data-session-id=""]):not([aria-current])').click();
  await expect(historyRow(page, before)).toBeVisible();
});

test('tool titles show in the list, the header and the server detail; a read-only tool is only "read-only"; counts are singular', async ({
  page,
}) => {
  await addFixture({ FIXTURE_TOOLS: 'echo', FIXTURE_ECHO_TITLE: 'Echo Text (Deprecated)' });
  await openApp(page);
  await expect(serverRow(page, 'Fixture')).toContainText('1 tool');
  await expect(serverRow(page, 'Fixture')).not.toContainText('1 tools');

  await openView(page, 'Tools');
  await expect(page.locator('.view-header')).toContainText(/1 tool from 1 server/);
  const item = page
    .getByRole('navigation', { name: 'Tool list' })
    .locator('button[data-tool="echo"][data-server="fx"]');
  await expect(item.locator('.tool-item-title')).toHaveText('Echo Text (Deprecated)');
  await expect(item.locator('.tool-item-name')).toHaveText('echo');
  await expect(item).toContainText('read-only');
  await expect(item).not.toContainText('additive only');
  await expect(item).not.toContainText('idempotent');
  await item.click();
  const panel = page.getByRole('region', { name: 'Call echo' });
  await expect(panel.locator('.call-head')).toContainText('Echo Text (Deprecated)');
  await expect(panel.getByRole('list', { name: 'Annotations' })).not.toContainText('additive only');

  await openView(page, 'Servers');
  await serverRow(page, 'Fixture').click();
  const detail = serverDetail(page, 'Fixture');
  await detail.getByRole('tab', { name: /Tools/ }).click();
  const card = detail.getByRole('listitem', { name: 'Tool echo' });
  await expect(card).toContainText('Echo Text (Deprecated)');
  await expect(card.getByRole('list', { name: 'Annotations' })).toHaveText(/read-only/);
  await expect(card.getByRole('list', { name: 'Annotations' })).not.toContainText('additive only');
});

test.describe('at 1024×640', () => {
  test.use({ viewport: { width: 1024, height: 640 } });

  test('every History column is reachable with a call open: the grid scrolls sideways and its header moves with it', async ({
    page,
  }) => {
    await addFixture({ FIXTURE_TOOLS: 'echo' });
    const callId = `e2e-${randomUUID()}`;
    await e2e.bridge.ok('tools.call', { name: 'echo', serverId: 'fx', args: { text: 'wide' }, callId });
    await openApp(page);
    await openView(page, 'History');
    await historyRow(page, callId).click();
    await expect(page.getByRole('region', { name: 'Call echo' })).toBeVisible();

    const grid = page.getByRole('grid', { name: 'Recorded calls' });
    const header = grid.getByRole('columnheader').last();
    const cell = historyRow(page, callId).getByRole('gridcell').last();
    await grid.evaluate((el) => (el.scrollLeft = el.scrollWidth));
    const gridBox = (await grid.boundingBox())!;
    const headerBox = (await header.boundingBox())!;
    const cellBox = (await cell.boundingBox())!;
    expect(headerBox.x + headerBox.width).toBeLessThanOrEqual(gridBox.x + gridBox.width + 1);
    expect(headerBox.x).toBeGreaterThanOrEqual(gridBox.x);
    expect(Math.abs(headerBox.x - cellBox.x)).toBeLessThan(1); // the header column stays over its cells
    await expect(cell).toContainText(callId.slice(0, 8));
  });

  test('notices take a row of their own: the newest shows, the rest collapse, each can be dismissed', async ({
    page,
  }) => {
    await addFixture({ FIXTURE_TOOLS: 'echo' });
    await e2e.bridge.ok('tools.call', {
      name: 'echo',
      serverId: 'fx',
      args: { text: 'traced' },
      callId: `e2e-${randomUUID()}`,
    });
    await openApp(page);
    await openView(page, 'Traces');
    await page.getByRole('navigation', { name: 'Trace list' }).locator('.trace-item').first().click();
    const exportButton = page
      .getByRole('region', { name: 'Trace of echo' })
      .getByRole('button', { name: 'Export JSON' });
    for (let i = 0; i < 3; i++) {
      const download = page.waitForEvent('download');
      await exportButton.click();
      await download;
    }
    const notices = page.getByRole('region', { name: 'Notifications' });
    await expect(notices.locator('.notice')).toHaveCount(1);
    await expect(notices.getByRole('button', { name: '+2 more notices' })).toBeVisible();
    // The strip is below the view, not over it.
    const content = (await page.locator('#content').boundingBox())!;
    const strip = (await notices.boundingBox())!;
    expect(strip.y).toBeGreaterThanOrEqual(content.y + content.height - 1);
    await expect(exportButton).toBeVisible();

    await notices.getByRole('button', { name: '+2 more notices' }).click();
    await expect(notices.locator('.notice')).toHaveCount(3);
    await notices.getByRole('button', { name: 'Dismiss notice' }).first().click();
    await expect(notices.locator('.notice')).toHaveCount(2);
  });

  test('dialogs share one validation banner', async ({ page }) => {
    await openApp(page);
    const dialog = await openAddServer(page);
    await dialog.getByRole('button', { name: 'Add server' }).click();
    const formBanner = dialog.locator('[data-validation-banner]');
    await expect(formBanner).toHaveCount(1);
    await expect(formBanner.getByRole('alert')).toContainText(/highlighted fields/);
    const formBannerClass = await formBanner.evaluate((el) => el.firstElementChild?.className);
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    await page
      .getByRole('button', { name: /^Import/ })
      .first()
      .click();
    const importDialog = page.getByRole('dialog');
    await importDialog
      .getByLabel('Configuration file')
      .setInputFiles({ name: 'mcp.json', mimeType: 'application/json', buffer: Buffer.from('{ not json') });
    const importBanner = importDialog.locator('[data-validation-banner]');
    await expect(importBanner).toHaveCount(1);
    await expect(importBanner.getByRole('alert')).toBeVisible();
    // The same component: the same structure and class in both dialogs.
    expect(await importBanner.evaluate((el) => el.firstElementChild?.className)).toBe(formBannerClass);
  });

  test('the secret-storage banner can be dismissed; Settings keeps the warning and can bring it back', async ({
    page,
  }) => {
    await openApp(page);
    const banner = page.getByRole('alert', { name: 'Secret storage warning' });
    await expect(banner).toBeVisible(); // the e2e host keeps secrets in a plain file
    await banner.getByRole('button', { name: 'Dismiss the secret storage warning' }).click();
    await expect(banner).toBeHidden();
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Servers', level: 1 })).toBeVisible();
    await expect(banner).toBeHidden();

    await openView(page, 'Settings');
    await expect(page.locator('#content')).toContainText('Secrets are stored without OS encryption');
    await page.getByRole('button', { name: 'Show it above every view again' }).click();
    await expect(banner).toBeVisible();
  });
});
