/**
 * The browser-mode link between the page and the host, end to end: the real host process, the
 * built renderer in Chromium.
 * - The host goes away while a call waits for approval: the call's panel says the connection
 *   was lost (not a hang), the banner says so, and when the host is back on its port the page
 *   reconnects by itself and works again.
 * - Tool arguments over the contract's limit: the panel says they are too large to send, with
 *   the limit, and nothing was sent (the host is untouched and the page stays connected).
 *
 * Run: npx playwright test test/e2e/bridge.spec.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import type { WebHostProcess } from './support/webHost.js';
import { buildAppOnce, startWebHost } from './support/webHost.js';

test.describe.configure({ timeout: 120_000 });

let scratch: string;
let host: WebHostProcess | undefined;

test.beforeAll(() => {
  test.setTimeout(180_000);
  buildAppOnce();
});

test.beforeEach(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'mh-e2e-bridge-'));
  host = await startWebHost({ dataDir: join(scratch, 'data') });
});

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
  rmSync(scratch, { recursive: true, force: true });
});

async function openWriteFile(page: Page) {
  await page.goto(host!.url);
  await expect(page.getByRole('heading', { name: 'Servers', level: 1 })).toBeVisible();
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^Tools/ })
    .click();
  await page
    .getByRole('navigation', { name: 'Tool list' })
    .locator('button[data-tool="write_file"][data-server="local"]')
    .click();
  const panel = page.getByRole('region', { name: 'Call write_file' });
  await expect(panel).toBeVisible();
  return panel;
}

test('the host goes away mid-call: the call says so, the page reconnects when the host is back', async ({ page }) => {
  const panel = await openWriteFile(page);
  await panel.getByLabel('path').fill('lost.txt');
  await panel.getByLabel('content').fill('never written');
  await panel.getByRole('button', { name: 'Run' }).click();
  await expect(page.getByRole('alertdialog')).toBeVisible(); // write_file asks first: the call is in flight

  const port = Number(new URL(host!.origin).port);
  await host!.stop();
  const failed = panel.getByRole('region', { name: 'Call failed' });
  await expect(failed).toContainText('Connection lost');
  await expect(failed).toHaveAttribute('data-code', 'disconnected');
  await expect(page.getByRole('alert').filter({ hasText: 'Connection to MiniHarness lost' })).toBeVisible();

  host = await startWebHost({ dataDir: join(scratch, 'data'), token: host!.token, port });
  await expect(page.getByRole('alert').filter({ hasText: 'Connection to MiniHarness lost' })).toBeHidden({
    timeout: 30_000,
  });
  // A real call over the new connection: it asks again, and Deny is answered by the new host.
  await panel.getByRole('button', { name: 'Run' }).click();
  const dialog = page.getByRole('alertdialog');
  await expect(dialog).toContainText('write_file');
  await dialog.getByRole('button', { name: /^Deny/ }).click();
  await expect(panel.getByRole('region', { name: 'Call failed' })).toContainText('Denied');
});

test('tool arguments over the limit: the panel says they are too large to send, and the page stays connected', async ({
  page,
}) => {
  const panel = await openWriteFile(page);
  // Raw JSON: one text field, so the page does not re-validate a 12 MiB form field on every change.
  await panel.getByRole('tab', { name: 'Raw JSON' }).click();
  await panel
    .getByLabel('Arguments (JSON object)')
    .fill(JSON.stringify({ path: 'huge.txt', content: 'x'.repeat(12 * 1024 * 1024) }));
  await panel.getByRole('button', { name: 'Run' }).click();
  const failed = panel.getByRole('region', { name: 'Call failed' });
  // Main alone validates requests: the 12 MiB frame crosses to the host, which refuses it typed.
  await expect(failed).toHaveAttribute('data-code', 'request_too_large', { timeout: 60_000 });
  await expect(failed).toContainText('Too large to send');
  await expect(failed).toContainText('the limit is 12 MiB. Nothing was sent.');
  await expect(page.getByRole('alertdialog')).toBeHidden();
  await expect(page.getByRole('alert').filter({ hasText: 'Connection to MiniHarness lost' })).toBeHidden();
  expect(host!.alive()).toBe(true);
});
