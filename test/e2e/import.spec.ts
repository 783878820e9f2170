/**
 * Import end to end: a Claude Desktop (or VS Code) MCP configuration file chosen in the Import
 * dialog of the Servers view, previewed, and imported into the real browser-mode host; the
 * imported stdio fixture server connects by itself. Secrets from the file end up in the secret
 * store (the 0600 file in tests), never in config.json. A malformed file imports nothing.
 *
 * Run: npx playwright test test/e2e/import.spec.ts
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page, TestInfo } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { buildFixtureServers } from '../helpers/buildFixtures.js';
import { BUILT_STDIO_FIXTURE } from '../helpers/fixtures.js';
import { serverRow } from './support/serverForm.js';
import type { WebHostProcess } from './support/webHost.js';
import { buildAppOnce, startWebHost } from './support/webHost.js';

test.describe.configure({ timeout: 90_000 });

let scratch: string;
let host: WebHostProcess | undefined;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  buildAppOnce();
  await buildFixtureServers();
});

test.beforeEach(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'mh-e2e-import-'));
  host = await startWebHost({ dataDir: join(scratch, 'data') });
});

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
  rmSync(scratch, { recursive: true, force: true });
});

async function snap(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path });
  await testInfo.attach(name, { path, contentType: 'image/png' });
}

async function openImport(page: Page) {
  await page.goto(host!.url);
  await expect(page.getByRole('heading', { name: 'Servers', level: 1 })).toBeVisible();
  await page.getByRole('button', { name: 'Import…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import servers' });
  await expect(dialog).toBeVisible();
  return dialog;
}

function savedConfig(dataDir: string): string {
  const file = join(dataDir, 'config.json');
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

test('imports a Claude Desktop file: the server connects, its secret goes to the secret store only', async ({
  page,
}, testInfo) => {
  const secret = 'ghp_e2e_import_secret_0123456789';
  const file = join(scratch, 'claude_desktop_config.json');
  writeFileSync(
    file,
    JSON.stringify(
      {
        mcpServers: {
          'Fixture Tools': {
            command: process.execPath,
            args: [BUILT_STDIO_FIXTURE],
            env: { GITHUB_TOKEN: secret, FIXTURE_NAME: 'imported' },
          },
          Weather: { url: 'https://weather.example.com/mcp', type: 'sse' },
          broken: { nothing: true },
        },
      },
      null,
      2,
    ),
  );

  const dialog = await openImport(page);
  await snap(page, testInfo, 'import-empty');
  await dialog.getByLabel('Configuration file').setInputFiles(file);
  await expect(dialog.getByTestId('import-format')).toHaveText('Claude Desktop');

  const fixture = dialog.getByRole('listitem', { name: 'Server Fixture Tools' });
  await expect(fixture.getByRole('checkbox', { name: 'Import Fixture Tools' })).toBeChecked();
  await expect(fixture).toContainText(BUILT_STDIO_FIXTURE);
  await expect(fixture).toContainText('1 secret will be stored securely');
  const broken = dialog.getByRole('listitem', { name: 'Server broken' });
  await expect(broken.getByRole('checkbox')).toBeDisabled();
  await expect(broken).toContainText('It has neither a command nor a url');
  const weather = dialog.getByRole('listitem', { name: 'Server Weather' });
  await expect(weather).toContainText('SSE');
  // The secret's value is never shown.
  await expect(dialog).not.toContainText(secret);
  // Only the fixture: the remote one is not reachable from the test.
  await weather.getByRole('checkbox').uncheck();
  await snap(page, testInfo, 'import-preview');

  await dialog.getByRole('button', { name: 'Import selected (1)' }).click();
  await expect(dialog).toBeHidden();
  await expect(serverRow(page, 'Fixture Tools')).toContainText('Ready', { timeout: 20_000 });
  await expect(page.getByRole('region', { name: 'Server Fixture Tools' })).toContainText('secret · set');
  await snap(page, testInfo, 'import-done');

  const config = savedConfig(host!.dataDir);
  expect(config).toContain('fixture-tools');
  expect(config).not.toContain(secret);
  expect(readFileSync(join(host!.dataDir, 'secrets.json'), 'utf8')).toContain(secret);
});

test('a VS Code file asks for its inputs; the value is stored as a secret', async ({ page }, testInfo) => {
  const file = join(scratch, 'mcp.json');
  writeFileSync(
    file,
    `// VS Code allows comments
{
  "inputs": [{ "type": "promptString", "id": "api-key", "description": "Fixture API key", "password": true }],
  "servers": {
    "fixture": { "type": "stdio", "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(BUILT_STDIO_FIXTURE)}], "env": { "API_KEY": "\${input:api-key}" } },
  },
}
`,
  );
  const dialog = await openImport(page);
  await dialog.getByLabel('Configuration file').setInputFiles(file);
  await expect(dialog.getByTestId('import-format')).toHaveText('VS Code');
  const input = dialog.getByLabel('Fixture API key');
  await expect(input).toHaveAttribute('type', 'password');
  // Not filled: nothing is sent, the field says why.
  await dialog.getByRole('button', { name: 'Import selected (1)' }).click();
  await expect(dialog.getByText('Enter a value to import the servers that use it.')).toBeVisible();
  await input.fill('vscode-input-secret-value');
  await snap(page, testInfo, 'import-vscode-inputs');
  await dialog.getByRole('button', { name: 'Import selected (1)' }).click();
  await expect(dialog).toBeHidden();
  await expect(serverRow(page, 'fixture')).toContainText('Ready', { timeout: 20_000 });
  expect(savedConfig(host!.dataDir)).not.toContain('vscode-input-secret-value');
  expect(readFileSync(join(host!.dataDir, 'secrets.json'), 'utf8')).toContain('vscode-input-secret-value');
});

test('a malformed or unrecognized file shows a clear error and imports nothing', async ({ page }, testInfo) => {
  const malformed = join(scratch, 'claude_desktop_config.json');
  writeFileSync(malformed, '{ "mcpServers": { "a": ');
  const dialog = await openImport(page);
  await dialog.getByLabel('Configuration file').setInputFiles(malformed);
  const error = dialog.getByRole('alert');
  await expect(error).toContainText('This file is not valid JSON');
  await expect(error).toContainText('Nothing was imported');
  await expect(dialog.getByRole('button', { name: /^Import selected/ })).toBeDisabled();
  await snap(page, testInfo, 'import-malformed');

  const other = join(scratch, 'settings.json');
  writeFileSync(other, JSON.stringify({ editor: { fontSize: 14 } }));
  await dialog.getByLabel('Configuration file').setInputFiles(other);
  await expect(dialog.getByRole('alert')).toContainText('This is not an MCP configuration file');
  await expect(dialog.getByRole('button', { name: /^Import selected/ })).toBeDisabled();
  await snap(page, testInfo, 'import-unrecognized');

  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('heading', { name: 'No servers yet' })).toBeVisible();
  expect(savedConfig(host!.dataDir)).not.toContain('"command"');
});
