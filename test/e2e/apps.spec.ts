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
