/**
 * History and Traces end to end: the real browser-mode host (its own process and data folder per
 * test), the built renderer in Chromium, and the stdio fixture server whose `append` tool appends
 * a line to a file — a side effect we can count. Calls are made over the host's WebSocket bridge
 * with its token (as the page does), so they land in the GUI's own session.
 *
 * Run: npx playwright test test/e2e/history.spec.ts
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page, TestInfo } from '@playwright/test';
import { expect, test } from '@playwright/test';
import type { CallOutcome, ServerView } from '../../shared/contract.js';
import { buildFixtureServers } from '../helpers/buildFixtures.js';
import { BUILT_STDIO_FIXTURE, readLines, waitFor, sandboxWritingTo } from '../helpers/fixtures.js';
import { Bridge } from './support/bridge.js';
import type { WebHostProcess } from './support/webHost.js';
import { buildAppOnce, startWebHost } from './support/webHost.js';

test.describe.configure({ timeout: 90_000 });

let scratch: string;
let counter: string;
let host: WebHostProcess | undefined;
let bridge: Bridge | undefined;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  buildAppOnce();
  await buildFixtureServers();
});

test.beforeEach(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'mh-e2e-history-'));
  counter = join(scratch, 'counter.txt');
  host = await startWebHost({ dataDir: join(scratch, 'data') });
  bridge = await Bridge.connect(host);
  // The fixture server, connected, with its side-effect tools allowed (no approval dialog here).
  await bridge.ok('servers.save', {
    mode: 'create',
    config: {
      id: 'fx',
      name: 'Fixture',
      transport: 'stdio',
      command: process.execPath,
      args: [BUILT_STDIO_FIXTURE],
      env: { FIXTURE_COUNTER: counter },
      sandbox: sandboxWritingTo({ FIXTURE_COUNTER: counter }),
    },
  });
  await waitFor(
    async () =>
      ((await bridge!.ok<ServerView[]>('servers.list', {})).find((s) => s.config.id === 'fx')?.toolCount ?? 0) > 0,
    20_000,
  );
  await bridge.ok('permissions.setToolLevel', { serverId: 'fx', toolName: 'append', level: 'ALLOW' });
  await bridge.ok('permissions.setToolLevel', { serverId: 'fx', toolName: 'slow', level: 'ALLOW' });
});

test.afterEach(async () => {
  bridge?.close();
  await host?.stop();
  bridge = undefined;
  host = undefined;
  rmSync(scratch, { recursive: true, force: true });
});

/** A screenshot kept in the test's output folder (test-results/…) and attached to the report. */
async function snap(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path });
  await testInfo.attach(name, { path, contentType: 'image/png' });
}

async function openApp(page: Page): Promise<void> {
  await page.goto(host!.url);
  await expect(page.getByRole('heading', { name: 'Servers', level: 1 })).toBeVisible();
}

async function openView(page: Page, name: 'History' | 'Traces'): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: new RegExp(`^${name}`) })
    .click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
}

function historyRow(page: Page, callId: string) {
  return page.locator(`[data-history-row][data-call-id="${callId}"]`);
}

test('a completed call replays from History without running again; its replay trace exports as JSON', async ({
  page,
}, testInfo) => {
  const callId = `e2e-${randomUUID()}`;
  const original = await bridge!.ok<CallOutcome>('tools.call', {
    name: 'append',
    serverId: 'fx',
    args: { line: 'hello from e2e' },
    callId,
  });
  expect(original).toMatchObject({ replayed: false, attempts: 1 });
  expect(readLines(counter)).toEqual(['hello from e2e']);
  // Some more calls, so the list has something to scroll past.
  for (let i = 0; i < 3; i++)
    await bridge!.ok('tools.call', { name: 'slow', serverId: 'fx', args: { ms: 1 }, callId: `e2e-${randomUUID()}` });

  await openApp(page);
  await openView(page, 'History');
  await expect(page.getByRole('button', { name: /^Session: This app session/ })).toBeVisible();
  await expect(page.locator('[data-history-row]')).toHaveCount(4);

  await historyRow(page, callId).click();
  const detail = page.getByRole('region', { name: 'Call append' });
  await expect(detail.getByTestId('record-call-id')).toHaveText(callId);
  await expect(detail.getByRole('region', { name: 'Arguments' })).toContainText('hello from e2e');
  await expect(detail.getByRole('region', { name: 'Stored result' })).toContainText('appended hello from e2e');
  await snap(page, testInfo, 'history-selected');

  await detail.getByRole('button', { name: 'Replay' }).click();
  const replayed = detail.getByRole('region', { name: 'Replayed result' });
  await expect(replayed).toContainText('Replayed — nothing was executed');
  await expect(replayed).toContainText('appended hello from e2e');
  await snap(page, testInfo, 'history-replayed');
  // The side effect did not happen again.
  expect(readLines(counter)).toEqual(['hello from e2e']);

  // The replay left a trace of its own, with status "replayed".
  await openView(page, 'Traces');
  const list = page.getByRole('navigation', { name: 'Trace list' });
  const replayItem = list.locator('.trace-item', { has: page.locator('[data-trace-status="replayed"]') });
  await expect(replayItem).toHaveCount(1);
  await expect(replayItem).toContainText('append');
  await replayItem.click();
  const trace = page.getByRole('region', { name: 'Trace of append' });
  const timeline = trace.getByRole('list', { name: 'Timeline' });
  await expect(timeline).toContainText('Replayed the stored result — nothing was executed');
  await snap(page, testInfo, 'traces-replayed');

  // The original call's timeline: decision, claim, attempt, completed — with offsets and words.
  await trace.getByRole('button', { name: 'Open the original call’s trace' }).click();
  const originalTrace = page.getByRole('region', { name: 'Trace of append' });
  await expect(originalTrace.locator('[data-trace-status="ok"]')).toBeVisible();
  await expect(originalTrace.getByRole('list', { name: 'Timeline' })).toContainText('Decision: ALLOW');
  await expect(originalTrace.getByRole('list', { name: 'Timeline' })).toContainText('Attempt 1 succeeded');
  await expect(originalTrace.getByRole('list', { name: 'Timeline' })).toContainText('Completed');
  await originalTrace.locator('.tl-item').first().getByText('Raw data').click();
  await expect(originalTrace.locator('.tl-item').first().locator('pre')).toContainText('"type": "decision"');
  await snap(page, testInfo, 'traces-timeline');

  const downloading = page.waitForEvent('download');
  await originalTrace.getByRole('button', { name: 'Export JSON' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^trace-append-.+\.json$/);
  const file = join(scratch, 'exported.json');
  await download.saveAs(file);
  const exported = JSON.parse(readFileSync(file, 'utf8')) as {
    format: string;
    version: number;
    trace: { callId: string; status: string };
    events: Array<{ type: string }>;
  };
  expect(exported).toMatchObject({ format: 'miniharness-trace', version: 1, trace: { callId, status: 'ok' } });
  expect(exported.events.map((e) => e.type)).toContain('completed');
  expect(readLines(counter)).toEqual(['hello from e2e']);

  // From the trace back to its recorded call.
  await originalTrace.getByRole('button', { name: 'Open in History' }).click();
  await expect(page.getByRole('heading', { name: 'History', level: 1 })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Call append' }).getByTestId('record-call-id')).toHaveText(callId);
  await expect(historyRow(page, callId)).toHaveAttribute('aria-selected', 'true');
  // The list is a grid: arrow keys move the selection.
  const grid = page.getByRole('grid', { name: 'Recorded calls' });
  await grid.focus();
  await page.keyboard.press('Home');
  await expect(page.locator('[data-history-row]').first()).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('ArrowDown');
  await expect(page.locator('[data-history-row]').nth(1)).toHaveAttribute('aria-selected', 'true');
  await openView(page, 'Traces');

  // The list follows new calls live (trace.changed): a call made elsewhere appears on top.
  const liveCall = `e2e-${randomUUID()}`;
  await bridge!.ok('tools.call', { name: 'slow', serverId: 'fx', args: { ms: 5 }, callId: liveCall });
  await expect(list.locator('.trace-item').first()).toContainText('slow');
  await expect(list.locator('.trace-item')).toHaveCount(6);
});

test('a call whose result is unknown is resolved by hand as failed', async ({ page }, testInfo) => {
  const stuck = `e2e-${randomUUID()}`;
  const reply = await bridge!.call('tools.call', {
    name: 'slow',
    serverId: 'fx',
    args: { ms: 5_000 },
    callId: stuck,
    timeoutMs: 200,
  });
  expect(reply).toMatchObject({ ok: false, error: { code: 'timeout' } });
  await bridge!.ok('tools.call', {
    name: 'append',
    serverId: 'fx',
    args: { line: 'done' },
    callId: `e2e-${randomUUID()}`,
  });

  await openApp(page);
  // The sidebar marks History: one call needs attention.
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /^History/ })).toContainText(
    '1',
  );
  await openView(page, 'History');
  await expect(page.getByText('1 call needs attention')).toBeVisible();
  const row = historyRow(page, stuck);
  await expect(row).toContainText('Result unknown');
  await row.click();
  const detail = page.getByRole('region', { name: 'Call slow' });
  await expect(detail.getByRole('button', { name: 'Replay' })).toHaveCount(0);
  // Its recorded error says why; the notice does not guess.
  await expect(detail).toContainText('This call started and then failed with the error below');
  await expect(detail).toContainText('did not answer tools/call "slow" within 200 ms');
  await snap(page, testInfo, 'history-started');

  await detail.getByRole('button', { name: 'Resolve by hand…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Resolve this call by hand' });
  await expect(dialog).toContainText('Check the remote side first');
  await dialog.getByLabel(/^Note/).fill('checked: the server never ran it');
  await snap(page, testInfo, 'history-resolve-dialog');
  await dialog.getByRole('button', { name: 'Mark as failed' }).click();
  await expect(dialog).toBeHidden();

  await expect(row).toContainText('Failed');
  await expect(row).toContainText('manual');
  await expect(detail).toContainText('Resolved by hand');
  await expect(detail).toContainText('checked: the server never ran it');
  await expect(page.getByText('1 call needs attention')).toBeHidden();
  await snap(page, testInfo, 'history-resolved');

  // A failed call cannot be replayed; running it again is a new call.
  const state = await bridge!.call('history.replay', {
    sessionId: (await bridge!.ok<{ current: string }>('history.sessions', {})).current,
    callId: stuck,
  });
  expect(state).toMatchObject({ ok: false, error: { code: 'not_replayable' } });
});

test('run again makes a new call through the pipeline; an error reads in plain words', async ({ page }, testInfo) => {
  const callId = `e2e-${randomUUID()}`;
  await bridge!.ok('tools.call', { name: 'append', serverId: 'fx', args: { line: 'first' }, callId });
  await openApp(page);
  await openView(page, 'History');
  await historyRow(page, callId).click();
  const detail = page.getByRole('region', { name: 'Call append' });
  await detail.getByRole('button', { name: 'Run again as a new call' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Run this call again?' });
  await expect(confirm).toContainText('permissions again');
  await confirm.getByRole('button', { name: 'Run again' }).click();
  const ran = detail.getByRole('region', { name: 'Result of the new call' });
  await expect(ran).toContainText('Ran again as a new call');
  await expect(ran).toContainText('appended first');
  expect(readLines(counter)).toEqual(['first', 'first']);
  // The new call shows up in the list (live, from its trace).
  await expect(page.locator('[data-history-row]')).toHaveCount(2);
  await snap(page, testInfo, 'history-rerun');

  // Denied now: the same action fails with the reason in words.
  await bridge!.ok('permissions.setToolLevel', { serverId: 'fx', toolName: 'append', level: 'DENY' });
  await detail.getByRole('button', { name: 'Run again as a new call' }).click();
  await page
    .getByRole('alertdialog', { name: 'Run this call again?' })
    .getByRole('button', { name: 'Run again' })
    .click();
  await expect(detail.getByRole('alert')).toContainText('Denied: a rule denies it');
  await snap(page, testInfo, 'history-rerun-denied');
  expect(readLines(counter)).toEqual(['first', 'first']);
});

test('the Traces tool filter applies as you type and "Clear filters" resets it', async ({ page }) => {
  await bridge!.ok('tools.call', {
    name: 'append',
    serverId: 'fx',
    args: { line: 'filtered' },
    callId: `e2e-${randomUUID()}`,
  });
  for (let i = 0; i < 2; i++)
    await bridge!.ok('tools.call', { name: 'slow', serverId: 'fx', args: { ms: 1 }, callId: `e2e-${randomUUID()}` });
  await openApp(page);
  await openView(page, 'Traces');
  const items = page.getByRole('navigation', { name: 'Trace list' }).locator('.trace-item');
  await expect(items).toHaveCount(3);
  const tool = page.getByRole('combobox', { name: 'Tool' });
  await tool.fill('append');
  await expect(items).toHaveCount(1);
  await expect(items.first()).toContainText('append');
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(tool).toHaveValue('');
  await expect(items).toHaveCount(3);
});

test('at 1024×640 with a call open: Status and Call id stay in view, and the list shows several rows', async ({
  page,
}, testInfo) => {
  await page.setViewportSize({ width: 1024, height: 640 });
  const ids: string[] = [];
  for (let i = 0; i < 14; i++) {
    const callId = `e2e-small-${String(i).padStart(2, '0')}-${randomUUID()}`;
    ids.push(callId);
    await bridge!.ok('tools.call', { name: 'slow', serverId: 'fx', args: { ms: 1 }, callId });
  }
  await openApp(page);
  await openView(page, 'History');
  const newest = historyRow(page, ids.at(-1)!);
  await expect(newest).toBeVisible();
  await newest.click();
  await snap(page, testInfo, 'history-1024x640');
  // The row's own columns: Status and Call id are not clipped or scrolled out of the pane.
  for (const cell of ['.h-status', '.h-call']) await expect(newest.locator(cell)).toBeInViewport({ ratio: 1 });
  // Several rows fit whole in the list's scroller under the banner, header, filters and notices.
  const scroller = await page.locator('.h-scroller').boundingBox();
  const boxes = await Promise.all(ids.map((id) => historyRow(page, id).boundingBox()));
  const whole = boxes.filter(
    (box) => box && scroller && box.y >= scroller.y && box.y + box.height <= scroller.y + scroller.height,
  );
  expect(whole.length).toBeGreaterThanOrEqual(9);
});

test('an error sentence the trace row above already shows reads "Same as above.", its words in the tooltip and for screen readers', async ({
  page,
}) => {
  await bridge!.ok('permissions.setToolLevel', { serverId: 'fx', toolName: 'slow', level: 'DENY' });
  for (let i = 0; i < 2; i += 1) {
    const reply = await bridge!.call('tools.call', {
      name: 'slow',
      serverId: 'fx',
      args: { ms: 5 },
      callId: `e2e-${randomUUID()}`,
    });
    expect(reply).toMatchObject({ ok: false });
  }
  await openApp(page);
  await openView(page, 'Traces');
  const errors = page.getByRole('navigation', { name: 'Trace list' }).locator('.trace-item-error');
  await expect(errors).toHaveCount(2);
  const sentence = (await errors.first().textContent()) ?? '';
  expect(sentence.length).toBeGreaterThan(0);
  await expect(errors.first()).not.toHaveClass(/same-as-above/);
  // The second row says it once, quietly; the full sentence is there once on screen.
  const same = errors.nth(1);
  await expect(same).toHaveClass(/same-as-above/);
  await expect(same.locator('[aria-hidden="true"]')).toHaveText('Same as above.');
  await expect(same.locator('.visually-hidden')).toHaveText(sentence);
  await expect(same).toHaveAttribute('title', sentence);
});

test('a timeline approval request that repeats the decision reason above reads "Same as above.", its words in the tooltip and for screen readers', async ({
  page,
}) => {
  // echo of the untrusted fixture asks first; answered "deny" over the bridge.
  const call = bridge!.call('tools.call', {
    name: 'echo',
    serverId: 'fx',
    args: { text: 'hi' },
    callId: `e2e-${randomUUID()}`,
  });
  await expect.poll(async () => (await bridge!.ok<unknown[]>('approvals.list', {})).length).toBe(1);
  const [pending] = await bridge!.ok<Array<{ requestId: string }>>('approvals.list', {});
  await bridge!.ok('approvals.answer', { requestId: pending!.requestId, answer: 'deny' });
  expect(await call).toMatchObject({ ok: false });

  await openApp(page);
  await openView(page, 'Traces');
  await page.getByRole('navigation', { name: 'Trace list' }).locator('.trace-item', { hasText: 'echo' }).click();
  const timeline = page.getByRole('list', { name: 'Timeline' });
  const sentence = 'Server "fx" is not trusted, so echo asks first (its annotations are unverified hints)';
  // The decision says the reason in full; the approval request below does not repeat it.
  await expect(timeline.locator('[data-event-type="decision"] .tl-title')).toHaveText(`Decision: ASK — ${sentence}`);
  const same = timeline.locator('[data-event-type="approval_requested"] .tl-detail-text');
  await expect(same).toHaveClass(/same-as-above/);
  await expect(same.locator('[aria-hidden="true"]')).toHaveText('Same as above.');
  await expect(same.locator('.visually-hidden')).toHaveText(sentence);
  await expect(same).toHaveAttribute('title', sentence);
});
