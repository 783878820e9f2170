/**
 * What a server asks the person, end to end: the real browser-mode host, the built renderer in
 * Chromium, and `@modelcontextprotocol/server-everything` over stdio as a child of the host. Its
 * tools ask the client for an elicitation (form, link), a sampling response and the roots; the
 * person answers in the dialog, which names the server, and the tool's result shows what
 * arrived. Roots edited in the server form reach the running server (roots/list_changed, then
 * roots/list) without a reconnect.
 *
 * Run: npx playwright test test/e2e/serverRequests.spec.ts
 */
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Locator, Page, TestInfo } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { PROJECT_ROOT } from '../helpers/fixtures.js';
import { hostPerTest } from './support/hostPerTest.js';
import { serverDetail, serverRow } from './support/serverForm.js';

test.describe.configure({ timeout: 120_000 });

const context = hostPerTest('mh-e2e-asks-');
const entry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
const SERVER = 'Everything Reference';

/** Adds server-everything with the given roots; its asking tools run without an approval. */
async function addEverything(roots: string[] = [], timeoutMs = 30_000): Promise<void> {
  const { bridge } = context;
  await bridge.ok('servers.save', {
    mode: 'create',
    // A call's deadline pauses while the person answers its server's ask: the server's own timeout is enough.
    config: {
      id: 'everything',
      name: SERVER,
      transport: 'stdio',
      command: process.execPath,
      args: [entry, 'stdio'],
      cwd: PROJECT_ROOT,
      timeoutMs,
      ...(roots.length ? { roots } : {}),
    },
  });
  await expect
    .poll(async () => (await bridge.ok<Array<{ status: { state: string } }>>('servers.list', {}))[0]?.status.state, {
      timeout: 30_000,
    })
    .toBe('ready');
  for (const toolName of [
    'trigger-elicitation-request',
    'trigger-url-elicitation',
    'trigger-sampling-request',
    'get-roots-list',
    'trigger-long-running-operation',
  ]) {
    await bridge.ok('permissions.setToolLevel', { serverId: 'everything', toolName, level: 'ALLOW' });
  }
}

async function snap(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path });
  await testInfo.attach(name, { path, contentType: 'image/png' });
}

async function openTool(page: Page, name: string): Promise<Locator> {
  await page.goto(context.host.url);
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^Tools/ })
    .click();
  await page
    .getByRole('navigation', { name: 'Tool list' })
    .locator(`button[data-tool="${name}"][data-server="everything"]`)
    .click();
  return page.getByRole('region', { name: `Call ${name}` });
}

async function serverLog(): Promise<string> {
  const lines = await context.bridge.ok<Array<{ text: string }>>('servers.log', { id: 'everything' });
  return lines.map((l) => l.text).join('\n');
}

test('an elicitation form names the server; values the schema refuses stay in the dialog; Accept and Decline reach the tool', async ({
  page,
}, testInfo) => {
  await addEverything();
  const panel = await openTool(page, 'trigger-elicitation-request');
  await panel.getByRole('button', { name: 'Run' }).click();

  const dialog = page.getByRole('alertdialog', { name: `${SERVER} asks for information` });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('Please provide inputs for the following fields:');
  // Behind the dialog, the call says who it waits for: the person, not the server.
  await expect(panel.locator('.run-progress-label')).toHaveText('Waiting for your answer to the server’s question…');
  await expect(dialog).toContainText(`From server ${SERVER}`);
  // The server's defaults are filled in; a value that does not fit its schema is refused by main, at its field.
  await expect(dialog.getByLabel('Integer', { exact: true })).toHaveValue('42');
  await dialog.getByLabel(/^String\s*required$/).fill('Ada Lovelace');
  await dialog.getByLabel('String with email format', { exact: true }).fill('not-an-address');
  await snap(page, testInfo, 'elicitation-form');
  await dialog.getByRole('button', { name: 'Accept' }).click();
  await expect(dialog).toContainText('Some values do not fit what the server asked for');
  // Whole sentences naming the field; the input is marked invalid and points at its error.
  const email = dialog.getByLabel('String with email format', { exact: true });
  await expect(dialog).toContainText('String with email format does not match format "email".');
  await expect(email).toHaveAttribute('aria-invalid', 'true');
  const describedBy = (await email.getAttribute('aria-describedby'))?.split(' ')[0] ?? '';
  await expect(dialog.locator(`[id="${describedBy}"]`)).toHaveText(
    'String with email format does not match format "email".',
  );
  await expect(dialog.getByLabel(/^String\s*required$/)).not.toHaveAttribute('aria-invalid', 'true');
  await expect(dialog).toBeVisible();
  await dialog.getByLabel('String with email format', { exact: true }).fill('ada@example.com');
  await dialog.getByRole('button', { name: 'Accept' }).click();
  await expect(dialog).toBeHidden();
  await expect(panel.getByRole('region', { name: 'Result' })).toContainText('- Name: Ada Lovelace');
  await expect(panel.getByRole('region', { name: 'Result' })).toContainText('- Email: ada@example.com');
  await expect(panel.getByRole('region', { name: 'Result' })).toContainText('- Favorite Integer: 42');

  await panel.getByRole('button', { name: 'Run' }).click();
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Decline' }).click();
  await expect(dialog).toBeHidden();
  await expect(panel.getByRole('region', { name: 'Result' })).toContainText(
    'User declined to provide the requested information',
  );

  // The log says what happened, never what was typed.
  const log = await serverLog();
  expect(log).toContain('elicitation request (form, 13 fields): accept');
  expect(log).toContain('elicitation request (form, 13 fields): decline');
  expect(log).not.toContain('Ada Lovelace');
});

test("a call outlives the server's timeout while the person answers; when a call ends first, its dialog closes saying so", async ({
  page,
}, testInfo) => {
  await addEverything();
  await page.goto(context.host.url);
  // A call with a short deadline (the person takes longer than that to answer), made as an agent would.
  const timeoutMs = 1_500;
  const asked = context.bridge.call('tools.call', {
    name: 'trigger-elicitation-request',
    serverId: 'everything',
    args: {},
    callId: 'e2e-outlives',
    timeoutMs,
  });
  const dialog = page.getByRole('alertdialog', { name: `${SERVER} asks for information` });
  await expect(dialog).toBeVisible();
  // The window has passed while the dialog is open: a call started now, with the same deadline, timed out.
  const control = await context.bridge.call('tools.call', {
    name: 'trigger-long-running-operation',
    serverId: 'everything',
    args: { duration: 60, steps: 1 },
    callId: 'e2e-control',
    timeoutMs,
  });
  expect(control.ok ? 'answered' : control.error.code).toBe('timeout');
  await expect(dialog).toBeVisible();
  await dialog.getByLabel(/^String\s*required$/).fill('Grace Hopper');
  await dialog.getByRole('button', { name: 'Accept' }).click();
  await expect(dialog).toBeHidden();
  const answered = await asked;
  expect(answered.ok && JSON.stringify(answered.result)).toContain('- Name: Grace Hopper');

  // A call that ends while its dialog is open (here an agent-like caller cancels it): the dialog says the call ended.
  const cancelled = context.bridge.call('tools.call', {
    name: 'trigger-elicitation-request',
    serverId: 'everything',
    args: {},
    callId: 'e2e-ends',
  });
  await expect(dialog).toBeVisible();
  await context.bridge.ok('tools.cancel', { callId: 'e2e-ends' });
  await expect(dialog.getByRole('alert')).toContainText('The call ended');
  await expect(dialog).toContainText('nobody waits for your answer any more');
  await expect(dialog.getByRole('button', { name: 'Accept' })).toHaveCount(0);
  await snap(page, testInfo, 'elicitation-call-ended');
  const outcome = await cancelled;
  expect(outcome.ok ? 'answered' : outcome.error.code).toBe('cancelled');
  await expect(dialog).toBeHidden();
  expect(await serverLog()).toContain('withdrawn (the call that asked has ended; no answer was sent)');
});

test('a link to open shows where it leads; Decline reaches the tool and nothing opens', async ({ page }, testInfo) => {
  await addEverything();
  const panel = await openTool(page, 'trigger-url-elicitation');
  await panel.getByLabel('url').fill('https://consent.example.com/approve?session=abc');
  await panel.getByRole('button', { name: 'Run' }).click();
  const dialog = page.getByRole('alertdialog', { name: `${SERVER} asks you to open a link` });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('The link leads to consent.example.com');
  await expect(dialog.getByRole('link', { name: 'Open link' })).toHaveAttribute(
    'href',
    'https://consent.example.com/approve?session=abc',
  );
  await snap(page, testInfo, 'elicitation-link');
  const popups: Page[] = [];
  page.on('popup', (popup) => popups.push(popup));
  await dialog.getByRole('button', { name: 'Decline' }).click();
  await expect(dialog).toBeHidden();
  await expect(panel.getByRole('region', { name: 'Result' })).toContainText('User declined to open the URL');
  expect(popups).toEqual([]);
});

test('a link asked for by the error path (-32042) is shown with its host to open deliberately; History files the call as failed, not as a timeout', async ({
  page,
}, testInfo) => {
  await addEverything();
  const panel = await openTool(page, 'trigger-url-elicitation');
  await panel.getByLabel('url').fill('https://consent.example.com/approve');
  await panel.getByLabel('errorPath').check();
  const popups: Page[] = [];
  page.on('popup', (popup) => popups.push(popup));
  await panel.getByRole('button', { name: 'Run' }).click();

  const failure = panel.getByRole('region', { name: 'Call failed' });
  await expect(failure).toHaveAttribute('data-code', 'url_elicitation_required');
  await expect(failure).toContainText('Open a link first');
  await expect(failure).toContainText('needs you to open a link at modelcontextprotocol.io');
  await expect(failure).toContainText('Nothing ran.');
  const links = failure.getByRole('list', { name: 'Links to open' });
  await expect(links).toContainText('The link leads to modelcontextprotocol.io');
  await expect(links).toContainText('Open this link to satisfy the prerequisite');
  await expect(links.getByRole('link', { name: 'Open link' })).toHaveAttribute(
    'href',
    'https://modelcontextprotocol.io/',
  );
  await expect(failure).not.toContainText('did not answer');
  await snap(page, testInfo, 'url-elicitation-error-path');
  expect(popups).toEqual([]);

  // History: a coded failure, nothing to resolve by hand.
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^History/ })
    .click();
  const row = page.locator('[data-history-row]');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('Failed');
  await expect(row).not.toContainText('Result unknown');
  await row.click();
  const detail = page.getByRole('region', { name: 'Call trigger-url-elicitation' });
  await expect(detail).toContainText('url_elicitation_required');
  await expect(detail).not.toContainText('Its result is unknown');
  await expect(detail.getByRole('button', { name: 'Resolve by hand…' })).toHaveCount(0);
});

test('a sampling request shows the prompt and max tokens; the response the person writes reaches the tool, a rejection too', async ({
  page,
}, testInfo) => {
  await addEverything();
  const panel = await openTool(page, 'trigger-sampling-request');
  await panel.getByLabel('prompt').fill('Name a colour');
  await panel.getByRole('button', { name: 'Run' }).click();

  const dialog = page.getByRole('alertdialog', { name: `${SERVER} asks for a model response` });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('Name a colour');
  await expect(dialog).toContainText('You are a helpful test server.');
  await expect(dialog.locator('.ask-sampling-props')).toContainText('Max tokens100');
  await expect(dialog.getByRole('button', { name: 'Send response' })).toBeDisabled();
  await dialog.getByLabel('Response', { exact: true }).fill('Teal, obviously.');
  await snap(page, testInfo, 'sampling');
  await dialog.getByRole('button', { name: 'Send response' }).click();
  await expect(dialog).toBeHidden();
  const result = panel.getByRole('region', { name: 'Result' });
  await expect(result).toContainText('Teal, obviously.');
  await expect(result).toContainText('"model": "human"');

  await panel.getByRole('button', { name: 'Run' }).click();
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Reject' }).click();
  await expect(dialog).toBeHidden();
  await expect(panel).toContainText('The person rejected the sampling request');
});

test('roots: the configured folder is listed; a folder added in the server form reaches the running server', async ({
  page,
}, testInfo) => {
  const first = join(context.scratch, 'project-a');
  const second = join(context.scratch, 'project-b');
  mkdirSync(first);
  mkdirSync(second);
  await addEverything([first]);
  const panel = await openTool(page, 'get-roots-list');
  await panel.getByRole('button', { name: 'Run' }).click();
  await expect(panel.getByRole('region', { name: 'Result' })).toContainText(pathToFileURL(first).href);

  // Edit the server in the GUI: add a second folder.
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^Servers/ })
    .click();
  await serverRow(page, SERVER).click();
  const detail = serverDetail(page, SERVER);
  await detail.getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('dialog');
  await expect(edit.getByLabel('Folder 1', { exact: true })).toHaveValue(first);
  await edit.getByRole('button', { name: 'Add folder' }).click();
  await edit.getByLabel('Folder 2', { exact: true }).fill(second);
  await snap(page, testInfo, 'roots-form');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await expect(edit).toBeHidden();
  await expect(detail).toContainText(second);

  // The server was told (list_changed) and listed the roots again, on the same connection.
  await expect.poll(serverLog, { timeout: 20_000 }).toContain('roots/list answered with 2 folders');
  const log = await serverLog();
  expect(log).toContain('roots changed (2 folders); the server was told');
  expect(log.match(/ready: /g)).toHaveLength(1);

  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^Tools/ })
    .click();
  await page
    .getByRole('navigation', { name: 'Tool list' })
    .locator('button[data-tool="get-roots-list"][data-server="everything"]')
    .click();
  await panel.getByRole('button', { name: 'Run' }).click();
  await expect(panel.getByRole('region', { name: 'Result' })).toContainText(pathToFileURL(second).href);
  await expect(panel.getByRole('region', { name: 'Result' })).toContainText('2 total');
});
