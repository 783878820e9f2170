/**
 * MCP Apps end to end, in Chromium: a real MCP Apps server from npm
 * (@modelcontextprotocol/server-basic-vanillajs, `dist/index.js --stdio`, its `get-time` tool
 * and `ui://get-time/mcp-app.html`) in the real GUI in browser mode. Run in the Tools view, the
 * tool's app renders beside the result and shows it; the app's own button calls the tool — the
 * approval dialog names "<server>'s app" — and the new result reaches the app; History's record
 * and its replay show the app with the stored result, and the replay runs nothing.
 *
 * Run: npx playwright test test/e2e/apps.spec.ts
 */
import { join } from 'node:path';
import type { Page, TestInfo } from '@playwright/test';
import { expect, test } from '@playwright/test';
import type { HistoryRecordView, ServerView } from '../../shared/contract.js';
import { PROJECT_ROOT, waitFor } from '../helpers/fixtures.js';
import { hostPerTest } from './support/hostPerTest.js';

test.describe.configure({ timeout: 120_000 });

const BASIC_SERVER = join(
  PROJECT_ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-basic-vanillajs',
  'dist',
  'index.js',
);
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const ctx = hostPerTest('mh-e2e-apps-');

test.beforeEach(async () => {
  await ctx.bridge.ok('servers.save', {
    mode: 'create',
    config: {
      id: 'basic',
      name: 'Basic',
      transport: 'stdio',
      command: process.execPath,
      args: [BASIC_SERVER, '--stdio'],
      cwd: PROJECT_ROOT,
    },
  });
  await waitFor(
    async () =>
      ((await ctx.bridge.ok<ServerView[]>('servers.list', {})).find((s) => s.config.id === 'basic')?.toolCount ?? 0) >
      0,
    30_000,
  );
  // Every get-time asks (the person's and the app's); reading the app's HTML does not.
  await ctx.bridge.ok('permissions.setToolLevel', { serverId: 'basic', toolName: 'get-time', level: 'ASK' });
  await ctx.bridge.ok('permissions.setToolLevel', { serverId: 'basic', toolName: 'resources/read', level: 'ALLOW' });
});

async function snap(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path });
  await testInfo.attach(name, { path, contentType: 'image/png' });
}

/** The app's own element, two frames deep (the sandbox proxy, then the app). */
function inApp(page: Page, testId: string, selector: string) {
  return page.frameLocator(`[data-testid="${testId}"] iframe.app-frame-outer`).frameLocator('iframe').locator(selector);
}

async function getTimeRecords(): Promise<HistoryRecordView[]> {
  return (await ctx.bridge.ok<{ records: HistoryRecordView[] }>('history.page', { toolName: 'get-time', limit: 50 }))
    .records;
}

function timeOf(record: HistoryRecordView | undefined): string {
  const time = (record?.result?.structuredContent as { time?: unknown } | undefined)?.time;
  return typeof time === 'string' ? time : '';
}

test('a tool’s app renders its result, calls the tool as "<server>’s app" after approval, and replays from History without running', async ({
  page,
}, testInfo) => {
  await page.goto(ctx.host.url);
  await expect(page.getByRole('heading', { name: 'Servers', level: 1 })).toBeVisible();
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^Tools/ })
    .click();
  await page
    .getByRole('navigation', { name: 'Tool list' })
    .locator('button[data-tool="get-time"][data-server="basic"]')
    .click();
  const panel = page.getByRole('region', { name: 'Call get-time' });
  await panel.getByRole('button', { name: 'Run' }).click();

  // The person's own call asks first, as the person.
  const dialog = page.getByRole('alertdialog');
  await expect(dialog).toContainText('get-time');
  await expect(dialog).not.toContainText('Basic’s app');
  await expect(dialog).not.toContainText("Basic's app");
  await dialog.getByRole('button', { name: /^Allow once/ }).click();
  await expect(panel.getByRole('region', { name: 'Result' })).toBeVisible();
  const [first] = await getTimeRecords();
  const firstTime = timeOf(first);
  expect(firstTime).toMatch(ISO_TIME);

  // The app renders beside the result and shows it (tool input, then tool result, through the bridge).
  const app = panel.getByTestId('call-app');
  await expect(app).toHaveAttribute('data-app-ready', 'true');
  await expect(app).toContainText('Basic’s app');
  const shownTime = inApp(page, 'call-app', '#server-time');
  await expect(shownTime).toHaveText(firstTime);
  await app.scrollIntoViewIfNeeded();
  await snap(page, testInfo, 'app-rendered');

  // A button in the app calls the tool: through the pipeline, the approval naming the app.
  await inApp(page, 'call-app', '#get-time-btn').click();
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText(/Basic['’]s app \(a tool’s own interface, on your screen\) is waiting/);
  // The caller's name already says "app": no chip repeats it ("Basic's app app", issue 34.11).
  await expect(dialog.locator('.approval-caller')).toHaveText(/^Basic['’]s app$/);
  await expect(dialog).toContainText('get-time');
  await snap(page, testInfo, 'app-call-approval');
  await dialog.getByRole('button', { name: /^Allow once/ }).click();
  await expect.poll(async () => (await getTimeRecords()).length).toBe(2);
  const appRecord = (await getTimeRecords()).find((record) => /['’]s app$/.test(record.userId));
  expect(appRecord?.userId).toMatch(/^Basic['’]s app$/);
  const appTime = timeOf(appRecord);
  expect(appTime).toMatch(ISO_TIME);
  // The app's call's result reached the app.
  await expect(shownTime).toHaveText(appTime);
  await snap(page, testInfo, 'app-call-result');

  // History: the person's record shows the app driven by the stored result; Replay shows it again and runs nothing.
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^History/ })
    .click();
  await expect(page.getByRole('heading', { name: 'History', level: 1 })).toBeVisible();
  await page.locator(`[data-history-row][data-call-id="${first!.callId}"]`).click();
  const detail = page.getByRole('region', { name: 'Call get-time' });
  await expect(detail.getByTestId('record-app')).toHaveAttribute('data-app-ready', 'true');
  await expect(inApp(page, 'record-app', '#server-time')).toHaveText(firstTime);
  await detail.getByRole('button', { name: 'Replay' }).click();
  const replayed = detail.getByRole('region', { name: 'Replayed result' });
  await expect(replayed).toContainText('Replayed — nothing was executed');
  await expect(replayed.getByTestId('replay-app')).toHaveAttribute('data-app-ready', 'true');
  await expect(inApp(page, 'replay-app', '#server-time')).toHaveText(firstTime);
  await replayed.getByTestId('replay-app').scrollIntoViewIfNeeded();
  await snap(page, testInfo, 'app-replayed');
  // Nothing ran: no new call was recorded, and the app shows the stored time, not a new one.
  expect((await getTimeRecords()).length).toBe(2);
  await expect(page.getByRole('alertdialog')).toHaveCount(0);
});

test('an app’s open-link asks first and opens only after Open, without an opener; Close tears the app down', async ({
  page,
  context,
}, testInfo) => {
  // The link's page is answered here: the test needs no network.
  await context.route('https://modelcontextprotocol.io/**', (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: '<title>linked</title>' }),
  );
  await ctx.bridge.ok('permissions.setToolLevel', { serverId: 'basic', toolName: 'get-time', level: 'ALLOW' });
  const opened: string[] = [];
  context.on('page', (newPage) => opened.push(newPage.url()));
  await page.goto(ctx.host.url);
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^Tools/ })
    .click();
  await page
    .getByRole('navigation', { name: 'Tool list' })
    .locator('button[data-tool="get-time"][data-server="basic"]')
    .click();
  const panel = page.getByRole('region', { name: 'Call get-time' });
  await panel.getByRole('button', { name: 'Run' }).click();
  const app = panel.getByTestId('call-app');
  await expect(app).toHaveAttribute('data-app-ready', 'true');

  // Cancel: nothing opens.
  await inApp(page, 'call-app', '#open-link-btn').click();
  const dialog = page.getByRole('alertdialog', { name: 'Open a link?' });
  await expect(dialog.getByTestId('app-link-url')).toHaveText('https://modelcontextprotocol.io/');
  await expect(dialog).toContainText('Basic’s app');
  await snap(page, testInfo, 'app-open-link');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);
  expect(opened).toEqual([]);

  // Open: a new page with the link, which cannot reach back to this one.
  await inApp(page, 'call-app', '#open-link-btn').click();
  const popup = context.waitForEvent('page');
  await dialog.getByRole('button', { name: 'Open in browser' }).click();
  const linked = await popup;
  await linked.waitForLoadState();
  expect(linked.url()).toBe('https://modelcontextprotocol.io/');
  expect(await linked.evaluate('window.opener === null')).toBe(true);
  await linked.close();

  // Close: the app is asked to tear down, then leaves the panel; the result stays.
  await app.getByRole('button', { name: 'Close app' }).click();
  await expect(app).toHaveCount(0);
  await expect(panel.getByRole('region', { name: 'Result' })).toBeVisible();
});

/** Runs get-time once from the Tools view (approved) and returns its panel, with the app ready. */
async function runGetTime(page: Page) {
  await page.goto(ctx.host.url);
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^Tools/ })
    .click();
  await page
    .getByRole('navigation', { name: 'Tool list' })
    .locator('button[data-tool="get-time"][data-server="basic"]')
    .click();
  const panel = page.getByRole('region', { name: 'Call get-time' });
  await panel.getByRole('button', { name: 'Run' }).click();
  await page
    .getByRole('alertdialog')
    .getByRole('button', { name: /^Allow once/ })
    .click();
  await expect(panel.getByRole('region', { name: 'Result' })).toBeVisible();
  await expect(panel.getByTestId('call-app')).toHaveAttribute('data-app-ready', 'true');
  return panel;
}

test('an app in History and on Replay runs nothing: its own call is refused with a sentence to the app, and the person sees it', async ({
  page,
}, testInfo) => {
  await runGetTime(page);
  const [first] = await getTimeRecords();
  expect(timeOf(first)).toMatch(ISO_TIME);
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^History/ })
    .click();
  await page.locator(`[data-history-row][data-call-id="${first!.callId}"]`).click();
  const detail = page.getByRole('region', { name: 'Call get-time' });
  const recordApp = detail.getByTestId('record-app');
  await expect(recordApp).toHaveAttribute('data-app-ready', 'true');

  // The app's own button: no approval is asked, nothing runs, the app gets the refusal (it shows its error).
  await inApp(page, 'record-app', '#get-time-btn').click();
  await expect(recordApp.getByRole('note')).toContainText(/Basic['’]s app asked to call get-time/);
  await expect(inApp(page, 'record-app', '#server-time')).toHaveText('[ERROR]');
  await expect(page.getByRole('alertdialog')).toHaveCount(0);
  expect((await getTimeRecords()).length).toBe(1);
  await expect(recordApp).toContainText('nothing the app asks to run runs from here');

  // Replay: the same.
  await detail.getByRole('button', { name: 'Replay' }).click();
  const replayApp = detail.getByRole('region', { name: 'Replayed result' }).getByTestId('replay-app');
  await expect(replayApp).toHaveAttribute('data-app-ready', 'true');
  await inApp(page, 'replay-app', '#get-time-btn').click();
  await expect(replayApp.getByRole('note')).toContainText(/Basic['’]s app asked to call get-time/);
  await expect(inApp(page, 'replay-app', '#server-time')).toHaveText('[ERROR]');
  await snap(page, testInfo, 'stored-app-refused');
  await expect(page.getByRole('alertdialog')).toHaveCount(0);
  expect((await getTimeRecords()).length).toBe(1);
});

test('an app’s ui/message (its Send Message button) is shown to the person beside the app, and the app is told it was accepted', async ({
  page,
}, testInfo) => {
  const consoleLines: string[] = [];
  page.on('console', (message) => consoleLines.push(message.text()));
  const panel = await runGetTime(page);
  await inApp(page, 'call-app', '#message-text').fill('Please book the 3 pm slot');
  await inApp(page, 'call-app', '#send-message-btn').click();
  const messages = panel.getByRole('log', { name: /^Messages from Basic['’]s app$/ });
  await expect(messages).toContainText('Please book the 3 pm slot');
  await expect(messages).toContainText('no model reads it');
  await expect.poll(() => consoleLines.some((line) => line.includes('Message accepted'))).toBe(true);
  await panel.getByTestId('call-app').scrollIntoViewIfNeeded();
  await snap(page, testInfo, 'app-message');
});

test('an app’s page for a call the person decided asks nothing of its own: in the Tools view, its History record, Replay and coming back', async ({
  page,
}) => {
  // Reads of the server ask the person; the app's page for a decided call is covered by that decision.
  await ctx.bridge.ok('permissions.setToolLevel', { serverId: 'basic', toolName: 'resources/read', level: 'ASK' });
  await page.goto(ctx.host.url);
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /^Tools/ })
    .click();
  await page
    .getByRole('navigation', { name: 'Tool list' })
    .locator('button[data-tool="get-time"][data-server="basic"]')
    .click();
  const panel = page.getByRole('region', { name: 'Call get-time' });
  await panel.getByRole('button', { name: 'Run' }).click();
  // One question: the call's. The page waits for its answer.
  const dialog = page.getByRole('alertdialog');
  await expect(dialog).toContainText('get-time');
  await expect(dialog).not.toContainText('resources/read');
  await dialog.getByRole('button', { name: /^Allow once/ }).click();
  await expect(panel.getByTestId('call-app')).toHaveAttribute('data-app-ready', 'true');
  await expect(dialog).toHaveCount(0);
  const [first] = await getTimeRecords();
  await expect(inApp(page, 'call-app', '#server-time')).toHaveText(timeOf(first));

  // History: the record's app, then its replay.
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('button', { name: /^History/ }).click();
  await page.locator(`[data-history-row][data-call-id="${first!.callId}"]`).click();
  const detail = page.getByRole('region', { name: 'Call get-time' });
  await expect(detail.getByTestId('record-app')).toHaveAttribute('data-app-ready', 'true');
  await expect(dialog).toHaveCount(0);
  await detail.getByRole('button', { name: 'Replay' }).click();
  await expect(detail.getByTestId('replay-app')).toHaveAttribute('data-app-ready', 'true');
  await expect(dialog).toHaveCount(0);

  // Back to the Tools view: the panel's app renders again, unasked.
  await nav.getByRole('button', { name: /^Tools/ }).click();
  await expect(page.getByRole('region', { name: 'Call get-time' }).getByTestId('call-app')).toHaveAttribute(
    'data-app-ready',
    'true',
  );
  await expect(dialog).toHaveCount(0);
  // Every read of the page was traced as the app, and none waited for a person.
  const reads = async () =>
    (
      await ctx.bridge.ok<{ traces: Array<{ toolName: string; userId: string; status: string }> }>('traces.list', {
        toolName: 'resources/read',
        limit: 50,
      })
    ).traces;
  // Four renderings (the panel, the record, the replay, the panel again); traces are written in batches.
  await expect.poll(async () => (await reads()).filter((t) => t.status !== 'running').length).toBe(4);
  expect((await reads()).every((t) => /^Basic['’]s app$/.test(t.userId) && t.status === 'ok')).toBe(true);
});
