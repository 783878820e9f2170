/**
 * Egress asked like a call (issue 29), end to end: the real browser-mode host, the built renderer
 * in Chromium, and a stdio server (test/doubles/servers/egress-server.ts) running inside
 * sandbox-runtime that reaches a loopback upstream on the host. Its attempt to reach a host its
 * sandbox does not list waits while the approval dialog asks the person, naming the server, the
 * host and the port; the answer decides that attempt (and, for session and always, the next). Also the server form's
 * Sandbox section: edited, saved, shown again.
 *
 * Run: npx playwright test test/e2e/egress.spec.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Locator, Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { bundleServer } from '../helpers/buildFixtures.js';
import { PROJECT_ROOT } from '../helpers/fixtures.js';
import { Bridge } from './support/bridge.js';
import { serverDialog } from './support/serverForm.js';
import type { WebHostProcess } from './support/webHost.js';
import { buildAppOnce, startWebHost } from './support/webHost.js';

test.describe.configure({ timeout: 120_000 });
test.skip(process.platform !== 'linux', 'the sandboxed server needs bubblewrap (Linux)');

const SOURCE = join(PROJECT_ROOT, 'test', 'doubles', 'servers', 'egress-server.ts');
const BUILT = join(PROJECT_ROOT, '.cache', 'fixtures', 'egress-server.mjs');

let scratch: string;
let host: WebHostProcess | undefined;
let bridge: Bridge | undefined;
let upstream: Server;
let port: number;

type Reached = { status: string; greeting: string };
type ServerListEntry = { config: { id: string; sandbox?: { hosts: string[] } }; status: { state: string } };

test.beforeAll(async () => {
  test.setTimeout(180_000);
  buildAppOnce();
  await bundleServer(SOURCE, BUILT);
  upstream = createServer((socket) => socket.end('hello from upstream\n'));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  port = (upstream.address() as AddressInfo).port;
});

test.afterAll(() => {
  upstream.close();
});

async function waitReady(): Promise<void> {
  await expect
    .poll(
      async () =>
        (await bridge!.ok<ServerListEntry[]>('servers.list', {})).find((s) => s.config.id === 'eg')?.status.state,
      { timeout: 30_000 },
    )
    .toBe('ready');
}

test.beforeEach(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'mh-e2e-egress-'));
  host = await startWebHost({ dataDir: join(scratch, 'data') });
  bridge = await Bridge.connect(host);
  await bridge.ok('servers.save', {
    mode: 'create',
    config: {
      id: 'eg',
      name: 'Egress',
      transport: 'stdio',
      command: process.execPath,
      args: [BUILT],
      sandbox: { enabled: true },
    },
  });
  await waitReady();
  // The call itself runs without asking: only the connection is asked about.
  await bridge.ok('permissions.setToolLevel', { serverId: 'eg', toolName: 'reach', level: 'ALLOW' });
});

test.afterEach(async () => {
  bridge?.close();
  await host?.stop();
  host = undefined;
  bridge = undefined;
  rmSync(scratch, { recursive: true, force: true });
});

async function reach(): Promise<Reached> {
  const outcome = await bridge!.ok<{ result: { structuredContent?: Reached } }>('tools.call', {
    name: 'reach',
    serverId: 'eg',
    args: { host: '127.0.0.1', port },
    callId: `e2e-${randomUUID()}`,
  });
  return outcome.result.structuredContent as Reached;
}

async function openApp(page: Page): Promise<void> {
  await page.goto(host!.url);
  await expect(page.getByRole('heading', { name: 'Servers', level: 1 })).toBeVisible();
}

/** The approval dialog for the server's connection, checked for what it names. */
async function egressDialog(page: Page): Promise<Locator> {
  const dialog = page.getByRole('alertdialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('heading', { level: 2 })).toContainText(`127.0.0.1:${port}`);
  await expect(dialog.locator('.approval-egress-host')).toHaveText('127.0.0.1');
  await expect(dialog.locator('.approval-egress-port')).toHaveText(String(port));
  await expect(dialog).toContainText('Egress');
  return dialog;
}

test('allow once: the attempt waits and goes through; the next one asks again and a deny fails it', async ({
  page,
}) => {
  await openApp(page);
  // The call waits while the dialog asks.
  const first = reach();
  const dialog = await egressDialog(page);
  await dialog.getByRole('button', { name: /^Allow once/ }).click();
  await expect(dialog).toBeHidden();
  expect(await first).toEqual({ status: '200', greeting: 'hello from upstream' });

  const second = reach();
  const again = await egressDialog(page);
  await again.getByRole('button', { name: /^Deny/ }).click();
  await expect(again).toBeHidden();
  expect(await second).toEqual({ status: '403', greeting: '' });
});

test('always: not asked again, and the host is in the server’s Sandbox section and in Permissions', async ({
  page,
}) => {
  await openApp(page);
  const first = reach();
  const dialog = await egressDialog(page);
  await dialog.getByRole('button', { name: /^Always allow/ }).click();
  await expect(dialog).toBeHidden();
  expect(await first).toEqual({ status: '200', greeting: 'hello from upstream' });
  // Saved in the profile once that call ended; the server restarts with it.
  await expect
    .poll(
      async () =>
        (await bridge!.ok<ServerListEntry[]>('servers.list', {})).find((s) => s.config.id === 'eg')?.config.sandbox
          ?.hosts,
    )
    .toEqual([`127.0.0.1:${port}`]);
  await waitReady();
  expect(await reach()).toEqual({ status: '200', greeting: 'hello from upstream' });
  expect((await reach()).status).toBe('200');
  await expect(page.getByRole('alertdialog')).toBeHidden();

  await page
    .getByRole('navigation', { name: 'Server list' })
    .getByRole('button', { name: /Egress/ })
    .click();
  await page.getByRole('button', { name: 'Edit' }).click();
  const form = serverDialog(page);
  const section = form.getByRole('group', { name: 'Sandbox' });
  await expect(section.getByLabel('Host 1', { exact: true })).toHaveValue(`127.0.0.1:${port}`);
  await form.getByRole('button', { name: 'Cancel' }).click();

  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^Permissions/ })
    .click();
  const rules = page.getByRole('list', { name: 'Host rules' });
  await expect(rules.getByRole('listitem', { name: `127.0.0.1:${port} on Egress` })).toContainText('in its profile');
  // Revocable the same way as a rule: the host leaves the profile.
  await rules.getByRole('button', { name: `Revoke 127.0.0.1:${port} on Egress` }).click();
  await expect(page.getByText('No hosts. Sandboxed servers reach no host without asking.')).toBeVisible();
  const revoked = (await bridge!.ok<ServerListEntry[]>('servers.list', {})).find((s) => s.config.id === 'eg');
  expect(revoked?.config.sandbox?.hosts).toEqual([]);
});

test('the Sandbox section edits and saves; off is explained and shown on the card', async ({ page }) => {
  await openApp(page);
  await page
    .getByRole('navigation', { name: 'Server list' })
    .getByRole('button', { name: /Egress/ })
    .click();
  // Its profile, as data from main: what was added to the defaults and why.
  const profile = page.getByRole('region', { name: 'Sandbox profile' });
  await expect(profile.getByRole('list', { name: 'Added to its sandbox' })).toContainText(
    'Its own folder (its TMPDIR is there)',
  );
  await expect(profile).toContainText(join(scratch, 'data'));
  await page.getByRole('button', { name: 'Edit' }).click();
  const form = serverDialog(page);
  const section = form.getByRole('group', { name: 'Sandbox' });
  await expect(section.getByRole('checkbox', { name: 'Run in a sandbox' })).toBeChecked();

  await section.getByRole('button', { name: 'Add readable path' }).click();
  await section.getByLabel('Readable path 1', { exact: true }).fill('/opt/tool-data');
  await section.getByRole('button', { name: 'Add host' }).click();
  await section.getByLabel('Host 1', { exact: true }).fill('not a host!');
  await form.getByRole('button', { name: 'Save' }).click();
  // Validated like the schema: refused at the field, nothing saved.
  await expect(section.getByLabel('Host 1', { exact: true })).toHaveAttribute('aria-invalid', 'true');
  await expect(section).toContainText(/must be a host/i);
  await section.getByLabel('Host 1', { exact: true }).fill('api.example.com:443');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form).toBeHidden();
  const saved = (await bridge!.ok<ServerListEntry[]>('servers.list', {})).find((s) => s.config.id === 'eg');
  expect(saved?.config.sandbox).toMatchObject({
    enabled: true,
    read: ['/opt/tool-data'],
    hosts: ['api.example.com:443'],
  });

  // Off: a visible, explained choice, on the card afterwards.
  await page.getByRole('button', { name: 'Edit' }).click();
  await section.getByRole('checkbox', { name: 'Run in a sandbox' }).uncheck();
  await expect(section.getByRole('note')).toContainText('Not sandboxed');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form).toBeHidden();
  await expect(
    page.getByRole('navigation', { name: 'Server list' }).getByRole('button', { name: /Egress/ }),
  ).toContainText('Not sandboxed');
  const off = (await bridge!.ok<ServerListEntry[]>('servers.list', {})).find((s) => s.config.id === 'eg');
  expect(off?.config.sandbox).toMatchObject({ enabled: false, read: ['/opt/tool-data'] });
});

test('where the sandbox cannot run the server, "Run unsandboxed" turns it off after a confirmation', async ({
  page,
}) => {
  // An argument the sandbox's shell line cannot carry (a NUL): the real wrap refuses with sandbox_unavailable.
  await bridge!.ok('servers.save', {
    mode: 'create',
    config: {
      id: 'nul',
      name: 'Unquotable',
      transport: 'stdio',
      command: process.execPath,
      args: [BUILT, 'a\u0000b'],
      sandbox: { enabled: true },
    },
  });
  await openApp(page);
  await page
    .getByRole('navigation', { name: 'Server list' })
    .getByRole('button', { name: /Unquotable/ })
    .click();
  await expect(page.locator('.callout-title', { hasText: 'The sandbox cannot run here' })).toBeVisible({
    timeout: 30_000,
  });
  // The reason is data on the status, worded by the GUI.
  const status = (await bridge!.ok<ServerListEntry[]>('servers.list', {})).find((s) => s.config.id === 'nul')?.status;
  expect(status).toMatchObject({
    state: 'error',
    code: 'sandbox_unavailable',
    sandbox: { reason: 'argument_unquotable' },
  });
  await page.getByRole('button', { name: 'Run unsandboxed' }).click();
  const confirm = page.getByRole('alertdialog', { name: /Run Unquotable unsandboxed/ });
  await expect(confirm).toContainText('one of its arguments cannot be passed to the sandbox');
  await expect(confirm).toContainText('runs with all your rights');
  await confirm.getByRole('button', { name: 'Run unsandboxed' }).click();
  await expect(confirm).toBeHidden();
  await expect(
    page.getByRole('navigation', { name: 'Server list' }).getByRole('button', { name: /Unquotable/ }),
  ).toContainText('Not sandboxed');
  const saved = (await bridge!.ok<ServerListEntry[]>('servers.list', {})).find((s) => s.config.id === 'nul');
  expect(saved?.config).toMatchObject({ sandbox: { enabled: false } });
});
