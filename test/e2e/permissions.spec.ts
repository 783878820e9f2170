/**
 * Permissions, settings and argument checks end to end (issue 9, E1–E4, E9, E11): the real
 * browser-mode host (own process and data folder per test), the built renderer in Chromium, and
 * the stdio fixture server whose `append` tool appends a line to FIXTURE_COUNTER — a side effect
 * the tests count to prove what ran and what did not.
 *
 * Run: npx playwright test test/e2e/permissions.spec.ts
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { buildFixtureServers } from '../helpers/buildFixtures.js';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT, sandboxWritingTo } from '../helpers/fixtures.js';
import { Bridge } from './support/bridge.js';
import type { WebHostProcess } from './support/webHost.js';
import { buildAppOnce, startWebHost } from './support/webHost.js';
import { openView } from './support/navigation.js';

test.describe.configure({ timeout: 120_000 });

let scratch: string;
let host: WebHostProcess | undefined;
let bridge: Bridge | undefined;
let counter: string;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  buildAppOnce();
  await buildFixtureServers();
});

function fixtureConfig() {
  return {
    id: 'fx',
    name: 'Fixture',
    transport: 'stdio',
    command: process.execPath,
    args: [BUILT_STDIO_FIXTURE],
    cwd: PROJECT_ROOT,
    env: { FIXTURE_COUNTER: counter, FIXTURE_TOOLS: 'echo,append' },
    sandbox: sandboxWritingTo({ FIXTURE_COUNTER: counter, FIXTURE_TOOLS: 'echo,append' }),
  };
}

async function addFixture(): Promise<void> {
  await bridge!.ok('servers.save', { mode: 'create', config: fixtureConfig() });
  await expect
    .poll(async () => (await bridge!.ok<Array<{ status: { state: string } }>>('servers.list', {}))[0]?.status.state, {
      timeout: 20_000,
    })
    .toBe('ready');
}

test.beforeEach(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'mh-e2e-perms-'));
  counter = join(scratch, 'counter.txt');
  host = await startWebHost({ dataDir: join(scratch, 'data') });
  bridge = await Bridge.connect(host);
  await addFixture();
});

test.afterEach(async () => {
  bridge?.close();
  await host?.stop();
  host = undefined;
  bridge = undefined;
  rmSync(scratch, { recursive: true, force: true });
});

function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

async function openApp(page: Page): Promise<void> {
  await page.goto(host!.url);
  await expect(page.getByRole('heading', { name: 'Servers', level: 1 })).toBeVisible();
}

async function openTool(page: Page, name: string, serverId = 'fx'): Promise<Locator> {
  await openView(page, 'Tools');
  await page
    .getByRole('navigation', { name: 'Tool list' })
    .locator(`button[data-tool="${name}"][data-server="${serverId}"]`)
    .click();
  return page.getByRole('region', { name: `Call ${name}` });
}

function permissionRow(page: Page, tool: string, serverId = 'fx'): Locator {
  return page
    .getByRole('table', { name: 'Tool permissions' })
    .locator(`tr[data-tool="${tool}"][data-server="${serverId}"]`);
}

async function runWithJson(panel: Locator, json: string): Promise<void> {
  await panel.getByRole('tab', { name: 'Raw JSON' }).click();
  await panel.getByLabel('Arguments (JSON object)').fill(json);
  await panel.getByRole('button', { name: 'Run' }).click();
}

test('E1–E3: a session grant shows as ALLOW "for this session" at once, Change lands on the row, and revoking it makes the tool ask again', async ({
  page,
}) => {
  await openApp(page);
  const panel = await openTool(page, 'append');
  const policy = panel.locator('.tool-permission');
  await expect(policy.locator('[data-level]')).toHaveAttribute('data-level', 'ASK');

  // Allow for this session: the policy line follows without a reload (E2), with its reason (E1).
  await runWithJson(panel, '{ "line": "one" }');
  const dialog = page.getByRole('alertdialog');
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: /^Allow for this session/ }).click();
  await expect(panel.getByRole('region', { name: 'Result' })).toContainText('appended one');
  expect(lines(counter)).toEqual(['one']);
  await expect(policy.locator('[data-level]')).toHaveAttribute('data-level', 'ALLOW');
  await expect(policy).toHaveAttribute('data-reason', 'session-grant');
  await expect(policy).toContainText('for this session');

  // Many tools above it: Change lands on the row, unfiltered, in view and focused (E3).
  await policy.getByRole('button', { name: 'Change' }).click();
  await expect(page.getByRole('heading', { name: 'Permissions', level: 1 })).toBeVisible();
  const row = permissionRow(page, 'append');
  await expect(row).toBeFocused();
  await expect(row).toBeInViewport();
  await expect(page.getByRole('searchbox', { name: 'Filter tools' })).toHaveValue('');
  await expect(row).toContainText('Allowed for this session');
  await expect(row.locator('[data-level]')).toHaveAttribute('data-level', 'ALLOW');
  const view = await bridge!.ok<{ sessionGrants: Array<{ serverId: string; toolName: string; stale: boolean }> }>(
    'permissions.get',
    {},
  );
  expect(view.sessionGrants).toEqual([{ serverId: 'fx', toolName: 'append', stale: false }]);

  // Revoke: ASK again, and a call really asks (nothing runs until answered).
  await row.getByRole('button', { name: 'Revoke the session grant of append' }).click();
  await expect(row.locator('[data-level]')).toHaveAttribute('data-level', 'ASK');
  expect((await bridge!.ok<{ sessionGrants: unknown[] }>('permissions.get', {})).sessionGrants).toEqual([]);
  const call = bridge!.call('tools.call', {
    name: 'append',
    serverId: 'fx',
    args: { line: 'two' },
    callId: 'e2e-perms-after-revoke',
  });
  await expect(dialog).toContainText('"line": "two"');
  expect(lines(counter)).toEqual(['one']);

  // Always allow: the Tools policy line says ALLOW by rule without a reload (E2).
  await dialog.getByRole('button', { name: /^Always allow/ }).click();
  expect(await call).toMatchObject({ ok: true });
  expect(lines(counter)).toEqual(['one', 'two']);
  await expect(row.locator('[data-level]')).toHaveAttribute('data-level', 'ALLOW');
  // The row does not claim the tool follows its default: no choice is pressed, and the rule that
  // decides it is named and revocable there.
  const control = row.getByRole('group', { name: 'Level of append on fx' });
  await expect(control.getByRole('button', { pressed: true })).toHaveCount(0);
  await expect(row).toContainText('An “always allow” from an approval decides it.');
  const again = await openTool(page, 'append');
  await expect(again.locator('.tool-permission')).toHaveAttribute('data-reason', 'rule');
  await expect(again.locator('.tool-permission [data-level]')).toHaveAttribute('data-level', 'ALLOW');

  // Revoked from the row: the tool follows its default again (Default pressed), and asks.
  await openView(page, 'Permissions');
  await row.getByRole('button', { name: 'Revoke the rule that decides append' }).click();
  await expect(row.locator('[data-level]')).toHaveAttribute('data-level', 'ASK');
  await expect(control.getByRole('button', { pressed: true })).toHaveText('Default');
  await expect(row).not.toContainText('decides it');
});

test('a reason the row above already gives is not repeated on every row: one quiet line, its words in the tooltip and for screen readers', async ({
  page,
}) => {
  await openApp(page);
  await openView(page, 'Permissions');
  // append and echo of the untrusted fixture ask first for the same reason: said in full once.
  const first = permissionRow(page, 'append').locator('.perm-reason-text');
  await expect(first).toHaveText(
    'Server "fx" is not trusted, so append asks first (its annotations are unverified hints).',
  );
  const same = permissionRow(page, 'echo').locator('.perm-reason-text');
  await expect(same).toHaveClass(/same-as-above/);
  const sentence = 'Server "fx" is not trusted, so echo asks first (its annotations are unverified hints).';
  await expect(same.locator('[aria-hidden="true"]')).toHaveText('Same as above.');
  await expect(same.locator('.visually-hidden')).toHaveText(sentence);
  await expect(same).toHaveAttribute('title', sentence);
  // A different reason is said in full again.
  await expect(permissionRow(page, 'list_directory', 'local').locator('.perm-reason-text')).toHaveText(
    'list_directory is a read-only local tool, so it is allowed.',
  );
});

test('E1: run_command without an OS sandbox shows a forced ask with its reason', async ({ page }) => {
  const info = await bridge!.ok<{ sandbox: { kind: string } }>('app.info', {});
  await openApp(page);
  await openView(page, 'Permissions');
  const row = permissionRow(page, 'run_command', 'local');
  if (info.sandbox.kind === 'none') {
    await expect(row).toContainText('Always asks');
    await expect(row).toContainText('unsandboxed');
    await expect(row.locator('[data-level]')).toHaveAttribute('data-level', 'ASK');
  } else {
    await expect(row).not.toContainText('Always asks');
  }
});

test('E11: arguments of the wrong type are refused before any approval, with the field error in the form', async ({
  page,
}) => {
  await openApp(page);
  const panel = await openTool(page, 'append');
  await runWithJson(panel, '{ "line": 5 }');
  const errors = panel.getByRole('list', { name: 'Argument errors' });
  await expect(errors.locator('li[data-field="line"]')).toContainText('must be string');
  await expect(panel.locator('.call-error')).toHaveAttribute('data-code', 'invalid_arguments');
  await expect(page.getByRole('alertdialog')).toBeHidden();
  expect(await bridge!.ok<unknown[]>('approvals.list', {})).toEqual([]);

  // Over the contract: a typed code and errors keyed by field path; nothing ran.
  const refused = await bridge!.call('tools.call', {
    name: 'append',
    serverId: 'fx',
    args: { extra: true },
    callId: 'e2e-perms-invalid-args',
  });
  expect(refused).toMatchObject({
    ok: false,
    error: { code: 'invalid_arguments', details: { fieldErrors: { line: ['is required'] } } },
  });
  expect(lines(counter)).toEqual([]);

  // Fixed, it asks as usual.
  await runWithJson(panel, '{ "line": "fine" }');
  await expect(page.getByRole('alertdialog')).toContainText('"line": "fine"');
});

test('E4: a refused path points at Settings → Folders; a folder added there works at once, survives a restart, and one overlapping the data folder is refused', async ({
  page,
}) => {
  const outside = join(scratch, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'note.txt'), 'hello from outside');
  const read = (callId: string) =>
    bridge!.call('tools.call', {
      name: 'read_file',
      serverId: 'local',
      args: { path: join(outside, 'note.txt') },
      callId,
    });

  await openApp(page);
  const panel = await openTool(page, 'read_file', 'local');
  await runWithJson(panel, JSON.stringify({ path: join(outside, 'note.txt') }));
  // The path guard refuses it before anything runs (a guardrail denial), and says where to add the folder.
  await expect(panel.locator('.call-error')).toHaveAttribute('data-code', 'permission_denied');
  await expect(panel.locator('.call-error')).toContainText('Settings → Folders');
  await openView(page, 'Settings');

  const folders = page.getByRole('list', { name: 'Local tool folders' });
  await expect(folders.locator('li')).toHaveCount(1);
  await expect(folders.locator('li').first()).toContainText('workspace');
  await expect(folders.locator('li').first().getByRole('button')).toHaveCount(0); // the workspace cannot be removed

  // A folder inside the data folder is refused, and nothing changes.
  const input = page.getByLabel('Add a folder (absolute path)');
  await input.fill(host!.dataDir);
  await page.getByRole('button', { name: 'Add folder' }).click();
  await expect(page.locator('#folder-add-error')).toContainText('data folder');
  await expect(folders.locator('li')).toHaveCount(1);

  await input.fill(outside);
  await page.getByRole('button', { name: 'Add folder' }).click();
  await expect(folders.locator(`li[data-path="${outside}"]`)).toBeVisible();
  const first = await read('e2e-perms-read-1');
  expect(first).toMatchObject({ ok: true, result: { result: { isError: false } } });
  expect(JSON.stringify(first)).toContain('hello from outside');

  // Kept in the configuration: a restarted host still lets the tools in.
  bridge!.close();
  await host!.stop();
  host = await startWebHost({ dataDir: host!.dataDir, workspaceDir: host!.workspaceDir });
  bridge = await Bridge.connect(host);
  const settings = await bridge.ok<{ roots: Array<{ path: string; workspace: boolean }> }>('settings.get', {});
  expect(settings.roots.map((r) => r.workspace)).toEqual([true, false]);
  expect(settings.roots[1]?.path).toBe(outside);
  expect(await read('e2e-perms-read-2')).toMatchObject({ ok: true });

  // Removed in Settings: refused again at once.
  await openApp(page);
  await openView(page, 'Settings');
  await page.getByRole('button', { name: `Remove folder ${outside}` }).click();
  await expect(page.getByRole('list', { name: 'Local tool folders' }).locator('li')).toHaveCount(1);
  const refused = await read('e2e-perms-read-3');
  expect(refused).toMatchObject({ ok: false, error: { code: 'permission_denied' } });
  expect(JSON.stringify(refused)).toContain('Settings → Folders');
});

test('E9: removing a server offers to remove its rules; a kept rule is stale and never applies to a new server with the same id', async ({
  page,
}) => {
  // An "always allow" for append, answered over the bridge.
  const call = bridge!.call('tools.call', {
    name: 'append',
    serverId: 'fx',
    args: { line: 'one' },
    callId: 'e2e-perms-rule-1',
  });
  await expect.poll(async () => (await bridge!.ok<unknown[]>('approvals.list', {})).length).toBe(1);
  const [pending] = await bridge!.ok<Array<{ requestId: string }>>('approvals.list', {});
  await bridge!.ok('approvals.answer', { requestId: pending!.requestId, answer: 'allow-always' });
  expect(await call).toMatchObject({ ok: true });
  const [rule] = (await bridge!.ok<{ rules: Array<{ match: { serverUid?: string } }> }>('permissions.get', {})).rules;
  expect(rule?.match.serverUid).toMatch(/^[A-Za-z0-9_-]{8,}$/);

  // Remove, keeping the rule: the dialog lists it with the box checked; unchecked, it stays.
  await openApp(page);
  await page
    .getByRole('button', { name: /Fixture/ })
    .first()
    .click();
  await page.getByRole('group', { name: 'Server actions' }).getByRole('button', { name: 'Remove' }).click();
  const confirm = page.getByRole('alertdialog', { name: /Remove/ });
  await expect(confirm.getByRole('list', { name: 'Rules of this server' })).toContainText('append');
  const box = confirm.getByRole('checkbox', { name: /Also remove this rule/ });
  await expect(box).toBeChecked();
  await box.uncheck();
  await confirm.getByRole('button', { name: 'Remove server' }).click();
  await expect(confirm).toBeHidden();
  let view = await bridge!.ok<{ rules: Array<{ stale: boolean; staleReason?: string }> }>('permissions.get', {});
  expect(view.rules).toMatchObject([{ stale: true, staleReason: 'server_removed' }]);

  // A new server with the same id is another server: the old rule does not apply, it asks.
  await addFixture();
  view = await bridge!.ok('permissions.get', {});
  expect(view.rules).toMatchObject([{ stale: true, staleReason: 'server_replaced' }]);
  await openView(page, 'Permissions');
  await expect(page.getByRole('list', { name: 'Stored rules' })).toContainText(
    'the server with this id now is another one',
  );
  await expect(permissionRow(page, 'append').locator('[data-level]')).toHaveAttribute('data-level', 'ASK');
  const serverRequests = bridge!.call('tools.call', {
    name: 'append',
    serverId: 'fx',
    args: { line: 'two' },
    callId: 'e2e-perms-rule-2',
  });
  await expect(page.getByRole('alertdialog')).toContainText('"line": "two"');
  await page
    .getByRole('alertdialog')
    .getByRole('button', { name: /^Always allow/ })
    .click();
  expect(await serverRequests).toMatchObject({ ok: true });
  // The new grant takes the stale rule's place (one "always allow" per server id and tool), bound to the new server.
  view = await bridge!.ok('permissions.get', {});
  expect(view.rules).toMatchObject([{ stale: false }]);

  // Removing it with the box checked removes its rule.
  await openView(page, 'Servers');
  await page
    .getByRole('button', { name: /Fixture/ })
    .first()
    .click();
  await page.getByRole('group', { name: 'Server actions' }).getByRole('button', { name: 'Remove' }).click();
  await expect(confirm.getByRole('list', { name: 'Rules of this server' }).locator('li')).toHaveCount(1);
  await expect(confirm.getByRole('checkbox', { name: /Also remove this rule/ })).toBeChecked();
  await confirm.getByRole('button', { name: 'Remove server' }).click();
  await expect(confirm).toBeHidden();
  view = await bridge!.ok('permissions.get', {});
  expect(view.rules).toEqual([]);
  expect(lines(counter)).toEqual(['one', 'two']);
});
