/**
 * The Servers view end to end: the real browser-mode host (its own process and data folder per
 * test), the built renderer in Chromium, and real MCP servers — the stdio fixture as a child of
 * the host, the HTTP fixtures in this process: the v1 one (a legacy-era peer) and the v2 dual-era
 * one (modern-http.ts), whose era, discovery and input_required asks are shown and answered.
 *
 * Run: npx playwright test test/e2e/servers.spec.ts
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { Page, TestInfo } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { buildFixtureServers } from '../helpers/buildFixtures.js';
import { BUILT_STDIO_FIXTURE } from '../helpers/fixtures.js';
import type { HttpFixture } from '../doubles/servers/http-server.js';
import { startHttpFixture } from '../doubles/servers/http-server.js';
import type { ModernHttpFixture } from '../doubles/servers/modern-http.js';
import { startModernHttp } from '../doubles/servers/modern-http.js';
import { fillHttp, fillStdio, openAddServer, serverDetail, serverDialog, serverRow } from './support/serverForm.js';
import { Bridge } from './support/bridge.js';
import type { WebHostProcess } from './support/webHost.js';
import { buildAppOnce, filesContaining, startWebHost } from './support/webHost.js';

/** The banner of settings refused, by the form or by main. */
const INVALID_SETTINGS = 'Some settings are not valid; nothing was saved. Correct the highlighted fields.';

test.describe.configure({ timeout: 90_000 });

let scratch: string;
let host: WebHostProcess | undefined;
let http: HttpFixture | undefined;
let modern: ModernHttpFixture | undefined;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  buildAppOnce();
  await buildFixtureServers();
});

test.beforeEach(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'mh-e2e-'));
  host = await startWebHost({ dataDir: join(scratch, 'data') });
});

test.afterEach(async () => {
  await host?.stop();
  await http?.close();
  await modern?.close();
  host = undefined;
  http = undefined;
  modern = undefined;
  rmSync(scratch, { recursive: true, force: true });
});

/** A screenshot kept in the test's output folder (test-results/…) and attached to the report. */
async function snap(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path });
  await testInfo.attach(name, { path, contentType: 'image/png' });
}

async function openApp(page: Page, running: WebHostProcess): Promise<void> {
  await page.goto(running.url);
  await expect(page.getByRole('heading', { name: 'Servers', level: 1 })).toBeVisible();
}

/** The saved server list in the host's configuration file (what survives a restart). */
function savedServers(dataDir: string): unknown[] {
  const file = join(dataDir, 'config.json');
  if (!existsSync(file)) return [];
  const servers = (JSON.parse(readFileSync(file, 'utf8')) as { servers?: unknown[] }).servers;
  return servers ?? [];
}

test('adds a stdio server through the form; it connects and shows what it negotiated', async ({ page }, testInfo) => {
  await openApp(page, host!);
  // The session token leaves the address bar as soon as the page has read it.
  await expect(page).not.toHaveURL(/token=/);

  const dialog = await openAddServer(page);
  await fillStdio(dialog, { name: 'Fixture stdio', command: process.execPath, args: [BUILT_STDIO_FIXTURE] });
  await expect(dialog.getByLabel('ID', { exact: true })).toHaveValue('fixture-stdio');
  await snap(page, testInfo, 'stdio-form');
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(dialog).toBeHidden();

  await expect(serverRow(page, 'Fixture stdio')).toContainText('Ready', { timeout: 20_000 });
  const detail = serverDetail(page, 'Fixture stdio');
  await expect(detail.getByTestId('protocol-version')).toHaveText(LATEST_PROTOCOL_VERSION);
  // A v1 fixture is a legacy-era peer: the client probed (auto) and fell back to initialize.
  await expect(detail.getByTestId('protocol-era')).toContainText('Legacy');
  const capabilities = detail.getByRole('region', { name: 'Capabilities' });
  await expect(capabilities).toContainText('tools');
  await expect(capabilities).toContainText('listChanged');
  await expect(detail).toContainText('fixture-stdio');
  // A ready server needs nothing: Reconnect is one action among others, not the primary one.
  await expect(
    detail.getByRole('group', { name: 'Server actions' }).getByRole('button', { name: 'Reconnect' }),
  ).not.toHaveClass(/btn-primary/);
  await snap(page, testInfo, 'stdio-negotiated');

  // Its tools, and its log with the client's own lines.
  await detail.getByRole('tab', { name: /Tools/ }).click();
  await expect(detail.getByRole('listitem', { name: 'Tool echo' })).toBeVisible();
  await detail.getByRole('tab', { name: 'Log' }).click();
  await expect(detail.getByRole('log', { name: 'Server log' })).toContainText('ready');
  await snap(page, testInfo, 'stdio-log');

  // The arguments were saved as a list, never as one shell string.
  expect(savedServers(host!.dataDir)).toEqual([
    expect.objectContaining({ id: 'fixture-stdio', command: process.execPath, args: [BUILT_STDIO_FIXTURE] }),
  ]);
});

test('a server that speaks 2026-07-28 ends modern and shows what its discovery offered; pinned to legacy it reconnects through initialize', async ({
  page,
}, testInfo) => {
  modern = await startModernHttp({ name: 'modern-fixture', instructions: 'Use echo for tests.' });
  await openApp(page, host!);

  const dialog = await openAddServer(page);
  await fillHttp(dialog, { name: 'Modern fixture', url: modern.url });
  await expect(dialog.getByLabel('Protocol era')).toHaveValue('auto');
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(dialog).toBeHidden();

  const row = serverRow(page, 'Modern fixture');
  await expect(row).toContainText('Ready', { timeout: 20_000 });
  const detail = serverDetail(page, 'Modern fixture');
  await expect(detail.getByTestId('protocol-era')).toContainText('Modern');
  await expect(detail.getByTestId('protocol-version')).toHaveText('2026-07-28');
  await expect(detail.getByTestId('supported-versions')).toContainText('2026-07-28');
  await expect(detail).toContainText('negotiated now');
  await expect(detail).toContainText('modern-fixture');
  await expect(detail).toContainText('Use echo for tests.');
  expect(modern.methods).not.toContain('initialize');
  await snap(page, testInfo, 'modern-ready');

  // Pin the era in the form: the server reconnects, through initialize this time.
  await detail.getByRole('button', { name: 'Edit' }).click();
  const edit = serverDialog(page);
  await edit.getByLabel('Protocol era').selectOption('legacy');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await expect(edit).toBeHidden();
  await expect(detail.getByTestId('protocol-era')).toContainText('Legacy', { timeout: 20_000 });
  await expect(detail).toContainText('pinned in its settings');
  expect(modern.methods).toContain('initialize');
  await snap(page, testInfo, 'modern-pinned-legacy');
});

test('a modern server asks in input_required rounds: the elicitation and the sampling request are answered in the dialogs', async ({
  page,
}, testInfo) => {
  modern = await startModernHttp({ name: 'modern-fixture' });
  const bridge = await Bridge.connect(host!);
  try {
    await bridge.ok('servers.save', {
      mode: 'create',
      config: {
        id: 'modern',
        name: 'Modern fixture',
        transport: 'streamable_http',
        url: modern.url,
        timeoutMs: 300_000,
      },
    });
    await expect
      .poll(async () => (await bridge.ok<Array<{ status: { state: string } }>>('servers.list', {}))[0]?.status.state, {
        timeout: 30_000,
      })
      .toBe('ready');
    for (const toolName of ['ask_name', 'ask_sample'])
      await bridge.ok('permissions.setToolLevel', { serverId: 'modern', toolName, level: 'ALLOW' });

    await page.goto(host!.url);
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('button', { name: /^Tools/ })
      .click();
    await page
      .getByRole('navigation', { name: 'Tool list' })
      .locator('button[data-tool="ask_name"][data-server="modern"]')
      .click();
    const panel = page.getByRole('region', { name: 'Call ask_name' });
    await panel.getByRole('button', { name: 'Run' }).click();
    const ask = page.getByRole('alertdialog', { name: 'Modern fixture asks for information' });
    await expect(ask).toBeVisible();
    await expect(ask).toContainText('What is your name?');
    await ask.getByRole('textbox').first().fill('Ada');
    await snap(page, testInfo, 'modern-elicitation');
    await ask.getByRole('button', { name: 'Accept' }).click();
    await expect(ask).toBeHidden();
    await expect(panel.getByRole('region', { name: 'Result' })).toContainText('hello Ada');

    await page
      .getByRole('navigation', { name: 'Tool list' })
      .locator('button[data-tool="ask_sample"][data-server="modern"]')
      .click();
    const samplePanel = page.getByRole('region', { name: 'Call ask_sample' });
    await samplePanel.getByRole('button', { name: 'Run' }).click();
    const sampling = page.getByRole('alertdialog', { name: 'Modern fixture asks for a model response' });
    await expect(sampling).toBeVisible();
    await expect(sampling).toContainText('Say hi');
    await sampling.getByLabel('Response', { exact: true }).fill('Hi from the person');
    await sampling.getByRole('button', { name: 'Send response' }).click();
    await expect(sampling).toBeHidden();
    await expect(samplePanel.getByRole('region', { name: 'Result' })).toContainText('model said: Hi from the person');
    // Stateless: every round was a request of its own; none was an initialize.
    expect(modern.methods.filter((m) => m === 'tools/call').length).toBeGreaterThanOrEqual(4);
    expect(modern.methods).not.toContain('initialize');
  } finally {
    bridge.close();
  }
});

test('an HTTP server with a wrong token shows an auth error until the token is replaced', async ({
  page,
}, testInfo) => {
  const goodToken = 'fixture-good-token-4a1c9e';
  http = await startHttpFixture({ token: goodToken });
  await openApp(page, host!);

  const dialog = await openAddServer(page);
  await fillHttp(dialog, { name: 'Remote fixture', url: http.url, token: 'not-the-right-token' });
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(dialog).toBeHidden();

  const row = serverRow(page, 'Remote fixture');
  await expect(row).toContainText('Sign-in refused', { timeout: 20_000 });
  const detail = serverDetail(page, 'Remote fixture');
  await expect(detail.getByRole('alert')).toContainText('401');
  await snap(page, testInfo, 'http-auth-error');

  // Replace the token: the stored one is never shown, only that it is set.
  await detail.getByRole('button', { name: 'Replace token' }).click();
  const edit = serverDialog(page);
  await expect(edit.getByRole('heading', { name: 'Edit Remote fixture' })).toBeVisible();
  await expect(edit.getByLabel('Bearer token', { exact: true })).toHaveValue('');
  await edit.getByLabel('Bearer token', { exact: true }).fill(goodToken);
  await snap(page, testInfo, 'http-replace-token');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await expect(edit).toBeHidden();

  await expect(row).toContainText('Ready', { timeout: 20_000 });
  await expect(detail.getByTestId('protocol-version')).toHaveText(LATEST_PROTOCOL_VERSION);
  expect(http.authHeaders).toContain(`Bearer ${goodToken}`);
  await expect(detail).toContainText('secret · set');
  await snap(page, testInfo, 'http-ready');
});

test('invalid input is shown at its field and nothing is saved', async ({ page }, testInfo) => {
  await openApp(page, host!);

  // Checked in the page with the shared schema: nothing is sent.
  let dialog = await openAddServer(page);
  await dialog.getByRole('radio', { name: /Remote/ }).check();
  await dialog.getByLabel('URL', { exact: true }).fill('ftp://example.com/mcp');
  await dialog.getByRole('button', { name: 'Add header' }).click();
  await dialog.getByLabel('Header 1 name', { exact: true }).fill('Authorization');
  await dialog.getByLabel('Header 1 value', { exact: true }).fill('Bearer inline');
  await dialog.getByLabel('URL', { exact: true }).press('Enter'); // Enter submits
  await expect(dialog.getByLabel('Name', { exact: true })).toHaveAttribute('aria-invalid', 'true');
  await expect(dialog.getByLabel('Name', { exact: true })).toHaveAccessibleDescription(/must not be empty/i);
  await expect(dialog.getByLabel('URL', { exact: true })).toHaveAccessibleDescription(
    /must start with http:\/\/ or https:\/\//i,
  );
  await expect(dialog.getByLabel('Header 1 name', { exact: true })).toHaveAccessibleDescription(/set by the app/i);
  // The form's refusal and main's (below) are worded the same way.
  await expect(dialog.getByRole('alert').first()).toHaveText(INVALID_SETTINGS);
  await snap(page, testInfo, 'invalid-client');
  await page.keyboard.press('Escape'); // Esc closes the dialog
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('heading', { name: 'No servers yet' })).toBeVisible();
  expect(savedServers(host!.dataDir)).toEqual([]);

  // Checked by main: an id that exists already comes back as a field error at the ID.
  dialog = await openAddServer(page);
  await fillStdio(dialog, { name: 'Dup', command: process.execPath, args: [BUILT_STDIO_FIXTURE], enabled: false });
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(dialog).toBeHidden();
  await expect(serverRow(page, 'Dup')).toContainText('Disabled');

  dialog = await openAddServer(page);
  await fillStdio(dialog, { name: 'Dup', command: 'other-command', args: [], enabled: false });
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(dialog.getByLabel('ID', { exact: true })).toHaveAccessibleDescription(/already exists/i);
  await expect(dialog.getByRole('alert').first()).toHaveText(INVALID_SETTINGS);
  await snap(page, testInfo, 'invalid-server');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  expect(savedServers(host!.dataDir)).toEqual([expect.objectContaining({ id: 'dup', command: process.execPath })]);
  await expect(page.getByRole('navigation', { name: 'Server list' }).getByRole('button')).toHaveCount(1);
});

test('servers survive a host restart, and the token is kept only in the secret store', async ({ page }, testInfo) => {
  const token = 'fixture-restart-token-7f3b2d';
  http = await startHttpFixture({ token });
  await openApp(page, host!);

  const dialog = await openAddServer(page);
  await fillHttp(dialog, { name: 'Remote fixture', url: http.url, token });
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(serverRow(page, 'Remote fixture')).toContainText('Ready', { timeout: 20_000 });

  // A new host process over the same data folder (a new port and session token).
  const dataDir = host!.dataDir;
  await host!.stop();
  host = await startWebHost({ dataDir });
  await openApp(page, host);
  const row = serverRow(page, 'Remote fixture');
  await expect(row).toBeVisible();
  await expect(row).toContainText('Ready', { timeout: 20_000 });
  await row.click();
  await expect(serverDetail(page, 'Remote fixture').getByTestId('protocol-version')).toHaveText(
    LATEST_PROTOCOL_VERSION,
  );
  await expect(serverDetail(page, 'Remote fixture').getByTestId('protocol-era')).toContainText('Legacy');
  await snap(page, testInfo, 'after-restart');

  // The token is in no page and no file — except the secret store's own file (when the OS
  // keyring is unavailable; with a keyring, not even there).
  expect(await page.content()).not.toContain(token);
  const holders = filesContaining(dataDir, token);
  expect(holders.filter((file) => file !== 'secrets.json')).toEqual([]);
  // Neither does the session token of the host end up in the data folder.
  expect(filesContaining(dataDir, host.token)).toEqual([]);
});

test('a page without a valid session shows "Not authorized" and no data', async ({ page }, testInfo) => {
  // One server, so there would be something to leak.
  const dialog = await (async () => {
    await openApp(page, host!);
    return openAddServer(page);
  })();
  await fillStdio(dialog, {
    name: 'Private server',
    command: process.execPath,
    args: [BUILT_STDIO_FIXTURE],
    enabled: false,
  });
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(serverRow(page, 'Private server')).toBeVisible();

  const other = await page.context().newPage();
  await other.goto(`${host!.origin}/#token=wrong-token-0123456789abcdef`);
  await expect(other.getByRole('heading', { name: 'Not authorized' })).toBeVisible();
  await expect(other.getByText('npm run web')).toBeVisible();
  await expect(other.getByText('Private server')).toHaveCount(0);
  await snap(other, testInfo, 'not-authorized');
});
