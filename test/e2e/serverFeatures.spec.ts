/**
 * The server detail's Resources and Prompts tabs (issue 11), in the real browser-mode host and
 * the built renderer in Chromium, against the MCP project's reference server
 * (`@modelcontextprotocol/server-everything` over stdio) and the paged stdio fixture:
 *
 * - browse and read: a resource is read when chosen (a trace of its own); a template's variable
 *   is completed by the server and read; a subscription marks the resource when the server says
 *   it changed; a resource the server adds while connected appears without a reload;
 * - prompts: arguments completed by the server (the second narrowed by the first), a required
 *   argument checked before anything is sent, the messages and their trace;
 * - bounds: a small image is previewed, a large blob only described.
 *
 * Run: npx playwright test test/e2e/serverFeatures.spec.ts
 */
import { createRequire } from 'node:module';
import type { Locator, Page, TestInfo } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { BUILT_STDIO_FIXTURE, PROJECT_ROOT } from '../helpers/fixtures.js';
import { hostPerTest } from './support/hostPerTest.js';
import { serverDetail, serverRow } from './support/serverForm.js';

test.describe.configure({ timeout: 120_000 });

const context = hostPerTest('mh-e2e-features-');
const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

async function snap(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path });
  await testInfo.attach(name, { path, contentType: 'image/png' });
}

/** Adds a server over the bridge and waits until it is ready. */
async function addServer(config: Record<string, unknown>): Promise<void> {
  await context.bridge.ok('servers.save', { mode: 'create', config });
  await expect
    .poll(
      async () =>
        (
          await context.bridge.ok<Array<{ config: { id: string }; status: { state: string } }>>('servers.list', {})
        ).find((s) => s.config.id === config.id)?.status.state,
      {
        timeout: 30_000,
      },
    )
    .toBe('ready');
}

async function addEverything(): Promise<void> {
  await addServer({
    id: 'everything',
    name: 'Everything',
    transport: 'stdio',
    command: process.execPath,
    args: [everything, 'stdio'],
    cwd: PROJECT_ROOT,
  });
}

/** Content Security Policy violations the page reported (the tabs show images and data: links). */
let violations: string[] = [];

/** Opens the app on one server's tab; returns the server's detail pane. */
async function openTab(page: Page, serverName: string, tab: 'Resources' | 'Prompts'): Promise<Locator> {
  violations = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  await page.goto(context.host.url);
  await serverRow(page, serverName).click();
  const detail = serverDetail(page, serverName);
  await detail.getByRole('tab', { name: new RegExp(`^${tab}`) }).click();
  return detail;
}

/** Calls one of the server's tools over the bridge, allowed first (the tools ask by default). */
async function runTool(serverId: string, name: string, args: Record<string, unknown>, callId: string): Promise<void> {
  await context.bridge.ok('permissions.setToolLevel', { serverId, toolName: name, level: 'ALLOW' });
  await context.bridge.ok('tools.call', { name, serverId, args, callId });
}

async function traceCount(toolName: string): Promise<number> {
  const { traces } = await context.bridge.ok<{ traces: unknown[] }>('traces.list', { toolName });
  return traces.length;
}

test('Resources: read on choosing, a template completed and read, a subscription marked, a new resource appears live', async ({
  page,
}, testInfo) => {
  await addEverything();
  const detail = await openTab(page, 'Everything', 'Resources');
  const list = detail.getByRole('navigation', { name: 'Resources and templates' });
  await expect(list.getByRole('list', { name: 'Resources' })).toContainText('features.md');
  await expect(detail.getByRole('tab', { name: /^Resources/ }).locator('.tab-count')).toHaveText(/\d+/);
  // The tab takes the view's whole width (the server list steps aside, "All servers" brings it
  // back), so a resource's URI is shown on one line, not broken mid-word.
  await expect(page.getByRole('navigation', { name: 'Server list' })).toBeHidden();
  await expect(detail.getByRole('button', { name: 'All servers' })).toBeVisible();
  const featuresUri = list.locator('button[data-uri="demo://resource/static/document/features.md"] .feature-item-uri');
  await expect(featuresUri).toHaveText('demo://resource/static/document/features.md');
  expect(
    await featuresUri.evaluate((element) => {
      const range = element.ownerDocument.createRange();
      range.selectNodeContents(element);
      return range.getClientRects().length;
    }),
  ).toBe(1);

  // Choosing a resource reads it; the read is a trace of its own.
  await list.locator('button[data-uri="demo://resource/static/document/features.md"]').click();
  const panel = detail.getByRole('region', { name: 'Resource features.md' });
  const contents = panel.getByRole('region', { name: 'Contents' });
  await expect(contents).toContainText('text/markdown');
  await expect(contents.locator('pre')).not.toBeEmpty();
  expect(await traceCount('resources/read')).toBe(1);
  await snap(page, testInfo, 'resource-read');

  // Subscribe; the server's update (started by its own tool) marks the resource; reading again clears it.
  await panel.getByRole('button', { name: 'Subscribe to updates' }).click();
  // A status says it is subscribed; the button says what it does next.
  await expect(panel.getByRole('status').filter({ hasText: 'Subscribed to updates' })).toBeVisible();
  await expect(panel.getByRole('button', { name: 'Unsubscribe' })).toBeVisible();
  await expect(list.locator('button[data-uri="demo://resource/static/document/features.md"]')).toContainText(
    'subscribed',
  );
  await runTool('everything', 'toggle-subscriber-updates', {}, 'call-toggle-updates-1');
  const changed = panel.getByRole('status').filter({ hasText: 'Changed on the server' });
  await expect(changed).toBeVisible();
  await expect(list.locator('button[data-uri="demo://resource/static/document/features.md"]')).toContainText('updated');
  await snap(page, testInfo, 'resource-updated');
  await runTool('everything', 'toggle-subscriber-updates', {}, 'call-toggle-updates-2'); // stops them
  await changed.getByRole('button', { name: 'Read again' }).click();
  await expect(changed).toBeHidden();
  expect(await traceCount('resources/read')).toBe(2);

  // A template: its variable is completed by the server, then read into the URI it expands to.
  await list
    .getByRole('list', { name: 'Resource templates' })
    .getByRole('button', { name: /Dynamic Blob Resource/ })
    .click();
  const template = detail.getByRole('region', { name: 'Template Dynamic Blob Resource' });
  const variable = template.getByRole('combobox', { name: 'resourceId' });
  // Its variable is a path segment: required (not "optional"); left empty, it is asked for and nothing is read.
  await expect(template.getByText('optional')).toHaveCount(0);
  await template.getByRole('button', { name: 'Read' }).click();
  await expect(variable).toHaveAttribute('aria-invalid', 'true');
  await expect(template.getByText('Required.')).toBeVisible();
  expect(await traceCount('resources/read')).toBe(2);
  await variable.fill('42');
  await template.getByRole('listbox', { name: 'Suggestions' }).getByRole('option', { name: '42' }).click();
  await expect(variable).toHaveValue('42');
  await template.getByRole('button', { name: 'Read' }).click();
  const blob = template.getByRole('region', { name: 'Contents' });
  await expect(blob).toContainText('demo://resource/dynamic/blob/42');
  await expect(blob).toContainText('Binary');
  await expect(blob.getByRole('link', { name: 'Save' })).toHaveAttribute('download', '42');
  await snap(page, testInfo, 'template-read');

  // The server adds a resource while connected (notifications/resources/list_changed): it appears without a reload.
  await runTool(
    'everything',
    'gzip-file-as-resource',
    { name: 'hello.txt.gz', data: 'data:text/plain;base64,aGVsbG8=', outputType: 'resourceLink' },
    'call-gzip-resource-1',
  );
  await expect(list.locator('button[data-uri="demo://resource/session/hello.txt.gz"]')).toBeVisible();
  await snap(page, testInfo, 'resource-added-live');
  expect(violations).toEqual([]);
});

test('Prompts: arguments completed by the server, a required one checked first, the messages and their trace', async ({
  page,
}, testInfo) => {
  await addEverything();
  const detail = await openTab(page, 'Everything', 'Prompts');
  const list = detail.getByRole('navigation', { name: 'Prompts' });

  // A required argument left empty: refused in the form, nothing sent.
  await list.locator('button[data-prompt="args-prompt"]').click();
  const args = detail.getByRole('region', { name: 'Prompt args-prompt' });
  await args.getByRole('button', { name: 'Get prompt' }).click();
  await expect(args.getByText('Required.')).toBeVisible();
  await expect(args.getByRole('combobox', { name: 'city' })).toHaveAttribute('aria-invalid', 'true');
  expect(await traceCount('prompts/get')).toBe(0);

  // The first argument completes from what is typed; the second is narrowed by the first.
  await list.locator('button[data-prompt="completable-prompt"]').click();
  const team = detail.getByRole('region', { name: 'Prompt completable-prompt' });
  const department = team.getByRole('combobox', { name: 'department' });
  await department.fill('En');
  const suggestions = team.getByRole('listbox', { name: 'Suggestions' });
  await expect(suggestions.getByRole('option')).toHaveText(['Engineering']);
  await suggestions.getByRole('option', { name: 'Engineering' }).click();
  await expect(department).toHaveValue('Engineering');
  const member = team.getByRole('combobox', { name: 'name' });
  await member.focus();
  await expect(suggestions.getByRole('option')).toHaveText(['Alice', 'Bob', 'Charlie']);
  await snap(page, testInfo, 'prompt-completion');
  // The open list does not cover the form's button: a click on Get prompt cannot pick a suggestion.
  const listBox = await suggestions.boundingBox();
  const getBox = await team.getByRole('button', { name: 'Get prompt' }).boundingBox();
  expect(listBox && getBox && listBox.y + listBox.height <= getBox.y).toBe(true);
  await member.press('ArrowDown');
  await member.press('ArrowDown');
  await member.press('Enter');
  await expect(member).toHaveValue('Bob');

  await team.getByRole('button', { name: 'Get prompt' }).click();
  const messages = team.getByRole('region', { name: 'Prompt messages' });
  await expect(messages.getByRole('list', { name: 'Messages' })).toContainText(
    'Please promote Bob to the head of the Engineering team.',
  );
  await snap(page, testInfo, 'prompt-messages');
  expect(await traceCount('prompts/get')).toBe(1);
  await messages.getByRole('button', { name: 'View trace' }).click();
  await expect(page.getByRole('heading', { name: 'Traces', level: 1 })).toBeVisible();
  await expect(page.getByRole('main')).toContainText('prompts/get');
  expect(violations).toEqual([]);
});

test('Bounds: a small image is previewed and can be saved; a large blob is described, not loaded', async ({
  page,
}, testInfo) => {
  await addServer({
    id: 'fx',
    name: 'Fixture',
    transport: 'stdio',
    command: process.execPath,
    args: [BUILT_STDIO_FIXTURE],
    cwd: PROJECT_ROOT,
    env: { FIXTURE_FEATURES: '1', FIXTURE_TOOLS: 'echo' },
  });
  const detail = await openTab(page, 'Fixture', 'Resources');
  const list = detail.getByRole('navigation', { name: 'Resources and templates' });

  await list.locator('button[data-uri="fixture://image/dot.png"]').click();
  const image = detail.getByRole('region', { name: 'Resource Dot' }).getByRole('region', { name: 'Contents' });
  await expect(image.getByRole('img', { name: 'Preview of fixture://image/dot.png' })).toBeVisible();
  await expect(image.getByRole('link', { name: 'Save' })).toHaveAttribute('download', 'dot.png');
  await snap(page, testInfo, 'image-preview');

  await list.locator('button[data-uri="fixture://blob/large"]').click();
  const large = detail.getByRole('region', { name: 'Resource Large blob' }).getByRole('region', { name: 'Contents' });
  await expect(large).toContainText('3.0 MB');
  await expect(large).toContainText('Not loaded into the app');
  await expect(large.getByRole('link', { name: 'Save' })).toHaveCount(0);
  await snap(page, testInfo, 'large-blob');

  // A server that declared no prompts: the tab says so instead of asking.
  await addServer({
    id: 'plain',
    name: 'Plain',
    transport: 'stdio',
    command: process.execPath,
    args: [BUILT_STDIO_FIXTURE],
    cwd: PROJECT_ROOT,
    env: { FIXTURE_TOOLS: 'echo' },
  });
  // The Resources tab has the whole width: "All servers" brings the list back.
  await detail.getByRole('button', { name: 'All servers' }).click();
  await serverRow(page, 'Plain').click();
  const plain = serverDetail(page, 'Plain');
  await plain.getByRole('tab', { name: /^Prompts/ }).click();
  await expect(plain.getByRole('heading', { name: 'No prompts' })).toBeVisible();
  await expect(plain).toContainText('This server does not offer prompts');
  expect(violations).toEqual([]);
});
