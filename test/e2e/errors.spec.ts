/**
 * Errors as data, seen in the GUI (issue 9, C, E5, E12): the Servers view says what failed and
 * where for an HTTP server it cannot reach, says that a program is not an MCP server, and a
 * denied call is worded from the error's typed denial (who refused), not from its message.
 *
 * Run: npx playwright test test/e2e/errors.spec.ts
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT, sandboxWritingTo } from '../helpers/fixtures.js';
import { serverDetail, serverRow } from './support/serverForm.js';
import { hostPerTest } from './support/hostPerTest.js';

test.describe.configure({ timeout: 90_000 });

const e2e = hostPerTest('mh-e2e-errors-');

async function openApp(page: Page): Promise<void> {
  await page.goto(e2e.host.url);
  await expect(page.getByRole('heading', { name: 'Servers', level: 1 })).toBeVisible();
}

/** A loopback port that was just free: nothing listens on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('an HTTP server that refuses the connection says so, with host:port (E5)', async ({ page }) => {
  const port = await closedPort();
  await e2e.bridge.ok('servers.save', {
    mode: 'create',
    config: {
      id: 'gone',
      name: 'Gone server',
      transport: 'streamable_http',
      url: `http://127.0.0.1:${port}/mcp`,
      auth: { kind: 'none' },
    },
  });
  await openApp(page);
  await serverRow(page, 'Gone server').click();
  const detail = serverDetail(page, 'Gone server');
  const alert = detail.getByRole('alert').first();
  await expect(alert).toContainText('Connection refused', { timeout: 20_000 });
  await expect(alert).toContainText(`127.0.0.1:${port}`);
  await expect(detail).not.toContainText('fetch failed');
});

test('a host name that does not resolve is named as a DNS failure (E5)', async ({ page }) => {
  await e2e.bridge.ok('servers.save', {
    mode: 'create',
    config: {
      id: 'nowhere',
      name: 'Nowhere',
      transport: 'streamable_http',
      url: 'http://nonexistent.invalid:8080/mcp',
      auth: { kind: 'none' },
    },
  });
  await openApp(page);
  await serverRow(page, 'Nowhere').click();
  const alert = serverDetail(page, 'Nowhere').getByRole('alert').first();
  await expect(alert).toContainText('Host not found', { timeout: 20_000 });
  await expect(alert).toContainText('nonexistent.invalid');
});

test('a program that is not an MCP server is reported as such, not as -32601 (E12)', async ({ page }) => {
  await e2e.bridge.ok('servers.save', {
    mode: 'create',
    config: { id: 'cat', name: 'Cat program', transport: 'stdio', command: '/bin/cat' },
  });
  await openApp(page);
  await expect(serverRow(page, 'Cat program')).toContainText('Not an MCP server', { timeout: 20_000 });
  await serverRow(page, 'Cat program').click();
  const alert = serverDetail(page, 'Cat program').getByRole('alert').first();
  await expect(alert).toContainText('Not an MCP server');
  await expect(alert).toContainText('did not answer as an MCP server');
  await expect(alert).not.toContainText('Method not found');
});

test('a call denied by a rule is worded from the typed denial', async ({ page }) => {
  const counter = join(e2e.scratch, 'counter.txt');
  await e2e.bridge.ok('servers.save', {
    mode: 'create',
    config: {
      id: 'fx',
      name: 'Fixture',
      transport: 'stdio',
      command: process.execPath,
      args: [BUILT_STDIO_FIXTURE],
      cwd: PROJECT_ROOT,
      env: { FIXTURE_COUNTER: counter, FIXTURE_TOOLS: 'echo,append' },
      sandbox: sandboxWritingTo({ FIXTURE_COUNTER: counter, FIXTURE_TOOLS: 'echo,append' }),
    },
  });
  await expect
    .poll(
      async () => (await e2e.bridge.ok<Array<{ status: { state: string } }>>('servers.list', {}))[0]?.status.state,
      { timeout: 20_000 },
    )
    .toBe('ready');
  await e2e.bridge.ok('permissions.setToolLevel', { serverId: 'fx', toolName: 'append', level: 'DENY' });
  // What crosses the contract: a code and a typed denial.
  const reply = await e2e.bridge.call('tools.call', {
    name: 'append',
    serverId: 'fx',
    args: { line: 'x' },
    callId: 'e2e-denied-1',
  });
  expect(reply).toMatchObject({
    ok: false,
    error: {
      code: 'permission_denied',
      details: { denial: { by: 'rule', level: 'DENY', toolName: 'append', serverId: 'fx' } },
    },
  });

  await openApp(page);
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^Tools/ })
    .click();
  await page
    .getByRole('navigation', { name: 'Tool list' })
    .locator('button[data-tool="append"][data-server="fx"]')
    .click();
  const panel = page.getByRole('region', { name: 'Call append' });
  await panel.getByLabel('line').fill('never');
  await panel.getByRole('button', { name: 'Run' }).click();
  const failed = panel.getByRole('region', { name: 'Call failed' });
  await expect(failed).toContainText('Denied: a rule denies it');
  await expect(failed).toContainText('Nothing was run.');
  await expect(failed).toHaveAttribute('data-code', 'permission_denied');
  expect(existsSync(counter) ? readFileSync(counter, 'utf8') : '').toBe('');
});
