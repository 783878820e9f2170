/**
 * Tools, approvals and permissions end to end: the real browser-mode host (its own process and
 * data folder per test), the built renderer in Chromium, and the stdio fixture server as a child
 * of the host. The fixture's `append` tool appends a line to FIXTURE_COUNTER — a side effect the
 * test counts — and `slow` waits, observing cancellation (recorded in FIXTURE_EVENTS).
 *
 * The server is added over the bridge (the same WebSocket and token the page uses); everything
 * else is done in the page, the way a person does it. The same bridge sends a stale approval
 * answer by hand and reads traces.
 *
 * Run: npx playwright test test/e2e/tools.spec.ts
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page, TestInfo } from '@playwright/test';
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
let events: string;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  buildAppOnce();
  await buildFixtureServers();
});

test.beforeEach(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'mh-e2e-tools-'));
  counter = join(scratch, 'counter.txt');
  events = join(scratch, 'events.jsonl');
  host = await startWebHost({ dataDir: join(scratch, 'data') });
  bridge = await Bridge.connect(host);
  // The fixture over stdio, untrusted (the default): its tools ask first.
  await bridge.ok('servers.save', {
    mode: 'create',
    config: {
      id: 'fx',
      name: 'Fixture',
      transport: 'stdio',
      command: process.execPath,
      args: [BUILT_STDIO_FIXTURE],
      cwd: PROJECT_ROOT,
      env: { FIXTURE_COUNTER: counter, FIXTURE_EVENTS: events, FIXTURE_TOOLS: 'echo,slow,append' },
      sandbox: sandboxWritingTo({
        FIXTURE_COUNTER: counter,
        FIXTURE_EVENTS: events,
        FIXTURE_TOOLS: 'echo,slow,append',
      }),
    },
  });
  await expect
    .poll(
      async () =>
        (await bridge!.ok<Array<{ toolCount: number; status: { state: string } }>>('servers.list', {}))[0]?.status
          .state,
      { timeout: 20_000 },
    )
    .toBe('ready');
});

test.afterEach(async () => {
  bridge?.close();
  await host?.stop();
  host = undefined;
  bridge = undefined;
  rmSync(scratch, { recursive: true, force: true });
});

/** A screenshot kept in the test's output folder (test-results/…) and attached to the report. */
async function snap(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path });
  await testInfo.attach(name, { path, contentType: 'image/png' });
}

function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

/** Opens the app and collects Content Security Policy violations (the form must not need eval). */
async function openApp(page: Page, running: WebHostProcess): Promise<string[]> {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|unsafe-eval/i.test(message.text())) violations.push(message.text());
  });
  await page.goto(running.url);
  await expect(page.getByRole('heading', { name: 'Servers', level: 1 })).toBeVisible();
  return violations;
}

function toolButton(page: Page, name: string): Locator {
  return page.getByRole('navigation', { name: 'Tool list' }).locator(`button[data-tool="${name}"][data-server="fx"]`);
}

function callPanel(page: Page, name: string): Locator {
  return page.getByRole('region', { name: `Call ${name}` });
}

function approvalDialog(page: Page): Locator {
  return page.getByRole('alertdialog');
}

function permissionRow(page: Page, tool: string): Locator {
  return page.getByRole('table', { name: 'Tool permissions' }).locator(`tr[data-tool="${tool}"][data-server="fx"]`);
}

test('an ASK tool waits for the person: Deny runs nothing, Allow once runs it, a stale answer is refused', async ({
  page,
}, testInfo) => {
  const violations = await openApp(page, host!);
  await openView(page, 'Tools');

  // Every tool of the fixture, plus the local ones, grouped by server.
  await expect(toolButton(page, 'append')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Tools of fx' })).toContainText('slow');
  await expect(page.getByRole('region', { name: 'Tools of Local' })).toContainText('read_file');
  await toolButton(page, 'append').click();
  const panel = callPanel(page, 'append');
  await expect(panel).toContainText('Appends a line to the counter file');
  await expect(panel.locator('[data-level]')).toHaveAttribute('data-level', 'ASK');
  await panel.getByLabel('line').fill('first');
  await snap(page, testInfo, 'tools-view');

  // Run → the approval dialog, with the arguments and why it asks; Deny has the focus.
  await panel.getByRole('button', { name: 'Run' }).click();
  const dialog = approvalDialog(page);
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('append');
  await expect(dialog).toContainText('"line": "first"');
  await expect(dialog).toContainText('is not trusted');
  await expect(dialog).toContainText('Hints from the server');
  await expect(dialog.getByRole('timer')).toContainText(/Expires in/);
  await expect(dialog.getByRole('button', { name: /^Deny/ })).toBeFocused();
  await expect(
    page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /^Approvals/ }),
  ).toContainText('1');
  await snap(page, testInfo, 'approval-dialog');
  await page.emulateMedia({ colorScheme: 'dark' });
  // The colour transitions running now: wait for each to finish (no fixed sleep). Only
  // transitions: the page also runs endless animations (a spinner), which never finish.
  await page.evaluate(
    'Promise.all(document.getAnimations().filter((a) => a instanceof CSSTransition).map((a) => a.finished)).then(() => true)',
  );
  await snap(page, testInfo, 'approval-dialog-dark');
  await page.emulateMedia({ colorScheme: 'light' });
  const [first] = await bridge!.ok<Array<{ requestId: string; toolName: string }>>('approvals.list', {});
  expect(first?.toolName).toBe('append');

  await dialog.getByRole('button', { name: /^Deny/ }).click();
  await expect(dialog).toBeHidden();
  const denial = panel.getByRole('region', { name: 'Call failed' });
  await expect(denial).toContainText('Denied: you denied it');
  await expect(denial).toContainText('Nothing was run');
  expect(lines(counter)).toEqual([]);
  await snap(page, testInfo, 'denied');

  // The trace of that call records the denial.
  const deniedTraceId = await denial.getByRole('button', { name: 'View trace' }).getAttribute('data-trace-id');
  expect(deniedTraceId).toBeTruthy();
  const deniedTrace = await bridge!.ok<{
    trace: { status: string };
    events: Array<{ type: string; data: Record<string, unknown> }>;
  }>('traces.get', { traceId: deniedTraceId });
  expect(deniedTrace.trace.status).toBe('denied');
  expect(deniedTrace.events.find((e) => e.type === 'approval_answered')?.data).toMatchObject({ approved: false });

  // Again → Allow once: it runs, once.
  await panel.getByLabel('line').fill('second');
  await panel.getByRole('button', { name: 'Run' }).click();
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('"line": "second"');
  await dialog.getByRole('button', { name: /^Allow once/ }).click();
  const result = panel.getByRole('region', { name: 'Result' });
  await expect(result).toContainText('Completed');
  await expect(result).toContainText('appended second');
  await expect(result).toContainText('Structured content');
  await expect(result).toContainText('1 attempt');
  expect(lines(counter)).toEqual(['second']);
  await result.scrollIntoViewIfNeeded();
  await snap(page, testInfo, 'result');

  // The first decision, sent again by hand: refused, and nothing runs.
  const stale = await bridge!.call('approvals.answer', { requestId: first!.requestId, answer: 'allow-once' });
  expect(stale).toMatchObject({ ok: false, error: { code: 'stale_approval' } });
  expect(lines(counter)).toEqual(['second']);

  // "View trace" opens the Traces view (on that trace).
  await result.getByRole('button', { name: 'View trace' }).click();
  await expect(page.getByRole('heading', { name: 'Traces', level: 1 })).toBeVisible();

  // The page never needed eval (the argument form is rendered without Ajv's compiler).
  expect(violations).toEqual([]);
});

test('Permissions show why a tool asks; a level set there takes effect; Cancel really cancels a slow call', async ({
  page,
}, testInfo) => {
  await openApp(page, host!);
  await openView(page, 'Permissions');

  // append asks because the server is untrusted; slow is set to ALLOW here.
  const append = permissionRow(page, 'append');
  await expect(append).toContainText('ASK');
  await expect(append).toContainText('Untrusted server');
  await expect(append).toContainText('is not trusted');
  await expect(page.getByRole('switch', { name: /Trust Fixture/ })).not.toBeChecked();
  const slow = permissionRow(page, 'slow');
  await slow.getByRole('button', { name: 'Allow', exact: true }).click();
  await expect(slow).toContainText('ALLOW');
  await expect(slow).toContainText('Rule');
  await expect(slow.getByRole('button', { name: 'Allow', exact: true })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByRole('list', { name: 'Stored rules' })).toContainText('slow');
  await snap(page, testInfo, 'permissions-view');
  await page.getByRole('region', { name: 'Server trust' }).scrollIntoViewIfNeeded();
  await snap(page, testInfo, 'permissions-trust-rules');

  // A slow call, cancelled while it runs: the UI says cancelled, the server was told, the trace ended.
  await openView(page, 'Tools');
  await toolButton(page, 'slow').click();
  const panel = callPanel(page, 'slow');
  await panel.getByLabel('ms').fill('30000');
  await panel.getByRole('button', { name: 'Run' }).click();
  const progress = panel.getByRole('status', { name: 'Call in progress' });
  await expect(progress).toBeVisible();
  await expect(approvalDialog(page)).toBeHidden(); // ALLOW: no dialog
  await expect(panel.getByRole('button', { name: 'Run' })).toBeDisabled();
  await snap(page, testInfo, 'running');
  await progress.getByRole('button', { name: 'Cancel' }).click();
  const failure = panel.getByRole('region', { name: 'Call failed' });
  await expect(failure).toContainText('Cancelled');
  await expect(failure).toHaveAttribute('data-code', 'cancelled');
  await expect(panel.getByRole('button', { name: 'Run' })).toBeEnabled();
  await expect
    .poll(() => lines(events).some((line) => line.includes('"cancelled"') && line.includes('"slow"')))
    .toBe(true);
  const traceId = await failure.getByRole('button', { name: 'View trace' }).getAttribute('data-trace-id');
  const trace = await bridge!.ok<{ trace: { status: string } }>('traces.get', { traceId });
  expect(trace.trace.status).toBe('cancelled'); // finished as cancelled, not left running or read as an error
  await snap(page, testInfo, 'cancelled');

  // DENY, set in Permissions, takes effect: no dialog, nothing runs.
  await openView(page, 'Permissions');
  await append.getByRole('button', { name: 'Deny', exact: true }).click();
  await expect(append).toContainText('DENY');
  await openView(page, 'Tools');
  await toolButton(page, 'append').click();
  const appendPanel = callPanel(page, 'append');
  await appendPanel.getByLabel('line').fill('never');
  await appendPanel.getByRole('button', { name: 'Run' }).click();
  await expect(appendPanel.getByRole('region', { name: 'Call failed' })).toContainText('Denied:');
  await expect(approvalDialog(page)).toBeHidden();
  expect(lines(counter)).toEqual([]);

  // Trusting the server lets its annotations set the defaults: read-only echo is allowed.
  await openView(page, 'Permissions');
  await expect(permissionRow(page, 'echo')).toContainText('ASK');
  await page.getByRole('switch', { name: /Trust Fixture/ }).click();
  await expect(page.getByRole('switch', { name: /Trust Fixture/ })).toBeChecked();
  await expect(permissionRow(page, 'echo')).toContainText('ALLOW');
  await expect(permissionRow(page, 'echo')).toContainText('Default from annotations');
  await expect(append).toContainText('DENY'); // a rule of its own still wins
});

test('several requests queue oldest first; keys answer them, Esc denies; the Approvals view lists them', async ({
  page,
}, testInfo) => {
  await openApp(page, host!);
  await openView(page, 'Approvals');
  await expect(page.getByText('Nothing is waiting for you')).toBeVisible();

  // Two calls made elsewhere (over the bridge) both wait for the person at the page.
  const one = bridge!.call('tools.call', {
    name: 'append',
    serverId: 'fx',
    args: { line: 'one' },
    callId: 'e2e-queue-one',
  });
  await expect(approvalDialog(page)).toContainText('"line": "one"');
  const two = bridge!.call('tools.call', {
    name: 'append',
    serverId: 'fx',
    args: { line: 'two' },
    callId: 'e2e-queue-two',
  });
  const dialog = approvalDialog(page);
  await expect(dialog.getByLabel('Request 1 of 2')).toBeVisible();
  await expect(
    page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /^Approvals/ }),
  ).toContainText('2');

  // "Decide later" shows the list behind it, with the same answers.
  await dialog.getByRole('button', { name: 'Decide later' }).click();
  await expect(dialog).toContainText('"line": "two"');
  await expect(page.getByRole('list', { name: 'Pending approvals' }).locator(':scope > li')).toHaveCount(2);
  await snap(page, testInfo, 'approvals-queue');

  // O allows the second one (letter keys work after a short delay per request, so typing into
  // a field when the dialog appears answers nothing); then only the deferred first is left.
  await expect(dialog).toHaveAttribute('data-keys', 'armed');
  await page.keyboard.press('o');
  await expect(dialog).toBeHidden();
  expect(await two).toMatchObject({ ok: true });
  expect(lines(counter)).toEqual(['two']);
  const card = page.getByRole('listitem', { name: /Approval request 1: append/ });
  await expect(card).toContainText('"line": "one"');
  await snap(page, testInfo, 'approvals-view');
  await card.getByRole('button', { name: /^Deny/ }).click();
  expect(await one).toMatchObject({ ok: false, error: { code: 'permission_denied' } });
  await expect(page.getByText('Nothing is waiting for you')).toBeVisible();

  // Esc is Deny.
  const three = bridge!.call('tools.call', {
    name: 'append',
    serverId: 'fx',
    args: { line: 'three' },
    callId: 'e2e-queue-three',
  });
  await expect(dialog).toContainText('"line": "three"');
  await page.keyboard.press('Escape');
  expect(await three).toMatchObject({ ok: false, error: { code: 'permission_denied' } });
  await expect(dialog).toBeHidden();
  expect(lines(counter)).toEqual(['two']);

  // A keeps an "always allow": listed in Permissions, and revocable there.
  const four = bridge!.call('tools.call', {
    name: 'append',
    serverId: 'fx',
    args: { line: 'four' },
    callId: 'e2e-queue-four',
  });
  await expect(dialog).toContainText('"line": "four"');
  await page.keyboard.press('a'); // too early: ignored
  await expect(dialog).toHaveAttribute('data-keys', 'armed');
  expect(lines(counter)).toEqual(['two']);
  await page.keyboard.press('a');
  expect(await four).toMatchObject({ ok: true });
  await openView(page, 'Permissions');
  const rule = page.getByRole('list', { name: 'Stored rules' }).getByRole('listitem', { name: /Always allow append/ });
  await expect(rule).toContainText('always allow · from an approval');
  await expect(permissionRow(page, 'append')).toContainText('ALLOW');
  await rule.scrollIntoViewIfNeeded();
  await snap(page, testInfo, 'always-allow-rule');
  await rule.getByRole('button', { name: 'Revoke' }).click();
  await expect(rule).toBeHidden();
  await expect(permissionRow(page, 'append')).toContainText('ASK');
  expect(lines(counter)).toEqual(['two', 'four']);
});

test('the generated form handles arrays and booleans; Raw JSON shows a parse error inline and is kept across tabs', async ({
  page,
}, testInfo) => {
  const violations = await openApp(page, host!);
  await openView(page, 'Tools');
  const list = page.getByRole('navigation', { name: 'Tool list' });
  await page.getByRole('searchbox', { name: 'Search tools' }).fill('run_');
  await expect(list.locator('button[data-tool]')).toHaveCount(1);
  await list.locator('button[data-tool="run_command"]').click();
  const panel = callPanel(page, 'run_command');

  // argv is a required array of strings: one item to start with, more on demand.
  const argv = panel.getByRole('group', { name: /argv/ });
  await expect(argv).toContainText('1 item');
  await argv.getByRole('textbox').first().fill('echo');
  await argv.getByRole('button', { name: 'Add item' }).click();
  await argv.getByRole('textbox').nth(1).fill('hello');
  await expect(argv).toContainText('2 items');
  await snap(page, testInfo, 'form-array');

  // Raw JSON carries the same arguments; a broken edit is shown inline and runs nothing.
  await panel.getByRole('tab', { name: 'Raw JSON' }).click();
  const json = panel.getByLabel('Arguments (JSON object)');
  await expect(json).toHaveValue(/"argv": \[\s*"echo",\s*"hello"\s*\]/);
  await json.fill('{ "argv": ["echo", ');
  await panel.getByRole('button', { name: 'Run' }).click();
  await expect(panel.getByRole('alert')).toContainText('Not valid JSON');
  await expect(json).toHaveAttribute('aria-invalid', 'true');
  await expect(approvalDialog(page)).toBeHidden();
  expect(await bridge!.ok<unknown[]>('approvals.list', {})).toEqual([]);
  await snap(page, testInfo, 'raw-json-error');

  // Fixed JSON is what the form shows when switching back.
  await json.fill('{ "argv": ["echo", "from-json"] }');
  await panel.getByRole('tab', { name: 'Form' }).click();
  await expect(panel.getByRole('group', { name: /argv/ }).getByRole('textbox').nth(1)).toHaveValue('from-json');

  // Booleans are checkboxes.
  await page.getByRole('searchbox', { name: 'Search tools' }).fill('');
  await list.locator('button[data-tool="write_file"]').click();
  await expect(callPanel(page, 'write_file').getByRole('checkbox', { name: 'createDirs' })).toBeVisible();
  expect(violations).toEqual([]);
});

test('results render by kind (image, resource link, embedded resource), progress has a bar, and a name conflict is marked', async ({
  page,
}, testInfo) => {
  // The MCP project's reference server, trusted, with its read-only tools allowed.
  const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
  await bridge!.ok('servers.save', {
    mode: 'create',
    config: {
      id: 'everything',
      name: 'Everything',
      transport: 'stdio',
      command: process.execPath,
      args: [everything, 'stdio'],
      cwd: PROJECT_ROOT,
      trusted: true,
      priority: 10,
    },
  });
  await expect
    .poll(
      async () =>
        (await bridge!.ok<Array<{ config: { id: string }; status: { state: string } }>>('servers.list', {})).find(
          (s) => s.config.id === 'everything',
        )?.status.state,
      {
        timeout: 30_000,
      },
    )
    .toBe('ready');
  for (const tool of [
    'get-tiny-image',
    'get-resource-links',
    'get-resource-reference',
    'trigger-long-running-operation',
  ]) {
    await bridge!.ok('permissions.setToolLevel', { serverId: 'everything', toolName: tool, level: 'ALLOW' });
  }
  const violations = await openApp(page, host!);
  await openView(page, 'Tools');
  const list = page.getByRole('navigation', { name: 'Tool list' });

  // Both servers offer "echo"; the one with the higher priority wins the name.
  const shadowed = list.locator('button[data-tool="echo"][data-server="fx"]');
  await expect(shadowed).toContainText('By name alone, calls reach everything; Run here uses this server’s tool.');
  // Title and name are both shown whole, even on a small window (wrapped, never cut).
  await page.setViewportSize({ width: 1024, height: 640 });
  const titled = list.locator('button[data-tool="trigger-long-running-operation"][data-server="everything"]');
  for (const part of ['.tool-item-title', '.tool-item-name']) {
    const element = titled.locator(part);
    await expect(element).toBeVisible();
    expect(await element.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
  }
  await expect(titled.locator('.tool-item-name')).toHaveText('trigger-long-running-operation');
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(list.locator('button[data-tool="echo"][data-server="everything"]')).not.toContainText('name conflict');
  await shadowed.scrollIntoViewIfNeeded();
  await snap(page, testInfo, 'name-conflict');

  const run = async (tool: string) => {
    await list.locator(`button[data-tool="${tool}"][data-server="everything"]`).click();
    const panel = callPanel(page, tool);
    await panel.getByRole('button', { name: 'Run' }).click();
    return panel;
  };

  // Progress with a known total: a bar with a value.
  await list.locator('button[data-tool="trigger-long-running-operation"]').click();
  const long = callPanel(page, 'trigger-long-running-operation');
  await long.getByLabel('duration').fill('3');
  await long.getByLabel('steps').fill('3');
  await long.getByRole('button', { name: 'Run' }).click();
  const bar = long.getByRole('progressbar', { name: 'Progress' });
  await expect(bar).toHaveAttribute('aria-valuenow', /^(3[0-9]|[4-9][0-9]|100)$/, { timeout: 10_000 });
  await snap(page, testInfo, 'progress');
  await expect(long.getByRole('region', { name: 'Result' })).toContainText('Completed', { timeout: 15_000 });

  const image = await run('get-tiny-image');
  await expect(image.getByRole('img', { name: 'Image returned by the tool' })).toBeVisible();
  await image.getByRole('region', { name: 'Result' }).scrollIntoViewIfNeeded();
  await snap(page, testInfo, 'result-image');

  const links = await run('get-resource-links');
  await expect(links.getByRole('region', { name: 'Result' })).toContainText('Resource link');
  await expect(links.getByRole('region', { name: 'Result' })).toContainText('Resource 1');
  await snap(page, testInfo, 'result-resource-links');

  const reference = await run('get-resource-reference');
  await expect(reference.getByRole('region', { name: 'Result' })).toContainText('Embedded resource');
  await reference.getByRole('region', { name: 'Result' }).scrollIntoViewIfNeeded();
  await snap(page, testInfo, 'result-embedded');
  expect(violations).toEqual([]);
});
