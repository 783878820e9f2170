/**
 * The GUI says whether run_command is sandboxed: on its call panel in the Tools view and in its
 * approval dialog, matching what this machine offers (bubblewrap here in CI; "Runs unsandboxed"
 * where there is none). The real browser-mode host, the built renderer, Chromium.
 *
 * Run: npx playwright test test/e2e/sandbox.spec.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { probeSandbox } from '../../electron/sandbox/commandSandbox.js';
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
  scratch = mkdtempSync(join(tmpdir(), 'mh-e2e-sandbox-'));
  host = await startWebHost({ dataDir: join(scratch, 'data') });
});

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
  rmSync(scratch, { recursive: true, force: true });
});

test('run_command shows its sandbox on the call panel and in the approval dialog', async ({ page }, testInfo) => {
  const sandbox = await probeSandbox();
  const label =
    sandbox.kind === 'bwrap'
      ? 'Sandboxed (bubblewrap)'
      : sandbox.kind === 'sandbox-exec'
        ? 'Sandboxed (sandbox-exec)'
        : 'Runs unsandboxed';
  await page.goto(host!.url);
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^Tools/ })
    .click();
  await page.getByRole('searchbox', { name: 'Search tools' }).fill('run_');
  await page.getByRole('navigation', { name: 'Tool list' }).locator('button[data-tool="run_command"]').click();
  const panel = page.getByRole('region', { name: 'Call run_command' });
  const note = panel.locator('.tool-sandbox');
  await expect(note).toHaveAttribute('data-sandbox', sandbox.kind);
  await expect(note).toContainText(label);
  await expect(note).toContainText(sandbox.detail);
  // Other tools carry no sandbox note.
  await page.getByRole('searchbox', { name: 'Search tools' }).fill('read_');
  await page.getByRole('navigation', { name: 'Tool list' }).locator('button[data-tool="read_file"]').click();
  await expect(page.getByRole('region', { name: 'Call read_file' }).locator('.tool-sandbox')).toHaveCount(0);

  await page.getByRole('searchbox', { name: 'Search tools' }).fill('run_');
  await page.getByRole('navigation', { name: 'Tool list' }).locator('button[data-tool="run_command"]').click();
  await panel.getByRole('group', { name: /argv/ }).getByRole('textbox').first().fill('ls');
  await panel.getByRole('button', { name: 'Run' }).click();
  const dialog = page.getByRole('alertdialog');
  await expect(dialog).toContainText('Sandbox');
  await expect(dialog.locator('.tool-sandbox')).toContainText(label);
  if (sandbox.kind === 'none') await expect(dialog).toContainText('runs unsandboxed');
  const path = testInfo.outputPath('sandbox-approval.png');
  await page.screenshot({ path });
  await testInfo.attach('sandbox-approval', { path, contentType: 'image/png' });
  await dialog.getByRole('button', { name: 'Deny' }).click();
  await expect(dialog).toBeHidden();
});

test('Settings → Folders saves run_command’s sandbox lists, and names a refused host by its line', async ({ page }) => {
  await page.goto(host!.url);
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^Settings/ })
    .click();
  const form = page.getByRole('form', { name: 'run_command sandbox' });
  const hosts = form.getByRole('textbox', { name: /Hosts commands may reach/ });
  await hosts.fill('registry.npmjs.org:443\n*');
  await form.getByRole('button', { name: 'Save sandbox lists' }).click();
  await expect(form.getByRole('alert')).toContainText('hosts line 2');
  await hosts.fill('registry.npmjs.org:443\n127.0.0.1:8080');
  await form.getByRole('textbox', { name: /also write/ }).fill('/var/tmp');
  await form.getByRole('button', { name: 'Save sandbox lists' }).click();
  await expect(form.getByRole('alert')).toHaveCount(0);
  // Saved in main: a fresh page shows them.
  await page.reload();
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^Settings/ })
    .click();
  await expect(
    page.getByRole('form', { name: 'run_command sandbox' }).getByRole('textbox', { name: /Hosts commands/ }),
  ).toHaveValue('registry.npmjs.org:443\n127.0.0.1:8080');
});
